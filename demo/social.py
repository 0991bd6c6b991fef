"""Short social posts: one to three sentences, some factual, some opinionated, per force."""

from __future__ import annotations

import random

from demo import vocabulary as v
from demo.context import Context, render

POSTS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "{company} capex guide now {bn_big}. At some point the depreciation line becomes the "
        "story.",
        "{startup} at {valuation} on maybe {mn_small} of revenue. I have seen this movie, I just "
        "don't remember it ending well.",
        "Hearing {lab} is out raising again, {bn} at roughly {valuation}. The cadence is now "
        "every six months.",
        "GPU-backed debt is quietly one of the biggest credit stories of {year}. {company} just "
        "added another {bn}.",
        "Hot take: the best AI investment this year was a utility, not a model company.",
        "{investor} leading a {mn} round into {startup}. Third {sector} AI deal this month.",
        "Capex up, buybacks down, free cash flow squeezed. That's the hyperscaler {quarter} "
        "print in one line.",
        "Everyone asks who wins the model race. Better question: who is financing the "
        "{gw_big} of datacenters being announced?",
        "Quick math: {bn_big} of annual capex needs roughly {bn_big} of new revenue to earn its "
        "keep. We're not there yet.",
    ),
    v.REGULATORY: (
        "AI Act enforcement is real now. {lab} got a formal information request from the AI "
        "Office. Compliance teams everywhere just cancelled their weekend.",
        "Another copyright lawsuit, this time {plaintiff} vs {lab}. The court dockets are "
        "becoming the real AI benchmark.",
        "New export controls on {export_chip}-class parts published today. Read the licensing "
        "section "
        "twice; the enforcement teeth are in the footnotes.",
        "The fair-use ruling in the {lab} case is narrower than the headlines. Piracy claims "
        "survive. Settlement pressure goes up, not down.",
        "{antitrust_regulator} opening an antitrust probe into cloud-lab partnerships was only a "
        "matter "
        "of time.",
        "If you sell into the EU, the AI Act compliance deadline is not a suggestion. Fines "
        "scale with global turnover.",
        "Legal thread: what the latest AI copyright filings in {court} actually ask for, and "
        "why the injunction request matters more than damages. (1/6)",
        "Third regulatory action against an AI developer this week. The enforcement era has "
        "started.",
        "Export controls keep getting stricter and the compliance burden keeps moving down the "
        "supply chain to distributors.",
    ),
    v.COMPETITION: (
        "{lab} cut prices again. Token prices are falling faster than GPU prices, which tells "
        "you who is absorbing the margin.",
        "{open_model} within a few points of {model} on coding evals. The closed-model premium "
        "keeps shrinking.",
        "Every big cloud wants a second accelerator supplier. {challenger_chip} orders are the "
        "tell.",
        "The coding-assistant market has four credible players and zero switching costs. "
        "Enjoy the price war.",
        "{company} vs {rival} in AI cloud is closer than the market share charts from last "
        "year suggest.",
        "Unpopular opinion: model quality is converging and distribution will decide the winners.",
        "Routing data this week: {pct_mid} of traffic moved to the cheapest model that passed "
        "the eval. Loyalty is dead.",
    ),
    v.TALENT: (
        "Senior ML infra comp is now {salary} at the top labs. Every start-up founder I know is "
        "recruiting with equity and prayer.",
        "{company} trimming {headcount} support roles after agents took over most tickets. "
        "Expect more of these announcements.",
        "Entry-level postings in AI-exposed roles down {pct_small} year on year. The first rung "
        "of the ladder is getting shorter.",
        "{lab} opening in {city}. Good for the local talent pool, hard on local start-ups.",
        "The hottest job title this year: someone who can keep a 50,000-GPU training run alive.",
        "Spoke to {n_small} CIOs this week. None are cutting headcount because of AI; all are "
        "freezing hiring in the same teams.",
    ),
    v.TECHNOLOGY: (
        "{model} technical report is out. Mixture-of-experts, {params} params, a lot more "
        "synthetic data than last time.",
        "{chip_vendor}'s next part promises {times} the inference throughput of {chip}. Memory "
        "bandwidth is doing most of the work.",
        "New speculative decoding paper claims {pct_mid} cheaper inference with no quality "
        "loss. If it holds up, it matters more than most model launches.",
        "{memory} sampling started. The memory makers are the quiet kingmakers of this cycle.",
        "Four-bit quantization of a {params} model on one node, code released. Nice work.",
        "{company} bringing {n_gpus} GPUs online in {site}. Liquid cooling everywhere, racks at "
        "100+ kW.",
        "Reasoning models quietly changed the economics: more tokens per answer, more compute "
        "at inference time.",
    ),
    v.ADOPTION: (
        "Token volumes at {lab} up {times} since January. Agents are the demand story nobody "
        "modelled correctly.",
        "Survey: {pct_big} of large firms have generative AI in production. Most of it is "
        "{workflow}.",
        "{chip} rental prices firming again, about {hourly}/hr. The glut narrative aged badly.",
        "{utility} queue now shows {gw_big} of datacenter requests. That's the real adoption "
        "chart.",
        "{company} passing {seats} paying business customers for its assistant is a bigger deal "
        "than any benchmark this week.",
        "Our team moved {workflow} to an agent in {month}. Cycle time down {pct_mid}, error rate "
        "flat.",
        "CIO budgets for AI next year up {pct_mid}, mostly taken from outsourcing. Watch the "
        "IT services firms.",
    ),
}


def social_text(rng: random.Random, force: str, ctx: Context) -> str:
    """A short post for the force; sometimes a quoted fact with a one-line opinion."""
    text = render(v.pick(rng, POSTS[force]), ctx)
    if rng.random() < 0.12:
        text += rng.choice((" Thoughts?", " Not investment advice.", " Link in replies."))
    return text
