"""The 12 canonical theme labels (DESIGN §6), their lookup, and multi-label theme tagging.

A signal gets a label on an axis when the embedding similarity of its title and leading text to
the label's description, plus weighted keyword evidence, clears a threshold tuned on data
(``bench/themes_quality.py``). Only the canonical labels ever leave this module: shorthands such
as ``C&I`` are unknown labels whose error names the canonical one.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.embedding import Embedder, FloatMatrix

Axis = Literal["value_chain", "market_force"]
AXES: tuple[Axis, ...] = ("value_chain", "market_force")

SIGNAL_ID = "signal_id"
VALUE_CHAIN = "value_chain"
MARKET_FORCE = "market_force"
_LABEL_LIST: pl.DataType = pl.List(pl.String)
THEME_TAGS = pl.Schema(
    {SIGNAL_ID: pl.String(), VALUE_CHAIN: _LABEL_LIST, MARKET_FORCE: _LABEL_LIST}
)

# Keyword weights: a term that names the theme outright, one that usually means it, and one
# that only leans towards it.
STRONG = 1.0
MEDIUM = 0.6
WEAK = 0.3


@dataclass(frozen=True)
class Theme:
    """One canonical label: its axis, the sentences its embedding is built from, and keyword
    evidence as (regular-expression fragment, weight) pairs matched on whole words, any case."""

    axis: Axis
    label: str
    description: tuple[str, ...]
    keywords: tuple[tuple[str, float], ...]


def _kw(weight: float, *terms: str) -> tuple[tuple[str, float], ...]:
    return tuple((term, weight) for term in terms)


THEMES: tuple[Theme, ...] = (
    Theme(
        "value_chain",
        "Semiconductors & Hardware",
        (
            "AI chips, GPUs and accelerators: Nvidia, AMD, TPUs and custom silicon.",
            "Chip design, foundries such as TSMC, fabs, advanced packaging and HBM memory supply.",
            "Servers, racks, networking hardware and on-device NPUs that run AI workloads.",
            "Semiconductor shortages, chip exports and hardware performance per watt.",
        ),
        _kw(
            STRONG,
            "gpus?",
            "semiconductors?",
            "chips?",
            "chipmakers?",
            "accelerators?",
            "hbm\\d?e?",
            "tpus?",
            "npus?",
            "asics?",
            "foundry",
            "foundries",
            "tsmc",
            "wafers?",
            "silicon",
            "cowos",
            "lithography",
            "fabs?",
        )
        + _kw(
            MEDIUM,
            "nvidia",
            "amd",
            "h100s?",
            "h200s?",
            "b200s?",
            "gb200",
            "gb300",
            "blackwell",
            "hopper",
            "mi\\d{3}x?",
            "cerebras",
            "groq",
            "hardware",
            "nvlink",
            "infiniband",
            "servers?",
            "memory bandwidth",
            "packaging",
            "cuda",
        )
        + _kw(WEAK, "intel", "qualcomm", "broadcom", "arm", "devices?", "racks?", "vram"),
    ),
    Theme(
        "value_chain",
        "Infrastructure",
        (
            "Data centers and AI compute campuses being built, with their power and cooling.",
            "Electricity, the grid, gigawatts of capacity and energy supply for AI.",
            "Cloud providers, GPU clouds and neoclouds renting compute capacity.",
            "Compute clusters, capex on build-outs and inference serving capacity at scale.",
        ),
        _kw(
            STRONG,
            "data ?cent(?:er|re)s?",
            "gigawatts?",
            "megawatts?",
            "power grid",
            "grid",
            "electricity",
            "cooling",
            "liquid-cooled",
            "neoclouds?",
            "hyperscalers?",
            "campus(?:es)?",
            "compute capacity",
            "superclusters?",
            "stargate",
        )
        + _kw(
            MEDIUM,
            "clusters?",
            "cloud",
            "power",
            "energy",
            "capex",
            "build-?outs?",
            "aws",
            "azure",
            "coreweave",
            "compute",
            "nuclear",
            "utility",
            "utilities",
            "substations?",
        )
        + _kw(WEAK, "infrastructure", "capacity", "serving", "inference costs?"),
    ),
    Theme(
        "value_chain",
        "Data",
        (
            "Training data and datasets: collecting, curating, cleaning and labeling data.",
            "Data licensing deals with publishers, web crawling and scraping for AI training.",
            "Synthetic data generation, data annotation vendors and human feedback data.",
            "Data quality, data pipelines and proprietary data as an advantage.",
        ),
        _kw(
            STRONG,
            "datasets?",
            "training data",
            "synthetic data",
            "data labell?ing",
            "annotations?",
            "annotators?",
            "data licensing",
            "licensing deals?",
            "scrap(?:e|ed|ing)",
            "crawl(?:s|ed|er|ers|ing)?",
            "corpus",
            "corpora",
            "tokens of data",
            "data quality",
        )
        + _kw(
            MEDIUM,
            "data",
            "scale ai",
            "labell?ed",
            "curat(?:e|ed|ion|ing)",
            "pretraining data",
            "data mix(?:ture)?",
            "common crawl",
            "publishers?",
        )
        + _kw(WEAK, "records", "databases?", "documents"),
    ),
    Theme(
        "value_chain",
        "Foundation Models",
        (
            "A new large language model release from an AI lab, with benchmark results.",
            "Frontier models such as GPT, Claude, Gemini, Llama, Qwen and DeepSeek.",
            "Open-weight models, reasoning models and multimodal models.",
            "Pretraining, post-training, reinforcement learning and scaling of model weights.",
        ),
        _kw(
            STRONG,
            "llms?",
            "large language models?",
            "foundation models?",
            "frontier models?",
            "open-weights?(?: models?)?",
            "reasoning models?",
            "pretrain(?:ing|ed)?",
            "pre-train(?:ing|ed)?",
            "post-train(?:ing|ed)?",
            "model release",
            "new model",
            "gpt-?\\d[\\w.\\-]*",
            "claude",
            "gemini",
            "llama",
            "qwen",
            "deepseek",
            "mistral",
            "grok",
            "parameters?",
            "checkpoints?",
            "moe",
            "mixture-of-experts",
        )
        + _kw(
            MEDIUM,
            "models?",
            "openai",
            "anthropic",
            "google deepmind",
            "deepmind",
            "weights",
            "fine-?tun(?:e|ed|ing)",
            "benchmarks?",
            "multimodal",
            "context window",
            "kimi",
            "glm",
            "gemma",
            "phi-?\\d",
            "o\\d(?:-\\w+)?",
        )
        + _kw(WEAK, "reasoning", "ai lab", "labs?", "training"),
    ),
    Theme(
        "value_chain",
        "Tooling & Platforms",
        (
            "Developer tools, SDKs, APIs and frameworks for building AI applications.",
            "Agent frameworks, orchestration, evaluation and observability tools, vector "
            "databases.",
            "Inference engines, model hosting platforms, MLOps and fine-tuning services.",
            "Open-source libraries such as PyTorch, LangChain, vLLM and Hugging Face.",
        ),
        _kw(
            STRONG,
            "sdks?",
            "apis?",
            "frameworks?",
            "libraries",
            "library",
            "open-source tools?",
            "developer tools?",
            "dev ?tools?",
            "langchain",
            "langgraph",
            "llamaindex",
            "pytorch",
            "vllm",
            "sglang",
            "hugging ?face",
            "ollama",
            "vector databases?",
            "observability",
            "mlops",
            "orchestration",
            "mcp",
            "model context protocol",
            "plugins?",
            "inference engines?",
        )
        + _kw(
            MEDIUM,
            "platforms?",
            "developers?",
            "github",
            "integrations?",
            "toolkits?",
            "tooling",
            "cli",
            "ide",
            "open-sourced?",
            "repos?",
            "evals?",
            "endpoints?",
            "kernels?",
            "agent builders?",
            "workflows?",
            "playground",
            "cursor",
            "claude code",
            "codex",
        )
        + _kw(WEAK, "tools?", "agents?", "deploy(?:ment|ing)?", "serv(?:e|ing)"),
    ),
    Theme(
        "value_chain",
        "Applications",
        (
            "AI products used by consumers and businesses: chatbots, assistants and copilots.",
            "AI applied in healthcare, law, finance, education, customer service and search.",
            "Coding assistants, AI agents doing tasks for users, video and image generation apps.",
            "Robots, self-driving cars and AI features inside everyday software.",
        ),
        _kw(
            STRONG,
            "apps?",
            "applications?",
            "chatbots?",
            "assistants?",
            "copilots?",
            "consumer",
            "customer service",
            "customer support",
            "healthcare",
            "medical",
            "legal tech",
            "robots?",
            "robotics",
            "self-driving",
            "autonomous vehicles?",
            "robotaxis?",
            "chatgpt",
            "perplexity",
            "coding assistants?",
            "use cases?",
        )
        + _kw(
            MEDIUM,
            "products?",
            "users",
            "features?",
            "browser",
            "search",
            "enterprises?",
            "agents?",
            "video generation",
            "image generation",
            "voice",
            "education",
            "finance",
            "shopping",
            "subscri(?:ption|bers?)",
        )
        + _kw(WEAK, "customers?", "workflows?", "tasks?"),
    ),
    Theme(
        "market_force",
        "Competitive Dynamics",
        (
            "Rivalry between AI companies competing for customers and market share.",
            "Price cuts, price wars and pitching a product as a cheaper alternative to a rival.",
            "A challenger overtakes the leader; leaderboards and head-to-head comparisons.",
            "Partnerships, exclusive deals and strategic moves to win against competitors.",
        ),
        _kw(
            STRONG,
            "rivals?",
            "rivalry",
            "competitors?",
            "competition",
            "compet(?:e|es|ing|itive)",
            "market share",
            "price wars?",
            "price cuts?",
            "undercut(?:s|ting)?",
            "challengers?",
            "overtak(?:e|es|en|ing)",
            "dethron(?:e|es|ed)",
            "head-to-head",
            "alternative to",
            "lead(?:s|ing)? the leaderboard",
            "tops",
            "beats?",
            "outperforms?",
        )
        + _kw(
            MEDIUM,
            "leaderboards?",
            "share",
            "cheaper",
            "pricing",
            "partnerships?",
            "partners? with",
            "exclusive",
            "moat",
            "dominance",
            "incumbents?",
            "versus",
            "vs\\.?",
            "lmarena",
            "arena",
            "race",
            "surpass(?:es|ed|ing)?",
        )
        + _kw(WEAK, "market", "strategy", "positioning", "wins?", "launch(?:es|ed)?"),
    ),
    Theme(
        "market_force",
        "Capital & Investment",
        (
            "A start-up raises a funding round from venture capital investors at a valuation.",
            "Acquisitions, mergers, IPOs, stock prices and earnings of AI companies.",
            "Capital spending, debt financing and investment commitments worth billions of "
            "dollars.",
            "Investors, valuations, revenue multiples and whether there is an AI bubble.",
        ),
        _kw(
            STRONG,
            "funding",
            "fundraise",
            "raised?",
            "raises",
            "raising",
            "series [a-h]",
            "seed round",
            "valuations?",
            "valued at",
            "valuing",
            "investors?",
            "venture capital",
            "vcs?",
            "ipos?",
            "acquires?",
            "acquired",
            "acquisitions?",
            "mergers?",
            "financing",
            "debt",
            "bonds?",
            "stock",
            "shares fell",
            "shares rose",
            "market cap(?:italization)?",
            "bubble",
            "invest(?:s|ed|ing|ment|ments)?",
            "a16z",
            "sequoia",
            "softbank",
        )
        + _kw(
            MEDIUM,
            "earnings",
            "capex",
            "capital",
            "billions?",
            "\\$\\d[\\d.,]*\\s?(?:b|bn|m|million|billion)\\b",
            "deal",
            "buys?",
            "backed",
            "round",
            "revenue",
            "arr",
            "profit(?:s|able|ability)?",
            "lenders?",
            "loans?",
            "credit",
        )
        + _kw(WEAK, "money", "spend(?:ing)?", "cost", "dollars"),
    ),
    Theme(
        "market_force",
        "Regulatory & Legal",
        (
            "Governments regulate AI: laws, the EU AI Act, executive orders and enforcement.",
            "Lawsuits, court rulings, copyright claims and settlements involving AI companies.",
            "Export controls on chips, antitrust investigations and regulators' fines.",
            "AI policy, compliance obligations, lawmakers and safety rules for AI models.",
        ),
        _kw(
            STRONG,
            "regulat(?:e|es|ed|ion|ions|ors?|ory)",
            "lawsuits?",
            "sued",
            "sues?",
            "suing",
            "courts?",
            "judges?",
            "rulings?",
            "copyright(?:ed)?",
            "antitrust",
            "export controls?",
            "export bans?",
            "ai act",
            "legislation",
            "lawmakers",
            "legislators?",
            "congress",
            "senate",
            "parliament",
            "executive order",
            "compliance",
            "enforcement",
            "fined?",
            "fines",
            "litigation",
            "plaintiffs?",
            "injunctions?",
            "settlements?",
            "ftc",
            "doj",
            "european commission",
            "laws?",
        )
        + _kw(
            MEDIUM,
            "policy",
            "policies",
            "bills?",
            "government",
            "legal",
            "licen[cs]es?",
            "terms of service",
            "privacy",
            "gdpr",
            "ban(?:s|ned)?",
            "sanctions?",
            "white house",
            "eu",
            "federal",
            "safety institute",
            "liability",
        )
        + _kw(WEAK, "governance", "oversight", "safety"),
    ),
    Theme(
        "market_force",
        "Talent & Labor",
        (
            "AI labs hiring and poaching researchers, with large pay packages.",
            "Layoffs, job cuts and headcount changes at technology companies.",
            "Executives and researchers leave one company and join another.",
            "AI's effect on jobs, workers, skills, wages and the labor market.",
        ),
        _kw(
            STRONG,
            "hir(?:e|es|ed|ing)",
            "layoffs?",
            "laid off",
            "job cuts?",
            "cuts? jobs",
            "jobs?",
            "headcount",
            "poach(?:es|ed|ing)?",
            "talent",
            "recruit(?:s|ed|ing)?",
            "workforce",
            "workers?",
            "employees?",
            "staff",
            "joins?",
            "joined",
            "departs?",
            "departures?",
            "left (?:openai|google|meta|anthropic|the company)",
            "resign(?:s|ed)?",
            "steps? down",
            "compensation",
            "pay packages?",
            "salar(?:y|ies)",
            "labou?r market",
            "unemployment",
            "careers?",
        )
        + _kw(
            MEDIUM,
            "researchers",
            "engineers",
            "leaves",
            "ceo",
            "cto",
            "chief scientist",
            "appoint(?:s|ed)?",
            "skills",
            "wages",
            "automation",
            "reskilling",
            "interns?",
            "graduates",
        )
        + _kw(WEAK, "people", "founders?", "office", "team"),
    ),
    Theme(
        "market_force",
        "Technology & Scientific Innovation",
        (
            "A research paper proposes a new method, architecture or training technique.",
            "Technical breakthroughs improve benchmark accuracy, efficiency or speed.",
            "Advances in reasoning, reinforcement learning, inference optimisation and algorithms.",
            "Scientific discovery with AI, new capabilities and state-of-the-art results.",
        ),
        _kw(
            STRONG,
            "papers?",
            "research",
            "researchers? (?:show|propose|found|introduce)",
            "arxiv",
            "architectures?",
            "algorithms?",
            "techniques?",
            "methods?",
            "breakthroughs?",
            "state-of-the-art",
            "sota",
            "novel",
            "benchmarks?",
            "accuracy",
            "reinforcement learning",
            "rl",
            "attention",
            "transformers?",
            "quantiz(?:ation|ed)",
            "distillation",
            "speculative decoding",
            "tokens per second",
            "throughput",
            "latency",
            "efficien(?:cy|t)",
            "scaling laws?",
            "interpretability",
            "experiments?",
        )
        + _kw(
            MEDIUM,
            "reasoning",
            "capabilit(?:y|ies)",
            "performance",
            "improv(?:e|es|ed|ement|ements)",
            "training",
            "inference",
            "evaluation",
            "results",
            "study",
            "approach",
            "framework",
            "optimi[sz](?:ation|ed|ing)",
            "faster",
            "outperforms?",
            "scores?",
            "science",
            "scientific",
            "math",
            "context",
        )
        + _kw(WEAK, "new", "technical", "introduc(?:e|es|ed|ing)", "releases?"),
    ),
    Theme(
        "market_force",
        "Adoption & Demand",
        (
            "Companies deploy AI in production and enterprise adoption grows.",
            "Usage and user numbers: weekly active users, paying customers and revenue growth.",
            "Surveys of how businesses and people use AI, pilots and spending on AI.",
            "Demand for AI products and compute outpaces supply; customers sign contracts.",
        ),
        _kw(
            STRONG,
            "adoption",
            "adopt(?:s|ed|ing)?",
            "deploy(?:s|ed|ments?)",
            "in production",
            "customers?",
            "users",
            "active users",
            "weekly active",
            "monthly active",
            "usage",
            "demand",
            "pilots?",
            "rollouts?",
            "rolls? out",
            "subscribers?",
            "arr",
            "annual(?:ized)? recurring revenue",
            "contracts?",
        )
        + _kw(
            MEDIUM,
            "revenue",
            "growth",
            "grew",
            "downloads",
            "traffic",
            "market",
            "budgets?",
            "spending",
            "buyers?",
            "orders?",
            "backlog",
            "popular(?:ity)?",
            "viral",
            "waitlist",
            "pricing",
            "enterprises?",
            "surveys?",
        )
        + _kw(WEAK, "uses?", "used", "businesses", "companies", "signs?", "available", "access"),
    ),
)

THEME_LABELS: dict[Axis, tuple[str, ...]] = {
    axis: tuple(t.label for t in THEMES if t.axis == axis) for axis in AXES
}

# DESIGN §6: shorthands are never served; as filters they are unknown labels whose message
# names the canonical label.
SHORTHANDS: dict[str, str] = {
    "S&H": "Semiconductors & Hardware",
    "FM": "Foundation Models",
    "T&P": "Tooling & Platforms",
    "CD": "Competitive Dynamics",
    "C&I": "Capital & Investment",
    "R&L": "Regulatory & Legal",
    "T&L": "Talent & Labor",
    "T&SI": "Technology & Scientific Innovation",
    "A&D": "Adoption & Demand",
}

_AXIS_OF: dict[str, Axis] = {t.label: t.axis for t in THEMES}
_BY_FOLDED: dict[str, str] = {t.label.casefold(): t.label for t in THEMES}
_SHORTHAND_FOLDED: dict[str, str] = {k.casefold(): v for k, v in SHORTHANDS.items()}


class UnknownTheme(ValueError):
    """A label that is not one of the 12 canonical themes (or not on the requested axis).

    ``message`` is meant for the user; ``suggestion`` is the canonical label they probably
    meant, when there is one.
    """

    # as a filter or path, an unknown theme is a missing resource (DESIGN §6)
    status = 404

    def __init__(self, message: str, *, label: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.label = label
        self.suggestion = suggestion


def _suggest(label: str) -> str | None:
    folded = label.strip().casefold()
    if folded in _SHORTHAND_FOLDED:
        return _SHORTHAND_FOLDED[folded]
    if folded in _BY_FOLDED:
        return _BY_FOLDED[folded]
    # "Regulatory and Legal", "regulatory&legal": the same words with another joiner
    joined = re.sub(r"\s*(?:&|\band\b|\+|/)\s*", " & ", folded)
    joined = re.sub(r"\s+", " ", joined).strip()
    if joined in _BY_FOLDED:
        return _BY_FOLDED[joined]
    close = difflib.get_close_matches(joined, list(_BY_FOLDED), n=1, cutoff=0.6)
    if close:
        return _BY_FOLDED[close[0]]
    # one word of exactly one label ("Capital", "legal")
    words = set(re.findall(r"\w+", joined)) - {"and"}
    owners = [
        canonical
        for key, canonical in _BY_FOLDED.items()
        if words and words <= set(re.findall(r"\w+", key))
    ]
    return owners[0] if len(owners) == 1 else None


def resolve_theme(label: str, axis: str | None = None) -> tuple[Axis, str]:
    """``(axis, canonical label)`` for a label matched case-insensitively on the 12 canonical
    labels only; with ``axis``, the label must also belong to that axis.

    Raises ``UnknownTheme`` otherwise, naming the canonical label the user probably meant
    ("unknown theme 'C&I'; did you mean 'Capital & Investment'?").
    """
    canonical = _BY_FOLDED.get(label.casefold())
    shown = label if axis is None else f"{axis}/{label}"
    if canonical is not None and (axis is None or _AXIS_OF[canonical] == axis):
        return _AXIS_OF[canonical], canonical
    suggestion = canonical if canonical is not None else _suggest(label)
    message = f"unknown theme {shown!r}"
    if suggestion is not None:
        target = suggestion if axis is None else f"{_AXIS_OF[suggestion]}/{suggestion}"
        message += f"; did you mean {target!r}?"
    else:
        message += "; themes are " + "; ".join(f"{a}: {', '.join(THEME_LABELS[a])}" for a in AXES)
    raise UnknownTheme(message, label=label, suggestion=suggestion)


@dataclass(frozen=True)
class TaggingParams:
    """Thresholds of ``tag_themes`` (tuned in ``bench/themes_quality.py``; see docs/quality.md).

    A label's score is ``similarity + keyword_weight * min(evidence, evidence_cap)`` where
    ``similarity`` is the cosine between the signal and the label's closest description
    sentence and ``evidence`` the summed weights of the distinct keyword terms found. A label is
    kept when its score reaches ``threshold`` and lies within ``margin`` of the axis's best
    score; at most ``max_labels`` per axis.
    """

    keyword_weight: float = 0.2
    evidence_cap: float = 2.0
    threshold: float = 0.35
    margin: float = 0.08
    max_labels: int = 3
    lead_chars: int = 1000


DEFAULT_PARAMS = TaggingParams()


@dataclass(frozen=True)
class ThemeScores:
    """Per signal and label (columns in ``THEMES`` order): description similarity and keyword
    evidence. Kept apart from the thresholds so they can be tuned without embedding again."""

    signal_ids: tuple[str, ...]
    similarity: npt.NDArray[np.float64]
    evidence: npt.NDArray[np.float64]


def _keyword_pattern() -> tuple[re.Pattern[str], list[list[tuple[int, float]]]]:
    """One alternation over the distinct terms of all labels, longest first, so a text is
    scanned once; a group's index says which (label, weight) pairs the term counts for."""
    owners: dict[str, list[tuple[int, float]]] = {}
    for i, theme in enumerate(THEMES):
        for pattern, weight in theme.keywords:
            owners.setdefault(pattern, []).append((i, weight))
    patterns = list(owners)
    # longest pattern first so a phrase wins over a word it starts with ("data center", "data")
    order = sorted(range(len(patterns)), key=lambda k: (-len(patterns[k]), k))
    parts = [rf"(?P<k{k}>{patterns[k]})" for k in order]
    compiled = re.compile(r"(?<![\w-])(?:" + "|".join(parts) + r")(?![\w-])", re.IGNORECASE)
    return compiled, [owners[p] for p in patterns]


