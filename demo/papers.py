"""Research papers: a title plus abstract, method and results paragraphs with numbers.

Papers exist for every market force (an economics paper on capex returns, a legal study of AI
Act compliance costs), so the theme quotas of the generator can be met in any kind.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from demo import vocabulary as v
from demo.context import Context, render


@dataclass(frozen=True)
class PaperFrame:
    """One family of papers: titles and the three paragraphs that describe them."""

    titles: tuple[str, ...]
    abstract: str
    method: str
    results: str


FRAMES: dict[str, tuple[PaperFrame, ...]] = {
    v.TECHNOLOGY: (
        PaperFrame(
            (
                "Draft-and-verify decoding at scale: {pct_mid} cheaper inference without "
                "quality loss",
                "Tree-structured speculative decoding for mixture-of-experts models",
            ),
            "Abstract. We study speculative decoding for large mixture-of-experts models, where "
            "expert routing makes draft acceptance harder to predict. We propose a "
            "router-aware drafting scheme and show that it reduces inference cost by "
            "{pct_mid} on {open_model} while leaving benchmark accuracy unchanged.",
            "Method. A small draft model proposes up to {n_small} tokens, and the target model "
            "verifies them in a single batched pass. We condition the draft on the target's "
            "routing decisions from the previous step and tune the draft length per request "
            "with a lightweight bandit.",
            "Results. Across {n_mid} workloads, mean acceptance length rises from 2.1 to "
            "{score_gain} tokens, throughput improves {times} on eight {chip} GPUs, and exact "
            "match on coding tasks stays within 0.2 points of the baseline.",
        ),
        PaperFrame(
            (
                "Four-bit weights, eight-bit activations: quantizing a {params}-parameter model "
                "for single-node serving",
                "Outlier-aware rotation for low-bit LLM inference",
            ),
            "Abstract. Serving the largest open-weight models usually requires several nodes. "
            "We present a quantization recipe combining learned rotations with per-channel "
            "scaling that allows a {params}-parameter model to run on a single eight-GPU node.",
            "Method. We apply Hadamard rotations to attention and MLP inputs, calibrate scales "
            "on {n_k} held-out sequences and keep a small set of outlier channels in higher "
            "precision. Kernels are fused for {chip}-class hardware.",
            "Results. Perplexity increases by {pct_dec} relative to the 16-bit baseline, "
            "accuracy on reasoning benchmarks drops by less than one point, and memory use "
            "falls {pct_big}. End-to-end latency improves {times} at batch size 32.",
        ),
        PaperFrame(
            (
                "Where do the watts go? Measuring energy per token in production inference",
                "Energy accounting for liquid-cooled AI clusters",
            ),
            "Abstract. We instrument {n_gpus} accelerators in a production cluster and measure "
            "energy per generated token across model sizes, batch sizes and cooling regimes.",
            "Method. We combine rack-level power telemetry sampled at one-second resolution "
            "with request logs covering {n_big} requests over {days} days, attributing idle and "
            "cooling overheads proportionally.",
            "Results. Median energy per output token ranges from 0.3 to {n_small}.4 joules. "
            "Batching explains {pct_big} of the variance; liquid cooling lowers facility "
            "overhead by {pct_small} relative to air cooling at the same load.",
        ),
        PaperFrame(
            (
                "Scaling laws for test-time compute in reasoning models",
                "How much should a model think? Budgeted reasoning under latency limits",
            ),
            "Abstract. Reasoning models trade inference compute for accuracy. We fit scaling "
            "laws relating accuracy to thinking tokens across {n_small} model sizes and propose "
            "a budget controller that allocates compute per query.",
            "Method. We sample solutions with budgets from 256 to 32,768 thinking tokens on "
            "{n_k} problems in mathematics, coding and planning, and fit a saturating power "
            "law per task family.",
            "Results. The controller matches fixed-budget accuracy with {pct_mid} fewer tokens "
            "on average, and improves accuracy by {score_gain} points at equal cost on the "
            "hardest decile.",
        ),
    ),
    v.ADOPTION: (
        PaperFrame(
            (
                "Generative AI in the workplace: evidence from {n_k} firms",
                "Who adopts AI first? Firm size, data maturity and deployment",
            ),
            "Abstract. We use administrative software-licensing data to measure adoption of "
            "generative AI tools across {n_k} firms and relate it to firm characteristics.",
            "Method. Adoption is defined as at least {n_small} active paid seats for three "
            "consecutive months. We estimate event-study models around first adoption, "
            "controlling for industry-by-quarter effects.",
            "Results. Adoption reached {pct_big} among firms with more than 5,000 employees but "
            "only {pct_small} among firms with fewer than 50. Adopters increased software "
            "spending by {pct_mid} within two years.",
        ),
        PaperFrame(
            (
                "Measuring agentic demand: token volumes and task mix on a public API",
                "From chat to agents: the changing composition of inference demand",
            ),
            "Abstract. Using anonymised request metadata from an inference platform, we "
            "document the shift of demand from chat completions to multi-step agent "
            "workloads.",
            "Method. We classify {n_big} sessions by number of tool calls and tokens per "
            "session and decompose growth in total tokens into user growth and intensity.",
            "Results. Agent sessions account for {pct_big} of tokens but a minority of "
            "sessions. Intensity explains most of the {times} growth in total tokens over the "
            "sample period.",
        ),
    ),
    v.CAPITAL: (
        PaperFrame(
            (
                "The returns to AI capital expenditure: evidence from listed firms",
                "Does AI capex pay? Market reactions to hyperscaler spending announcements",
            ),
            "Abstract. We assemble quarterly capital expenditure guidance from {n_mid} listed "
            "technology firms and estimate how investors price announced increases in AI "
            "spending.",
            "Method. We run event studies around {n_mid}0 guidance revisions and relate "
            "subsequent revenue growth to lagged capex, instrumenting with supplier lead "
            "times.",
            "Results. Announcement returns turned from positive to negative over the sample: "
            "a one-standard-deviation capex increase now lowers returns by {pct_dec} over three "
            "days. Revenue responds with an elasticity of 0.{n_small}.",
        ),
        PaperFrame(
            (
                "Venture valuations in generative AI: a hedonic approach",
                "Pricing the frontier: revenue multiples in late-stage AI rounds",
            ),
            "Abstract. We compile {n_k} venture rounds in AI companies and estimate how "
            "valuations depend on revenue, growth and position in the value chain.",
            "Method. We estimate hedonic regressions of log post-money valuation on log revenue, "
            "growth, gross margin and layer fixed effects, with investor fixed effects.",
            "Results. The median forward revenue multiple is {n_mid}, and companies at the model "
            "layer carry a premium of {pct_mid} relative to application companies with the same "
            "growth.",
        ),
    ),
    v.REGULATORY: (
        PaperFrame(
            (
                "The cost of compliance: a survey of providers under the EU AI Act",
                "Documentation duties and market entry under the AI Act",
            ),
            "Abstract. We survey {n_mid} providers of AI systems on the cost of meeting "
            "obligations under the EU AI Act and estimate the effect on entry into the EU "
            "market.",
            "Method. Respondents report staff time and external legal spending on compliance; "
            "we combine these with registry data and a difference-in-differences design "
            "around the regulation's application dates.",
            "Results. Median annual compliance cost is {mn_small}, or {pct_small} of revenue for "
            "small providers versus under 1% for the largest. Entry of new providers into the "
            "EU fell {pct_mid} relative to comparable markets.",
        ),
        PaperFrame(
            (
                "Export controls and the diffusion of AI compute",
                "Do export controls work? Evidence from accelerator trade flows",
            ),
            "Abstract. We assess the effect of US export controls on advanced accelerators "
            "using customs data covering {n_mid} countries.",
            "Method. We match product codes to accelerator classes and estimate the effect of "
            "each rule revision on trade flows, testing for rerouting through third countries "
            "and for enforcement effects after licensing changes.",
            "Results. Direct shipments to restricted destinations fell {pct_big}, but imports "
            "by neighbouring hubs rose {pct_mid}, suggesting partial circumvention that later "
            "enforcement actions reduced.",
        ),
        PaperFrame(
            (
                "Memorisation, fair use and the copyright exposure of language models",
                "Measuring verbatim reproduction in models at the centre of copyright lawsuits",
            ),
            "Abstract. Copyright litigation against AI developers turns on whether models "
            "reproduce protected works. We measure extractable memorisation across {n_small} "
            "open-weight models.",
            "Method. We prompt models with prefixes from {n_k} books and news articles and "
            "count continuations that match the source verbatim for at least 50 tokens.",
            "Results. Between 0.{n_small}% and {pct_dec} of tested passages are extractable; "
            "rates rise with model size and with duplication in training data, which bears "
            "directly on the fair-use arguments before the courts.",
        ),
    ),
    v.TALENT: (
        PaperFrame(
            (
                "Generative AI and entry-level employment: evidence from job postings",
                "AI exposure and the career ladder",
            ),
            "Abstract. We use {n_big} job postings to study how demand for entry-level and "
            "senior workers changed in occupations exposed to generative AI.",
            "Method. Exposure is measured at the task level; we compare postings before and "
            "after the release of capable assistants using a difference-in-differences design "
            "with occupation and month fixed effects.",
            "Results. Entry-level postings in the most exposed quintile fell {pct_small} "
            "relative to the least exposed, while senior postings were unchanged. Posted "
            "wages did not change significantly.",
        ),
        PaperFrame(
            (
                "Assistants and productivity: a field experiment with {n_k} workers",
                "Who gains from AI assistance? Heterogeneous effects in customer support",
            ),
            "Abstract. We randomise access to an AI assistant among {n_k} workers in {sector} "
            "and measure productivity, quality and retention.",
            "Method. Workers are randomised at the team level; outcomes are measured from "
            "operational logs over {days} days, and quality is rated blind by supervisors.",
            "Results. Treated workers resolved {pct_mid} more cases per hour, with gains "
            "concentrated among the least experienced. Quality ratings were unchanged and "
            "attrition fell {pct_small}.",
        ),
    ),
    v.COMPETITION: (
        PaperFrame(
            (
                "Price competition in the market for language-model APIs",
                "Switching and substitution across model providers",
            ),
            "Abstract. We collect daily list prices and routing shares for {n_mid} model "
            "endpoints and estimate demand elasticities in the API market.",
            "Method. We estimate a nested logit model of provider choice using routing data "
            "from an aggregator, instrumenting prices with hardware cost shocks.",
            "Results. Own-price elasticities are high, around -{n_small}.2, and the closed-model "
            "premium fell {pct_mid} over the sample as open-weight models improved.",
        ),
        PaperFrame(
            (
                "Open weights and market structure in foundation models",
                "Do open-weight releases discipline closed-model prices?",
            ),
            "Abstract. We study how the release of capable open-weight models affects the "
            "prices and market shares of closed model providers.",
            "Method. We use an event-study design around {n_small} major open-weight releases "
            "and track prices and traffic shares for {n_mid} endpoints.",
            "Results. Closed-model prices in the affected capability tier fell {pct_mid} within "
            "{days} days of a release, and open-weight traffic share rose to {pct_mid}.",
        ),
    ),
}


def paper_text(rng: random.Random, force: str, ctx: Context) -> tuple[str, str, str]:
    """(title, text, author line) for a paper in the force's frames."""
    frame = FRAMES[force][rng.randrange(len(FRAMES[force]))]
    title = render(v.pick(rng, frame.titles), ctx)
    text = "\n\n".join(render(p, ctx) for p in (frame.abstract, frame.method, frame.results))
    n_authors = rng.randint(2, 5)
    names = [f"{v.pick(rng, v.FIRST_NAMES)} {v.pick(rng, v.LAST_NAMES)}" for _ in range(n_authors)]
    authors = ", ".join(names) + f" ({v.pick(rng, v.PAPER_AFFILIATIONS)})"
    return title, text, authors
