"""The docs lead a reader: every page of ``docs/`` is in the index (``docs/README.md``), every
page over 200 lines opens with a table of contents naming all its sections, every link between
Markdown files and every anchor resolves, and every section reference (``docs/design.md §7``)
in code, tests and docs names a page of this repository and a numbered section it has."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest

from scripts.docs_toc import anchors, headings
from scripts.rewrite_section_refs import OLD, SERVED

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
INDEX = DOCS / "README.md"
TOC_FROM_LINES = 200
SKIPPED_DIRS = {"data", "node_modules", "__pycache__"}

# A Markdown link or image: [text](target); targets with a scheme are not ours to check.
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# "<page>.md §N", a link's closing characters allowed between (``[design.md](design.md) §7``),
# then more numbers: "§8, §10", "§4.5–4.9", "§3–§6", "§2 and §7".
_NUMBER = r"\d+(?:\.\d+)*"
_ITEM = rf"§ ?{_NUMBER}(?: ?[–-] ?§?{_NUMBER})?"
_SECTION_REF = re.compile(
    rf"(?P<page>[\w./-]+\.md)[)`\]]* (?P<refs>{_ITEM}(?:(?:, and |, | and ){_ITEM})*)"
)
_NUMBERED_HEADING = re.compile(rf"^(?P<number>{_NUMBER})\.? ")


def _markdown_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def _repository_files(*suffixes: str) -> list[Path]:
    """Our source and documentation files: no hidden folders, no data dir, no caches."""
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in SKIPPED_DIRS for p in parts[:-1]):
            continue
        if path.suffix in suffixes and path.is_file():
            found.append(path)
    return sorted(found)


def _lines(page: Path) -> list[str]:
    return page.read_text(encoding="utf-8").split("\n")


def _strip_code(text: str) -> str:
    """The text without fenced code blocks and inline code (links there are not links)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _section_numbers(page: Path) -> set[str]:
    numbers = set()
    for _, level, title in headings(_lines(page)):
        match = _NUMBERED_HEADING.match(title)
        if level >= 2 and match:
            numbers.add(match.group("number"))
    return numbers


def _resolve(target: str, page: Path) -> Path:
    return (page.parent / target).resolve()


def _listed(index: Path) -> list[Path]:
    """The pages an index lists: the first link of each list item or table row."""
    return [
        _resolve(target, index)
        for line in index.read_text(encoding="utf-8").splitlines()
        if line.startswith(("- ", "| "))
        for target in _LINK.findall(line)[:1]
    ]


def test_every_docs_page_is_in_the_index_once() -> None:
    """A page of ``docs/`` is listed in ``docs/README.md``; a page of a folder below it
    (``docs/decisions/``, ``docs/journal/``) in that folder's ``README.md``, which
    ``docs/README.md`` lists."""
    missing, twice = [], set()
    for page in sorted(DOCS.rglob("*.md")):
        if page == INDEX:
            continue
        index = (
            page.parent / "README.md"
            if page.name != "README.md"
            else page.parent.parent / "README.md"
        )
        if page.parent == DOCS:
            index = INDEX
        if not index.is_file():
            missing.append(f"{page.relative_to(ROOT)} (no {index.relative_to(ROOT)})")
            continue
        listed = _listed(index)
        if page.resolve() not in listed:
            missing.append(f"{page.relative_to(ROOT)} (not in {index.relative_to(ROOT)})")
        elif listed.count(page.resolve()) > 1:
            twice.add(str(page.relative_to(ROOT)))
    assert not missing, f"pages missing from their index: {missing}"
    assert not twice, f"listed more than once in their index: {twice}"


