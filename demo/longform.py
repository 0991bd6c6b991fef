"""Long-form analyses (essays, memos, articles): an argued position in six or more paragraphs.

Every piece states a thesis early, gives three to five supporting arguments with concrete
numbers, addresses a counterargument and concludes. Pools are per market force; the kind only
changes the framing (a memo addresses its readers, an essay speaks in the first person).
"""

from __future__ import annotations

import random

from demo import vocabulary as v
from demo.context import Context, render, sentence_case_title

TITLES: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "The capex supercycle has one more year in it",
        "Who pays for {gw_big} of datacenters?",
        "Depreciation is the AI number nobody models properly",
        "AI valuations are pricing in perfection",
        "GPU debt: the credit market's new favourite collateral",
        "The {valuation} question: what late-stage AI rounds are pricing in",
        "Follow the capital: where AI money went in the {quarter} period",
    ),
    v.REGULATORY: (
        "The AI Act enforcement era starts now",
        "Copyright litigation will shape model economics more than any benchmark",
        "Export controls are becoming an industrial policy",
        "What the fair-use rulings actually decided",
        "Compliance is the new moat",
        "Antitrust comes for the cloud-lab partnerships",
        "A regulatory map for AI builders selling into Europe",
    ),
    v.COMPETITION: (
        "Model prices are falling faster than model costs",
        "The second-source moment for AI accelerators",
        "Distribution beats model quality",
        "Open weights are winning the middle of the market",
        "The cloud share war is about capacity, not price",
        "Why the coding-assistant market will consolidate",
    ),
    v.TALENT: (
        "The real AI labour shortage is in infrastructure",
        "Entry-level work is being redesigned, not deleted",
        "What retention grants tell us about the talent market",
        "Managing agents is the new management skill",
        "AI and jobs: reading the early data carefully",
    ),
    v.TECHNOLOGY: (
        "Memory bandwidth is the constraint that matters",
        "Inference efficiency will outrun Moore's law this decade",
        "Reasoning models changed the compute curve",
        "Packaging, not lithography, sets the pace of AI hardware",
        "The case for smaller models doing more of the work",
    ),
    v.ADOPTION: (
        "Enterprise AI has crossed from pilots to budgets",
        "Agents are eating the inference budget",
        "Power is the real demand signal for AI",
        "Why token volumes matter more than seat counts",
        "The adoption gap between large and small firms",
        "What CIOs actually buy when they buy AI",
    ),
}

