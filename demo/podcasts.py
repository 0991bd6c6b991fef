"""Podcast episodes: chapters of speaker turns written as ``Name (hh:mm:ss): text`` lines.

Hosts ask, guests answer; each chapter is one market force so a segment is a coherent signal.
Guests are fictional, and real people are only mentioned in neutral statements.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from demo import vocabulary as v
from demo.context import Context, render

# Chapter titles, aligned one-to-one with EXCHANGES: a chapter is named after its opening
# question.
CHAPTERS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "Following the capex",
        "GPU debt and the credit markets",
        "Valuations and the next funding round",
        "Paying for power and land",
        "What insiders are selling",
    ),
    v.REGULATORY: (
        "The AI Act gets teeth",
        "Copyright cases to watch",
        "Export controls, round three",
        "Antitrust and the cloud partnerships",
        "A compliance checklist for Europe",
    ),
    v.COMPETITION: (
        "The price war",
        "Second sources for accelerators",
        "Open weights versus closed models",
        "Cloud share and capacity",
    ),
    v.TALENT: (
        "The hiring market",
        "What happens to junior roles",
        "Pay, grants and poaching",
        "Managing a team of agents",
    ),
    v.TECHNOLOGY: (
        "Memory bandwidth and packaging",
        "Inference efficiency tricks",
        "What the new model actually does better",
        "Cooling and power engineering",
    ),
    v.ADOPTION: (
        "Enterprise budgets",
        "Tokens, agents and demand",
        "Power as a demand signal",
        "Where deployments stick",
    ),
}

# (question, answer) exchanges per force; answers respond to their own question.
EXCHANGES: dict[str, tuple[tuple[str, str], ...]] = {
    v.CAPITAL: (
        (
            "Let's talk money. {company} just put its capex at {bn_big}. Is that number sane?",
            "Sane for them, yes. They fund it from operating cash flow and the demand is "
            "contracted. The question is the second tier, the neoclouds and developers.",
        ),
        (
            "Who is actually lending against GPUs?",
            "Private credit, mostly, plus some banks. Spreads are a few hundred basis points, "
            "which feels thin for assets that lose value when the next generation ships.",
        ),
        (
            "{startup} raised at {valuation}. What does a round like that assume?",
            "It assumes revenue triples in about {months} months. Some will do it. Most won't.",
        ),
        (
            "Where is the capital going that people aren't paying attention to?",
            "Power and land. A {gw} site near {site} costs billions before you install a single "
            "server.",
        ),
        (
            "What's the tell that the cycle is maturing?",
            "Secondary sales. When employees at {lab} sell shares at these prices, that tells "
            "you something about how insiders see the valuation.",
        ),
    ),
    v.REGULATORY: (
        (
            "The AI Office sent formal requests to {lab}. How serious is AI Act enforcement "
            "going to be?",
            "Serious. Fines go up to {pct_small} of global turnover, and the AI Office has been "
            "hiring enforcement staff all year. The documentation duties are where it bites.",
        ),
        (
            "Walk me through the copyright lawsuits. Which case matters most?",
            "The case in {court}, because it separated lawfully bought books from pirated "
            "copies. That's where the damages exposure is, and both sides will appeal.",
        ),
        (
            "New export controls landed this month. Who gets hurt?",
            "Distributors in third countries. The rule pushes enforcement down the chain, and "
            "licensing delays for {export_chip}-class parts are already showing up.",
        ),
        (
            "Is the antitrust probe from {antitrust_regulator} a real threat to these "
            "partnerships?",
            "I think the theory is plausible: a minority stake plus exclusive compute looks a "
            "lot like control. Regulators have been saying so for a year.",
        ),
        (
            "What should a start-up selling into Europe do about compliance right now?",
            "Write the training-data summary and the copyright policy now, not when the "
            "regulator asks. The enforcement timeline is shorter than people think.",
        ),
    ),
    v.COMPETITION: (
        (
            "{lab} cut prices again. Is anyone making money on tokens?",
            "Not many. Prices for a given capability fall about ten times a year, and the "
            "savings go straight to customers.",
        ),
        (
            "Is Nvidia's position actually weakening, or is that wishful thinking?",
            "Its share of spending is slipping toward {pct_big}. Revenue still grows, but buyers "
            "want a second source, and {challenger_chip} is good enough for a lot of inference.",
        ),
        (
            "How close are the open-weight models now?",
            "Close. {open_model} is within a few points on coding tasks, and you can run it "
            "inside your own network.",
        ),
        (
            "{company} versus {rival} in AI cloud. Who's winning?",
            "Whoever has capacity available on the date the customer needs it. Price is second.",
        ),
    ),
    v.TALENT: (
        (
            "What's the hiring market like for infrastructure engineers right now?",
            "Brutal. Time-to-hire for people who can run big clusters is past {days} days, and "
            "packages are around {salary}.",
        ),
        (
            "Are junior roles disappearing, or is that overstated?",
            "Overstated, but not wrong. Entry-level postings in exposed roles are down "
            "{pct_small}; the roles that remain look different.",
        ),
        (
            "How big are the retention packages getting?",
            "Grants of several times base salary are common at the top labs now. Losing one "
            "team can set a programme back a year.",
        ),
        (
            "What does a manager's job look like when half the team is agents?",
            "It's supervision: reviewing output, catching errors, owning the process end to end.",
        ),
    ),
    v.TECHNOLOGY: (
        (
            "Why does everyone keep saying memory is the bottleneck?",
            "Because inference is bandwidth-bound. The next parts promise {times} the "
            "throughput, and most of that is {memory}.",
        ),
        (
            "What's the most underrated efficiency trick in inference this year?",
            "Speculative decoding. Combined with four-bit weights you get {pct_mid} cheaper "
            "inference without losing accuracy.",
        ),
        (
            "What did the new {model} actually improve?",
            "Planning and tool use, mainly. The knowledge didn't change much; the multi-step "
            "behaviour did.",
        ),
        (
            "How different is a 100-kilowatt rack from what we had before?",
            "Completely different. Direct-to-chip liquid cooling, new power distribution, and "
            "racks that weigh as much as a small car.",
        ),
    ),
    v.ADOPTION: (
        (
            "Are enterprises actually paying for this now, or still piloting?",
            "Paying. CIO budgets for next year are up {pct_mid}, and it's coming out of "
            "outsourcing and old software lines.",
        ),
        (
            "Where is the token growth coming from?",
            "Agents. A coding agent burns through far more tokens than a chat session, and "
            "{lab} says volumes are up {times} since January.",
        ),
        (
            "You keep saying power is the best demand indicator. Why?",
            "Because you can't fake a grid connection request. {utility} has {gw_big} in its "
            "queue.",
        ),
        (
            "Which deployments survive past the pilot?",
            "The ones with an owner and a metric. {workflow} in {sector} is a good example: "
            "cycle times down {pct_mid}.",
        ),
    ),
}
ELABORATIONS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "Roughly half of the spend is servers and accelerators, and those depreciate fast.",
        "The buy side is terrified of being underweight, so the money keeps coming. That's not "
        "the same as the returns being there.",
        "I'd say {bn_big} a year needs a lot of new revenue to earn its keep.",
    ),
    v.REGULATORY: (
        "Expect appeals on every major ruling. The litigation will run for years.",
        "Compliance teams are growing faster than product teams at some of these companies.",
        "The lawsuits are also a negotiating tactic; licensing deals follow the filings.",
    ),
    v.COMPETITION: (
        "Switching costs are almost zero. Routing data shows traffic moving within weeks of a "
        "price change.",
        "Distribution is the moat now. The model is a component.",
        "I'd expect consolidation in the middle of the market within two years.",
    ),
    v.TALENT: (
        "Companies that announced cuts mostly redeployed people. The net reductions were "
        "smaller than the headlines.",
        "Start-ups compete with equity because they can't match the cash.",
        "Visa timelines are a real constraint for the US labs.",
    ),
    v.TECHNOLOGY: (
        "Packaging capacity is the other constraint. Every generation uses more silicon per "
        "package.",
        "The gains stack: better kernels, smaller numbers, smarter batching.",
        "Reasoning models moved the compute to inference time, and the hardware is catching up.",
    ),
    v.ADOPTION: (
        "Large firms are pulling ahead. Small companies can't afford the data engineering.",
        "Usage-based pricing changed the conversation with finance teams.",
        "The demand shows up in token counts months before it shows up in revenue.",
    ),
}

FOLLOW_UPS: tuple[str, ...] = (
    "Say more about that.",
    "Give me a number.",
    "And what would change your mind?",
    "That's a strong claim.",
    "Interesting. Why now?",
    "Who loses in that scenario?",
    "Okay, but what about the bear case?",
)
SHOW_TOPICS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: ("the capex question", "who finances AI", "valuation season"),
    v.REGULATORY: ("enforcement season", "the courts and the models", "export controls"),
    v.COMPETITION: ("the price war", "second sources", "open weights"),
    v.TALENT: ("the talent squeeze", "AI and the career ladder"),
    v.TECHNOLOGY: ("memory walls", "inference tricks", "hot racks"),
    v.ADOPTION: ("agents everywhere", "budgets, not pilots", "power and demand"),
}


@dataclass(frozen=True)
class Segment:
    """One chapter of an episode, in integer seconds from the episode start."""

    start_s: int
    end_s: int
    chapter: str
    text: str


def hms(seconds: int) -> str:
    """``hh:mm:ss`` for a transcript line."""
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def episode_title(rng: random.Random, show: str, number: int, forces: list[str]) -> str:
    """'The Compute Ledger #41: the price war, and export controls'."""
    first = v.pick(rng, SHOW_TOPICS[forces[0]])
    second_force = next((f for f in forces[1:] if f != forces[0]), forces[-1])
    second = v.pick(rng, SHOW_TOPICS[second_force])
    if first == second:
        return f"{show} #{number}: {first[:1].upper()}{first[1:]}"
    return f"{show} #{number}: {first[:1].upper()}{first[1:]}, and {second}"


def segment(
    rng: random.Random,
    force: str,
    start_s: int,
    hosts: tuple[str, ...],
    guest: str,
    ctx: Context,
    used_chapters: tuple[str, ...] = (),
) -> Segment:
    """A chapter of 4 to 7 turns; timestamps follow the words spoken and stay in the span.

    The chapter is named after its opening exchange; ``used_chapters`` keeps an episode from
    repeating a chapter title.
    """
    order = list(range(len(EXCHANGES[force])))
    rng.shuffle(order)
    fresh = [i for i in order if CHAPTERS[force][i] not in used_chapters]
    if fresh:
        order.remove(fresh[0])
        order.insert(0, fresh[0])
    exchanges = [EXCHANGES[force][i] for i in order]
    elaborations = list(ELABORATIONS[force])
    rng.shuffle(elaborations)
    turns: list[tuple[str, str]] = []
    for i, (question, answer) in enumerate(exchanges[: rng.randint(1, 2)]):
        host = hosts[i % len(hosts)]
        turns.append((host, render(question, ctx)))
        turns.append((guest, render(answer, ctx)))
        if rng.random() < 0.7 and elaborations:
            turns.append((hosts[(i + 1) % len(hosts)], rng.choice(FOLLOW_UPS)))
            turns.append((guest, render(elaborations.pop(), ctx)))
    if len(turns) < 4:
        turns.append((hosts[-1], rng.choice(FOLLOW_UPS)))
        turns.append((guest, render(elaborations.pop(), ctx)))
    # The transcript is condensed: the chapter runs several minutes, and each turn starts at a
    # point proportional to the words spoken before it.
    words = [len(text.split()) for _, text in turns]
    duration = rng.randint(240, 720)
    total = sum(words)
    lines: list[str] = []
    spoken = 0
    for (speaker, text), n in zip(turns, words, strict=True):
        offset = int((duration - 10) * spoken / total)
        lines.append(f"{speaker} ({hms(start_s + offset)}): {text}")
        spoken += n
    chapter = CHAPTERS[force][order[0]]
    return Segment(start_s, start_s + duration, chapter, "\n".join(lines))
