"""Discovery: names the registry lacks that recur across signals and sources, proposed as
unreviewed entities: cleaned, typed and attached to their family.

Precise rather than greedy, because candidates are served (``/v1/entities?min_signals=1``) and the
ones that pass the acceptance bar enter trending (``analytics.entity_review``). A candidate is a
run of capitalized words (``Thinking Machines Lab``, ``Sam Altman``), a capitalized word with a
version (``Veo 3``), or one word mixing letters and digits (``Qwen3``, ``o3-mini``), found in
signal bodies (titles are skipped: headlines are title-cased throughout). Leading function words
are dropped (``The``, ``In``, months, weekdays), and so is a sentence's first word when the corpus
writes it in lower case elsewhere (``Introducing``, ``Excited``). A name must contain a word the
corpus does not also write in lower case (``Model Developments`` is two ordinary words, ``Sam
Altman`` is not), must not be written in lower case itself, must not touch a registry mention,
and must recur in ``min_signals`` signals from ``min_domains`` source domains.

**Cleaning** (``rejection``): no job titles or roles (``Chief Scientist``), scores (``Code Arena
Elo 1588``, ``DeepSWE 65.3``), periods (``Q1 2025``), licences (``Apache 2.0``), number formats
and quantizations (``float8``, ``Q4_K_M``, ``… GGUFs``), plurals of a product code (``H200s``),
or methods named by their head word (``… Optimization``, ``… Distillation``).

**Typing** (``guess_type``), from the name first and the words around its mentions second: a
bill's or a safety level's pattern → regulation_policy; a company suffix (``Inc``, ``Labs``,
``AI``) → organization; an accelerator-like code (``H200``, ``MI300X``) → hardware; two or three
capitalized words starting with a given name (``given_names``: ~40,000 from 50+ countries, plus
our own) → person; a software version (``v0.6``, ``1.0.0``) or a benchmark's head word
(``…Bench``, ``…Eval``) → other; then the context's cue words (``said``/``CEO`` → person,
``raised``/``startup`` → organization, ``GPU``/``chip`` → hardware, ``weights``/``parameters`` →
model, ``benchmark``/``library``/``dataset`` → other) when they are clear; else a version or a
letters-and-digits word → model, anything else → other.

**Family** (``family_of``): a model or hardware name whose leading words, or whose first word's
letters before its version (``Qwen3.8-27B`` → ``Qwen``), name a registry model or hardware entry
joins that entry's family (its own ``family`` when it has one).

**Short forms** (``short_forms``): a recurring name of two or more words, one of them with a
digit, that is a longer name without its leading words (``Haiku 4.5`` for ``Claude Haiku
4.5``, ``K2 Thinking`` for ``Kimi K2 Thinking``) and the end of no other name, is that entity
written short, not a new one: it becomes an alias of the registry entry (``Discovered.aliases``)
or of the longer candidate (whose counts it joins), so the model's mentions are not split in two.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import polars as pl

from analytics.entities import Alias, Entity, fold_name, public_id_for, slugify
from analytics.linking import EntityIndex, Linker, normalize_text

MAX_NAME_TOKENS = 4
MIN_SINGLE_TOKEN_CHARS = 3
# a word the corpus writes in lower case this often (relative to capitalized) is ordinary
ORDINARY_WORD_RATIO = 0.2
# a whole name written in lower case this often is a common phrase, not a name
LOWERCASE_PHRASE_RATIO = 0.25
# context: the words this many characters either side of a mention, over at most this many
# mentions of a name
CONTEXT_CHARS = 60
CONTEXT_MENTIONS = 40
# a type the context's cue words name wins when it has this many cue hits and this many times
# those of the runner-up
MIN_CUES = 2
CUE_MARGIN = 1.5
# ... and, weighed against all candidates' contexts, this many times their rate
CUE_LIFT = 1.5
# a word that ends this many names whose first word is no given name is a product's head word
# ("Studio", "Arena"), not a surname
PRODUCT_HEAD_NAMES = 2

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*(?:[-.'][A-Za-z0-9]+)*")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_VERSION = re.compile(r"v?\d+(?:\.\d+)*[a-z]?$")
_MIXED = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z][\w.\-]*$")
_HARDWARE = re.compile(
    r"(?:[HABL]\d{2,3}s?|A\d{4}|GB\d{3}|MI\d{3}X?|TPU(?:v\d+)?|RTX|GTX|M[1-9])$", re.IGNORECASE
)
_YEAR = re.compile(r"(?:19|20)\d\d$")
# a venue's acronym glued to its year: EMNLP2024, ICML2025
_VENUE_YEAR = re.compile(r"[A-Z]{3,}(?:19|20)\d\d")
# quarters, fiscal years, number formats, parameter counts: letters and digits, but no names
_NOISE_CODE = re.compile(
    r"(?:[QH][1-4]|FY\d{2,4}|[A-Za-z]\d|(?:NV|MX)?FP\d+|BF16|INT\d+|[A-Z]\d+[BMK])$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"'s?$")
# a name made an adjective: GPT-4-level, Llama-class, o1-style
_LIKE = re.compile(r"-(?:level|class|style|like|based|grade|tier|sized|scale)$", re.IGNORECASE)
_WILDCARD = re.compile(r"\d\.[xX]\b")
# a hyphenated adjective: AI-native, MatMul-free, AI-generated
_ADJECTIVE = re.compile(r"\w+-[a-z]{3,}")
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n]|\s[-*•]|\()\s*$")
# number types and quantization formats: float8, bf16, int4, Q4_K_M, Q3KM, q5
_FORMAT = re.compile(
    r"(?:b?float|fp|bf|int|uint)\d+|q\d(?:_?k(?:_?[msl])?)?(?:_\d)?$", re.IGNORECASE
)
# a product code in the plural: H200s, A100s, RTX 4090s
_PLURAL_CODE = re.compile(r"[A-Za-z]*\d+s$")
# a score: 65.3, 72.10 (a decimal with two or more integer digits)
_SCORE = re.compile(r"\d{2,}\.\d+$")
# a parameter count: 32B, 8x22B, 1.5b, 350M (after a hyphen or alone)
_PARAMETERS = re.compile(r"(?:^|-)(?:\d+(?:\.\d+)?(?:x\d+)?B|\d+M)(?:$|-)", re.IGNORECASE)
# a benchmark's or a dataset's size glued to its name: MATH-500, LiveMCP-101, ADE20K
_SIZED = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]-?[1-9]\d{2}|[A-Za-z][\w-]*\d+K")
# a software product's version: a major of 10 or more (Windows 11, Chrome 137, Xcode 26) or a
# two-digit minor (Python 3.11); model versions are small (Veo 3, Qwen 2.5)
_SOFTWARE_VERSION = re.compile(r"v?(?:[1-9]\d{1,2}(?:\.\d+)?|\d+\.\d{2,})")
# one to three syllables of Hanyu Pinyin without tones (Junyang, Xiaohua, Zhai)
_PINYIN = re.compile(
    r"(?:(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?"
    r"(?:iang|iong|uang|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|in|un|ia|ie|iu|ua|uo"
    r"|ui|ue|er|a|o|e|i|u)){1,3}"
)
_SEMVER = re.compile(r"v?\d+\.\d+\.\d+|v0\.\d+$", re.IGNORECASE)
_REGULATION = re.compile(r"(?:SB|AB|HB|HR|S)-?\d{2,5}$|ASL-\d$")
_BENCHMARK_HEAD = re.compile(
    r".*(?:bench|eval|evals|arena|test)(?:[-\s]?v?\d[\w.]*)?$", re.IGNORECASE
)

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
    dynamics systems robotics ventures capital partners group holdings foundation institute
    university research networks party tech semiconductor semiconductors computing intelligence
    studios advisory securities consulting associates health bio biosciences therapeutics
    pharma pharmaceuticals bank motors energy industries enterprises software""".split()
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