THESES: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "My argument is simple: the capital cycle behind AI infrastructure is not yet at its "
        "peak, but the returns on the next {bn_big} will be far less evenly distributed than "
        "on the last.",
        "The thesis of this piece is that investors are mispricing AI infrastructure risk "
        "because they treat GPUs as if they depreciate like buildings rather than like phones.",
        "I think the late-stage funding market for AI has become a bet on a handful of revenue "
        "curves, and that a {valuation} valuation for a company like {startup} only works if "
        "those curves keep steepening.",
        "The core claim here is that capital, not algorithms, is now the binding constraint on "
        "who can compete at the frontier.",
    ),
    v.REGULATORY: (
        "My contention is that {year} will be remembered as the year AI regulation moved from "
        "drafting to enforcement, and that the costs of compliance will reshape competition.",
        "The thesis is that copyright litigation, not safety regulation, is the legal force "
        "most likely to change the economics of foundation models.",
        "I will argue that export controls have stopped being a trade measure and become an "
        "industrial policy with its own enforcement bureaucracy.",
        "The argument of this piece: regulators are converging on documentation duties, and "
        "firms that build compliance into their products early will gain an advantage.",
    ),
    v.COMPETITION: (
        "The thesis is that model-layer margins will compress sharply, and that value will "
        "migrate to whoever controls distribution and proprietary workflows.",
        "My argument is that the accelerator market is entering a genuine second-source phase, "
        "and that Nvidia's share will erode even as its revenue grows.",
        "I believe open-weight models will take the majority of enterprise inference volume "
        "within two years, even if closed models keep the frontier.",
        "The claim I want to defend is that the cloud market share contest is now decided by "
        "who has capacity available, not by who has the lowest list price.",
    ),
    v.TALENT: (
        "My argument is that the binding talent constraint in AI is operational, not "
        "scientific: there are too few people who can build and run large systems.",
        "The thesis is that AI is redesigning entry-level roles faster than it is eliminating "
        "them, and that employers who understand this will hire better.",
        "I want to argue that compensation data is the clearest real-time signal of where the "
        "AI industry thinks its bottlenecks are.",
    ),
    v.TECHNOLOGY: (
        "The thesis here is that memory bandwidth, not raw compute, is the constraint that will "
        "set the pace of AI progress over the next three years.",
        "My argument is that algorithmic efficiency gains in inference are compounding faster "
        "than hardware gains, and that this changes the economics of deployment.",
        "I think reasoning models have permanently shifted compute demand from training to "
        "inference, and the hardware roadmap is only starting to reflect it.",
        "The claim of this piece is that advanced packaging has overtaken lithography as the "
        "rate-limiting step for AI hardware.",
    ),
    v.ADOPTION: (
        "My argument is that enterprise AI has moved from experiments to line items, and that "
        "the evidence is in budgets and token counts rather than in surveys of intent.",
        "The thesis is that agentic workloads will dominate inference demand by the end of "
        "{next_year}, and that most forecasts still underestimate them.",
        "I want to argue that electricity demand is the most honest indicator of AI adoption we "
        "have.",
        "The central claim: adoption is real but uneven, and the gap between large and small "
        "firms is widening.",
    ),
}

