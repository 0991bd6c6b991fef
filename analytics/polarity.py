"""Lexical cues that a restatement reverses what its source says: a negation the source does not
make, or the opposite of a word the source uses ("slower" for "faster", "trails" for
"outperforms"). The verifier's ``contradicts_evidence`` rule; MiniLM cannot see these (a reversed
claim shares the source's words and scores as high as a faithful paraphrase).

Cues, not proof: a reversal in other words ("already solved" for "a missing piece") passes, and
a paraphrase that negates what the source says positively ("not cheap" for "expensive") is
refused. docs/quality.md gives both rates on labelled pairs.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+")
NEGATIONS = frozenset(
    "not no never none nothing nobody neither nor without cannot fail fails failed failing "
    "stopped".split()
)


def _family(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Pairs of word families with opposite meaning. Only words that keep their sense out of context:
# "lead" (to head something) or "more" and "less" (everywhere) are left out.
OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (_family("fast faster fastest quick quicker"), _family("slow slower slowest slowed slows")),
    (_family("open opened"), _family("closed proprietary")),
    (_family("hard harder hardest difficult tough"), _family("easy easier easiest trivial")),
    (
        _family(
            "increase increases increased increasing rise rises rose rising grow grows grew "
            "growing growth higher boost boosts boosted"
        ),
        _family(
            "decrease decreases decreased decreasing reduce reduces reduced reduction "
            "reductions cut cuts fall falls fell falling drop drops dropped lower decline "
            "declines declined shrink shrinks shrank fade fades faded"
        ),
    ),
    (
        _family(
            "outperform outperforms outperformed outperforming beat beats surpass surpasses "
            "surpassed surpassing exceed exceeds exceeded ahead better best"
        ),
        _family(
            "underperform underperforms underperformed underperforming trail trails trailed "
            "trailing behind worse worst lag lags lagging"
        ),
    ),
    (_family("strong stronger strongest"), _family("weak weaker weakest")),
    (_family("high"), _family("low")),
    (_family("cheap cheaper cheapest inexpensive"), _family("expensive costly costlier pricier")),
    (_family("multi multiple"), _family("single")),
    (_family("few fewer"), _family("many hundreds thousands")),
    (
        _family("large larger largest big bigger biggest huge"),
        _family("small smaller smallest tiny"),
    ),
    (_family("still"), _family("already finished completed")),
    (_family("likely probable"), _family("unlikely improbable")),
    (_family("possible"), _family("impossible")),
    (_family("efficient efficiency"), _family("inefficient inefficiency")),
    (_family("win wins won winning"), _family("lose loses lost losing")),
    (_family("support supports supported"), _family("oppose opposes opposed")),
    (_family("allow allows allowed"), _family("ban bans banned prohibit prohibits")),
    (_family("include includes included including"), _family("exclude excludes excluded")),
    (
        _family("accept accepts accepted approve approves approved"),
        _family("reject rejects rejected"),
    ),
    (_family("optimistic bullish"), _family("pessimistic bearish")),
    (_family("success successful succeeded"), _family("failure unsuccessful")),
)


def words(text: str) -> frozenset[str]:
    """The lower-cased words of ``text``, "n't" read as "not", hyphenated words split."""
    return frozenset(_WORD.findall(text.lower().replace("n't", " not").replace("n’t", " not")))


def reversal_cues(text: str, passage: str) -> list[str]:
    """The words of ``text`` that reverse ``passage``: negations when the passage has none, and
    words whose opposite the passage uses while it does not use them itself."""
    mine, theirs = words(text), words(passage)
    cues = sorted(mine & NEGATIONS) if not theirs & NEGATIONS else []
    for one, other in OPPOSITES:
        for said, opposite in ((one, other), (other, one)):
            if mine & said and not theirs & said and theirs & opposite:
                cues.extend(sorted(mine & said))
    return cues
