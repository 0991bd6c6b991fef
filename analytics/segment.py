"""Podcast topic segmentation: a timestamped transcript without chapters → its high-signal
topic segments, each with integer second spans and a chapter title drawn from its own words.

The method is TextTiling (Hearst, 1997) over sentence embeddings instead of word counts: the
transcript is cut into ~120-word blocks of whole turns, each block is embedded, and the cosine
similarity between the blocks before and after every gap (a few blocks on each side, smoothed)
traces how the conversation drifts. Topic changes are the deepest valleys of that curve. Sponsor
reads, intros and outros are found by cue phrases first and cut out, so they never blur a topic
and never reach a signal.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.embedding import Embedder
from analytics.transcripts import Turn, format_turns, parse_timestamp, parse_turns

# Defaults of ``segment_transcript``.
# ~45 s of speech: enough words for a stable embedding, well under MiniLM's 256-token cut.
BLOCK_WORDS = 120
# ~2.5 min of context each side of a gap: single answers drift, topics persist longer.
WINDOW_BLOCKS = 3
# A chapter shorter than 4 min is rarely a topic of its own in a long-form interview.
MIN_SEGMENT_S = 240
TARGET_SEGMENT_S = 480
MIN_TARGET_SEGMENT_S = 360  # at most one segment per 6 min…
MAX_TARGET_SEGMENT_S = 600  # …and at least one per 10 min, when the valleys allow
# Shorter leftovers are cold-open teasers or fragments between sponsor reads.
MIN_KEEP_S = 180
MIN_KEEP_WORDS = 250
# Segments of real interviews (Lenny's Podcast) measure 0.25–0.42; pure filler measures ~0.
MIN_CONTENT_DENSITY = 0.20
KEEP_SCORE_RATIO = 0.6  # of the episode's median segment score
MAX_TITLE_WORDS = 8
# Where no end time is known: a speaking rate to estimate how long the last turn runs.
WORDS_PER_SECOND = 2.5

# Paragraph stamps without a speaker (``(00:01:41): …``): the same speaker goes on, and the
# paragraph keeps its own start time, a finer place to cut than the whole turn.
_PARAGRAPH_STAMP = re.compile(r"(?:^|\s)\(((?:\d{1,2}:)?\d{1,2}:\d{2})(?:[.,]\d+)?\):\s*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’&-]*[A-Za-z0-9]|[A-Za-z]|\d[\d.,]*%?")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*$")

# Sponsor reads, intros, outros and housekeeping. Ad cues mark a paragraph whatever its length;
# pleasantries only mark a short one (a long answer may open with "thanks for having me").
_AD_CUES = re.compile(
    r"\b(?:brought to you by|(?:our|today's|this episode's) sponsors?\b|word from our sponsors?"
    r"|sponsors? of (?:the|this|our) (?:show|podcast)|sponsored by|promo code"
    r"|us(?:e|ing) (?:the )?code,? [A-Z0-9]\w*|rate(?:,)? (?:and|&) review"
    r"|leave (?:us )?a (?:rating|review)|(?:forget to|please|and) subscribe\b"
    r"|subscribe (?:to|on) (?:the|our|my)|wherever you get your podcasts"
    r"|(?:head (?:on )?over to|check it out at) [\w'.-]+\.(?:com|ai|io|co)\b"
    r"|my guest (?:today )?is|today,? my guest|welcome (?:back )?to (?:the|our) (?:podcast|show)"
    r"|in (?:our|this|today's) (?:conversation|episode))",
    re.I,
)
# The closing quick-fire round (favourite books, films, products, mottos): the outro from the
# moment it is announced, when that happens in the last part of the episode.
_OUTRO_START = re.compile(r"\blightning round\b", re.I)
_OUTRO_EARLIEST = 0.6  # fraction of the episode
_PLEASANTRY_CUES = re.compile(
    r"\b(?:thank(?:s| you)(?: so much)? for (?:having me|coming on|joining|being here|doing this)"
    r"|great to be here|glad to be here|excited to be here|where can (?:folks|people|listeners)"
    r" (?:find|follow)|how can (?:listeners|folks|people) be useful"
    r"|thank you so much|thanks so much|appreciate you)",
    re.I,
)
_PLEASANTRY_MAX_WORDS = 80

# Function words and conversational filler: what chit-chat is made of.
_STOPWORDS = frozenset(
    """a about above after again against all almost also although always am among an and any
    anybody anyone anything anyway are aren't around as at back be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't done down during each either else enough etc even ever every everybody everyone
    everything exactly few for from further get gets getting give go goes going gone gonna got
    gotten had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
    herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it it'd
    it'll it's its itself just kind kinda know knew let let's like likely little lot lots made
    make makes making many may maybe me mean means might mine more most much must my myself
    need needs neither never no nobody nor not nothing now of off often oh ok okay on once one
    ones only onto or other others otherwise our ours ourselves out over own per perhaps pretty
    quite rather really right said same say saying says see seem seems shall she she'd she'll
    she's should shouldn't since so some somebody someone something sometimes somewhat sort
    still stuff such sure take taking tell than that that'd that'll that's the their theirs
    them themselves then there there's these they they'd they'll they're they've thing things
    think thinking thought this those though through thus to together too totally toward
    towards um uh under until up upon us use used using very via want wanted wants was wasn't
    way ways we we'd we'll we're we've well went were weren't what what's whatever when
    whenever where where's whether which while who who's whoever whole whom whose why will with
    within without won't would wouldn't yeah yes yep yet you you'd you'll you're you've your
    yours yourself yourselves actually basically definitely probably literally obviously
    honestly certainly absolutely exactly super great good bad lots bit cool awesome amazing
    love loved guess feel felt talk talking talked said tell told ask asked asking come comes
    coming came look looking looked put try trying tried keep kept lot around able else end
    ended day days time times year years today things way thing sense point part kinds sorts
    first second last next new old big small different similar whole true real sort hear
    heard call called happen happens happened start started work works working worked getting
    create created doing done give gave given find found show shows showed mind idea ideas
    question questions answer answers episode podcast conversation guest folks people person
    everyone anyone someone somebody example examples case cases care change changes forward
    relevant performing top better best biggest lunch week weeks month months hour hours minute
    minutes moment moments stuff reason reasons number numbers level levels piece pieces
    area areas side sides kind type types place places world""".split()
)
_DETERMINERS = frozenset(
    "a an the this that these those my your our their his her its some any every each no "
    "another".split()
)
_NUMBER_WORDS = frozenset(
    "percent million millions billion billions trillion thousand hundred dozen half".split()
)

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TopicSegment:
    """One kept topic segment: ``[start_s, end_s)`` in whole seconds, its whole turns as
    normalized text (``format_turns``), a chapter title and the high-signal score it kept."""

    start_s: int
    end_s: int
    chapter: str
    text: str
    score: float


@dataclass(frozen=True)
class _Unit:
    """A turn, or one timestamped paragraph of a long turn: the smallest thing we cut between."""

    turn: Turn
    words: int
    housekeeping: bool


@dataclass(frozen=True)
class _Block:
    units: tuple[int, ...]  # indices into the unit list
    text: str
    starts_unit: bool  # a gap before this block is a turn start, so a boundary may go there


@dataclass(frozen=True)
class _Features:
    words: int
    content_density: float
    numbers_per_100: float
    names_per_100: float


def segment_transcript(
    text: str,
    embed: Embedder,
    *,
    duration_s: int | None = None,
    block_words: int = BLOCK_WORDS,
    window_blocks: int = WINDOW_BLOCKS,
    min_segment_s: int = MIN_SEGMENT_S,
    target_segment_s: int = TARGET_SEGMENT_S,
    min_keep_s: int = MIN_KEEP_S,
    min_keep_words: int = MIN_KEEP_WORDS,
    min_content_density: float = MIN_CONTENT_DENSITY,
    keep_score_ratio: float = KEEP_SCORE_RATIO,
) -> list[TopicSegment]:
    """The high-signal topic segments of a ``Name (hh:mm:ss): text`` transcript, in time order.

    Steps: turns (split further at speaker-less paragraph stamps) → housekeeping paragraphs
    (sponsor reads, intro, outro, by cue phrases) cut out, leaving stretches of conversation →
    ~``block_words``-word blocks of whole turns, embedded in one call → per gap, cosine
    similarity of the ``window_blocks`` blocks on either side, smoothed → TextTiling depth
    scores → boundaries at the deepest valleys, at least ``min_segment_s`` apart, about one per
    ``target_segment_s`` (between one per 6 and one per 10 minutes) → segments scored on
    substance; kept when long enough (``min_keep_s``, ``min_keep_words``), not chit-chat
    (``min_content_density``) and scoring at least ``keep_score_ratio`` × the episode median.

    Every segment starts at a turn's (or paragraph's) timestamp and ends where the next unit
    starts (the last one at ``duration_s``, or an estimate from its length). Segments need not
    be contiguous: dropped stretches leave gaps.

    A transcript too short to tile (fewer than ``2 × window_blocks`` blocks in a stretch) is not
    cut: it yields at most one segment per stretch, and only if it passes the same filters. No
    turns, no segments.
    """
    units = _mark_outro(_units(parse_turns(text)))
    if not units:
        return []
    end_of_episode = _episode_end(units, duration_s)
    stretches = _stretches(units)
    if not stretches:
        return []

    blocks_per_stretch = [_blocks(units, stretch, block_words) for stretch in stretches]
    all_blocks = [block for blocks in blocks_per_stretch for block in blocks]
    vectors = np.asarray(embed([block.text for block in all_blocks]), dtype=np.float64)

    candidates: list[tuple[float, int, int]] = []  # (depth, stretch index, block index)
    offset = 0
    for s_index, blocks in enumerate(blocks_per_stretch):
        depths = _depth_scores(vectors[offset : offset + len(blocks)], window_blocks)
        offset += len(blocks)
        for b_index, depth in enumerate(depths):
            if b_index > 0 and blocks[b_index].starts_unit and depth > 0:
                candidates.append((float(depth), s_index, b_index))

    cuts = _choose_boundaries(
        candidates,
        units,
        stretches,
        blocks_per_stretch,
        end_of_episode,
        min_segment_s=min_segment_s,
        target_segment_s=target_segment_s,
    )

    spans: list[list[int]] = []
    for s_index, stretch in enumerate(stretches):
        starts = sorted(blocks_per_stretch[s_index][b].units[0] for b in cuts.get(s_index, []))
        edges = [stretch[0], *starts, stretch[-1] + 1]
        spans.extend(list(range(lo, hi)) for lo, hi in zip(edges, edges[1:], strict=False))

    return _keep(
        spans,
        units,
        end_of_episode,
        min_keep_s=min_keep_s,
        min_keep_words=min_keep_words,
        min_content_density=min_content_density,
        keep_score_ratio=keep_score_ratio,
    )


# --- units and housekeeping ------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("’", "'"))


def _units(turns: Sequence[Turn]) -> list[_Unit]:
    units: list[_Unit] = []
    last_start = 0
    for turn in turns:
        pieces = _PARAGRAPH_STAMP.split(" " + turn.text)
        # split() alternates text, stamp, text, …: the first text keeps the turn's own stamp
        parts = [(turn.start_s, pieces[0])]
        parts += [(parse_timestamp(s), t) for s, t in zip(pieces[1::2], pieces[2::2], strict=True)]
        for start, body in parts:
            body = body.strip()
            if not body:
                continue
            # a stamp that runs backwards (a transcript glitch) must not make spans decrease
            last_start = max(last_start, start)
            words = len(_words(body))
            units.append(
                _Unit(Turn(turn.speaker, last_start, body), words, _is_housekeeping(body, words))
            )
    return units


def _is_housekeeping(text: str, words: int) -> bool:
    if _AD_CUES.search(text):
        return True
    return words <= _PLEASANTRY_MAX_WORDS and _PLEASANTRY_CUES.search(text) is not None


def _mark_outro(units: list[_Unit]) -> list[_Unit]:
    if not units:
        return units
    earliest = _OUTRO_EARLIEST * units[-1].turn.start_s
    for index, unit in enumerate(units):
        if unit.turn.start_s >= earliest and _OUTRO_START.search(unit.turn.text):
            return units[:index] + [_Unit(u.turn, u.words, True) for u in units[index:]]
    return units


def _stretches(units: Sequence[_Unit]) -> list[list[int]]:
    """Maximal runs of non-housekeeping units (as unit indices)."""
    stretches: list[list[int]] = []
    current: list[int] = []
    for index, unit in enumerate(units):
        if unit.housekeeping:
            if current:
                stretches.append(current)
            current = []
        else:
            current.append(index)
    if current:
        stretches.append(current)
    return stretches


def _episode_end(units: Sequence[_Unit], duration_s: int | None) -> int:
    last = units[-1]
    estimate = last.turn.start_s + max(5, math.ceil(last.words / WORDS_PER_SECOND))
    if duration_s is not None and duration_s > last.turn.start_s:
        return int(duration_s)
    return estimate


def _unit_end(units: Sequence[_Unit], index: int, end_of_episode: int) -> int:
    return units[index + 1].turn.start_s if index + 1 < len(units) else end_of_episode


def _span_s(units: Sequence[_Unit], span: Sequence[int], end_of_episode: int) -> int:
    return _unit_end(units, span[-1], end_of_episode) - units[span[0]].turn.start_s


# --- blocks and TextTiling --------------------------------------------------------------------


def _blocks(units: Sequence[_Unit], stretch: Sequence[int], block_words: int) -> list[_Block]:
    """~``block_words``-word blocks of consecutive whole units; only a unit longer than 1.5
    blocks is cut into pieces (whose inner gaps are never boundaries: they have no timestamp)."""
    blocks: list[_Block] = []
    pending: list[int] = []
    pending_words = 0

    def flush() -> None:
        nonlocal pending, pending_words
        if pending:
            text = " ".join(units[i].turn.text for i in pending)
            blocks.append(_Block(tuple(pending), text, True))
        pending, pending_words = [], 0

    for index in stretch:
        unit = units[index]
        if unit.words > 1.5 * block_words:
            flush()
            tokens = unit.turn.text.split()
            pieces = max(2, round(len(tokens) / block_words))
            size = math.ceil(len(tokens) / pieces)
            for p, lo in enumerate(range(0, len(tokens), size)):
                blocks.append(_Block((index,), " ".join(tokens[lo : lo + size]), p == 0))
            continue
        pending.append(index)
        pending_words += unit.words
        if pending_words >= block_words:
            flush()
    flush()
    return blocks


def _depth_scores(vectors: FloatArray, window: int) -> FloatArray:
    """TextTiling depth per gap: gap ``i`` lies before block ``i`` (gap 0 is the stretch start
    and scores 0). Similarity compares the mean vectors of up to ``window`` blocks per side."""
    count = len(vectors)
    depths = np.zeros(count, dtype=np.float64)
    if count < 2 * window:
        return depths
    similarity = np.ones(count, dtype=np.float64)
    for gap in range(1, count):
        left = vectors[max(0, gap - window) : gap].sum(axis=0)
        right = vectors[gap : gap + window].sum(axis=0)
        norm = float(np.linalg.norm(left) * np.linalg.norm(right))
        similarity[gap] = float(left @ right) / norm if norm > 0 else 1.0
    # a [1, 2, 1] smoothing pass: single noisy gaps should not read as valleys
    smoothed = similarity.copy()
    for gap in range(1, count):
        lo, hi = max(1, gap - 1), min(count - 1, gap + 1)
        weights = [1.0 if i != gap else 2.0 for i in range(lo, hi + 1)]
        smoothed[gap] = float(np.average(similarity[lo : hi + 1], weights=weights))
    for gap in range(1, count):
        left_peak = smoothed[gap]
        for i in range(gap - 1, 0, -1):
            if smoothed[i] < left_peak:
                break
            left_peak = smoothed[i]
        right_peak = smoothed[gap]
        for i in range(gap + 1, count):
            if smoothed[i] < right_peak:
                break
            right_peak = smoothed[i]
        depths[gap] = (left_peak - smoothed[gap]) + (right_peak - smoothed[gap])
    return depths


def _choose_boundaries(
    candidates: Sequence[tuple[float, int, int]],
    units: Sequence[_Unit],
    stretches: Sequence[Sequence[int]],
    blocks_per_stretch: Sequence[Sequence[_Block]],
    end_of_episode: int,
    *,
    min_segment_s: int,
    target_segment_s: int,
) -> dict[int, list[int]]:
    """Block indices to cut before, per stretch.

    Deepest valleys first, each at least ``min_segment_s`` from the stretch's edges and from the
    cuts already taken. A stretch gets cuts freely up to its target count (one segment per
    ``target_segment_s``, and at least one per 10 minutes); beyond that, up to one segment per
    6 minutes, only for valleys deeper than the average one.
    """
    target: dict[int, int] = {}
    most: dict[int, int] = {}
    for s_index, stretch in enumerate(stretches):
        length = _span_s(units, stretch, end_of_episode)
        most[s_index] = max(0, math.floor(length / MIN_TARGET_SEGMENT_S) - 1)
        wanted = max(round(length / target_segment_s), math.ceil(length / MAX_TARGET_SEGMENT_S))
        target[s_index] = min(max(0, wanted - 1), most[s_index])
    mean_depth = float(np.mean([c[0] for c in candidates])) if candidates else 0.0

    taken: dict[int, list[int]] = {}
    taken_times: dict[int, list[int]] = {}
    for depth, s_index, b_index in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        count = len(taken.get(s_index, []))
        if count >= most[s_index] or (count >= target[s_index] and depth <= mean_depth):
            continue
        stretch = stretches[s_index]
        at = units[blocks_per_stretch[s_index][b_index].units[0]].turn.start_s
        edges = [
            units[stretch[0]].turn.start_s,
            _unit_end(units, stretch[-1], end_of_episode),
            *taken_times.get(s_index, []),
        ]
        if all(abs(at - edge) >= min_segment_s for edge in edges):
            taken.setdefault(s_index, []).append(b_index)
            taken_times.setdefault(s_index, []).append(at)
    return taken


# --- keeping and titling ----------------------------------------------------------------------


def _features(text: str) -> _Features:
    tokens = _words(text)
    if not tokens:
        return _Features(0, 0.0, 0.0, 0.0)
    content = 0
    numbers = 0
    names = 0
    sentence_start = True
    for raw in re.findall(r"\S+", text.replace("’", "'")):
        for token in _WORD.findall(raw):
            lower = token.lower()
            if token[0].isdigit() or lower in _NUMBER_WORDS:
                numbers += 1
            elif (
                token[0].isupper()
                and not sentence_start
                and lower not in _STOPWORDS
                and token != "I"
            ):
                names += 1
            if lower not in _STOPWORDS and (
                len(token) > 2 or token.isupper() or token[0].isdigit()
            ):
                content += 1
        sentence_start = bool(_SENTENCE_END.search(raw))
    total = len(tokens)
    return _Features(total, content / total, 100 * numbers / total, 100 * names / total)


def _score(features: _Features) -> float:
    """Substance: content-word density, lifted by numbers and names, scaled down when short."""
    length = math.sqrt(min(1.0, features.words / 1000))
    lift = 1.0 + min(features.numbers_per_100, 3.0) / 10 + min(features.names_per_100, 6.0) / 20
    return round(features.content_density * lift * length, 6)


def _keep(
    spans: Sequence[Sequence[int]],
    units: Sequence[_Unit],
    end_of_episode: int,
    *,
    min_keep_s: int,
    min_keep_words: int,
    min_content_density: float,
    keep_score_ratio: float,
) -> list[TopicSegment]:
    texts = [" ".join(units[i].turn.text for i in span) for span in spans]
    features = [_features(text) for text in texts]
    scores = [_score(f) for f in features]
    eligible = [
        i
        for i, span in enumerate(spans)
        if _span_s(units, span, end_of_episode) >= min_keep_s
        and features[i].words >= min_keep_words
        and features[i].content_density >= min_content_density
    ]
    if not eligible:
        return []
    floor = keep_score_ratio * float(np.median([scores[i] for i in eligible]))
    kept = [i for i in eligible if scores[i] >= floor]
    speakers = {w.lower() for u in units for w in _words(u.turn.speaker)}
    titles = _titles(texts, kept, speakers)
    return [
        TopicSegment(
            start_s=units[spans[i][0]].turn.start_s,
            end_s=_unit_end(units, spans[i][-1], end_of_episode),
            chapter=titles[i],
            text=format_turns([units[u].turn for u in spans[i]]),
            score=scores[i],
        )
        for i in kept
    ]


def _title_terms(text: str, speakers: set[str]) -> tuple[list[list[str]], set[str]]:
    """Runs of consecutive title-worthy words (phrase candidates, in surface form), and the
    words that look like nouns: the last word of a run right after a determiner (English noun
    phrases end in their noun), a name capitalized mid-sentence, or an acronym. No tagger."""
    runs: list[list[str]] = []
    nouns: set[str] = set()
    current: list[str] = []
    after_determiner = False
    run_after_determiner = False
    sentence_start = True

    def close() -> None:
        nonlocal current
        if current:
            if run_after_determiner:
                nouns.add(current[-1].lower())
            runs.append(current)
        current = []

    for raw in text.replace("’", "'").split():
        token = raw.strip("\"'“”()[]{}.,;:!?…—-")
        lower = token.lower()
        worthy = (
            _WORD.fullmatch(token) is not None
            and not token[0].isdigit()
            and lower not in _STOPWORDS
            and lower not in speakers
            and "'" not in token
            and (len(token) > 2 or (token.isupper() and len(token) == 2))
        )
        if worthy:
            if not current:
                run_after_determiner = after_determiner
            current.append(token)
            if (token[0].isupper() and not sentence_start) or (token.isupper() and len(token) > 1):
                nouns.add(lower)
        else:
            close()
        after_determiner = lower in _DETERMINERS
        if worthy and token != raw.strip("\"'“”()[]{}"):  # punctuation ends a phrase
            close()
        sentence_start = bool(_SENTENCE_END.search(raw))
    close()
    return runs, nouns


def _titles(texts: Sequence[str], kept: Sequence[int], speakers: set[str]) -> dict[int, str]:
    """Per kept segment: its most distinctive phrases against the rest of the episode."""
    terms = [_title_terms(text, speakers) for text in texts]
    runs = [r for r, _ in terms]
    word_counts = [Counter(w.lower() for run in rs for w in run) for rs in runs]
    doc_freq: Counter[str] = Counter()
    for counts in word_counts:
        doc_freq.update(counts.keys())
    n_docs = len(texts)
    titles: dict[int, str] = {}
    for i in kept:
        counts = word_counts[i]
        weight = {w: c * math.log((n_docs + 1) / (doc_freq[w] + 0.5)) for w, c in counts.items()}
        surface: dict[str, Counter[str]] = {}
        phrases: Counter[tuple[str, ...]] = Counter()
        for run in runs[i]:
            for w in run:
                surface.setdefault(w.lower(), Counter())[w] += 1
            lowered = [w.lower() for w in run]
            for n in (1, 2, 3):
                for lo in range(len(lowered) - n + 1):
                    phrases[tuple(lowered[lo : lo + n])] += 1

        nouns = terms[i][1]
        ranked = sorted(
            (
                (_phrase_score(p, c, weight), p)
                for p, c in phrases.items()
                if p[-1] in nouns and (len(p) == 1 or c >= 2)
            ),
            key=lambda item: (-item[0], item[1]),
        )
        chosen: list[tuple[str, ...]] = []
        used: set[str] = set()
        for _, phrase in ranked:
            stems = {_stem(w) for w in phrase}
            if used.intersection(stems):  # "Eval" after "Evals" adds nothing
                continue
            if sum(len(p) for p in chosen) + len(phrase) > MAX_TITLE_WORDS - 2:
                continue
            chosen.append(phrase)
            used.update(stems)
            if len(chosen) == 3 or sum(len(p) for p in chosen) >= 5:
                break
        titles[i] = _join_title(chosen, surface) or _fallback_title(texts[i])
    return titles


def _phrase_score(phrase: tuple[str, ...], count: int, weight: dict[str, float]) -> float:
    # repeated multi-word phrases read better than lone keywords
    mean_weight = sum(weight[w] for w in phrase) / len(phrase)
    return count * mean_weight * (1 + 0.5 * (len(phrase) - 1))


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _cased(word: str, surface: dict[str, Counter[str]]) -> str:
    forms = surface.get(word)
    best = min(forms.items(), key=lambda item: (-item[1], item[0]))[0] if forms else word
    # keep acronyms and brand casing (GPU, OpenAI); capitalize plain words
    return best if any(ch.isupper() for ch in best) else best[:1].upper() + best[1:]


def _join_title(chosen: Sequence[tuple[str, ...]], surface: dict[str, Counter[str]]) -> str:
    names = [" ".join(_cased(w, surface) for w in phrase) for phrase in chosen]
    if len(names) <= 1:
        return names[0] if names else ""
    return ", ".join(names[:-1]) + " and " + names[-1]


def _fallback_title(text: str) -> str:
    words = [w for w in _words(text) if w.lower() not in _STOPWORDS][:MAX_TITLE_WORDS] or _words(
        text
    )[:MAX_TITLE_WORDS]
    return " ".join(w[:1].upper() + w[1:] for w in words) or "Conversation"