ARGUMENTS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "Start with the guidance. {company} now expects {bn_big} of capital expenditure this "
        "year, and its peers have raised their own plans by a similar proportion. Roughly half "
        "of that goes to accelerators with a useful life of perhaps five years, which means "
        "depreciation charges will rise by {pct_mid} or more next year.",
        "The private markets tell the same story. Venture funding for AI companies reached "
        "{bn_big} in the first half, and the median late-stage round priced at about {n_mid} "
        "times forward revenue. At those multiples, a company like {startup} must triple "
        "revenue in {months} months just to stand still on valuation.",
        "Debt is doing more of the work. GPU-backed loans to {company} and its peers now exceed "
        "{bn_big}, secured against {n_gpus} accelerators whose resale value is untested. A "
        "spread of a few hundred basis points looks thin for collateral that could lose "
        "{pct_mid} of its value when the next generation ships.",
        "Look at where the returns have landed so far. Chip and memory suppliers have captured "
        "most of the profit: gross margins above {pct_big} at the top of the stack, against "
        "thin or negative margins for most companies renting capacity by the hour at "
        "{hourly}.",
        "The power bill is becoming a capital item. A single {gw} campus near {site} costs "
        "around {bn} before a server is installed, and utilities are asking developers to "
        "fund grid upgrades upfront.",
        "Secondary transactions are a tell. Employee share sales at {lab} and others have "
        "returned {bn} to staff this year, which suggests insiders see value in taking some money "
        "off the table at {n_mid} times revenue.",
    ),
    v.REGULATORY: (
        "Consider the AI Act. Obligations for general-purpose models have applied since August "
        "2025, and the AI Office has now sent formal requests to at least {n_small} providers. "
        "Fines of up to {pct_small} of global turnover turn documentation from a legal formality "
        "into a board-level risk.",
        "The copyright docket is growing. More than {n_mid} lawsuits against AI developers are "
        "pending, and the recent ruling in {court} drew a line between lawfully acquired and "
        "pirated training data. That distinction alone could expose {lab} and others to statutory "
        "damages of up to $150,000 per work.",
        "Export controls have widened with each revision. The latest rule extends licensing "
        "requirements to {export_chip}-class accelerators and {memory}, and {company} estimates "
        "the hit at {bn} in annual sales. Enforcement now reaches distributors in {n_small} third "
        "countries.",
        "Antitrust scrutiny has shifted from mergers to partnerships. {antitrust_regulator} is "
        "examining whether minority stakes combined with exclusive compute deals amount to "
        "control, a theory that could unwind {n_small} arrangements worth {bn_big} in total.",
        "Compliance costs are becoming measurable. A survey of {n_mid} providers found that "
        "meeting AI Act documentation duties costs between {mn_small} and {mn} a year for a "
        "mid-sized developer, a fixed cost that favours the largest firms.",
        "State legislation adds a further layer. Frontier-model disclosure laws now require "
        "incident reports within {days} days, and {n_small} states have copied the template, so a "
        "developer selling nationally faces overlapping regulatory regimes.",
    ),
    v.COMPETITION: (
        "Prices are the clearest evidence. {lab} cut {model} prices by {pct_mid} this year and "
        "{rival_lab} followed within weeks; {model} now lists at {price} per million output "
        "tokens, roughly a tenth of what comparable capability cost 18 months ago.",
        "Buyers are diversifying. {partner} has ordered {challenger_chip} systems at scale, and a "
        "survey of {n_mid} buyers shows Nvidia's share of accelerator spending slipping "
        "toward {pct_big} from above 90% two years ago.",
        "Open weights have caught up on the tasks enterprises care about. {open_model} is "
        "within {n_small} points of {model} on common coding evaluations, and it can run "
        "inside a customer's own network at a fraction of the API cost. Its weights were "
        "downloaded {n_big} times in the first month.",
        "Switching costs are low. Routing data covering {n_k} companies shows that {pct_mid} "
        "of API traffic moves to a cheaper model within 30 days of a price change, which makes "
        "model loyalty close to zero.",
        "Capacity decides contracts. In the largest cloud deals of the year, {company} won "
        "because it could deliver {gw} of capacity by a fixed date, not because it offered the "
        "lowest price per GPU-hour, which averaged {hourly} across the bids.",
        "Distribution compounds. {company} bundles AI features into products with {n_mid}0 "
        "million users, and every seat it converts is one that a standalone rival must pay "
        "about ${n_mid}0 to acquire.",
    ),
    v.TALENT: (
        "The compensation data is striking. Senior infrastructure engineers now earn about "
        "{salary} in total pay at the top labs, up {pct_mid} in a year, while pay for "
        "generalist software engineers has barely moved.",
        "Hiring patterns confirm it. Postings for inference and systems roles grew {times} "
        "faster than research postings this year, and time-to-hire for cluster engineers "
        "stretched past {days} days.",
        "Across {n_big} job postings, entry-level roles in AI-exposed occupations fell "
        "{pct_small}, but the roles that remain ask for different skills: reviewing, "
        "supervising and correcting model output rather than producing first drafts.",
        "Productivity studies point the same way. Workers using assistants completed tasks "
        "{pct_mid} faster in a study of {n_k} employees, with the largest gains among the least "
        "experienced.",
        "Retention grants are the quiet signal. Labs including {lab} have handed out grants "
        "worth {n_small} times base salary to roughly {n_mid}0 staff, which tells you how "
        "costly losing a single team can be.",
        "Companies that announced cuts, like {company}, redeployed a large share of staff into "
        "new roles overseeing agents; of {headcount} affected roles, net reductions were "
        "closer to {pct_small}.",
    ),
    v.TECHNOLOGY: (
        "Look at the hardware roadmaps. {chip_vendor}'s next accelerator promises {times} the "
        "inference throughput of the {chip}, but most of that comes from {memory} bandwidth, up "
        "{pct_mid}, rather than extra arithmetic.",
        "Software keeps closing the gap. Speculative decoding and four-bit quantization cut "
        "inference cost by {pct_mid} on {open_model} with accuracy within 0.{n_small} points of "
        "the baseline, and these gains stack.",
        "Reasoning changed the workload. A reasoning model can generate {times} more tokens per "
        "answer than a chat model, so inference now takes about {pct_big} of compute at the "
        "largest providers.",
        "Packaging is the bottleneck. Advanced packaging capacity at TSMC has grown {pct_mid} "
        "this year, yet lead times remain around {months} weeks, and every new accelerator "
        "generation uses more silicon area per package.",
        "Cooling is no longer an afterthought. New racks draw {n_small}0 kilowatts or more, and "
        "the campus that serves {lab} in {site} uses direct-to-chip liquid cooling throughout.",
        "Scale is still paying off. Models trained on {tokens_t} tokens with mixture-of-experts "
        "designs of {params} parameters keep improving on agentic benchmarks by {score_gain} "
        "points per generation.",
    ),
    v.ADOPTION: (
        "Budgets are the first piece of evidence. {n_mid}0 CIOs surveyed in {month} plan to raise "
        "generative AI spending by {pct_mid}, and for the first time most of it is funded from "
        "existing software and outsourcing lines.",
        "Token counts tell the same story. {lab} now processes {tokens_t} tokens a month, "
        "{times} the January figure, and coding agents account for the largest share.",
        "Power is the most honest indicator. {utility} has {gw_big} of datacenter requests in "
        "its queue, more than its current peak demand, and {pct_big} of those requests are "
        "tied to inference campuses.",
        "Workflows are where adoption sticks. Deployments in {workflow} cut cycle times by "
        "{pct_mid} at {n_mid} firms in {sector}, and those gains held {months} months after the "
        "pilot phase.",
        "Revenue is following usage. {company} now reports {seats} paying business customers "
        "for its assistant, with net revenue retention above 140%.",
        "The gap is widening. About {pct_big} of firms with more than 5,000 employees run AI in "
        "production against {pct_small} of firms with fewer than 50, largely because large "
        "firms can afford the data engineering.",
    ),
}