PERIOD_WORDS = frozenset(
    """jan feb mar apr jun jul aug sep sept oct nov dec q1 q2 q3 q4 h1 h2 fy""".split()
)
LICENCE_NAMES = frozenset("apache mit gpl lgpl agpl bsd cc mpl a2.0".split())
# words of a job title or role: a name holding one is a title, not a name ("Chief Scientist")
ROLE_WORDS = frozenset(
    """chief head director officer president vp svp evp engineer engineers scientist scientists
    researcher researchers manager managers founder founders cofounder co-founder ceo cto cfo
    coo cso professor intern interns analyst analysts pm pms evangelist advocate recruiter
    designer designers developer developers""".split()
)
SCORE_WORDS = frozenset("elo score scores pass@1 top-1 top-5 top-10 top-20".split())
PACKAGING_WORDS = frozenset(
    """gguf ggufs awq gptq exl2 exl3 mlx quant quants quantized qat lora loras""".split()
)
# the head word of a method, a technique or a concept: "Direct Nash Optimization"
METHOD_HEADS = frozenset(
    """optimization tuning finetuning fine-tuning distillation attention search divergence
    embedding embeddings internalization jailbreaking networks solutions teachers norm rmsnorm
    tanh pagerank test learning leaderboard""".split()
)
# a name ending in one of these is a chip, an event; starting with one, an organization
CHIP_HEADS = frozenset("npu gpu cpu tpu soc".split())
EVENT_HEADS = frozenset("competition conference summit hackathon olympiad workshop".split())
ORG_PREFIXES = frozenset("team uc university".split())
# generic heads: a name ending in one describes a thing ("Python SDK", "SWE Agent")
HEADS = frozenset("llm llms sdk ui agent agents accelerators".split())
# a model's tier or a generic numbered word, which a name fragment starts with ("Pro Max",
# "Large 2", "System 2", "Flash Experimental")
TIER_WORDS = frozenset(
    "pro max mini ultra flash lite large small medium experimental preview turbo plus nano exp "
    "system tier".split()
)
ROMAN = frozenset("i ii iii iv v vi".split())
GEO_WORDS = frozenset(
    """east west north south africa america asia europe valley bay coast island islands
    kingdom republic emirates""".split()
)
# cue words near a name's mentions, by the type they suggest
CUES: dict[str, frozenset[str]] = {
    "person": frozenset(
        """said says say told tweeted posted argues argued wrote ceo founder co-founder
        cofounder cto researcher scientist professor prof dr mr ms he she his her him who
        former joined hired author interview podcast host he's she's""".split()
    ),
    "organization": frozenset(
        """company companies startup startups raised raises raising funding valuation acquired
        acquires acquisition firm investors investor ipo employees headquartered subsidiary
        backed""".split()
    ),
    "hardware": frozenset(
        """gpu gpus chip chips accelerator accelerators hardware server servers robot robots
        humanoid device devices laptop laptops phone phones smartphone headset supercomputer
        cluster clusters tflops hbm nvlink silicon wafer""".split()
    ),
    "model": frozenset(
        """model models weights open-weights open-weight parameters params checkpoint
        checkpoints llm llms fine-tuned finetuned instruct distilled multimodal text-to-image
        text-to-video diffusion moe""".split()
    ),
    "other": frozenset(
        """benchmark benchmarks leaderboard dataset datasets library libraries framework
        frameworks tool tools app apps sdk platform repo github package pip eval evals
        evaluation browser extension plugin editor ide protocol standard database""".split()
    ),
    "event": frozenset(
        """conference summit workshop hackathon competition olympiad keynote expo""".split()
    ),
}


