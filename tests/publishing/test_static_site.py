"""The static half of the demo snapshot: its JSON tree is the API's answer byte for byte, its
site has a page for every entity of the reviewed set, theme and signal, both are sealed into the
manifest, and they are exported and served as documented."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape

import orjson
import polars as pl
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cli.app import app as aimi
from publishing.static.charts import counted
from publishing.static.paths import decode_segment, encode_segment
from publishing.static.site import card_stories, p_text, story_entry
from serving.app import create_app
from serving.site import mount_site
from tests.contract.helpers import parse_time, walk
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot


@pytest.fixture(scope="module")
def client(demo_data_dir: DataDir) -> Iterator[TestClient]:
    """The API with the site mounted, as `aimi serve --site` runs it."""
    app = mount_site(create_app(make_settings(demo_data_dir.root)))
    with TestClient(app, headers={"X-API-Key": DEV_KEY}) as test_client:
        yield test_client


def request_for(path: str, site: Path) -> str:
    """The API request a tree file answers, from its documented path (docs/site.md, "The JSON
    tree"), independently of the code that writes the tree: a page of the story list after the
    first is asked for with the ``next_cursor`` of the page before it (in ``site``)."""
    parts = path.removeprefix("json/v1/").removesuffix(".json").split("/")
    match parts:
        case ["stories"]:
            return "/v1/stories"
        case ["stories", "pages", number] if number == "1":
            return "/v1/stories?limit=50"
        case ["stories", "pages", number]:
            before = site / "json/v1/stories/pages" / f"{int(number) - 1}.json"
            cursor = orjson.loads(before.read_bytes())["next_cursor"]
            assert cursor, f"{before} has no next page"
            return f"/v1/stories?limit=50&cursor={cursor}"
        case ["stories", story_id]:
            return f"/v1/stories/{quote(decode_segment(story_id), safe='')}"
        case ["themes"]:
            return "/v1/themes"
        case ["themes", axis]:
            return f"/v1/themes?axis={axis}"
        case ["themes", axis, label]:
            return f"/v1/themes/{axis}/{quote(decode_segment(label), safe='')}"
        case ["entities", "trending", name]:
            mode, _, limit = name.partition(".limit-")
            return f"/v1/entities/trending?mode={mode}" + (f"&limit={limit}" if limit else "")
        case ["entities", entity_id]:
            return f"/v1/entities/{quote(decode_segment(entity_id), safe='')}"
        case ["signals", signal_id]:
            return f"/v1/signals/{quote(decode_segment(signal_id), safe='')}"
    raise AssertionError(f"{path} is not a documented path of the JSON tree")


def site_of(snapshot: OpenedSnapshot) -> Path:
    return snapshot.path / "site"


def test_every_file_of_the_json_tree_is_the_api_answer(
    client: TestClient, demo_snapshot: OpenedSnapshot
) -> None:
    site = site_of(demo_snapshot)
    kinds: Counter[str] = Counter()
    for file in sorted((site / "json").rglob("*")):
        if file.is_dir():
            continue
        path = file.relative_to(site).as_posix()
        response = client.get(request_for(path, site))
        assert response.status_code == 200, path
        assert response.content == file.read_bytes(), path
        kinds[path.split("/")[2] if path.count("/") > 2 else path.split("/")[-1]] += 1
    tables = demo_snapshot.manifest.tables
    trending = 4 * 2  # each mode at the default limit and at the maximum
    stories = tables["stories"].rows
    pages = -(-stories // 50)  # the story list at limit 50
    assert stories > 50 and pages > 1  # more than one page, so a cursor is followed
    assert kinds == {
        "themes.json": 1,
        "themes": 2 + 12,  # one list per axis, one file per theme
        "entities": tables["entity_profiles"].rows + trending,
        "signals": tables["signals"].rows,
        "stories.json": 1,
        "stories": stories + pages,
    }
    last = orjson.loads((site / f"json/v1/stories/pages/{pages}.json").read_bytes())
    assert not last["has_more"] and last["next_cursor"] is None


def test_the_site_has_a_page_for_every_reviewed_entity_theme_and_signal(
    client: TestClient, demo_snapshot: OpenedSnapshot
) -> None:
    site = site_of(demo_snapshot)
    reviewed = {
        entity["entity_id"] for entity in walk(client, "/v1/entities", "entities", limit=50)
    }
    pages = {decode_segment(p.stem) for p in (site / "entities").glob("*.html")} - {"index"}
    assert pages == reviewed and len(pages) > 100
    themes = client.get("/v1/themes").json()["themes"]
    for theme in themes:
        assert (
            site / "themes" / theme["axis"] / f"{encode_segment(theme['label'])}.html"
        ).is_file()
    signals = {decode_segment(p.stem) for p in (site / "signals").glob("*.html")}
    assert len(signals) == demo_snapshot.manifest.tables["signals"].rows
    stories = {decode_segment(p.stem) for p in (site / "stories").glob("*.html")}
    assert stories == set(demo_snapshot.read_table("stories")["story_id"].to_list())


def story_rows(snapshot: OpenedSnapshot) -> list[dict[str, Any]]:
    """The snapshot's stories as served (their details), from its story table."""
    return [orjson.loads(raw) for raw in snapshot.read_table("stories")["detail_json"].to_list()]


def links_of(page: Path) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', page.read_text())


def test_a_story_page_shows_its_signals_sources_entities_themes_and_feed(
    client: TestClient, demo_snapshot: OpenedSnapshot
) -> None:
    site = site_of(demo_snapshot)
    told = max(story_rows(demo_snapshot), key=lambda s: (s["independent_sources"], s["story_id"]))
    assert told["independent_sources"] >= 2  # the demo has a story many voices tell
    story = client.get(f"/v1/stories/{told['story_id']}").json()
    page = site / "stories" / f"{encode_segment(story['story_id'])}.html"
    text = page.read_text()
    links = links_of(page)
    assert f"<h1>{escape(story['title'])}</h1>" in text
    # every signal, newest first, linked to its page
    signal_links = [link for link in links if link.startswith("../signals/")]
    assert signal_links == [
        f"../signals/{encode_segment(s['signal_id'])}.html" for s in story["signals"]
    ]
    themes = [(a, label) for a in ("value_chain", "market_force") for label in story["themes"][a]]
    for axis, label in themes:
        assert f"../themes/{axis}/{encode_segment(label)}.html" in links
    reviewed = {path.stem for path in (site / "entities").glob("ent*.html")}
    for entity in story["entities"]:
        linked = f"../entities/{encode_segment(entity['entity_id'])}.html" in links
        assert linked == (encode_segment(entity["entity_id"]) in reviewed), entity
    flat = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))
    assert f"Independent sources {story['independent_sources']} " in flat
    assert f"First seen {story['first_seen'][:10]} " in flat
    for domain in story["domains"]:
        assert f"<li>{escape(domain)}</li>" in text
    feed = f"../feeds/stories/{encode_segment(story['story_id'])}.atom"
    assert feed in links and 'rel="alternate" type="application/atom+xml"' in text
    for link in links:  # every link on the page resolves to a file of the site
        if not link.startswith("http"):
            assert (page.parent / link).resolve().is_file(), link


