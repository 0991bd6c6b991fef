"""The planted ground truth: which entities rise, decline, appear or stay steady, and when.

The schedule fixes how many signals mention each planted entity in each of the 30 weeks; the
templates here are the only place those names occur, so the counts the analytics recover are
exactly the planned ones. Names are real companies chosen because they are unambiguous, are not
substrings of any other name in the vocabulary and are never used as common words in the
background templates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from demo import vocabulary as v
from demo.context import Context, render, sentence_case_title

N_WEEKS = 30
# Week indices: the analytics window W-11..W0 is weeks 18..29; the recent part W-3..W0 is 26..29.
WINDOW_START = 18
RECENT_START = 26


@dataclass(frozen=True)
class Planted:
    """A planted entity: its label, domain (which templates fit) and descriptive phrases."""

    name: str
    label: str  # "rising", "declining", "new", "steady"
    domain: str  # "chip", "lab", "supplier"
    desc: str
    products: tuple[str, ...]  # varied per document so repeated coverage does not read canned


PLANTED: tuple[Planted, ...] = (
    Planted(
        "Cerebras",
        "rising",
        "chip",
        "the wafer-scale chipmaker",
        ("CS-3 systems", "wafer-scale inference systems", "WSE-3 clusters"),
    ),
    Planted(
        "Groq",
        "rising",
        "chip",
        "the inference-chip start-up",
        ("LPU racks", "LPU-based inference service", "hosted inference capacity"),
    ),
    Planted(
        "Etched",
        "rising",
        "chip",
        "the transformer-ASIC start-up",
        ("Sohu accelerators", "Sohu servers", "transformer-only ASICs"),
    ),
    Planted(
        "Graphcore",
        "declining",
        "chip",
        "the British chip designer",
        ("IPU systems", "Bow IPU pods", "IPU-based servers"),
    ),
    Planted(
        "SambaNova",
        "declining",
        "chip",
        "the AI systems company",
        ("SN40L-based racks", "dataflow cloud capacity", "reconfigurable dataflow units"),
    ),
    Planted(
        "Inflection AI",
        "declining",
        "lab",
        "the enterprise AI developer",
        ("its enterprise assistant", "its on-premises model stack", "its agent platform"),
    ),
    Planted(
        "Thinking Machines Lab",
        "new",
        "lab",
        "the research start-up",
        ("its first model", "a fine-tuning API", "its multimodal model", "its research preview"),
    ),
    Planted(
        "Physical Intelligence",
        "new",
        "lab",
        "the robotics foundation-model start-up",
        ("its robot control model", "a generalist robot policy", "its manipulation model"),
    ),
    Planted(
        "Reflection AI",
        "new",
        "lab",
        "the open-model start-up",
        ("its open-weight model", "a coding agent", "its mixture-of-experts release"),
    ),
    Planted(
        "Supermicro",
        "steady",
        "supplier",
        "the server maker",
        ("liquid-cooled racks", "GPU servers", "rack-scale systems", "direct-liquid-cooled nodes"),
    ),
    Planted(
        "Marvell",
        "steady",
        "supplier",
        "the chipmaker",
        ("custom accelerators", "optical DSPs", "custom AI silicon", "800G interconnect chips"),
    ),
    Planted(
        "Vertiv",
        "steady",
        "supplier",
        "the power and cooling supplier",
        ("cooling units", "coolant distribution units", "power systems", "thermal equipment"),
    ),
)
LABELS: tuple[str, ...] = ("rising", "declining", "new", "steady")


def weekly_plan(rng: random.Random) -> dict[str, list[int]]:
    """Planned mentions per entity per week (index 0 = the week starting 2026-03-30)."""
    plan: dict[str, list[int]] = {}
    for i, p in enumerate(PLANTED):
        counts = [0] * N_WEEKS
        for w in range(N_WEEKS):
            if p.label == "rising":
                # A low, steady presence, then a jump in the last four weeks (r about 4.5).
                early = rng.choice((0, 1, 1, 2)) if w < WINDOW_START else 1
                counts[w] = early if w < RECENT_START else (4, 5, 4, 5)[(w + i) % 4]
            elif p.label == "declining":
                early = rng.choice((2, 3, 4)) if w < WINDOW_START else 3
                counts[w] = early if w < RECENT_START else (1, 0, 1, 0)[(w + i) % 4]
            elif p.label == "new":
                counts[w] = 0 if w < RECENT_START else (3, 3, 4, 4)[w - RECENT_START]
            else:
                counts[w] = rng.choice((2, 3)) if w < WINDOW_START else 4
        plan[p.name] = counts
    return plan


@dataclass(frozen=True)
class PlantedFrame:
    """A headline and lede for one entity, tagged with the market force it reports on."""

    force: str
    headline: str
    lede: str


FRAMES: dict[str, tuple[PlantedFrame, ...]] = {
    "chip": (
        PlantedFrame(
            v.ADOPTION,
            "{name} signs {partner} as inference customer",
            "{name}, {desc}, said {partner} will run part of its inference traffic on "
            "{product}, a contract people familiar with it put in the tens of millions of "
            "dollars.",
        ),
        PlantedFrame(
            v.ADOPTION,
            "{name} opens inference capacity in {site}",
            "{name} has switched on a new inference cluster in {site}, adding capacity for "
            "{product} as developers look for faster token generation than GPUs offer.",
        ),
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} posts {n_mid}00 tokens per second on {open_model}",
            "{name} said its {product} served {open_model} at more than {n_mid}00 output "
            "tokens per second per user in tests verified by an independent benchmarking "
            "firm.",
        ),
        PlantedFrame(
            v.COMPETITION,
            "{name} pitches {product} as a cheaper alternative to {chip}",
            "{name}, {desc}, is courting cloud buyers with {product} priced below "
            "comparable {chip} capacity, betting that inference buyers care more about "
            "latency per dollar than about software familiarity.",
        ),
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} details next generation of {product} at {conference}",
            "{name} presented its next-generation {product} at {conference}, promising "
            "{times} the throughput per rack of the current design.",
        ),
        PlantedFrame(
            v.ADOPTION,
            "{sector} firms test {name} for low-latency agents",
            "Several {sector} companies are piloting {product} from {name} for agent "
            "workloads where response time matters, according to people involved in the "
            "trials.",
        ),
        PlantedFrame(
            v.COMPETITION,
            "{name} wins slot in {partner} model marketplace",
            "{partner} will offer models hosted on {name} hardware in its marketplace, "
            "giving {desc} access to thousands of enterprise developers.",
        ),
    ),
    "lab": (
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} releases {product}",
            "{name}, {desc}, released {product} on {day}, publishing a technical report "
            "that claims results competitive with {model} on several agentic benchmarks.",
        ),
        PlantedFrame(
            v.TALENT,
            "{name} hires {n_small} researchers from rival labs",
            "{name} has hired {n_small} researchers from larger labs in recent weeks, "
            "according to people familiar with the moves, as {desc} builds out its team in "
            "{city}.",
        ),
        PlantedFrame(
            v.ADOPTION,
            "{name} signs first enterprise customers for {product}",
            "{name} said {n_small} companies in {sector} have begun paying for {product}, "
            "the first commercial deployments for {desc}.",
        ),
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} opens developer access to {product}",
            "{name} opened developer access to {product} this week, with pricing of "
            "{price} per million output tokens and a waitlist for larger customers.",
        ),
        PlantedFrame(
            v.COMPETITION,
            "{name} bets on a different path from {lab}",
            "{name}, {desc}, is pitching {product} as an alternative to the large closed "
            "models from {lab}, emphasising controllability and lower serving cost.",
        ),
        PlantedFrame(
            v.TALENT,
            "{name} opens office in {city}",
            "{name} is opening an office in {city} and plans to grow its headcount to about "
            "{n_mid} people by the end of next year.",
        ),
    ),
    "supplier": (
        PlantedFrame(
            v.ADOPTION,
            "{name} order book grows on AI datacenter demand",
            "{name}, {desc}, said orders for {product} rose {pct_mid} from a year earlier, "
            "driven by AI datacenter projects in North America and Asia.",
        ),
        PlantedFrame(
            v.ADOPTION,
            "{name} to supply {product} for {company} campus in {site}",
            "{name} will supply {product} for a {gw} campus that {company} is building in "
            "{site}, according to a person familiar with the contract.",
        ),
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} unveils new {product} for 100-kilowatt racks",
            "{name} introduced a new generation of {product} designed for racks drawing more "
            "than 100 kilowatts, the density now standard for {chip} deployments.",
        ),
        PlantedFrame(
            v.COMPETITION,
            "{name} gains share as hyperscalers diversify suppliers",
            "{name} has won a larger share of hyperscaler spending on {product} this year, "
            "as buyers spread orders across suppliers to secure delivery dates.",
        ),
        PlantedFrame(
            v.ADOPTION,
            "{name} lifts outlook on AI demand",
            "{name} raised its revenue outlook for the year on {day}, citing demand for "
            "{product} from cloud providers and neoclouds.",
        ),
        PlantedFrame(
            v.TECHNOLOGY,
            "{name} ships {product} for {chip} clusters",
            "{name} began volume shipments of {product} built for {chip} clusters, with the "
            "first deliveries going to a campus near {site}.",
        ),
    ),
}

DETAILS: dict[str, tuple[str, ...]] = {
    "chip": (
        "The company has argued that memory on the chip itself removes the bandwidth limits "
        "that slow GPU inference.",
        "Customers can reach the hardware through an API rather than buying systems outright.",
        "Its capacity remains small next to the GPU fleets of the largest clouds.",
        "Developers building voice agents and coding tools have been early adopters.",
        "The firm plans to add capacity in Europe and the Gulf over the next year.",
        "Pricing is quoted per million tokens, which makes comparison with GPU clouds easier.",
    ),
    "lab": (
        "The team includes several researchers who worked on large-scale training at bigger labs.",
        "The company has not disclosed the size of the model.",
        "Early users praised the documentation and the quality of the evaluation reports.",
        "Access is limited at first while the company adds serving capacity.",
        "The company said it would publish more details of its training recipe later this year.",
    ),
    "supplier": (
        "Lead times for its {product} have stretched to several months.",
        "The company said most new orders were tied to campuses due online in {next_year}.",
        "Demand from neoclouds has grown faster than demand from the largest clouds.",
        "Its backlog now covers more than a year of shipments.",
        "Gross margin improved as the product mix shifted to higher-density systems.",
    ),
}

ALSO: dict[str, tuple[str, ...]] = {
    "chip": (
        "{name}, {desc}, is making a similar pitch to the same buyers.",
        "Rival {name} has reported comparable speeds on its {product}.",
        "{name} is competing for many of the same contracts.",
    ),
    "lab": (
        "{name}, {desc}, is chasing a similar group of customers.",
        "{name} has drawn comparisons with the release, as it courts the same developers.",
    ),
    "supplier": (
        "{name}, {desc}, has reported similar demand from the same projects.",
        "{name} also supplies equipment for the site.",
        "Orders at {name} point in the same direction.",
    ),
}

SOCIAL: dict[str, tuple[str, ...]] = {
    "chip": (
        "{name} serving {open_model} at absurd speeds. Latency is the feature buyers actually "
        "notice.",
        "Everyone wants an alternative to GPUs for inference. {name} keeps showing up in those "
        "conversations.",
        "Spoke to two CTOs this week who moved agent workloads to {name}. Tokens per second "
        "sells itself.",
        "{name} {product} benchmark numbers look good, but capacity is the question.",
    ),
    "lab": (
        "{name} shipped {product}. Smaller team, sharper focus. Worth watching.",
        "{name} hiring aggressively in {city}. The new-lab wave is real.",
        "Tried {product} from {name} over the weekend. Impressive for a first release.",
    ),
    "supplier": (
        "{name} numbers are the cleanest read on AI datacenter build-outs. Orders still climbing.",
        "Every campus tour I do has {name} equipment in it. Picks and shovels.",
        "{name} {product} lead times tell you more about AI demand than any survey.",
    ),
}

LONGFORM_INSERTS: dict[str, tuple[str, ...]] = {
    "chip": (
        "A useful case study is {name}, {desc}. Its {product} trade general-purpose "
        "flexibility for speed on transformer inference, and it has signed customers that care "
        "about latency above all else.",
        "Specialised inference hardware is the other half of the story. {name} has built its "
        "pitch around tokens per second, and its {product} now serve production traffic for "
        "several large developers.",
    ),
    "lab": (
        "Newer labs illustrate the point. {name}, {desc}, released {product} with a small team "
        "and a narrow focus, and it found paying customers within weeks.",
        "Consider {name}. It has hired researchers from the larger labs and is positioning "
        "{product} as a more controllable alternative.",
    ),
    "supplier": (
        "The suppliers are the clearest read. {name}, {desc}, reports rising orders for "
        "{product}, and its backlog now stretches well into next year.",
        "Look at {name}: demand for its {product} has tracked the datacenter build-out almost "
        "exactly, quarter by quarter.",
    ),
}


def planted_context(p: Planted, ctx: Context) -> Context:
    """The document context plus the planted entity's own slots.

    The product phrase is picked from the context's own ``pick`` digits so the same document
    always names the same product, without drawing from the shared generator.
    """
    product = p.products[int(ctx["pick"]) % len(p.products)]
    return ctx.extended(name=p.name, desc=p.desc, product=product)


def choose_frame(rng: random.Random, p: Planted) -> PlantedFrame:
    """A frame for the entity's domain."""
    frames = FRAMES[p.domain]
    return frames[rng.randrange(len(frames))]


