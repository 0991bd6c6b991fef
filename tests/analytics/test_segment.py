"""Podcast topic segmentation on a synthetic three-topic episode (with an intro, a sponsor read
and an outro), on degenerate inputs, and on real episodes from ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from analytics.embedding import Embedder
from analytics.segment import MAX_TITLE_WORDS, TopicSegment, segment_transcript
from analytics.transcripts import Turn, format_timestamp, format_turns, parse_turns

POWER = [
    "Nvidia H100 clusters need enormous amounts of electricity and cooling.",
    "A single training run on twenty thousand GPUs draws about thirty megawatts.",
    "Data centre operators now sign power purchase agreements with nuclear plants.",
    "The grid interconnection queue in Virginia stretches for five years.",
    "Liquid cooling is becoming mandatory for the densest accelerator racks.",
    "Transformers and substations are the new bottleneck, not the GPUs themselves.",
    "Hyperscalers spend billions on gas turbines to power their campuses.",
    "GPU utilisation matters because idle accelerators still burn electricity.",
    "Blackwell racks consume over one hundred kilowatts each.",
    "Utilities forecast data centre load doubling by 2030.",
    "Some companies site clusters next to hydroelectric dams for cheap power.",
    "Packaging capacity at TSMC limits how many GPUs ship each quarter.",
]
HIRING = [
    "Recruiting senior machine learning engineers takes us about six months.",
    "Candidates weigh compensation, equity and the chance to ship research.",
    "We run a take-home exercise and two onsite interviews before an offer.",
    "Big labs pay top researchers packages above ten million dollars.",
    "Our hiring manager looks for engineers who have trained models end to end.",
    "Referrals bring in the strongest candidates, far more than job boards.",
    "Junior engineers learn fastest when they pair with experienced mentors.",
    "Retention depends on culture, career growth and hard problems.",
    "Remote hiring widened our talent pool to Europe and Latin America.",
    "Startups compete with big tech salaries by offering ownership and speed.",
    "Interview loops should test debugging skill, not trivia.",
    "Onboarding a new engineer takes roughly three months before full productivity.",
]
REGULATION = [
    "The European Union AI Act classifies systems by risk level.",
    "Regulators in Brussels require documentation for general purpose models.",
    "California lawmakers debated liability for frontier model developers.",
    "Compliance teams now audit training data for copyright problems.",
    "Export controls restrict sales of advanced chips to China.",
    "Courts will decide whether training on copyrighted books is fair use.",
    "The legislation imposes fines up to seven percent of global revenue.",
    "Policy makers worry about deepfakes during national elections.",
    "Standards bodies like NIST publish risk management frameworks.",
    "Companies lobby Congress for a single federal rule instead of state laws.",
    "Transparency obligations force providers to disclose model capabilities.",
    "Antitrust agencies examine partnerships between cloud providers and labs.",
]
TURNS_PER_TOPIC = 25
SECONDS_PER_TURN = 20
FIRST_TOPIC_S = 60


def _line(speaker: str, start_s: int, text: str) -> str:
    return f"{speaker} ({format_timestamp(start_s)}): {text}"


def synthetic_episode() -> tuple[str, list[int], int]:
    """The transcript, the start times of its three topics, and its duration."""
    lines = [
        "# The Compute Show",
        "",
        _line(
            "Host",
            0,
            "Welcome to the podcast. My guest today is Dana Smith, who runs infrastructure at "
            "a large lab. We cover power, hiring and regulation.",
        ),
        _line("Dana Smith", 15, "Thank you so much for having me, it's great to be here."),
        _line(
            "Host",
            25,
            "This episode is brought to you by Acme Cloud, the GPU cloud for startups. Use code "
            "DANA for twenty percent off at acmecloud.com.",
        ),
    ]
    topic_starts: list[int] = []
    start = FIRST_TOPIC_S
    for pool in (POWER, HIRING, REGULATION):
        topic_starts.append(start)
        for j in range(TURNS_PER_TOPIC):
            speaker = "Host" if j % 2 == 0 else "Dana Smith"
            # three distinct sentences per turn, rotating through the topic's pool
            sentences = [pool[(j + k * 5) % len(pool)] for k in range(3)]
            lines.append(_line(speaker, start, " ".join(sentences)))
            start += SECONDS_PER_TURN
    lines += [
        _line("Host", start, "Where can folks find you online?"),
        _line("Dana Smith", start + 5, "On my website. Thanks so much, this was fun."),
        _line(
            "Host",
            start + 10,
            "Thank you so much for being here. Don't forget to subscribe and rate and review.",
        ),
    ]
    return "\n\n".join(lines), topic_starts, start + 20


@pytest.fixture(scope="module")
def embed(build_minilm: Embedder) -> Embedder:
    return build_minilm


def _assert_well_formed(
    segments: list[TopicSegment], source: str, *, exact_turns: bool = True
) -> None:
    """Integer, increasing spans; titled; text in the normalized format, made of whole turns of
    ``source`` — or, for real transcripts (``exact_turns=False``), of whole timestamped
    paragraphs of its turns (speaker-less ``(hh:mm:ss):`` stamps), stamps that run backwards
    raised to the previous one."""
    original = {format_turns([turn]) for turn in parse_turns(source)}
    flat_source = " ".join(source.split())
    previous_end = 0
    for segment in segments:
        assert isinstance(segment.start_s, int) and isinstance(segment.end_s, int)
        assert previous_end <= segment.start_s < segment.end_s
        previous_end = segment.end_s
        assert segment.chapter.strip()
        assert len(segment.chapter.split()) <= MAX_TITLE_WORDS
        turns = parse_turns(segment.text)
        assert turns and turns[0].start_s == segment.start_s
        assert segment.text == format_turns(turns)
        for turn in turns:
            if exact_turns:
                assert format_turns([turn]) in original
            else:
                assert " ".join(turn.text.split()) in flat_source


def test_three_topics_found_and_housekeeping_dropped(embed: Embedder) -> None:
    text, topic_starts, duration = synthetic_episode()
    segments = segment_transcript(text, embed, duration_s=duration)

    _assert_well_formed(segments, text)
    assert len(segments) == 3
    # the intro and the sponsor read are cut: the first segment opens on the first topic turn
    assert segments[0].start_s == topic_starts[0]
    for segment, true_start in zip(segments[1:], topic_starts[1:], strict=True):
        assert abs(segment.start_s - true_start) <= 2 * SECONDS_PER_TURN
    joined = "\n".join(segment.text for segment in segments)
    for cue in ("Welcome to the podcast", "brought to you by", "having me", "rate and review"):
        assert cue not in joined
    # the outro is not part of the last segment either
    assert segments[-1].end_s <= duration - 20
    assert all(segment.score > 0 for segment in segments)


def test_chapters_come_from_the_segment_words(embed: Embedder) -> None:
    text, _, duration = synthetic_episode()
    segments = segment_transcript(text, embed, duration_s=duration)
    for segment in segments:
        words = {w.lower() for w in segment.text.replace(",", " ").replace(".", " ").split()}
        title_words = [w.lower() for w in segment.chapter.replace(",", " ").split() if w != "and"]
        assert title_words and all(w in words for w in title_words)
    # distinct topics get distinct titles
    assert len({segment.chapter for segment in segments}) == len(segments)


@pytest.mark.slow  # a whole episode segmented twice on the real model
def test_deterministic(embed: Embedder) -> None:
    text, _, duration = synthetic_episode()
    first = segment_transcript(text, embed, duration_s=duration)
    assert segment_transcript(text, embed, duration_s=duration) == first


def test_end_estimated_without_duration(embed: Embedder) -> None:
    text, _, duration = synthetic_episode()
    with_duration = segment_transcript(text, embed, duration_s=duration)
    without = segment_transcript(text, embed)
    assert [s.start_s for s in without] == [s.start_s for s in with_duration]
    # the last kept segment ends where the outro starts either way
    assert without[-1].end_s == with_duration[-1].end_s


def test_no_turns_no_segments(embed: Embedder) -> None:
    assert segment_transcript("", embed) == []
    assert segment_transcript("Just a paragraph with no speaker labels at all.", embed) == []


def test_too_few_turns_give_one_uncut_segment(embed: Embedder) -> None:
    # three long turns are too few blocks to tile: the conversation is one segment
    turns = [
        Turn("Host" if i % 2 == 0 else "Guest", i * 100, " ".join(POWER + POWER[:i]))
        for i in range(3)
    ]
    text = format_turns(turns)
    segments = segment_transcript(text, embed, duration_s=300)
    assert len(segments) == 1
    assert (segments[0].start_s, segments[0].end_s) == (0, 300)
    assert segments[0].text == text


def test_short_or_chit_chat_transcripts_give_nothing(embed: Embedder) -> None:
    short = format_turns([Turn("Host", 0, POWER[0]), Turn("Guest", 10, POWER[1])])
    assert segment_transcript(short, embed, duration_s=30) == []
    filler = "Yeah, I mean, I think it's really, you know, kind of like that, right? Totally."
    chatter = format_turns(
        [Turn("Host" if i % 2 else "Guest", i * 20, filler * 3) for i in range(30)]
    )
    assert segment_transcript(chatter, embed) == []


@pytest.mark.slow
@pytest.mark.shared_data
def test_real_episodes(shared_data: Path, embed: Embedder) -> None:
    episodes = sorted((shared_data / "podcasts").glob("*.md"))[:3]
    assert len(episodes) == 3
    for path in episodes:
        _, front, body = path.read_text(encoding="utf-8").split("---", 2)
        duration = int(float(yaml.safe_load(front)["duration_seconds"]))
        segments = segment_transcript(body, embed, duration_s=duration)
        _assert_well_formed(segments, body, exact_turns=False)
        hours = duration / 3600
        assert 3 * min(hours, 1.0) <= len(segments) <= 15 * max(hours, 1.0), path.name
        for segment in segments:
            assert 3 * 60 <= segment.end_s - segment.start_s <= 40 * 60, (path.name, segment)
