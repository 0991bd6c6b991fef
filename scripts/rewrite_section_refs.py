"""Point every section reference at a page of this repository: ``DESIGN §N`` (the design notes
kept outside the repository) becomes ``docs/design.md §N`` and ``spec §N`` (the interface
specification) becomes ``docs/api.md §N``; both pages keep those section numbers. Python
comments and docstrings that grow past 100 characters are re-wrapped, the overflow carried into
the next line of the same comment or paragraph. Idempotent: run it again after a merge.

    python scripts/rewrite_section_refs.py          # rewrite in place, list the files changed
    python scripts/rewrite_section_refs.py --check  # exit 1 when something is left to rewrite

``tests/test_docs.py`` fails on a reference left in the old form, and on one whose page or
section does not exist.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".md", ".ipynb")
SKIPPED_DIRS = {"data", "node_modules", "__pycache__"}
LINE_LIMIT = 100
# old form -> page; built from parts so that this file holds no reference itself
REWRITES = {"DESIGN" + " §": "docs/design.md §", "spec" + " §": "docs/api.md §"}
OLD = re.compile("|".join(re.escape(old) for old in REWRITES))
# Text the API serves: rewriting it would change the API's answers, so it is left as it is.
SERVED = {"analytics/profiles.py": ("labels need at least",)}


def files() -> list[Path]:
    found = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in SKIPPED_DIRS for p in parts[:-1]):
            continue
        if path.suffix in SUFFIXES and path.is_file() and path != Path(__file__).resolve():
            found.append(path)
    return found


def rewrite_lines(lines: list[str], served: tuple[str, ...]) -> list[str]:
    return [
        line
        if any(marker in line for marker in served)
        else OLD.sub(lambda m: REWRITES[m.group(0)], line)
        for line in lines
    ]


def _text_lines(source: str) -> tuple[set[int], dict[int, tuple[int, int]]]:
    """0-based lines that are whole-line comments, and line -> (first, last) line of the
    triple-quoted string it is inside."""
    comments: set[int] = set()
    strings: dict[int, tuple[int, int]] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
            comments.add(token.start[0] - 1)
            continue
        triple = token.string.lstrip("rbuRBUfF")[:3] in ('"""', "'''")
        if token.type == tokenize.STRING and triple:
            first, last = token.start[0] - 1, token.end[0] - 1
            for n in range(first, last + 1):
                strings[n] = (first, last)
    return comments, strings


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def rewrap(source: str) -> str:
    """``source`` with every comment or docstring line over the limit wrapped onto the next."""
    while True:
        lines = source.split("\n")
        comments, strings = _text_lines(source)
        long = [n for n in sorted(comments | set(strings)) if len(lines[n]) > LINE_LIMIT]
        if not long:
            return source
        n = long[0]
        line = lines[n]
        prefix = _indent(line) + ("# " if n in comments else "")
        cut = line.rfind(" ", len(prefix) + 1, LINE_LIMIT + 1)
        if cut < 0:
            raise SystemExit(f"cannot wrap line {n + 1}: {line}")
        head, overflow = line[:cut].rstrip(), line[cut + 1 :]
        following = lines[n + 1] if n + 1 < len(lines) else ""
        if n in comments:
            joins = n + 1 in comments and _indent(following) == _indent(line)
            joins = joins and following.strip() != "#"
        else:
            last = strings[n][1]
            joins = n + 1 <= last and bool(following.strip()) and following.strip() != '"""'
            joins = joins and _indent(following) == prefix and '"""' not in overflow
            joins = joins and not following.lstrip().startswith(("- ", "* ", ">>>"))
        if joins:
            lines[n + 1] = prefix + overflow + " " + following[len(prefix) :]
            lines[n] = head
        else:
            lines[n : n + 1] = [head, prefix + overflow]
        source = "\n".join(lines)


def rewrite(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    served = SERVED.get(path.relative_to(ROOT).as_posix(), ())
    new = "\n".join(rewrite_lines(text.split("\n"), served))
    if path.suffix == ".py" and new != text:
        new = rewrap(new)
    return new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    check = parser.parse_args().check
    changed = []
    for path in files():
        new = rewrite(path)
        if new != path.read_text(encoding="utf-8"):
            changed.append(path.relative_to(ROOT).as_posix())
            if not check:
                path.write_text(new, encoding="utf-8")
    sys.stdout.write("".join(f"{name}\n" for name in changed))
    if check and changed:
        sys.exit(1)


if __name__ == "__main__":
    main()