COUNTERS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "The strongest objection is that we have heard this before: every infrastructure boom "
        "looks overbuilt until demand catches up. That is fair, and railways and fibre both "
        "found their users eventually. But the investors who financed them mostly did not earn "
        "their money back, and the same split between users and financiers is likely here.",
        "Bulls will point out that the hyperscalers fund most of this from operating cash "
        "flow, not debt. True for the top four; much less true for neoclouds and developers, "
        "where leverage is rising fastest.",
    ),
    v.REGULATORY: (
        "One could object that enforcement will be slow and fines rare, as with the early years "
        "of the GDPR. But the GDPR's slow start was followed by penalties in the billions, and "
        "AI regulators have hired faster than privacy regulators did.",
        "A reasonable counterargument is that courts may ultimately side with AI developers on "
        "fair use. Even so, the cost of litigation and the risk of adverse rulings on pirated "
        "data are already pushing developers toward licensing deals.",
    ),
    v.COMPETITION: (
        "The obvious counterargument is that the frontier still commands a premium, and that "
        "the best model wins the most valuable tasks. That is true at the margin, but the "
        "volume of work sits in the middle of the market, where good enough is cheap.",
        "Skeptics argue that software ecosystems lock customers in. They did for a decade; "
        "compiler and framework support for alternatives has improved enough that the lock is "
        "weaker than it looks.",
    ),
    v.TALENT: (
        "Critics will say early studies overstate productivity gains and that layoffs will "
        "follow. Possibly; the evidence so far shows redesign before reduction, but two years "
        "of data is not a cycle.",
        "A fair objection is that compensation spikes are a bubble symptom rather than a signal. "
        "Yet the spikes are concentrated in specific skills, which is what a real shortage "
        "looks like.",
    ),
    v.TECHNOLOGY: (
        "The counterargument is that every efficiency gain gets consumed by larger models, so "
        "the constraint never really moves. That was true for a while, but inference volumes "
        "now grow faster than model sizes.",
        "Some engineers argue that lithography still sets the ultimate limit. In the long run, "
        "yes; for the next three years, packaging and memory are the pinch points.",
    ),
    v.ADOPTION: (
        "Skeptics note that surveys overstate adoption and that many deployments are shallow. "
        "That is why I rely on budgets, tokens and power rather than stated intentions.",
        "The counterargument is that usage is being subsidised by cheap prices that will not "
        "last. Prices will rise for some workloads, but unit costs are falling faster than "
        "subsidies are being withdrawn.",
    ),
}

