"""The source adapters on small files in each real format (tests/fixtures/sources), their error
records, sidecars, and the whole fixture folder through ``ingest_paths``."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader, PdfWriter

from analytics.records import validate_record
from analytics.transcripts import Turn, parse_turns
from tests.fixtures.make_pdf_fixture import FIXTURE as PDF_FIXTURE
from tests.fixtures.make_pdf_fixture import INFO, PAGES, build_pdf
from warehouse.adapters.transcripts import (
    Chapter,
    TranscriptError,
    merge_cues,
    parse_chapters,
    parse_srt,
    parse_vtt,
    segments_from_turns,
)
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir
from warehouse.readers import RawRecord, discover, read_file

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "sources"


def records(path: Path) -> list[RawRecord]:
    return list(read_file(path))


def only(path: Path) -> dict[str, Any]:
    """The single record of ``path``, which must read and validate cleanly."""
    [record] = records(path)
    assert record.error is None, record.error
    validate_record(record.data)
    assert isinstance(record.data, dict)
    return record.data


def only_error(path: Path) -> RawRecord:
    [record] = records(path)
    assert record.error is not None and record.data is None
    return record


def copy_fixture(name: str, folder: Path, *, as_name: str | None = None) -> Path:
    return Path(shutil.copy(SOURCES / name, folder / (as_name or name)))


# --- HTML ----------------------------------------------------------------------------------------


def test_html_main_text_without_boilerplate_and_metadata() -> None:
    data = only(SOURCES / "article.html")
    assert data["kind"] == "article"
    assert data["title"] == "Inference prices fell 80% in a year"
    assert data["url"] == "https://computeledger.example.com/2026/05/inference-prices-fell"
    assert data["published_at"] == "2026-05-14T05:30:00Z"  # 07:30 at +02:00
    assert data["author"] == "Dana Whitfield"
    assert data["sitename"] == "Compute Ledger"
    paragraphs = data["text"].split("\n\n")
    assert len(paragraphs) == 4
    assert paragraphs[0].startswith("The price of serving a million tokens")
    assert paragraphs[-1].endswith("when their agent products became viable.")
    for boilerplate in ("Subscribe", "Markets", "Most read", "Copyright", "Privacy", "Cookie"):
        assert boilerplate not in data["text"]


def test_html_without_url_is_an_error_that_says_how_to_fix_it() -> None:
    record = only_error(SOURCES / "bad-no-url.html")
    assert record.error is not None
    assert "no URL" in record.error and "canonical" in record.error
    assert "bad-no-url.html.meta.yaml" in record.error and "url:" in record.error


def test_html_sidecar_supplies_the_date_and_overrides_the_kind() -> None:
    data = only(SOURCES / "no-date.html")
    assert data["kind"] == "essay"
    assert data["published_at"] == "2026-02-17"
    assert data["author"] == "R. Castellanos"
    assert data["url"] == "https://essays.example.org/notes-on-token-prices"
    assert "Archive" not in data["text"] and "Powered by" not in data["text"]
    assert data["text"].count("\n\n") == 1


def test_html_without_date_or_sidecar_names_the_missing_date(tmp_path: Path) -> None:
    page = copy_fixture("no-date.html", tmp_path)
    record = only_error(page)
    assert record.error is not None
    assert "publication date" in record.error and "published_at: …" in record.error
    assert "no URL" not in record.error


def test_html_without_any_text_is_an_error(tmp_path: Path) -> None:
    page = tmp_path / "shell.html"
    page.write_text("<html><head><title>App</title></head><body><div id=root></div></body></html>")
    record = only_error(page)
    assert record.error is not None and "no main text" in record.error


def test_html_date_without_offset_is_utc(tmp_path: Path) -> None:
    page = tmp_path / "naive.html"
    paragraph = "<p>" + "Accelerator lead times shortened again this quarter. " * 12 + "</p>"
    page.write_text(
        '<html><head><title>Lead times</title><link rel="canonical" href="https://a.example/lt">'
        '<meta property="article:published_time" content="2026-03-09T10:00:00">'
        f"</head><body><article>{paragraph}</article></body></html>"
    )
    assert only(page)["published_at"] == "2026-03-09T10:00:00Z"


# --- RSS / Atom ----------------------------------------------------------------------------------


def test_rss_one_record_per_item_and_a_bad_item_alone_is_an_error() -> None:
    first, second, third = records(SOURCES / "chips-weekly.rss")
    assert [r.line for r in (first, second, third)] == [1, 2, 3]
    assert second.error is not None and second.data is None
    assert "entry 2" in second.error and "no link" in second.error
    assert first.error is None and third.error is None
    for record in (first, third):
        validate_record(record.data)
    assert first.data["kind"] == "news"
    assert first.data["url"] == "https://chipsweekly.example.net/news/harbor-second-2nm-customer"
    assert first.data["published_at"] == "2026-05-12T09:15:00Z"
    assert first.data["author"] == "Priya Raman"
    # content:encoded wins over the shorter description; paragraphs kept, tags and &nbsp; gone
    assert first.data["text"] == (
        "Harbor Semiconductor signed a second customer for its 2 nm process on Tuesday, the "
        "company said in a filing.\n\nThe customer, an accelerator startup, will tape out its "
        "first chip in the fourth quarter. Harbor expects volume production in 2027."
    )
    assert third.data["published_at"] == "2026-05-14T20:45:00Z"  # 16:45 at -04:00
    assert third.data["author"] == "Marco Lindqvist"
    assert third.data["text"].split("\n\n")[1:] == [
        "Deliveries start in July.",
        "The order doubles its fleet.",
    ]
    assert third.data["feed"] == "Chips Weekly"


def test_atom_entries_dates_and_authors() -> None:
    first, second = records(SOURCES / "policy-notes.atom")
    for record in (first, second):
        assert record.error is None
        validate_record(record.data)
    assert first.data["url"] == "https://policynotes.example.org/2026/compute-threshold"
    assert first.data["published_at"] == "2026-05-18T07:00:00Z"  # published, not updated
    assert first.data["author"] == "Helena Ortiz"
    assert first.data["text"].count("\n\n") == 1
    assert second.data["published_at"] == "2026-05-20T11:30:00Z"  # no published: updated
    assert second.data["author"] == "Policy Notes Desk"  # the feed's author
    assert second.data["text"].startswith("New export rules add licence requirements")


def test_malformed_feed_is_one_error(tmp_path: Path) -> None:
    feed = tmp_path / "broken.xml"
    feed.write_bytes(b"<?xml version='1.0'?>\n<rss version='2.0'><channel><title>Bro")
    [record] = records(feed)
    assert record.error is not None and "not a well-formed RSS or Atom feed" in record.error
    other = tmp_path / "sitemap.xml"
    other.write_bytes(b"<?xml version='1.0'?><urlset><url><loc>https://a.example</loc></url>")
    [record] = records(other)
    assert record.error is not None and "RSS or Atom" in record.error


def test_feed_sidecar_sets_kind_for_every_entry_but_not_per_entry_fields(tmp_path: Path) -> None:
    feed = copy_fixture("policy-notes.atom", tmp_path)
    (tmp_path / "policy-notes.atom.meta.yaml").write_text("kind: memo\nregion: EU\n")
    got = records(feed)
    assert [r.data["kind"] for r in got] == ["memo", "memo"]
    assert {r.data["region"] for r in got} == {"EU"}
    (tmp_path / "policy-notes.atom.meta.yaml").write_text("kind: memo\ntitle: One for all\n")
    warning, *entries = records(feed)
    assert warning.line == 0 and warning.error is not None and "title" in warning.error
    assert [r.data["title"] for r in entries] == [
        "The compute reporting threshold, explained",
        "Export rules for accelerators tighten",
    ]


# --- PDF -----------------------------------------------------------------------------------------


def test_pdf_fixture_is_the_scripts_output_and_pypdf_reads_its_text() -> None:
    assert PDF_FIXTURE.read_bytes() == build_pdf(PAGES, INFO)
    reader = PdfReader(PDF_FIXTURE, strict=True)
    assert len(reader.pages) == 2
    assert "Scaling Laws for Inference-Time Compute" in reader.pages[0].extract_text()


def test_pdf_paper_text_title_arxiv_url_and_date() -> None:
    data = only(SOURCES / "inference-scaling.pdf")
    assert data["kind"] == "paper"
    assert data["title"] == "Scaling Laws for Inference-Time Compute"
    assert data["url"] == "https://arxiv.org/abs/2406.01234"
    assert data["arxiv_id"] == "2406.01234v2"
    assert data["published_at"] == "2024-06-03T10:15:00Z"
    assert data["author"] == "Ada Okafor; Lin Meyer"
    paragraphs = data["text"].split("\n\n")
    assert "Abstract" in paragraphs and "1 Introduction" in paragraphs
    abstract = paragraphs[paragraphs.index("Abstract") + 1]
    assert abstract.startswith("We measure how answer quality grows")
    assert "spent at inference time" in abstract  # the line-break hyphen is gone
    assert abstract.endswith("sooner by smaller models.")
    assert paragraphs[-1] == (
        "Our experiments use 1.2 million prompts and report the cost per solved task. A model "
        "with 8 billion parameters that samples 16 candidates matches a 70 billion parameter "
        "model answering once, at one third of the serving cost."
    )


def test_pdf_without_arxiv_id_needs_a_sidecar_url(tmp_path: Path) -> None:
    pdf = tmp_path / "memo.pdf"
    pdf.write_bytes(build_pdf([PAGES[0][1:]], {**INFO, "Title": "Inference Memo, Spring 2026"}))
    record = only_error(pdf)
    assert record.error is not None
    assert "url (no arXiv identifier" in record.error and "memo.pdf.meta.yaml" in record.error
    (tmp_path / "memo.pdf.meta.json").write_text('{"url": "https://memos.example.com/spring"}')
    data = only(pdf)
    assert data["title"] == "Inference Memo, Spring 2026"  # the metadata title wins
    assert data["url"] == "https://memos.example.com/spring"


def test_corrupt_and_encrypted_pdfs_are_errors(tmp_path: Path) -> None:
    record = only_error(SOURCES / "bad-corrupt.pdf")
    assert record.error is not None and "not a readable PDF" in record.error
    writer = PdfWriter(clone_from=io.BytesIO(build_pdf(PAGES, INFO)))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as fh:
        writer.write(fh)
    record = only_error(locked)
    assert record.error is not None and "encrypted" in record.error


# --- transcripts ---------------------------------------------------------------------------------


def test_vtt_voice_tags_notes_and_merged_cues() -> None:
    data = only(SOURCES / "fireside-chat.vtt")
    assert data["kind"] == "podcast" and data["author"] == "Maya Chen"
    assert data["title"] == "Fireside chat: the economics of agents"
    turns = parse_turns(data["text"])
    assert [(t.speaker, t.start_s) for t in turns] == [
        ("Maya Chen", 0),
        ("Tomas Berg", 9),
        ("Speaker", 62),
        ("Maya Chen", 70),  # 01:10.500 in mm:ss.mmm
        ("Tomas Berg", 70),
    ]
    assert turns[0].text == (
        "Welcome back. Today we talk about what agents cost to run. "
        "My guest runs inference for a large retail platform."
    )
    assert "forty times & that adds up" in turns[1].text
    assert turns[2].text == "[laughter] So what did you change first?"
    for left_out in ("Exported", "NOTE", "::cue", "intro-1", "align:start", "<"):
        assert left_out not in data["text"]


def test_vtt_broken_timestamp_points_at_its_line() -> None:
    record = only_error(SOURCES / "bad-timestamp.vtt")
    assert record.line == 6
    assert record.error is not None
    assert "00:0x:09.000" in record.error and "hh:mm:ss.mmm" in record.error


def test_vtt_needs_metadata_from_a_sidecar(tmp_path: Path) -> None:
    vtt = copy_fixture("fireside-chat.vtt", tmp_path)
    record = only_error(vtt)
    assert record.error is not None
    assert "title, url, published_at" in record.error
    assert "fireside-chat.vtt.meta.yaml" in record.error
    vtt.with_name("fireside-chat.meta.yaml").write_text(
        "title: T\nurl: https://a.example/t\npublished_at: 2026-01-01\n"
    )
    assert only(vtt)["title"] == "T"  # <stem>.meta.yaml is found too


def test_srt_name_prefixes_and_continued_speakers() -> None:
    data = only(SOURCES / "analyst-panel.srt")
    assert data["url"] == "https://events.example.org/panels/2026-q2-infrastructure"
    turns = parse_turns(data["text"])
    assert [(t.speaker, t.start_s) for t in turns] == [
        ("MODERATOR", 1),
        ("RUTH ADEYEMI", 8),
        ("JONAS WEBER", 18),
        ("MODERATOR", 90),
    ]
    assert turns[0].text.endswith(
        "AI infrastructure spending. Let's start with capital expenditure."
    )
    assert turns[1].text.endswith("Most of it goes to accelerators and power.")


def test_cue_parsers_on_edge_cases() -> None:
    vtt = (
        "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v.loud Ann>Hi <00:00:01.500>there</v>\n\n"
        "00:00:02.000 --> 00:00:03.000\nBOB: Hello\n\n00:00:03.000 --> 00:00:04.000\n<c>plain</c>\n"
    )
    assert merge_cues(parse_vtt(vtt)) == [
        Turn("Ann", 1, "Hi there"),
        Turn("BOB", 2, "Hello"),
        Turn("Speaker", 3, "plain"),
    ]
    # a cue right under the header, without the blank line, is still read
    [cue] = parse_vtt("WEBVTT\n00:01.000 --> 00:02.000\n<v Ann>Hi</v>\n")
    assert (cue.speaker, cue.start_ms, cue.text) == ("Ann", 1000, "Hi")
    with pytest.raises(TranscriptError, match="first line must be WEBVTT"):
        parse_vtt("1\n00:00:01.000 --> 00:00:02.000\nx\n")
    with pytest.raises(TranscriptError, match="ends before it starts"):
        parse_vtt("WEBVTT\n\n00:00:05.000 --> 00:00:02.000\nx\n")
    srt = "1\r\n00:00:01,000 --> 00:00:02,500\r\n{\\an8}<font color=red>Note: x</font>\r\n"
    [cue] = parse_srt(srt.replace("\r\n", "\n"))
    assert (cue.speaker, cue.text, cue.end_ms) == ("Note", "x", 2500)
    with pytest.raises(TranscriptError, match="line 2"):
        parse_srt("1\n00:00:01 --> 00:00:02\nx\n")


def test_speaker_turn_markdown_becomes_a_podcast() -> None:
    data = only(SOURCES / "small-models-episode.md")
    assert data["kind"] == "podcast"
    assert data["url"] == "https://www.youtube.com/watch?v=fixture00001"
    assert data["published_at"] == "2026-03-26"
    assert data["duration_s"] == 960 and "duration_seconds" not in data
    assert data["channel"] == "The Applied AI Show"
    assert data["text"].startswith("Ines Duarte (00:00:00): Most teams pick the biggest model")
    assert "## Transcript" not in data["text"]
    turns = parse_turns(data["text"])
    assert len(turns) == 11 and turns[4].start_s == 303
    assert turns[4].text.endswith(
        "35,000 dollars a month. The quality on our own evaluation set went up, not down."
    )


def test_front_matter_chapters_become_segments_with_spans() -> None:
    data = only(SOURCES / "small-models-episode-chapters.md")
    assert "text" not in data and "chapters" not in data
    segments = data["segments"]
    assert [(s["start_s"], s["end_s"], s["chapter"]) for s in segments] == [
        (0, 295, "Introduction"),
        (295, 720, "The cost of a frontier model"),
        (720, 960, "Where small models fall short"),  # ends at duration_seconds
    ]
    assert [len(parse_turns(s["text"])) for s in segments] == [3, 4, 4]
    assert segments[1]["text"].startswith("Sam Okoro (00:04:55): Let's start with cost.")
    record = validate_record(data)
    assert record.segments[2].end_s == 960


def test_segments_edge_cases() -> None:
    turns = [Turn("A", 5, "cold open"), Turn("B", 30, "one"), Turn("A", 100, "two")]
    chapters = [Chapter(20, "First"), Chapter(50, "Empty"), Chapter(90, "Last")]
    segments = segments_from_turns(turns, chapters, end_s=None)
    # the cold open joins the first chapter; a chapter without speech is left out; the last
    # chapter ends a minute after the last turn when the duration is unknown
    assert [(s["start_s"], s["end_s"], s["chapter"]) for s in segments] == [
        (5, 50, "First"),
        (90, 160, "Last"),
    ]
    assert parse_chapters([{"start": "1:02:03", "title": "x"}]) == [Chapter(3723, "x")]
    for bad in ([], [{"title": "x"}], [{"start_s": 1.5, "title": "x"}], [{"start_s": 1}]):
        with pytest.raises(TranscriptError, match="chapters"):
            parse_chapters(bad)
    with pytest.raises(TranscriptError, match="both start at 0s"):
        parse_chapters([{"start_s": 0, "title": "a"}, {"start_s": 0, "title": "b"}])


def test_cue_file_chapters_from_the_sidecar_end_at_the_last_cue(tmp_path: Path) -> None:
    srt = copy_fixture("analyst-panel.srt", tmp_path)
    sidecar = (SOURCES / "analyst-panel.meta.yaml").read_text()
    chapters = "chapters:\n- {start_s: 0, title: Capex}\n- {start: '00:00:18', title: Power}\n"
    (tmp_path / "analyst-panel.srt.meta.yaml").write_text(sidecar + chapters)
    data = only(srt)
    assert [(s["start_s"], s["end_s"], s["chapter"]) for s in data["segments"]] == [
        (0, 18, "Capex"),
        (18, 94, "Power"),  # the last cue ends at 00:01:34
    ]
    (tmp_path / "analyst-panel.srt.meta.yaml").write_text(sidecar + "chapters: soon\n")
    record = only_error(srt)
    assert record.error is not None and "'chapters' must be a non-empty list" in record.error


def test_markdown_sidecar_overrides_front_matter_and_bad_sidecars_are_errors(
    tmp_path: Path,
) -> None:
    doc = copy_fixture("small-models-episode.md", tmp_path)
    (tmp_path / "small-models-episode.md.meta.json").write_text(
        '{"title": "Small models, retitled", "published_at": "2026-03-27T08:00:00Z"}'
    )
    data = only(doc)
    assert data["title"] == "Small models, retitled"
    assert data["published_at"] == "2026-03-27T08:00:00Z"
    (tmp_path / "small-models-episode.md.meta.json").write_text('{"title": ')
    record = only_error(doc)
    assert record.error is not None and "not valid JSON" in record.error


def test_discover_reads_new_suffixes_and_never_sidecars(tmp_path: Path) -> None:
    for name in ("a.html", "b.htm", "c.rss", "d.atom", "e.xml", "f.pdf", "g.vtt", "h.srt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "g.vtt.meta.yaml").write_text("title: x\n")
    (tmp_path / "h.meta.json").write_text("{}")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "i.html").write_text("x")
    found, problems = discover([tmp_path])
    assert [p.name for p in found] == [
        "a.html",
        "b.htm",
        "c.rss",
        "d.atom",
        "e.xml",
        "f.pdf",
        "g.vtt",
        "h.srt",
    ]
    assert problems == []
    found, problems = discover([tmp_path / "g.vtt.meta.yaml"])
    assert found == [] and "sidecar" in problems[0][1]


@pytest.mark.parametrize(
    "content", [b"", b"\x00\xff\xfe not text at all \x81"], ids=["empty", "junk"]
)
def test_unreadable_files_give_error_records_never_exceptions(
    tmp_path: Path, content: bytes
) -> None:
    for suffix in (".md", ".html", ".xml", ".rss", ".atom", ".pdf", ".vtt", ".srt"):
        path = tmp_path / f"input{suffix}"
        path.write_bytes(content)
        got = records(path)
        assert got and all(r.error for r in got), (suffix, got)


# --- end to end ----------------------------------------------------------------------------------


def test_ingest_the_fixture_folder(tmp_path: Path) -> None:
    report = ingest_paths(DataDir(tmp_path / "data"), [SOURCES], progress=False)
    quarantined = sorted((Path(q.file).name, q.line) for q in report.quarantined)
    assert quarantined == [
        ("bad-corrupt.pdf", 1),
        ("bad-no-url.html", 1),
        ("bad-timestamp.vtt", 6),
        ("chips-weekly.rss", 2),
    ]
    # html 2, rss 2, atom 2, pdf 1, vtt 1, srt 1, markdown transcripts 2
    assert report.files == 12 and report.inserted == 11
    again = ingest_paths(DataDir(tmp_path / "data"), [SOURCES], progress=False)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 11)


@pytest.mark.shared_data
def test_shared_podcast_transcripts_all_ingest(shared_data: Path, tmp_path: Path) -> None:
    paths = sorted((shared_data / "podcasts").glob("*.md"))
    assert len(paths) == 55
    report = ingest_paths(DataDir(tmp_path / "data"), paths, progress=False)
    assert report.quarantined == []
    assert report.records == 55
    urls = set()
    for path in paths:
        data = only(path)
        assert data["kind"] == "podcast", path.name
        assert isinstance(data["duration_s"], int), path.name
        assert len(parse_turns(data["text"])) >= 50, path.name
        urls.add(validate_record(data).canonical_url)
    # some files of the set carry another episode's youtube_url (e.g. kim-scott.md has
    # scott-wu.md's): one URL is one source, so those collapse into one row
    assert report.inserted == len(urls)