@dataclass
class _Tally:
    surfaces: Counter[str] = field(default_factory=Counter)
    signals: set[str] = field(default_factory=set)
    domains: set[str] = field(default_factory=set)
    days: set[str] = field(default_factory=set)
    context: Counter[str] = field(default_factory=Counter)
    mentions: int = 0


def _is_capitalized(token: str) -> bool:
    return token[0].isupper()


def rejection(name: str) -> str | None:
    """Why ``name`` is no entity (``role``, ``score``, ``period``, ``licence``, ``format``,
    ``packaging``, ``plural``, ``method``, ``descriptor``, ``fragment``), or None when it may
    be one."""
    tokens = name.split()
    folded = [t.lower() for t in tokens]
    if folded[0].split("-")[0] in LICENCE_NAMES:
        return "licence"
    if any(t in ROLE_WORDS for t in folded):
        return "role"
    if any(t in SCORE_WORDS for t in folded) or _SCORE.match(tokens[-1]):
        return "score"
    if len(tokens) == 2 and folded[0] in PERIOD_WORDS and tokens[1].isdigit():
        return "period"
    if any(_FORMAT.fullmatch(t) for t in tokens):
        return "format"
    if any(t.rstrip("s") in PACKAGING_WORDS or t in PACKAGING_WORDS for t in folded):
        return "packaging"
    if _PLURAL_CODE.fullmatch(tokens[-1]) and not _YEAR.match(tokens[-1][:-1]):
        return "plural"
    if len(tokens) > 1 and folded[-1] in METHOD_HEADS:
        return "method"
    if (
        len(tokens) > 1
        and (
            folded[0] in GENERIC_ACRONYMS or _ADJECTIVE.fullmatch(tokens[0]) or folded[-1] in HEADS
        )
    ) or _LIKE.search(tokens[-1]):
        return "descriptor"
    if _WILDCARD.search(name):  # "Llama-3.x": every version, no one thing
        return "fragment"
    if (
        len(tokens) > 1
        and folded[0] in TIER_WORDS
        and all(t in TIER_WORDS or t in ROMAN or any(c.isdigit() for c in t) for t in folded[1:])
    ):
        return "fragment"
    return None