CONCLUSIONS: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "So the cycle continues, but selectively. Capital will keep flowing to the firms with "
        "cash flow and contracted demand, and the rest will find the cost of money rising "
        "before the end of {next_year}.",
        "The conclusion is not that the spending is irrational, but that its returns will "
        "accrue to a narrower group than the current valuations assume.",
    ),
    v.REGULATORY: (
        "The practical conclusion for builders: budget for compliance and litigation as "
        "recurring costs, not one-off events, because the enforcement era has begun.",
        "Regulation and the courts will not stop AI deployment, but they will decide who can "
        "afford it, and that is a competitive question as much as a legal one.",
    ),
    v.COMPETITION: (
        "The conclusion is that margins at the model layer will keep falling, and that durable "
        "value will sit with distribution, proprietary data and workflow ownership.",
        "Expect consolidation: the middle of the market cannot support this many providers at "
        "these prices for long.",
    ),
    v.TALENT: (
        "The lesson for employers is to hire for operations and judgment, and to redesign "
        "junior roles deliberately rather than let them erode.",
        "Watch the pay data: it will tell you where the next bottleneck is before the "
        "announcements do.",
    ),
    v.TECHNOLOGY: (
        "The conclusion: judge the next generation of AI hardware by memory and packaging, and "
        "judge AI software by what it does to cost per task.",
        "Progress will continue, but its pace will be set by the least glamorous parts of the "
        "stack.",
    ),
    v.ADOPTION: (
        "Adoption is no longer the question; depth and distribution of adoption are. The firms "
        "that redesign processes around agents will pull further ahead.",
        "Follow the power and the tokens, and you will see demand well before it shows up in "
        "reported revenue.",
    ),
}

TRANSITIONS: tuple[tuple[str, ...], ...] = (
    ("", "First, ", "To begin with, "),
    ("Second, ", "Next, ", "Beyond that, "),
    ("Third, ", "", "Then there is a third point. "),
    ("Fourth, ", "", "A fourth signal points the same way. "),
    ("Finally, ", "Last, ", ""),
)

OPENERS: dict[str, tuple[str, ...]] = {
    "memo": (
        "To our partners and portfolio founders: this memo sets out how we are thinking about "
        "{topic} heading into {next_year}.",
        "This note summarises our view on {topic} after a quarter of calls with operators, "
        "buyers and other investors.",
        "Memo for the investment committee, written in {month}: our position on {topic}.",
    ),
    "essay": (
        "I have spent the past few months trying to make sense of {topic}, and the more data I "
        "see, the less I believe the consensus.",
        "Every few years a topic becomes so crowded with commentary that the evidence gets lost. "
        "{Topic} is there now.",
        "Most writing on {topic} falls into two camps, boosters and doomers. This essay tries to "
        "do neither.",
    ),
    "article": (
        "Over the past quarter, {topic} has moved from conference panels to earnings calls.",
        "Conversations with {n_mid} executives, investors and engineers in recent weeks point to a "
        "shift in {topic}.",
        "{Topic} has become one of the defining questions for the AI industry this year.",
    ),
}
# An angle keeps a piece coherent: its titles, thesis, topic phrase and the argument it leads
# with all make the same point. Numbers index into TITLES, THESES and ARGUMENTS.
ANGLES: dict[str, tuple[tuple[tuple[int, ...], int, str, int], ...]] = {
    v.CAPITAL: (
        ((0, 6), 0, "the capex cycle", 0),
        ((2, 4), 1, "AI infrastructure finance", 2),
        ((3, 5), 2, "late-stage AI funding", 1),
        ((1,), 3, "the economics of frontier AI", 4),
    ),
    v.REGULATORY: (
        ((0, 6), 0, "AI Act enforcement", 0),
        ((1, 3), 1, "AI copyright litigation", 1),
        ((2,), 2, "export controls", 2),
        ((4,), 3, "AI compliance", 4),
        ((5,), 0, "antitrust scrutiny of AI", 3),
    ),
    v.COMPETITION: (
        ((0, 2, 5), 0, "AI pricing", 0),
        ((1,), 1, "the accelerator market", 1),
        ((3,), 2, "open-weight models", 2),
        ((4,), 3, "the cloud market", 4),
    ),
    v.TALENT: (
        ((0,), 0, "the AI talent market", 1),
        ((1, 3, 4), 1, "AI and entry-level work", 2),
        ((2,), 2, "AI compensation", 4),
    ),
    v.TECHNOLOGY: (
        ((0,), 0, "AI hardware", 0),
        ((1, 4), 1, "inference efficiency", 1),
        ((2,), 2, "the AI compute roadmap", 2),
        ((3,), 3, "AI hardware supply", 3),
    ),
    v.ADOPTION: (
        ((0, 5), 0, "enterprise AI adoption", 0),
        ((1, 3), 1, "inference demand", 1),
        ((2,), 2, "AI demand", 2),
        ((4,), 3, "AI adoption across firms", 5),
    ),
}