def test_each_signal_page_links_to_its_story(demo_snapshot: OpenedSnapshot) -> None:
    """Membership read from the snapshot's story table: a signal page links to one story that
    lists the signal — the only one, or for a roundup listed by several (docs/api.md §2.8) the
    one holding most of its units, the first id on a tie; a signal in none links to no story."""
    site = site_of(demo_snapshot)
    listing: dict[str, list[str]] = {}
    held: dict[tuple[str, str], int] = {}
    for story in story_rows(demo_snapshot):
        for signal in story["signals"]:
            listing.setdefault(signal["signal_id"], []).append(story["story_id"])
        for part in story.get("parts") or []:
            held[part["signal_id"], story["story_id"]] = len(part["units"])
    assert listing
    for page in (site / "signals").glob("*.html"):
        signal_id = decode_segment(page.stem)
        stories = [link for link in links_of(page) if link.startswith("../stories/")]
        listed = listing.get(signal_id, [])
        if len(listed) > 1:
            expected = min(listed, key=lambda story_id: (-held[signal_id, story_id], story_id))
        else:
            expected = listed[0] if listed else None
        assert stories == ([f"../stories/{encode_segment(expected)}.html"] if expected else [])


def test_a_roundups_page_names_the_story_holding_most_of_its_units() -> None:
    def story(story_id: str, members: list[str], units: int) -> dict[str, Any]:
        parts = [{"signal_id": "r", "units": [{"unit_id": f"u{i}"} for i in range(units)]}]
        return {
            "story_id": story_id,
            "signals": [{"signal_id": m} for m in members],
            "parts": parts,
        }

    stories = [
        story("sty_b", ["r", "x"], 2),
        story("sty_a", ["r"], 1),
        story("sty_c", ["y", "r"], 2),
    ]
    of = card_stories(stories)
    assert of["r"]["story_id"] == "sty_b"  # two units, as in sty_c: the first id
    assert of["x"]["story_id"] == "sty_b" and of["y"]["story_id"] == "sty_c"


