"""Discovery: names the registry lacks that recur across signals and sources, proposed as
unreviewed entities.

Precise rather than greedy, because candidates are served (``/v1/entities?min_signals=1``). A
candidate is a run of capitalized words (``Thinking Machines Lab``, ``Sam Altman``), a
capitalized word with a version (``Veo 3``), or one word mixing letters and digits (``Qwen3``,
``o3-mini``), found in signal bodies (titles are skipped: headlines are title-cased throughout).
Leading function words are dropped (``The``, ``In``, months, weekdays). A name must contain a
word the corpus does not also write in lower case (``Model Developments`` is two ordinary words,
``Sam Altman`` is not), must not be written in lower case itself, must not touch a registry
mention, and must recur in ``min_signals`` signals from ``min_domains`` source domains.

The type comes from the name alone, so a candidate keeps its id from run to run: a company
suffix (``Inc``, ``Labs``, ``AI``) → organization; an accelerator-like code (``H200``,
``MI300X``) → hardware; a version or a letters-and-digits word → model; a common given name
first → person; anything else → other.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import polars as pl

from analytics.entities import Entity, public_id_for, slugify
from analytics.linking import Linker, normalize_text

MAX_NAME_TOKENS = 4
MIN_SINGLE_TOKEN_CHARS = 3
# a word the corpus writes in lower case this often (relative to capitalized) is ordinary
ORDINARY_WORD_RATIO = 0.2
# a whole name written in lower case this often is a common phrase, not a name
LOWERCASE_PHRASE_RATIO = 0.25

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*(?:[-.'][A-Za-z0-9]+)*")
_VERSION = re.compile(r"v?\d+(?:\.\d+)*[a-z]?$")
_MIXED = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z][\w.\-]*$")
_HARDWARE = re.compile(
    r"(?:[HABL]\d{2,3}s?|GB\d{3}|MI\d{3}X?|TPU(?:v\d+)?|RTX|GTX|M[1-9])$", re.IGNORECASE
)
_YEAR = re.compile(r"(?:19|20)\d\d$")
# quarters, fiscal years, number formats, parameter counts: letters and digits, but no names
_NOISE_CODE = re.compile(
    r"(?:[QH][1-4]|FY\d{2,4}|[A-Za-z]\d|(?:NV|MX)?FP\d+|BF16|INT\d+|[A-Z]\d+[BMK])$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"'s?$")

STOPWORDS = frozenset(
    """a an the this that these those in on at for with from by of to and but or nor so yet if
    when while as after before since until because although though once also then thus here
    there our we i it its he she they their his her my your you what which who whom whose why
    how where all any some each every no not new more most many much other another such both
    is are was were be been has have had do does did will would can could should may might
    must shall just only even still today yesterday tomorrow meanwhile however overall
    additionally furthermore moreover notably finally first second third last next per via
    about above across against among around between during into over through under up down out
    off again further very hi hey yes ok okay see read watch check note let like
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december""".split()
)
# acronyms that capitalized names contain without being names
GENERIC_ACRONYMS = frozenset(
    """ai api apis llm llms gpu gpus cpu cpus tpu ceo cto cfo coo us usa uk eu ml rl agi asi
    sota rag nlp moe ipo vc sdk ui ux pr ar vr os phd faq q&a tl;dr dr tldr ama url pdf csv
    json html http https gb tb mb kb gbps tflops pflops vram ram ssd hbm fps""".split()
)
LICENCES = frozenset("apache mit gpl lgpl agpl bsd cc mpl".split())
# trailing words that qualify a name without being part of it ("H100 GPUs")
TRAILING_GENERIC = frozenset("gpu gpus tpu tpus cpu cpus chip chips api apis vram".split())
DEMONYMS = frozenset(
    """american british canadian chinese dutch european french german indian israeli italian
    japanese korean russian saudi emirati spanish swiss taiwanese western""".split()
)
ORG_SUFFIXES = frozenset(
    """inc inc. corp corp. corporation labs lab ai ltd ltd. llc gmbh technologies technology
    systems robotics ventures capital partners group holdings foundation institute university
    research networks semiconductor semiconductors computing intelligence studios""".split()
)
GIVEN_NAMES = frozenset(
    """aaron adam alan albert alex alexander alexandr amanda amy andrej andrew andy anna arthur
    ben benjamin bill bob brad brian carl charles chris christopher claire dan daniel dario
    david demis donald dylan elon emily emma eric fei-fei francois françois gary geoffrey george
    greg
    guillermo harrison ian ilya jack jacob james jan jared jason jeff jeffrey jennifer jensen
    jeremy jim joe john jonathan joseph josh julia justin kai karen karpathy kate kevin lex lisa
    logan marc mark martin matt matthew max michael mike mira mustafa nat nathan noam oriol
    patrick paul percy peter phil reid richard rob robert ryan sam samuel sarah satya scott
    sebastian sergey shane simon stephen steve steven sundar susan thomas tim tom tony tri
    tyler victor will william yann yoshua zach""".split()
)


@dataclass
class _Tally:
    surfaces: Counter[str] = field(default_factory=Counter)
    signals: set[str] = field(default_factory=set)
    domains: set[str] = field(default_factory=set)


def _is_capitalized(token: str) -> bool:
    return token[0].isupper()


def guess_type(name: str) -> str:
    """The entity type a name suggests by itself (see the module docstring)."""
    tokens = name.split()
    if len(tokens) > 1 and tokens[-1].lower() in ORG_SUFFIXES:
        return "organization"
    if any(_HARDWARE.match(t) for t in tokens):
        return "hardware"
    if any(_YEAR.match(t) for t in tokens):  # "AIME 2025", "ICLR 2025": benchmarks, venues
        return "other"
    if tokens[0].lower().split("-")[0] in LICENCES:  # "Apache 2.0" is versioned, not a model
        return "other"
    if any(_VERSION.match(t) or _MIXED.match(t) for t in tokens):
        return "model"
    if (
        2 <= len(tokens) <= 3
        and tokens[0].lower() in GIVEN_NAMES
        and all(t.isalpha() and t[0].isupper() for t in tokens)
    ):
        return "person"
    return "other"


def _runs(text: str) -> list[list[re.Match[str]]]:
    """Maximal runs of name-like tokens separated by single spaces."""
    runs: list[list[re.Match[str]]] = []
    current: list[re.Match[str]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if (
            match.start() and text[match.start() - 1] in "@#$"
        ):  # handles, hashtags and tickers are not names in running text
            nameish = False
        elif _is_capitalized(token) or _MIXED.match(token):
            nameish = True
        else:  # a bare version continues a capitalized run: "Veo 3"
            nameish = bool(current) and _VERSION.match(token) is not None
        # a possessive ends the name it follows: "Meta's AI" is Meta's, not a name
        joined = (
            bool(current)
            and text[current[-1].end() : match.start()] == " "
            and not _POSSESSIVE.search(current[-1].group())
        )
        if nameish and joined:
            current.append(match)
            continue
        if current:
            runs.append(current)
        current = [match] if nameish and not _VERSION.match(token) else []
    if current:
        runs.append(current)
    return runs


def _name_span(run: list[re.Match[str]]) -> tuple[int, int, list[str]] | None:
    """Start, end and words of the name in a run: leading function words, trailing qualifiers
    and a possessive dropped; None when nothing name-like is left."""
    words = [m.group() for m in run]
    first, last = 0, len(words)
    while first < last and words[first].lower() in STOPWORDS:
        first += 1
    while last > first and words[last - 1].lower() in TRAILING_GENERIC:
        last -= 1
    if first == last:
        return None
    words = words[first:last]
    end = run[last - 1].end()
    if possessive := _POSSESSIVE.search(words[-1]):
        words[-1] = words[-1][: possessive.start()]
        end -= len(possessive.group())
    return run[first].start(), end, words


def _lowercase_counts(names: Iterable[str], bodies: Iterable[str]) -> Counter[str]:
    """How often each (lower-case) name is written in lower case: one pass over the bodies."""
    wanted = sorted(names, key=len, reverse=True)
    counts: Counter[str] = Counter()
    if not wanted:
        return counts
    pattern = re.compile(r"(?<![\w@#])(" + "|".join(re.escape(n) for n in wanted) + r")(?![\w])")
    for body in bodies:
        counts.update(match.group(1) for match in pattern.finditer(body))
    return counts


def _single_word_name(word: str) -> bool:
    """``Qwen3``, ``o3-mini``, ``n8n``: letters with digits, long enough, not a code; one that
    starts lower case must mix them in its first part (``day-0`` is no name)."""
    if not _MIXED.match(word) or len(word) < MIN_SINGLE_TOKEN_CHARS or _NOISE_CODE.match(word):
        return False
    head = re.split(r"[-.]", word, maxsplit=1)[0]
    return word[0].isupper() or (any(c.isdigit() for c in head) and any(c.isalpha() for c in head))


def discover_candidates(
    signals: pl.DataFrame, linker: Linker, *, min_signals: int = 2, min_domains: int = 2
) -> list[Entity]:
    """Unreviewed entities for names that recur in ``signals`` (``signal_id``, ``text``,
    ``domain``) and that ``linker``'s registry does not know, sorted by signal count then name.
    """
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    lowercase_words: Counter[str] = Counter()
    capitalized_words: Counter[str] = Counter()
    bodies: list[tuple[str, str, str]] = []
    for signal_id, text, domain in signals.select("signal_id", "text", "domain").iter_rows():
        body = normalize_text(text or "")
        bodies.append((signal_id, body, domain or ""))
        for match in _TOKEN.finditer(body):
            token = match.group()
            if token.isalpha():
                (capitalized_words if token[0].isupper() else lowercase_words)[token.lower()] += 1
    known_keys = {entity.key for entity in linker.entities.values()}

    def ordinary(token: str) -> bool:
        word = token.lower()
        if word in STOPWORDS or word in GENERIC_ACRONYMS:
            return True
        if not token.isalpha():
            return False
        if len(token) == 1:
            return True
        return lowercase_words[word] > ORDINARY_WORD_RATIO * max(capitalized_words[word], 1)

    for signal_id, body, domain in bodies:
        mentions = linker.find_mentions(body)
        for run in _runs(body):
            span = _name_span(run)
            if span is None or len(span[2]) > MAX_NAME_TOKENS:
                continue
            start, end, words = span
            name = body[start:end]
            if len(words) == 1 and not _single_word_name(words[0]):
                continue
            if all(ordinary(w) for w in words) or (
                words[-1].lower() in GENERIC_ACRONYMS
                and all(w.lower() in DEMONYMS or ordinary(w) for w in words[:-1])
            ):
                continue
            if any(m.start < end and start < m.end for m in mentions):
                continue
            tally = tallies[name.lower()]
            tally.surfaces[name] += 1
            tally.signals.add(signal_id)
            tally.domains.add(domain)

    # the most frequent spelling names the candidate
    recurring = {
        folded: min(tally.surfaces, key=lambda s: (-tally.surfaces[s], s))
        for folded, tally in tallies.items()
        if len(tally.signals) >= min_signals and len(tally.domains) >= min_domains
    }
    # a name whose proper spelling is lower case ("o3-mini") is exempt from the phrase test
    written_lowercase = _lowercase_counts(
        [folded for folded, name in recurring.items() if name != folded],
        [body for _, body, _ in bodies],
    )
    found: list[Entity] = []
    for folded, name in recurring.items():
        tally = tallies[folded]
        if linker.is_surface_form(name):
            continue
        if written_lowercase[folded] > LOWERCASE_PHRASE_RATIO * tally.surfaces.total():
            continue
        kind = guess_type(name)
        key = f"{kind}:{slugify(name)}"
        if key in known_keys:
            continue
        found.append(
            Entity(
                entity_id=public_id_for(key),
                key=key,
                name=name,
                type=kind,
                reviewed=False,
                extra={
                    "signals": str(len(tally.signals)),
                    "domains": str(len(tally.domains)),
                },
            )
        )
    found.sort(key=lambda e: (-int(e.extra["signals"]), e.name.lower(), e.name))
    return found