def discovered_id(name: str) -> str:
    """A discovered name's public id: from its slug alone, so that typing it differently in a
    later build (better rules, more context) keeps the id; approving it keeps it too."""
    return public_id_for(f"discovered:{slugify(name)}")


def _cue_type(context: Counter[str], baseline: dict[str, float] | None = None) -> str | None:
    """The type the context's cue words name clearly, or None. With ``baseline`` (each type's
    cue hits per context word over all candidates), a type's hits are weighed by how much more
    often they occur here than around names in general: in AI news "model" is near everything.
    """
    words = max(context.total(), 1)
    scored = []
    for kind, cues in CUES.items():
        hits = sum(context[w] for w in cues)
        weight = hits / words / baseline[kind] if baseline and baseline.get(kind) else hits
        scored.append((weight, hits, kind))
    scored.sort(reverse=True)
    (best, hits, kind), (runner_up, _, _) = scored[0], scored[1]
    if hits >= MIN_CUES and best >= CUE_MARGIN * runner_up and (not baseline or best >= CUE_LIFT):
        return kind
    return None


def cue_baseline(contexts: Iterable[Counter[str]]) -> dict[str, float]:
    """Each type's cue hits per context word over ``contexts`` (all candidates)."""
    total = Counter[str]()
    for context in contexts:
        total.update(context)
    words = max(total.total(), 1)
    return {kind: sum(total[w] for w in cues) / words for kind, cues in CUES.items()}


def _person_shaped(tokens: list[str]) -> bool:
    """Two or three words of letters (apostrophes and hyphens allowed), each capitalized
    (``LeBron``, ``D'Angelo`` too)."""
    return 2 <= len(tokens) <= 3 and all(
        len(t) > 1
        and t[0].isupper()
        and not t.isupper()
        and t.replace("'", "").replace("-", "").isalpha()
        for t in tokens
    )


def _pinyin_name(tokens: list[str]) -> bool:
    """A Chinese name romanized in pinyin: two words, each one to three syllables."""
    return len(tokens) == 2 and all(_PINYIN.fullmatch(t.lower()) for t in tokens)


def _never_lowercase(word: str) -> bool:
    del word
    return False