_KEYWORDS, _KEYWORD_OWNERS = _keyword_pattern()


def keyword_evidence(text: str) -> npt.NDArray[np.float64]:
    """Summed weights of the distinct keyword terms of each label found in ``text``."""
    found: set[int] = set()
    for match in _KEYWORDS.finditer(text):
        if match.lastgroup is not None:
            found.add(int(match.lastgroup[1:]))
    out = np.zeros(len(THEMES), dtype=np.float64)
    for k in sorted(found):
        for label, weight in _KEYWORD_OWNERS[k]:
            out[label] += weight
    return out


def signal_text(title: str | None, text: str | None, lead_chars: int) -> str:
    """What a signal is judged by: its title and the first ``lead_chars`` of its text."""
    return f"{title or ''}\n{(text or '')[:lead_chars]}".strip()


def _description_matrix(embed: Embedder) -> tuple[FloatMatrix, npt.NDArray[np.int64]]:
    sentences = [s for t in THEMES for s in t.description]
    owners = np.array([i for i, t in enumerate(THEMES) for _ in t.description], dtype=np.int64)
    return embed(sentences), owners


def score_themes(
    signals: pl.DataFrame, embed: Embedder, *, lead_chars: int = DEFAULT_PARAMS.lead_chars
) -> ThemeScores:
    """Similarity and keyword evidence of every signal (``signal_id``, ``title``, ``text``)
    for every label; signals are embedded in one batched call."""
    ids = tuple(signals.get_column(SIGNAL_ID).to_list())
    texts = [
        signal_text(title, text, lead_chars)
        for title, text in zip(
            signals.get_column("title").to_list(), signals.get_column("text").to_list(), strict=True
        )
    ]
    n = len(texts)
    if n == 0:
        empty = np.zeros((0, len(THEMES)), dtype=np.float64)
        return ThemeScores(ids, empty, empty.copy())
    vectors = embed(texts).astype(np.float64)
    prototypes, owners = _description_matrix(embed)
    cosines = vectors @ prototypes.astype(np.float64).T
    # a label is as close as its closest description sentence: labels span several sub-topics
    # (power and cloud are both Infrastructure) that one averaged vector would blur
    similarity = np.full((n, len(THEMES)), -1.0, dtype=np.float64)
    for label in range(len(THEMES)):
        similarity[:, label] = cosines[:, owners == label].max(axis=1)
    evidence = np.stack([keyword_evidence(t) for t in texts])
    return ThemeScores(ids, similarity, evidence)


