"""The given-names list discovery types people with: read from the packaged data file, without
importing the package's (GPL) code."""

from __future__ import annotations

import subprocess
import sys

from warehouse.given_names import given_names_file, load_given_names, parse_given_names


def test_parses_single_names_and_skips_comments_equivalences_and_compounds() -> None:
    lines = [
        "# a comment line that is long enough to have a name field in it",
        "M  Sanjay                                       1",
        "?F Quoc                                         1",
        "=  Mohamed                    Mohammed",
        "M  Jean+Pierre                                  1",
        "F  Ann                       ",
        "short",
    ]
    assert parse_given_names(lines) == {"Sanjay", "Quoc", "Ann"}


def test_the_packaged_list_knows_names_from_many_countries() -> None:
    assert given_names_file() is not None
    names = load_given_names()
    assert len(names) > 30_000
    assert {"Sanjay", "Quoc", "Yann", "Ilya", "Andrej", "Oriol"} <= names
    assert "Sanjay Ghemawat" not in names


def test_reading_it_never_imports_the_packages_code() -> None:
    code = (
        "import sys; from warehouse.given_names import load_given_names; "
        "assert len(load_given_names()) > 30000; "
        "assert 'gender_guesser' not in sys.modules, 'the GPL code was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