def _stem_entry(name: str, index: EntityIndex | None) -> Entity | None:
    """The registry entry ``name``'s leading words, its first word's leading hyphenated parts
    (``GPT-5.1-Codex`` → ``GPT-5.1``), or the letters of its first word before a version
    (``Qwen3.8-27B`` → ``Qwen``) name: longest first; products and models only."""
    if index is None:
        return None
    tokens = name.split()
    prefixes = [" ".join(tokens[:n]) for n in range(len(tokens) - 1, 0, -1)]
    parts = tokens[0].split("-")  # "GPT-5.1-Codex" → "GPT-5.1", "GPT"
    prefixes += ["-".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)]
    stem = re.match(r"[A-Za-z]+(?:-[A-Za-z]+)*?(?=[-.\s]?v?\d)", tokens[0])
    if stem and len(stem.group()) >= 2:
        prefixes.append(stem.group())
    for prefix in prefixes:
        entry = index.resolve(prefix)
        if entry is not None and entry.type in ("model", "hardware", "other"):
            return entry
    return None


def guess_type(
    name: str,
    context: Counter[str] | None = None,
    given_names: frozenset[str] = frozenset(),
    *,
    baseline: dict[str, float] | None = None,
    index: EntityIndex | None = None,
    no_surname: Callable[[str], bool] = _never_lowercase,
) -> str:
    """The entity type ``name`` suggests, with the cue words around its mentions (``context``,
    lower-case word counts, weighed against ``baseline``), a list of given names, the registry
    (``index``: a name that extends a registry product takes its type) and what the corpus says
    of a word (``no_surname``: one it mostly writes in lower case, "Song", "Vision", or the
    head of several product names, "Studio", "Arena"). See the module docstring."""
    tokens = name.split()
    folded = [t.lower() for t in tokens]
    context = context or Counter()
    if _REGULATION.match(tokens[-1]) or name.startswith(("Executive Order", "EU AI Act")):
        return "regulation_policy"
    if len(tokens) > 1 and (folded[-1] in ORG_SUFFIXES or folded[0] in ORG_PREFIXES):
        return "organization"
    if any(_HARDWARE.match(t) for t in tokens) or (len(tokens) > 1 and folded[-1] in CHIP_HEADS):
        return "hardware"
    if (len(tokens) > 1 and folded[-1] in EVENT_HEADS) or _VENUE_YEAR.fullmatch(name):
        return "event"
    cue = _cue_type(context, baseline)
    given = tokens[0] in given_names or folded[0] in GIVEN_NAMES or _pinyin_name(tokens)
    person = (
        _person_shaped(tokens)
        and (given or cue == "person")
        and not no_surname(tokens[-1])
        and folded[-1] not in GEO_WORDS
    )
    # a person before a registry stem: "Ray Kurzweil" is no version of the Ray framework
    if person:
        return "person"
    if (entry := _stem_entry(name, index)) is not None:
        return entry.type
    if any(_YEAR.match(t) for t in tokens):  # "AIME 2025", "ICLR 2025": benchmarks, venues
        return "event" if cue == "event" else "other"
    if folded[0].split("-")[0] in LICENCE_NAMES:  # "Apache 2.0" is versioned, not a model
        return "other"
    if any(_PARAMETERS.search(t) for t in tokens):  # "ReasonFlux-32B", "Mixtral-8x22B"
        return "model"
    if len(tokens) > 1 and (folded[-1] in GEO_WORDS or folded[0] in GEO_WORDS):
        return "location"
    software = (_SEMVER.match(t) or _SOFTWARE_VERSION.fullmatch(t) for t in tokens)
    if any(software) or _SIZED.fullmatch(tokens[-1]) or _BENCHMARK_HEAD.match(name):
        return "other"
    versioned = any(_VERSION.match(t) or _MIXED.match(t) for t in tokens)
    # organizations and events carry no version numbers: their cues cannot make one of a
    # versioned name ("Sonnet 3.5" near "Anthropic raised…" is still a model)
    if cue is not None and cue != "person" and not (versioned and cue in ("organization", "event")):
        return cue
    return "model" if versioned else "other"