@pytest.mark.parametrize("page", _markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_long_page_opens_with_a_table_of_contents(page: Path) -> None:
    lines = _lines(page)
    if len(lines) <= TOC_FROM_LINES:
        return
    found = headings(lines)
    second = [(i, title) for i, level, title in found if level == 2]
    assert second and second[0][1] == "Contents", (
        f"{page.name} has {len(lines)} lines: its first section must be '## Contents' "
        "(python scripts/docs_toc.py writes it)"
    )
    start = second[0][0]
    end = second[1][0] if len(second) > 1 else len(lines)
    listed = set(re.findall(r"\]\(#([^)]+)\)", "\n".join(lines[start:end])))
    names = anchors(lines)
    wanted = {names[i] for i, _ in second[1:]}
    assert wanted <= listed, f"{page.name}: sections missing from Contents: {wanted - listed}"


@pytest.mark.parametrize("page", _markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_strip_code(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto:
        path_part, _, anchor = target.partition("#")
        linked = _resolve(path_part, page) if path_part else page
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(_lines(linked)).values():
            broken.append(f"{target} (no such heading)")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def _references(text: str) -> list[tuple[str, list[str]]]:
    """(page, section numbers) of every section reference in ``text``; a range gives both ends."""
    return [
        (match.group("page"), re.findall(_NUMBER, match.group("refs")))
        for match in _SECTION_REF.finditer(text)
    ]


def _target(page: str, source: Path) -> Path | None:
    for candidate in (source.parent / page, ROOT / page, DOCS / page):
        if candidate.is_file():
            return candidate.resolve()
    return None


def test_every_section_reference_names_a_page_and_section_that_exist() -> None:
    dangling = []
    numbers: dict[Path, set[str]] = {}
    files = _repository_files(".py", ".md")
    for source in files:
        for page, sections in _references(source.read_text(encoding="utf-8")):
            target = _target(page, source)
            where = f"{source.relative_to(ROOT)}: {page}"
            if target is None:
                dangling.append(f"{where} (no such page)")
                continue
            known = numbers.setdefault(target, _section_numbers(target))
            dangling += [f"{where} §{n}" for n in sections if n not in known]
    assert not dangling, "section references without a target:\n" + "\n".join(dangling)
    assert len(files) > 100  # the walk really read the repository


def test_the_reference_pattern_reads_lists_and_ranges() -> None:
    text = (
        "(docs/design.md §8, §10) [design.md](design.md) §3–§6 "
        "docs/api.md §4.5–4.9, docs/design.md §7 and §9"
    )
    assert _references(text) == [
        ("docs/design.md", ["8", "10"]),
        ("design.md", ["3", "6"]),
        ("docs/api.md", ["4.5", "4.9"]),
        ("docs/design.md", ["7", "9"]),
    ]


def test_no_reference_to_a_document_outside_the_repository() -> None:
    """The design notes and the interface specification are cited through the repository's
    pages (``python scripts/rewrite_section_refs.py`` rewrites the old form). Text the API
    serves is left alone (``SERVED``): changing it would change the API's answers."""
    left = []
    for source in _repository_files(".py", ".md", ".ipynb"):
        if source.name == "rewrite_section_refs.py":
            continue  # the rewrite names the old forms it rewrites
        served = SERVED.get(source.relative_to(ROOT).as_posix(), ())
        for number, line in enumerate(source.read_text(encoding="utf-8").split("\n"), 1):
            if OLD.search(line) and not any(marker in line for marker in served):
                left.append(f"{source.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not left, "references to documents outside the repository:\n" + "\n".join(left)


# A page of ours written out as a path in code, tests, data and docs ("see docs/quality.md"), not
# only as a Markdown link: the reference pages split into docs/decisions/ and docs/journal/, so
# these paths are what a moved page breaks.
_DOC_PATH = re.compile(r"(?<![\w/.-])(?:\.\./)*(docs/[\w./-]*\w\.md)")
# A path or a link to a page, then the name of one of its sections in quotes:
# docs/quality.md, "Stories" / [quality.md](quality.md) ("Stories" / docs/quality.md "Stories".
_QUOTED_SECTION = re.compile(
    r"(?:(?<![\w/.-])(?:\.\./)*(?P<path>docs/[\w./-]*\w\.md)|\]\((?P<link>[^)\s#:]+\.md)\))"
    r"(?:'s)?,?[ \n]*\(?(?P<q>[\"'])(?P<name>[^\"'\n]+(?:\n[^\"'\n]+)?)(?P=q)"
)
# The pages whose sections are cited by name: the current figures, the journal, the decisions.
_CITED_BY_NAME = re.compile(r"docs/(benchmarks\.md|quality\.md|journal/.+|decisions/.+)$")
# docs/changelog.md is served at GET /v1/changelog: its text is part of the API's answers and
# keeps the citations it was published with.
_SERVED_PAGES = {"docs/changelog.md"}


@functools.cache
def _cited_files() -> tuple[Path, ...]:
    return (ROOT / "Makefile", *_repository_files(".py", ".md", ".json"))


def _normal(text: str) -> str:
    """Case, backticks, line breaks and a comment's ``#`` at a line's start do not count."""
    text = re.sub(r"\n\s*#?\s*", " ", text.replace("`", ""))
    return re.sub(r"\s+", " ", text).strip().lower()


def _section_names(page: Path) -> list[str]:
    """A page's headings, and the bold leads of its list items (a decision record's parts)."""
    lines = _lines(page)
    leads = re.findall(r"^\s*- \*\*(.+?)\*\*", "\n".join(lines), flags=re.M | re.S)
    return [_normal(title) for _, _, title in headings(lines)] + [_normal(b) for b in leads]


def test_every_docs_path_written_out_exists() -> None:
    missing = []
    for source in _cited_files():
        text = source.read_text(encoding="utf-8")
        for number, line in enumerate(text.split("\n"), 1):
            for path in _DOC_PATH.findall(line):
                if not (ROOT / path).is_file():
                    missing.append(f"{source.relative_to(ROOT)}:{number}: {path}")
    assert not missing, "paths to pages that do not exist:\n" + "\n".join(missing)


def test_every_section_cited_by_name_exists() -> None:
    """``docs/quality.md, "Stories"`` names a section the page has: a heading holds the name
    (the journal's headings add the page and subject it came from), or, in a decision record,
    the bold lead of one of its points does."""
    dangling = []
    titles: dict[Path, list[str]] = {}
    for source in _cited_files():
        rel = source.relative_to(ROOT).as_posix()
        if rel in _SERVED_PAGES:
            continue
        for match in _QUOTED_SECTION.finditer(source.read_text(encoding="utf-8")):
            if match.group("path"):
                target = ROOT / match.group("path")
            else:
                target = _resolve(match.group("link"), source)
            relative = target.relative_to(ROOT).as_posix() if target.is_relative_to(ROOT) else ""
            if not _CITED_BY_NAME.search(relative) or not target.is_file():
                continue
            if target not in titles:
                titles[target] = _section_names(target)
            name = _normal(match.group("name"))
            if not any(name in title for title in titles[target]):
                dangling.append(f'{rel}: {relative}, "{match.group("name")}"')
    assert not dangling, "sections cited by a name no heading has:\n" + "\n".join(dangling)


DECISIONS = DOCS / "decisions"
JOURNAL = DOCS / "journal"
_RECORD_NAME = re.compile(r"^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
_STATUS = re.compile(
    r"^- \*\*Status\*\*: (accepted|superseded by \[(\d{4})\]\((\d{4}-[^)]+\.md)\))"
)
_DATE = re.compile(r"^- \*\*Date\*\*: .*\d{4}-\d{2}-\d{2}")


def test_a_decision_record_has_a_number_status_date_and_its_three_parts() -> None:
    records = sorted(p for p in DECISIONS.glob("*.md") if p.name != "README.md")
    assert len(records) > 50  # the records were really read
    numbers = []
    problems = []
    for record in records:
        match = _RECORD_NAME.match(record.name)
        lines = _lines(record)
        if not match:
            problems.append(f"{record.name}: not NNNN-title.md")
            continue
        numbers.append(int(match.group(1)))
        if not lines[0].startswith(f"# {match.group(1)}. "):
            problems.append(f"{record.name}: the title does not begin '# {match.group(1)}. '")
        status = next((_STATUS.match(line) for line in lines if _STATUS.match(line)), None)
        if status is None:
            problems.append(f"{record.name}: no status (accepted, or superseded by NNNN)")
        elif status.group(3) and not (DECISIONS / status.group(3)).is_file():
            problems.append(f"{record.name}: superseded by a record that does not exist")
        elif status.group(3) and not status.group(3).startswith(status.group(2)):
            problems.append(f"{record.name}: superseded by {status.group(2)}, linking another")
        if not any(_DATE.match(line) for line in lines):
            problems.append(f"{record.name}: no date")
        parts = [title for _, level, title in headings(lines) if level == 2]
        if parts != ["Context", "Decision", "Consequences"]:
            problems.append(f"{record.name}: parts {parts}")
    assert not problems, "\n".join(problems)
    assert numbers == list(range(1, len(numbers) + 1)), "record numbers run 0001, 0002, … unbroken"


def test_the_decisions_index_gives_each_record_its_status() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    for record in sorted(DECISIONS.glob("0*.md")):
        status = next(m for line in _lines(record) if (m := _STATUS.match(line)) is not None).group(
            1
        )
        row = next(line for line in index.splitlines() if f"]({record.name})" in line)
        if status == "accepted":
            assert "| accepted |" in row, row
        else:
            assert "| accepted |" not in row, f"{record.name} is superseded; its row says accepted"


def test_a_journal_page_is_one_day() -> None:
    pages = sorted(p for p in JOURNAL.glob("*.md") if p.name != "README.md")
    assert pages
    for page in pages:
        day = page.stem
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", day), (
            f"{page.name}: a journal page is named by its date"
        )
        assert _lines(page)[0] == f"# Journal, {day}", f"{page.name}: title '# Journal, {day}'"


@pytest.mark.parametrize("name", ["benchmarks.md", "quality.md"])
def test_the_current_figures_are_a_reference(name: str) -> None:
    """The current figures stay short: each subject one table whose rows give the figure, its
    value, target, machine, date, command and the journal entry with the method."""
    page = DOCS / name
    lines = _lines(page)
    assert len(lines) < 600, f"{name} has {len(lines)} lines: the history goes to docs/journal/"
    header = "| figure | value | target | machine | date | command | entry |"
    tables = [i for i, line in enumerate(lines) if line == header]
    assert len(tables) >= 5
    for start in tables:
        for line in itertools.takewhile(lambda x: x.startswith("|"), lines[start + 2 :]):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            assert len(cells) == 7, f"{name}: {line}"
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", cells[4]), f"{name}: no date in {line}"
            assert re.match(r"\[\d{4}-\d{2}-\d{2}\]\(journal/\d{4}-\d{2}-\d{2}\.md#", cells[6]), (
                f"{name}: the entry is not a link into the journal: {line}"
            )
