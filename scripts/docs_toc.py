"""Write or refresh the table of contents of a Markdown page in docs/: a ``## Contents`` section
before the page's first ``##`` heading, one link per ``##`` heading (and per ``###`` heading
with ``--depth 3``), with the anchors GitHub gives those headings. ``tests/test_docs.py`` checks
the result: every page over 200 lines opens with a contents list naming all its ``##``
headings, and every anchor exists.

    python scripts/docs_toc.py docs/journal/2026-11-28.md [--depth 3]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

CONTENTS = "## Contents"
_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6}) +(.+?) *#* *$")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the text without Markdown links, images and emphasis
    marks, lower case, every character that is not a letter, digit, ``_``, ``-`` or space
    dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every ATX heading outside fenced code blocks."""
    found: list[tuple[int, int, str]] = []
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append((i, len(match.group(1)), match.group(2)))
    return found


def anchors(lines: list[str]) -> dict[int, str]:
    """Line index of each heading → its anchor, duplicates numbered as GitHub does."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for i, _level, text in headings(lines):
        base = slug(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[i] = base if n == 0 else f"{base}-{n}"
    return out


def with_contents(text: str, depth: int = 2) -> str:
    """``text`` with its ``## Contents`` section (re)written before the first ``##`` heading."""
    lines = text.split("\n")
    found = headings(lines)
    old = [i for i, level, title in found if level == 2 and title == "Contents"]
    if old:  # drop the old section, up to the next heading
        start = old[0]
        end = next((i for i, _, _ in found if i > start), len(lines))
        lines = lines[:start] + lines[end:]
        found = headings(lines)
    names = anchors(lines)
    entries = [
        "  " * (level - 2) + f"- [{title}](#{names[i]})"
        for i, level, title in found
        if 2 <= level <= depth
    ]
    first = next(i for i, level, _ in found if level == 2)
    block = [CONTENTS, "", *entries, ""]
    return "\n".join(lines[:first] + block + lines[first:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--depth", type=int, default=2, choices=(2, 3))
    arguments = parser.parse_args()
    for page in arguments.pages:
        page.write_text(with_contents(page.read_text(encoding="utf-8"), arguments.depth))


if __name__ == "__main__":
    main()