def family_of(name: str, kind: str, index: EntityIndex) -> str | None:
    """The family a model or hardware ``name`` joins: the registry model or hardware entry its
    leading words name, or the letters of its first word before a version (``Qwen3.8-27B`` →
    ``Qwen``), longest first; that entry's own family when it has one. None otherwise."""
    if kind not in ("model", "hardware"):
        return None
    entry = _stem_entry(name, index)
    if entry is not None and entry.type in ("model", "hardware"):
        return entry.family or entry.entity_id
    return None


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
    while last > first and words[last - 1].lower() in TRAILING_GENERIC | PACKAGING_WORDS:
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


def _sentence_start(body: str, start: int) -> bool:
    """Whether ``start`` opens a sentence: the text before it ends in sentence punctuation, a
    newline, a bullet or a bracket, and whitespace (or it is the start of the body)."""
    return _SENTENCE_END.search(body, 0, start) is not None


def _day(value: object) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else ""


@dataclass(frozen=True)
class Discovered:
    """What discovery found: new ``candidates``, and short forms of entities ``linker`` knows
    (``aliases``: entity id → the names found, most frequent spelling each)."""

    candidates: list[Entity]
    aliases: dict[str, list[str]]


@dataclass
class _Corpus:
    """The signals as discovery reads them: each one's normalized text with its id, domain and
    publication day, and how often each word is written capitalized and in lower case."""

    bodies: list[tuple[str, str, str, str]]  # (signal_id, body, domain, day)
    lowercase_words: Counter[str]
    capitalized_words: Counter[str]

    @classmethod
    def read(cls, signals: pl.DataFrame) -> _Corpus:
        corpus = cls([], Counter(), Counter())
        published = (
            signals["published_at"].to_list()
            if "published_at" in signals.columns
            else [None] * signals.height
        )
        for (signal_id, text, domain), moment in zip(
            signals.select("signal_id", "text", "domain").iter_rows(), published, strict=True
        ):
            body = normalize_text(text or "")
            corpus.bodies.append((signal_id, body, domain or "", _day(moment)))
            for match in _TOKEN.finditer(body):
                token = match.group()
                if token.isalpha():
                    written = (
                        corpus.capitalized_words if token[0].isupper() else corpus.lowercase_words
                    )
                    written[token.lower()] += 1
        return corpus

    def ordinary(self, token: str) -> bool:
        """A word of the language rather than of a name: a stopword, a generic acronym, a
        letter, or a word the corpus mostly writes in lower case."""
        word = token.lower()
        if word in STOPWORDS or word in GENERIC_ACRONYMS:
            return True
        if not token.isalpha():
            return False
        if len(token) == 1:
            return True
        return self.lowercase_words[word] > ORDINARY_WORD_RATIO * max(
            self.capitalized_words[word], 1
        )