def test_the_overview_ranks_the_weeks_top_stories_by_independent_sources(
    client: TestClient, demo_snapshot: OpenedSnapshot
) -> None:
    """The rule docs/site.md states: stories active in the 7 days up to as_of with at least
    two independent sources, most sources first, then newest activity (then story_id), ten."""
    week = walk(client, "/v1/stories", "stories", limit=50, window="7d", min_sources=2)
    newest = sorted(week, key=lambda s: (-parse_time(s["last_seen"]).timestamp(), s["story_id"]))
    ranked = sorted(newest, key=lambda s: -s["independent_sources"])[:10]
    assert ranked, "the demo has no story two sources tell this week"
    overview = (site_of(demo_snapshot) / "index.html").read_text()
    section = overview.split('id="top-stories"')[1].split("</section>")[0]
    shown = [decode_segment(s) for s in re.findall(r'href="stories/([^"]+)\.html"', section)]
    assert shown == [story["story_id"] for story in ranked]
    method = re.sub(r"\s+", " ", (site_of(demo_snapshot) / "method.html").read_text())
    assert "in the 7 days up to the snapshot's date that at least 2 independent sources" in method


def test_an_entity_page_shows_the_test_behind_its_labels(
    client: TestClient, demo_snapshot: OpenedSnapshot
) -> None:
    trends = demo_snapshot.read_table("entity_trends")
    row = trends.filter(pl.col("key") == client.get("/v1/entities/Cerebras").json()["entity_id"])
    k1, k2, n1, n2 = (
        int(row[name][0])
        for name in ("recent_mentions", "prior_mentions", "recent_total", "prior_total")
    )
    page = site_of(demo_snapshot) / "entities" / f"{encode_segment(row['key'][0])}.html"
    text = re.sub(r"\s+", " ", page.read_text())
    profile = client.get("/v1/entities/Cerebras").json()
    assert f"k1 / n1 = {k1} / {n1}" in text and f"k2 / n2 = {k2} / {n2}" in text
    assert f"k1 + k2 = {k1 + k2} mentions" in text
    raw, adjusted = row["raw_p_value"][0], row["p_value"][0]
    assert 0 < raw <= adjusted  # the adjustment only raises a p-value
    assert f"p = {p_text(raw)};" in text and f"with labels: p = {p_text(adjusted)}" in text
    assert f"Direction: <strong>{profile['direction']}</strong>" in text
    assert profile["notability_reasoning"] in text
    assert '<svg class="chart"' in text  # the share-of-voice chart, inline


def test_the_site_is_sealed_and_makes_no_external_request(demo_snapshot: OpenedSnapshot) -> None:
    site = site_of(demo_snapshot)
    files = {p.relative_to(demo_snapshot.path).as_posix() for p in site.rglob("*") if p.is_file()}
    assert files <= set(demo_snapshot.manifest.files)
    loaded = re.compile(r"<(?:link|script|img|iframe)[^>]*(?:href|src)=\"(?:https?:)?//")
    for page in site.rglob("*.html"):
        assert not loaded.search(page.read_text()), page