_IMPERATIVES = frozenset({"Start", "Consider", "Look"})


def longform_text(
    rng: random.Random, force: str, kind: str, ctx: Context, insert: str | None = None
) -> tuple[str, str]:
    """An argued piece (title, text) with opener+thesis, arguments, counter and conclusion.

    ``insert`` is an extra supporting paragraph placed after the arguments (used to bring a
    planted entity into an analysis without disturbing its structure).
    """
    angles = ANGLES[force]
    title_ids, thesis_id, topic, lead_id = angles[rng.randrange(len(angles))]
    local = ctx.extended(topic=topic, Topic=topic[:1].upper() + topic[1:])
    title = sentence_case_title(render(TITLES[force][rng.choice(title_ids)], local))
    opener = render(v.pick(rng, OPENERS[kind]), local)
    thesis = render(THESES[force][thesis_id], local)
    paragraphs = [f"{opener} {thesis}"]
    others = [a for i, a in enumerate(ARGUMENTS[force]) if i != lead_id]
    rng.shuffle(others)
    arguments = [ARGUMENTS[force][lead_id], *others]
    for i, argument in enumerate(arguments[: rng.randint(3, 5)]):
        body = render(argument, local)
        # Imperative openings ("Consider...", "Look at...") read badly after "Second, ".
        lead = "" if body.split(" ", 1)[0] in _IMPERATIVES else rng.choice(TRANSITIONS[i])
        paragraphs.append(lead + (body[:1].lower() + body[1:] if lead.endswith(", ") else body))
    if insert is not None:
        paragraphs.append(insert)
    paragraphs.append(render(v.pick(rng, COUNTERS[force]), local))
    if rng.random() < 0.5:
        name, _, role = local["voice"].partition(", ")
        paragraphs.append(
            f"When I put this to {name}, {role}, the answer was blunt: "
            f"“{v.pick(rng, _QUOTE_POOL[force])}.” That matches what the numbers show."
        )
    paragraphs.append(render(v.pick(rng, CONCLUSIONS[force]), local))
    return title, "\n\n".join(paragraphs)


_QUOTE_POOL: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "The spending is rational for the buyer and risky for the lender",
        "Everyone is underwriting the same five-year demand curve",
    ),
    v.REGULATORY: (
        "The documentation duties are where the real cost sits",
        "Litigation risk is now a line in every licensing negotiation",
    ),
    v.COMPETITION: (
        "Nobody has pricing power in the middle of the market",
        "Customers switch the week a cheaper model passes their evals",
    ),
    v.TALENT: (
        "We cannot hire cluster engineers fast enough at any price",
        "The junior roles changed shape; they did not disappear",
    ),
    v.TECHNOLOGY: (
        "Bandwidth is the whole game for inference right now",
        "The packaging queue is longer than the wafer queue",
    ),
    v.ADOPTION: (
        "Once finance saw the cycle-time numbers, the budget followed",
        "Agent traffic overtook chat traffic on our platform in the spring",
    ),
}