def discover(
    signals: pl.DataFrame,
    linker: Linker,
    *,
    min_signals: int = 2,
    min_domains: int = 2,
    given_names: frozenset[str] = frozenset(),
    index: EntityIndex | None = None,
    settled: frozenset[str] = frozenset(),
) -> Discovered:
    """Unreviewed entities for names that recur in ``signals`` (``signal_id``, ``text``,
    ``domain``, and ``published_at`` when present) and that ``linker``'s registry does not
    know, cleaned, typed (``given_names`` helps find people) and attached to their family in
    ``index`` (the registry's), sorted by signal count then name; and the short forms of
    known entities among them (module docstring). ``extra`` carries the counts: ``signals``,
    ``domains`` and ``days`` (distinct publication days). ``settled``: names (folded,
    ``fold_name``) a person rejected or merged, which take no short forms, nor become one."""
    corpus = _Corpus.read(signals)
    tallies, heads = _tally_names(corpus, linker, given_names)
    kept = _recurring_names(corpus, tallies, linker, min_signals, min_domains)
    # short forms: an alias of their entity, not a candidate; a longer candidate takes their
    # mentions' counts
    owners = short_forms(kept, linker.entities.values(), settled=settled)
    aliases, known_aliases = _merge_short_forms(kept, owners, tallies)
    kept = [(folded, name) for folded, name in kept if folded not in owners]

    def no_surname(word: str) -> bool:
        folded = word.lower()
        return (
            corpus.lowercase_words[folded] > corpus.capitalized_words[folded]
            or len(heads[folded]) >= PRODUCT_HEAD_NAMES
        )

    known_keys = {entity.key for entity in linker.entities.values()}
    baseline = cue_baseline(tallies[folded].context for folded, _ in kept)
    found: list[Entity] = []
    for folded, name in kept:
        tally = tallies[folded]
        kind = guess_type(
            name, tally.context, given_names, baseline=baseline, index=index, no_surname=no_surname
        )
        key = f"{kind}:{slugify(name)}"
        if key in known_keys:
            continue
        found.append(
            Entity(
                # from the name alone: a name keeps its id when its type is guessed anew
                entity_id=discovered_id(name),
                key=key,
                name=name,
                type=kind,
                aliases=tuple(Alias(short, "exact") for short in sorted(aliases[folded])),
                family=family_of(name, kind, index) if index is not None else None,
                reviewed=False,
                extra={
                    "signals": str(len(tally.signals)),
                    "domains": str(len(tally.domains)),
                    "days": str(len(tally.days - {""}) or len(tally.signals)),
                },
            )
        )
    found.sort(key=lambda e: (-int(e.extra["signals"]), e.name.lower(), e.name))
    return Discovered(
        found, {entity_id: sorted(names) for entity_id, names in known_aliases.items()}
    )


def _tally_names(
    corpus: _Corpus, linker: Linker, given_names: frozenset[str]
) -> tuple[dict[str, _Tally], defaultdict[str, set[str]]]:
    """Every name that may be an unknown entity, by its lower-case form: where it was seen and
    its context; and the heads of capitalized runs — the last word → their first words, when
    those are no given names ("Studio" ends "AI Studio", "LM Studio"…, a surname ends people's
    names)."""
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    heads: defaultdict[str, set[str]] = defaultdict(set)
    ordinary = corpus.ordinary
    for signal_id, body, domain, day in corpus.bodies:
        mentions = linker.find_mentions(body)
        for run in _runs(body):
            span = _name_span(run)
            if span is None or len(span[2]) > MAX_NAME_TOKENS:
                continue
            start, end, words = span
            # a sentence's first word, written in lower case elsewhere, is no part of a name
            if len(words) > 1 and ordinary(words[0]) and _sentence_start(body, start):
                start = body.index(words[1], start + len(words[0]))
                words = words[1:]
            name = body[start:end]
            if len(words) > 1 and not (words[0] in given_names or _pinyin_name(words[:2])):
                heads[words[-1].lower()].add(words[0].lower())
            if len(words) == 1 and not _single_word_name(words[0]):
                continue
            if all(ordinary(w) for w in words) or (
                words[-1].lower() in GENERIC_ACRONYMS
                and all(w.lower() in DEMONYMS or ordinary(w) for w in words[:-1])
            ):
                continue
            touching = [m for m in mentions if m.start < end and start < m.end]
            # a registry name may open a new variant glued to it ("GPT-5.1-Codex",
            # "Qwen3-Coder"): one word whose registry prefix ends at a hyphen; any other
            # contact with a registry mention ("OpenAI Codex", "Meta's AI") is no new name
            if touching and not (
                len(words) == 1
                and all(m.start == start and m.end < end and body[m.end] == "-" for m in touching)
            ):
                continue
            tally = tallies[name.lower()]
            tally.surfaces[name] += 1
            tally.signals.add(signal_id)
            tally.domains.add(domain)
            tally.days.add(day)
            tally.mentions += 1
            if tally.mentions <= CONTEXT_MENTIONS:
                around = (
                    body[max(0, start - CONTEXT_CHARS) : start]
                    + " "
                    + body[end : end + CONTEXT_CHARS]
                )
                tally.context.update(_WORD.findall(around.lower()))
    return tallies, heads