def test_the_site_is_served_under_site_without_a_key(client: TestClient) -> None:
    bare = TestClient(client.app)
    overview = bare.get("/site/")
    assert overview.status_code == 200 and "<h1>Market pulse</h1>" in overview.text
    assert bare.get("/site/json/v1/themes.json").content == client.get("/v1/themes").content
    assert bare.get("/site/site.css").headers["content-type"].startswith("text/css")
    assert bare.get("/site/%2E%2E/manifest.json").status_code == 404  # not the snapshot folder
    assert bare.get("/site/nothing.html").status_code == 404


def test_site_export_copies_the_site_and_refuses_a_used_folder(
    demo_data_dir: DataDir, demo_snapshot: OpenedSnapshot, tmp_path: Path
) -> None:
    out = tmp_path / "public"
    runner = CliRunner()
    done = runner.invoke(aimi, ["site", "export", str(out), "--data-dir", str(demo_data_dir.root)])
    assert done.exit_code == 0, done.output
    site = site_of(demo_snapshot)
    copied = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert copied == sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file())
    again = runner.invoke(aimi, ["site", "export", str(out), "--data-dir", str(demo_data_dir.root)])
    assert again.exit_code == 2
    empty = runner.invoke(
        aimi, ["site", "export", str(tmp_path / "x"), "--data-dir", str(tmp_path / "no-data")]
    )
    assert empty.exit_code == 1 and "aimi build" in empty.output


def test_a_page_is_given_only_the_snapshot_wide_values_its_templates_read() -> None:
    """Read through extends and imports: only the overview names the snapshot and its build
    time, so every other page can keep its bytes (and be linked) from one build to the next."""
    from publishing.static.site import environment, template_reads

    env = environment()
    shared = {"snapshot_id", "as_of", "built_at", "window"}
    assert template_reads(env, "overview.html.j2") >= shared
    assert template_reads(env, "entity.html.j2") & shared == {"as_of", "window"}
    for template in ("signal.html.j2", "method.html.j2", "search.html.j2"):
        assert not template_reads(env, template) & shared
    # method.html.j2 reads "root" only through the base template it extends
    assert "root" in template_reads(env, "method.html.j2")


def test_counts_agree_with_their_nouns(demo_snapshot: OpenedSnapshot) -> None:
    """Issue 28: "1 signals together", "Growth streak 1 weeks" — no page says a count of one
    with a plural noun."""
    assert (counted(1, "signal"), counted(3, "week"), counted(0, "signal")) == (
        "1 signal",
        "3 weeks",
        "0 signals",
    )
    assert counted(1, "entity", "entities") == "1 entity" and counted(2, "entity", "entities") == (
        "2 entities"
    )
    plural_one = re.compile(r"(?<![\d.,])1 (signals|weeks|mentions|entities)\b")
    site = site_of(demo_snapshot)
    offenders = [
        f"{page.relative_to(site)}: {found.group(0)}"
        for page in site.rglob("*.html")
        for found in [plural_one.search(re.sub(r"<[^>]+>|\s+", " ", page.read_text()))]
        if found
    ]
    assert not offenders, offenders[:5]


def test_the_overview_types_each_trending_entity_as_the_registry_does(
    demo_snapshot: OpenedSnapshot,
) -> None:
    """Issue 28: "Berlin" read `Other` (the API's type_primary) in the overview's lists; the
    overview prints the registry's type, so a place reads as a location."""
    catalog = demo_snapshot_catalog(demo_snapshot)
    page = (site_of(demo_snapshot) / "index.html").read_text()
    rows = re.findall(r'href="entities/([^"]+)\.html">[^<]*</a> <span class="type">([^<]+)<', page)
    assert rows
    for segment, shown in rows:
        entity_id = decode_segment(segment)
        assert shown == catalog[entity_id].replace("_", " "), (entity_id, shown)


def demo_snapshot_catalog(snapshot: OpenedSnapshot) -> dict[str, str]:
    entities = snapshot.read_table("entity_profiles")
    return dict(zip(entities["entity_id"].to_list(), entities["type"].to_list(), strict=True))