def labels_from_scores(scores: ThemeScores, params: TaggingParams = DEFAULT_PARAMS) -> pl.DataFrame:
    """The tags (``THEME_TAGS``) the thresholds in ``params`` give for precomputed scores.

    Within an axis, labels are ordered by score descending, then canonical order.
    """
    combined = scores.similarity + params.keyword_weight * np.minimum(
        scores.evidence, params.evidence_cap
    )
    # round so labels and their order never hinge on float noise in the last bits
    combined = np.round(combined, 9)
    columns: dict[str, list[list[str]]] = {}
    for axis in AXES:
        idx = [i for i, t in enumerate(THEMES) if t.axis == axis]
        part = combined[:, idx]
        tags: list[list[str]] = []
        for row in part:
            best = float(row.max()) if len(row) else 0.0
            chosen = [
                j
                for j in sorted(range(len(idx)), key=lambda j: (-row[j], j))
                if row[j] >= params.threshold and row[j] >= best - params.margin
            ][: params.max_labels]
            tags.append([THEMES[idx[j]].label for j in chosen])
        columns[axis] = tags
    return pl.DataFrame({SIGNAL_ID: list(scores.signal_ids), **columns}, schema=THEME_TAGS)


def tag_themes(
    signals: pl.DataFrame, embed: Embedder, params: TaggingParams = DEFAULT_PARAMS
) -> pl.DataFrame:
    """Theme labels per signal: columns ``signal_id``, ``value_chain`` and ``market_force``
    (lists of canonical labels, possibly empty), one row per input signal in input order.

    ``signals`` needs ``signal_id``, ``title`` and ``text``. Deterministic for a given encoder.
    """
    return labels_from_scores(score_themes(signals, embed, lead_chars=params.lead_chars), params)