def news_body(
    rng: random.Random, p: Planted, frame: PlantedFrame, ctx: Context, also: Planted | None
) -> tuple[str, list[str]]:
    """(title, opening paragraphs) of a planted news report."""
    local = planted_context(p, ctx)
    title = sentence_case_title(render(frame.headline, local))
    details = list(DETAILS[p.domain])
    rng.shuffle(details)
    second = " ".join(render(d, local) for d in details[: rng.randint(1, 2)])
    if also is not None:
        second += " " + render(v.pick(rng, ALSO[also.domain]), planted_context(also, ctx))
    return title, [render(frame.lede, local), second]


def social_post(rng: random.Random, p: Planted, ctx: Context, also: Planted | None) -> str:
    """A short post about the entity, optionally naming a second one."""
    text = render(v.pick(rng, SOCIAL[p.domain]), planted_context(p, ctx))
    if also is not None:
        text += f" Same goes for {also.name}."
    return text


def longform_insert(rng: random.Random, p: Planted, ctx: Context, also: Planted | None) -> str:
    """A paragraph that places the entity inside a longer argument."""
    text = render(v.pick(rng, LONGFORM_INSERTS[p.domain]), planted_context(p, ctx))
    if also is not None:
        text += " " + render(v.pick(rng, ALSO[also.domain]), planted_context(also, ctx))
    return text