def test_every_feed_is_valid_atom_of_served_signals_with_their_evidence(
    demo_snapshot: OpenedSnapshot, client: TestClient
) -> None:
    """Issue 32: one Atom feed for the service, each trending mode, each entity with a page, each
    theme and each story; entries are signals with their central statement, verified units' snippets
    and source link, under ids that do not depend on the snapshot."""
    import feedparser

    site = site_of(demo_snapshot)
    feeds = sorted(site.rglob("*.atom"))
    entity_pages = list((site / "entities").glob("ent*.html"))
    stories = demo_snapshot.read_table("stories")["story_id"].to_list()
    assert stories
    assert len(feeds) == 1 + 4 + len(entity_pages) + 12 + len(stories)
    served = set(demo_snapshot.read_table("signals")["signal_id"].to_list())
    for path in feeds:
        parsed = feedparser.parse(path.read_bytes())
        assert not parsed.bozo, (path, parsed.bozo_exception)
        assert parsed.feed.id.startswith("urn:aimi:feed:") and parsed.feed.updated
        for entry in parsed.entries:
            signal_id = entry.id.removeprefix("urn:aimi:signal:")
            assert signal_id in served, entry.id
    # a story's feed: its signals, the latest change first (issue 46), under an id that
    # follows the story
    story = client.get(f"/v1/stories/{stories[0]}").json()
    told = feedparser.parse((site / "feeds" / "stories" / f"{story['story_id']}.atom").read_bytes())
    assert told.feed.id == f"urn:aimi:feed:story:{story['story_id']}"
    listed = [e.id.removeprefix("urn:aimi:signal:") for e in told.entries]
    assert len(listed) == min(20, len(story["signals"]))
    assert set(listed) <= {s["signal_id"] for s in story["signals"]}
    updated = [e.updated for e in told.entries]
    assert updated == sorted(updated, reverse=True)
    everything = feedparser.parse((site / "feeds" / "all.atom").read_bytes())
    assert len(everything.entries) == 20
    first = everything.entries[0]
    detail = client.get(f"/v1/signals/{first.id.removeprefix('urn:aimi:signal:')}").json()
    assert first.link == detail["url"] and first.title == detail["title"]
    content = first.content[0].value
    for unit in detail["units"]:
        assert escape(unit["text"]) in content
        for snippet in unit["evidence_preview"]["snippets"]:
            assert escape(snippet["text"]) in content


def test_pages_name_their_feed_and_the_feeds_bytes_depend_on_the_signals_only(
    demo_snapshot: OpenedSnapshot,
) -> None:
    from publishing.static.reuse import SiteWriter
    from publishing.static.site import SiteData, write_feeds
    from readmodel.store import LoadedSnapshot

    site = site_of(demo_snapshot)
    entity_html = sorted((site / "entities").glob("ent*.html"))[0]
    link = re.search(
        r'<link rel="alternate" type="application/atom\+xml" title="[^"]*" href="([^"]+)">',
        entity_html.read_text(),
    )
    assert link is not None
    assert (entity_html.parent / link.group(1)).resolve().is_file()
    assert 'type="application/atom+xml"' in (site / "index.html").read_text()
    # written again from the same snapshot: the same bytes (no build time in a feed)
    loaded = LoadedSnapshot.from_opened(demo_snapshot)
    again = site.parent.parent / f"{site.parent.name}-feeds-again"
    again.mkdir()
    try:
        write_feeds(SiteData(loaded, demo_snapshot), SiteWriter(again, None))
        for path in again.rglob("*.atom"):
            assert path.read_bytes() == (site / path.relative_to(again)).read_bytes(), path
    finally:
        shutil.rmtree(again)


def test_a_story_feed_shows_only_a_roundups_units_on_the_story() -> None:
    # units as a signal's detail serves them (``analytics.render``: ``id``, ``role``, ``text``)
    units = [{"id": u, "role": "claim", "text": u} for u in ("u0", "u1", "u2")]
    digest = {"signal_id": "dig", "units": units}
    story = {"parts": [{"signal_id": "dig", "units": [{"unit_id": "u1", "text": "u1"}]}]}
    assert [u["id"] for u in story_entry(digest, story)["units"]] == ["u1"]
    post = {"signal_id": "p1", "units": units}
    assert story_entry(post, story) is post
    assert story_entry(digest, {}) is digest
