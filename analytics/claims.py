"""What makes a sentence an atomic factual claim, and how a compound one splits into claims.

Pure wording cues (quantities, dates, named actors doing something, hedges and opinions) used by
the current extractor; the first extractor keeps its own, older cue lists in ``decompose``.
"""

from __future__ import annotations

import re

_MONTHS = (
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
# Numbers, money, shares and dates; "May" counts only as a capitalized month before a day/year.
_QUANTITY = re.compile(
    r"\d|[$€£¥%]|\b(?:hundred|thousand|million|billion|trillion|percent|percentage points?|"
    r"half|twice|double[ds]?|tripled?|quadrupled?|dozens?)\b|"
    rf"\b(?:{'|'.join(_MONTHS.split())})\b|\bMay\s+\d",
    re.I,
)
# Verbs of reporting and of doing, in the forms news copy uses.
_ACTION = re.compile(
    r"\b(?:announc|launch|releas|rais|acquir|sign|report|unveil|introduc|ship|deploy|open|"
    r"clos|file|hire|fire|cut|lay|invest|commit|spend|spent|buy|bought|sell|sold|partner|"
    r"agree|approv|ban|fined|sued|sues|settl|expand|build|built|train|publish|debut|licens|"
    r"appoint|named|led|lead|won|win|loses|lost|delay|cancel|paus|halt|struck|strik|reach|"
    r"surpass|beat|pric|valu|post|guid|forecast|project|generat|grew|grow|rose|fell|drop|"
    r"declin|doubl|tripl|plan|said|say|told|wrote|confirm|deni|denied|stat|claim|"
    r"order|purchas|merg|spun|spin|list|exit|join|left|leav|quit|resign|mov|roll|integrat|"
    r"support|offer|make|made|ran|run|serv|host)"
    r"(?:e|es|ed|d|s|ing|ies|ied|n|ned|ted|ped|ning|ting|ping)?\b",
    re.I,
)
# An entity-like token: internal capitals or digits (OpenAI, GPT-5, H100) or a run of
# capitalized words (Sam Altman, Google DeepMind). A single capitalized word counts inside the
# sentence, or at its start when a reporting or action verb follows it ("Nvidia reported"):
# otherwise it is likely an ordinary word that only happens to open the sentence.
_ENTITY_TOKEN = re.compile(
    r"\b(?:[A-Z][A-Za-z]*[A-Z0-9][\w-]*|[A-Z][\w'’&-]+(?:\s+(?:of\s+)?[A-Z][\w'’&-]+)+)"
)
_CAPITALIZED = re.compile(r"\b[A-Z][a-z][\w'’-]*")
_FUNCTION_WORDS = frozenset(
    (
        "a an the and or but if then than that this these those it its he she they them his her "
        "their we our you your i me my there here so such when where why how what which who all "
        "any each some one two in on at by for with from as into about over after before under "
        "between also just more most very still yet while although because since until once "
        "now today yesterday tomorrow however meanwhile instead overall indeed first second "
        "third last next finally later earlier then thus hence both either neither not no yes "
        "let lets let's maybe perhaps"
    ).split()
)
# Opinion, hedging and conditional wording: an atomic claim states a fact, not a view.
_OPINION_OR_HEDGE = re.compile(
    r"\b(?:i|we) (?:think|believe|feel|guess|suspect|expect|argue|bet|hope|wonder)\b|"
    r"\b(?:in my view|in my opinion|my take|arguably|should|must|ought|might|could|"
    r"perhaps|probably|possibly|presumably|seems?|seemingly|appears? to|likely|unlikely|"
    r"the case for|the case against|the lesson|the real question|the point is|overrated|"
    r"underrated|mistake|wrong|if|unless|imagine|kind of|sort of|i mean|you know)\b",
)
# lower-case "may" is the hedge; "May" is the month
_MAY = re.compile(r"\bmay\b")
_AUXILIARY = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|can|did|does|do|be|been|being|remains?|"
    r"became|becomes?|gets?|got)\b",
    re.I,
)
_PAST = re.compile(r"\b[a-z]{3,}ed\b")
# Where a compound sentence may split: a semicolon, or ", and" / ", while" / ", but" /
# ", whereas". The second clause starts after the conjunction.
_COMPOUND = re.compile(r";\s+|,\s+(?:and|while|but|whereas)\s+")
MIN_CLAIM_WORDS = 4
MAX_CLAIM_WORDS = 60


def has_quantity(text: str) -> bool:
    """A number, an amount, a share or a date."""
    return bool(_QUANTITY.search(text))


def has_named_actor(text: str) -> bool:
    """An entity-like name that does something (a reporting or action verb)."""
    if not _ACTION.search(text):
        return False
    if _ENTITY_TOKEN.search(text):
        return True
    for match in _CAPITALIZED.finditer(text):
        if match.group(0).lower() in _FUNCTION_WORDS:
            continue
        if text[: match.start()].strip(" \"'“‘(") or _ACTION.match(text, match.end() + 1):
            return True
    return False


def is_opinion_or_hedge(text: str) -> bool:
    return bool(_OPINION_OR_HEDGE.search(text.lower()) or _MAY.search(text))


def is_factual(text: str) -> bool:
    """A statement of fact: a quantity or a named actor acting, with no opinion or hedge."""
    stripped = text.rstrip().rstrip("\"'”’)]")
    if stripped.endswith("?") or is_opinion_or_hedge(text):
        return False
    return has_quantity(text) or has_named_actor(text)


def claim_weight(text: str) -> int:
    """How much a claim carries: quantities weigh more than a bare named action."""
    return 2 * has_quantity(text) + has_named_actor(text)


def stands_alone(clause: str) -> bool:
    """A clause with its own subject and verb: enough words, a verb, and not opening on it."""
    words = clause.split()
    if len(words) < MIN_CLAIM_WORDS:
        return False
    first = words[0].lower().strip("\"'“‘(")
    verb_first = bool(
        _AUXILIARY.fullmatch(first) or _ACTION.fullmatch(first) or _PAST.fullmatch(first)
    )
    has_verb = bool(_AUXILIARY.search(clause) or _ACTION.search(clause) or _PAST.search(clause))
    return has_verb and not verb_first


def atomic_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of the atomic clauses of ``text`` (one span, the whole text, if it won't split).

    A split happens only where both sides stand alone; each span is trimmed of the separator
    and of surrounding whitespace, so ``text[a:b]`` is verbatim and reads as a clause.
    """
    spans = [(0, len(text))]
    for match in _COMPOUND.finditer(text):
        for index, (start, end) in enumerate(spans):
            if not start <= match.start() < end:
                continue
            left, right = (start, match.start()), (match.end(), end)
            if stands_alone(text[left[0] : left[1]]) and stands_alone(text[right[0] : right[1]]):
                spans[index : index + 1] = [left, right]
            break
    return [_trim(text, start, end) for start, end in spans]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    piece = text[start:end]
    start += len(piece) - len(piece.lstrip())
    end = start + len(piece.strip())
    return start, end