def _recurring_names(
    corpus: _Corpus,
    tallies: dict[str, _Tally],
    linker: Linker,
    min_signals: int,
    min_domains: int,
) -> list[tuple[str, str]]:
    """(lower-case form, spelling) of the names seen in enough signals and domains that are no
    registry name, no rejected kind of name and no lower-case phrase."""
    # the most frequent spelling names the candidate
    recurring = {
        folded: min(tally.surfaces, key=lambda s: (-tally.surfaces[s], s))
        for folded, tally in tallies.items()
        if len(tally.signals) >= min_signals and len(tally.domains) >= min_domains
    }
    # a name whose proper spelling is lower case ("o3-mini") is exempt from the phrase test
    written_lowercase = _lowercase_counts(
        [folded for folded, name in recurring.items() if name != folded],
        [body for _, body, _, _ in corpus.bodies],
    )
    return [
        (folded, name)
        for folded, name in recurring.items()
        if not linker.is_surface_form(name)
        and rejection(name) is None
        and written_lowercase[folded] <= LOWERCASE_PHRASE_RATIO * tallies[folded].surfaces.total()
    ]


def _merge_short_forms(
    kept: list[tuple[str, str]],
    owners: dict[str, tuple[str, str]],
    tallies: dict[str, _Tally],
) -> tuple[defaultdict[str, list[str]], dict[str, list[str]]]:
    """The short forms' spellings by owner: of candidates (whose tallies take the short form's
    signals, domains, days, mentions and context) and of known entities (by entity id)."""
    aliases: defaultdict[str, list[str]] = defaultdict(list)
    known_aliases: dict[str, list[str]] = defaultdict(list)
    for folded, name in kept:
        owner = owners.get(folded)
        if owner is None:
            continue
        kind_of_owner, owner_key = owner
        if kind_of_owner == ENTITY:
            known_aliases[owner_key].append(name)
            continue
        aliases[owner_key].append(name)
        into, short = tallies[owner_key], tallies[folded]
        into.signals |= short.signals
        into.domains |= short.domains
        into.days |= short.days
        into.mentions += short.mentions
        into.context.update(short.context)
    return aliases, known_aliases


ENTITY, CANDIDATE = "entity", "candidate"


def short_forms(
    names: list[tuple[str, str]],
    known: Iterable[Entity],
    *,
    settled: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, str]]:
    """Which of ``names`` (folded, spelled) are short forms (module docstring), and of whom:
    folded name → (``ENTITY``, entity id) or (``CANDIDATE``, the longer name folded). A name
    that ends two names of different owners is ambiguous and left alone, and so is one that
    is a known name in another case, or ``settled`` (a person's decision), or whose only
    owner is a settled candidate."""
    forms: list[tuple[str, tuple[str, str]]] = [
        (fold_name(alias.text), (ENTITY, entity.entity_id))
        for entity in known
        for alias in entity.surface_forms()
    ]
    left_alone = {form for form, _ in forms} | settled  # known names, in any case
    forms += [
        (fold_name(folded), (CANDIDATE, folded))
        for folded, name in names
        if fold_name(folded) not in settled
    ]
    found: dict[str, tuple[str, str]] = {}
    # longest first: a candidate that is itself a short form passes its owner on
    for folded, name in sorted(names, key=lambda item: (-len(item[1].split()), item[0])):
        words = name.split()
        if len(words) < 2 or not words[0][0].isalpha() or not any(c.isdigit() for c in name):
            continue
        if fold_name(folded) in left_alone:
            continue
        end = " " + fold_name(folded)
        owners = {
            found.get(owner[1], owner) if owner[0] == CANDIDATE else owner
            for form, owner in forms
            if form.endswith(end)
        }
        if len(owners) == 1:
            found[folded] = owners.pop()
    return found
