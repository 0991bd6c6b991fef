"""News reports and their shared building blocks: events, quotes and background sentences.

Each market force owns a set of event types (a funding round, a court ruling, a model launch...)
with several headline and lede variants; the body is assembled from event details, a quote from
a fictional voice and background sentences for the force. Regulatory vocabulary (courts,
lawsuits, compliance) is confined to the Regulatory & Legal pools so the theme shift planted by
the generator is unambiguous.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from demo import vocabulary as v
from demo.context import Context, render, sentence_case_title


@dataclass(frozen=True)
class Event:
    """One kind of newsworthy event for a market force."""

    chains: tuple[str, ...]
    headlines: tuple[str, ...]
    ledes: tuple[str, ...]
    details: tuple[str, ...]


ALL = v.CHAINS

EVENTS: dict[str, tuple[Event, ...]] = {
    v.CAPITAL: (
        Event(
            (v.DATA, v.MODELS, v.TOOLING, v.APPS),
            (
                "{startup} raises {mn} at a {valuation} valuation",
                "{investor} leads {mn} round in {startup}",
                "{startup} closes {mn} Series C as investors chase {sector} AI",
            ),
            (
                "{startup} has raised {mn} in a round led by {investor}, valuing the company at "
                "{valuation} including the new money.",
                "{investor} led a {mn} funding round in {startup}, the company said on {day}, "
                "in a deal that values it at {valuation}.",
            ),
            (
                "Existing backers including {investor2} took part in the round.",
                "The company said annualised revenue had passed {mn_small}, up from roughly a "
                "third of that figure a year earlier.",
                "Most of the money will go to compute and to hiring in {city}, according to a "
                "person familiar with the plans.",
                "The valuation is about {n_mid} times forward revenue, a multiple that has become "
                "routine for fast-growing AI companies this year.",
                "The round was oversubscribed, and the company turned away at least two "
                "crossover funds, people briefed on the deal said.",
                "{startup} sells mainly to {sector} customers and counts {n_mid} of the Fortune "
                "500 as paying users.",
            ),
        ),
        Event(
            (v.MODELS,),
            (
                "{lab} in talks to raise {bn} at {valuation} valuation",
                "{lab} weighs new funding that would value it near {valuation}",
            ),
            (
                "{lab} is in advanced talks to raise about {bn} from {investor} and others at a "
                "valuation of roughly {valuation}, according to people familiar with the matter.",
                "{lab} has held discussions with {investor} about a {bn} raise, a deal that would "
                "put its valuation close to {valuation}.",
            ),
            (
                "The talks are ongoing and terms could still change, the people said.",
                "Much of the new capital is earmarked for training runs and long-term compute "
                "contracts rather than for headcount.",
                "The company's revenue run-rate has roughly doubled since January, one investor "
                "said, driven by API usage and enterprise seats.",
                "A secondary sale of employee shares is expected to run alongside the primary "
                "raise.",
                "Investors have been willing to underwrite multi-year losses on the view that "
                "inference margins will widen as hardware costs fall.",
            ),
        ),
        Event(
            (v.INFRA, v.HARDWARE),
            (
                "{company} lifts capex guidance to {bn_big} as AI demand outruns supply",
                "{company} raises spending plan again, citing capacity shortfall",
                "Capex race: {company} now expects {bn_big} in capital expenditure",
            ),
            (
                "{company} raised its full-year capital expenditure forecast to {bn_big} in its "
                "{quarter} results, saying demand for AI capacity still exceeds what it can "
                "build.",
                "{company} told investors on {day} it now expects capital spending of about "
                "{bn_big} this year, up from its previous guidance, as it races to add "
                "datacenter capacity.",
            ),
            (
                "Roughly half of the spending goes to servers and accelerators, with the rest on "
                "land, buildings and power equipment, the company's finance chief said.",
                "Shares fell {pct_small} in extended trading as investors weighed the spending "
                "against cloud growth of {pct_mid}.",
                "The company said its order backlog stood at {bn_big}, much of it tied to "
                "multi-year AI contracts.",
                "Analysts had expected a smaller increase; the new figure implies spending of "
                "more than {bn} in the final quarter alone.",
                "Depreciation will rise sharply next year as the new capacity enters service, the "
                "company warned.",
            ),
        ),
        Event(
            (v.INFRA,),
            (
                "{company} secures {bn} debt package for {site} campus",
                "Lenders commit {bn} to fund {company} datacenter build-out",
            ),
            (
                "{company} has arranged {bn} of debt financing, backed by its GPU fleet and "
                "customer contracts, to fund a new campus in {site}.",
                "A group of banks led by a large Wall Street lender has committed {bn} to "
                "{company} for a datacenter project in {site}, according to a filing.",
            ),
            (
                "The facility is secured against {n_gpus} accelerators and a take-or-pay "
                "contract with {partner}.",
                "The loan carries a spread of about {n_small}0 basis points over the benchmark "
                "rate, people familiar with the terms said.",
                "GPU-backed lending has grown into a market worth more than {bn_big}, with "
                "private credit funds supplying a rising share.",
                "The site is designed for {gw} of capacity when complete in {next_year}.",
                "Rating agencies have started to publish methodologies for valuing used "
                "accelerators as collateral.",
            ),
        ),
        Event(
            (v.TOOLING, v.APPS, v.DATA, v.HARDWARE),
            (
                "{company} agrees to buy {startup} for {mn}",
                "{company} snaps up {startup} in {mn} deal",
                "{company} to acquire {startup} to bolster its {workflow} offering",
            ),
            (
                "{company} has agreed to acquire {startup} for about {mn} in cash and stock, the "
                "companies said on {day}.",
                "{company} is buying {startup}, a {n_mid}-person start-up, in a deal valued at "
                "{mn}, as it pushes deeper into {workflow}.",
            ),
            (
                "The deal is expected to close within {days} days.",
                "{startup} had raised about {mn_small} from venture investors, including "
                "{investor}.",
                "Its founders will join {company} and lead a new product group.",
                "The purchase is {company}'s {n_small}th acquisition in the past two years.",
                "Bankers say buyers are paying for teams and customer lists more than for "
                "technology that can be rebuilt in months.",
            ),
        ),
        Event(
            (v.HARDWARE, v.INFRA),
            (
                "{company} shares hit record after {quarter} revenue beats forecasts",
                "{company} results: data-center sales up {pct_mid} on AI orders",
            ),
            (
                "{company} reported {quarter} revenue of {bn}, ahead of analyst estimates, as "
                "sales to AI datacenters rose {pct_mid} from a year earlier.",
                "{company} beat expectations for the {quarter} period, with revenue of {bn} and "
                "guidance that implies further growth, sending its shares up {pct_small}.",
            ),
            (
                "Gross margin came in at {pct_big}, slightly above guidance.",
                "The company bought back {bn_small} of stock during the quarter.",
                "Management said supply of {memory} remained the main constraint on shipments.",
                "Inventory rose {pct_small}, which the company attributed to building ahead of a "
                "product transition.",
                "Sales to the four largest cloud providers made up about half the total.",
            ),
        ),
        Event(
            (v.INFRA, v.HARDWARE, v.MODELS),
            (
                "{investor} commits {bn} to AI infrastructure fund",
                "New {bn} vehicle targets datacenters and power for AI",
            ),
            (
                "{investor} has closed a {bn} fund dedicated to AI infrastructure, including "
                "datacenters, grid connections and GPU leasing.",
                "A consortium including {investor} and {investor2} has raised {bn} to invest in "
                "datacenter campuses and the power assets that feed them.",
            ),
            (
                "Limited partners include pension funds from Canada and the Netherlands.",
                "The fund's first investment is a {gw} campus near {site}.",
                "Infrastructure investors are drawn by long leases signed with hyperscalers, "
                "which resemble the contracts behind toll roads and pipelines.",
                "The vehicle targets a net return in the low teens, according to marketing "
                "documents.",
            ),
        ),
    ),
    v.REGULATORY: (
        Event(
            (v.MODELS, v.DATA),
            (
                "{plaintiff} sue {lab} over training data",
                "New copyright lawsuit targets {lab} and its {model} model",
                "{lab} faces copyright claim in {court}",
            ),
            (
                "{plaintiff} filed a copyright lawsuit against {lab} in {court}, alleging that "
                "the company trained {model} on their works without a licence.",
                "{lab} has been sued by {plaintiff}, who claim in {court} that copyrighted "
                "material was copied at scale to train the company's models.",
            ),
            (
                "The complaint seeks damages and an injunction barring further use of the works.",
                "The plaintiffs say they found passages reproduced nearly verbatim in model "
                "outputs, according to exhibits attached to the filing.",
                "{lab} did not respond to a request for comment; it has argued in other cases "
                "that training is a transformative fair use.",
                "It is at least the {n_small}th copyright suit filed against an AI developer "
                "this year.",
                "Lawyers for the plaintiffs asked the judge to order disclosure of the training "
                "datasets within {days} days.",
            ),
        ),
        Event(
            (v.MODELS, v.TOOLING, v.APPS),
            (
                "EU AI Office opens inquiry into {lab} over AI Act obligations",
                "Brussels tests the AI Act: {lab} asked for documentation on {model}",
                "AI Act enforcement begins to bite as Brussels requests {lab} records",
            ),
            (
                "The European Commission's AI Office has opened a formal inquiry into whether "
                "{lab} met its transparency obligations under the EU AI Act for {model}.",
                "{lab} has received a formal request for information from the European "
                "Commission's AI Office, the first step in an AI Act enforcement process that "
                "could end in fines of up to {pct_small} of global turnover.",
            ),
            (
                "The request covers the training-data summary and the copyright policy that "
                "providers of general-purpose models must publish under the AI Act.",
                "Officials have {days} days to assess the company's response before deciding "
                "whether to open formal proceedings.",
                "Compliance teams across the industry are studying the case for signals about "
                "how strictly Brussels will read the code of practice.",
                "The Commission has hired {n_mid} staff for the AI Office's enforcement unit "
                "since the spring.",
                "Providers that signed the code of practice benefit from a presumption of "
                "conformity, but regulators can still demand evidence.",
            ),
        ),
        Event(
            (v.HARDWARE,),
            (
                "US tightens export controls on {export_chip}-class chips",
                "Commerce widens AI chip export rules, hitting {company} sales",
                "New export controls on accelerators and {memory} take effect",
            ),
            (
                "The Bureau of Industry and Security published new export controls on {day} "
                "that require licences for shipments of {export_chip}-class accelerators to a "
                "wider "
                "list of countries.",
                "Washington has widened US export controls on advanced chips and {memory}, a "
                "move {company} said could cut its sales by about {bn} next year.",
            ),
            (
                "The rule takes effect in {days} days and applies to chips above a performance "
                "threshold set in the regulation.",
                "Companies must also certify that customers are not acting as fronts for "
                "restricted buyers, adding compliance costs.",
                "Industry groups asked the department to delay enforcement until the licensing "
                "portal is ready.",
                "The regulation also covers some chipmaking tools sold by ASML and others.",
                "Officials said the controls respond to evidence of smuggling through third "
                "countries.",
            ),
        ),
        Event(
            (v.INFRA, v.MODELS, v.TOOLING),
            (
                "{antitrust_regulator} opens antitrust probe into {company}'s AI partnerships",
                "Antitrust regulators examine {company} tie-up with {lab}",
            ),
            (
                "{antitrust_regulator} has opened an antitrust investigation into {company}'s "
                "investment "
                "in {lab}, examining whether the arrangement amounts to a merger that should "
                "have been notified.",
                "{company}'s partnership with {lab} is under antitrust review by "
                "{antitrust_regulator}, "
                "which said it would assess the effects on competition in cloud and AI models.",
            ),
            (
                "The regulator set a deadline of {days} days for the first phase of the review.",
                "{company} said it would cooperate and that the deal does not give it control.",
                "Competition lawyers say the case could set a precedent for how regulators treat "
                "minority stakes paired with compute commitments.",
                "Rivals have filed complaints alleging that bundled cloud credits lock "
                "start-ups into one provider.",
            ),
        ),
        Event(
            (v.APPS, v.DATA, v.MODELS),
            (
                "{privacy_regulator} orders {company} to pause data processing for AI training",
                "Privacy regulator fines {company} {mn} over AI chatbot data",
            ),
            (
                "{privacy_regulator} has ordered {company} to suspend the use of European users' "
                "data "
                "for AI training pending a review under the GDPR.",
                "{privacy_regulator} fined {company} {mn} for processing personal data to train AI "
                "features without a valid legal basis, the regulator said on {day}.",
            ),
            (
                "The company has {days} days to appeal the decision in court.",
                "The regulator said the company had not given users a clear way to object.",
                "It is the largest GDPR penalty related to AI training so far.",
                "Privacy lawyers expect other European regulators to coordinate on similar cases.",
            ),
        ),
        Event(
            (v.MODELS, v.APPS),
            (
                "Judge rules on fair use in {lab} training case",
                "Court hands {lab} partial win in copyright fight",
            ),
            (
                "A federal judge in {court} ruled on {day} that training {model} on lawfully "
                "purchased books was fair use, but allowed claims over pirated copies to proceed "
                "to trial.",
                "{court} has dismissed part of a copyright lawsuit against {lab}, while letting "
                "the plaintiffs pursue claims that the company downloaded pirated material.",
            ),
            (
                "The ruling is likely to be appealed by both sides.",
                "Damages could still be substantial if a jury finds willful infringement.",
                "Legal scholars said the decision leaves open how courts will treat model outputs "
                "that closely reproduce training data.",
                "A trial date has been set for early {next_year}.",
            ),
        ),
        Event(
            (v.MODELS, v.APPS, v.TOOLING),
            (
                "Lawmakers pass AI safety bill requiring frontier model disclosures",
                "State legislation on AI safety advances despite industry pushback",
            ),
            (
                "Legislators approved a bill on {day} that would require developers of the "
                "largest AI models to publish safety frameworks and report serious incidents to "
                "regulators within {days} days.",
                "A new AI safety statute cleared its final vote, setting disclosure and "
                "incident-reporting obligations for frontier developers such as {lab}.",
            ),
            (
                "The law applies to developers with annual revenue above {mn}.",
                "Violations carry civil penalties enforced by the state attorney general.",
                "{lab} said it supported the goals of the legislation but worried about "
                "conflicting state rules.",
                "Industry lobbying against the bill intensified in its final weeks, disclosure "
                "filings show.",
            ),
        ),
        Event(
            (v.HARDWARE, v.INFRA),
            (
                "CHIPS Act grant to {company} revised after milestone review",
                "Commerce renegotiates {company} CHIPS Act award",
            ),
            (
                "The Commerce Department has revised the terms of {company}'s CHIPS Act award "
                "for its plant in {fab_site}, tying disbursement to new production milestones.",
                "{company}'s CHIPS Act grant has been restructured after a compliance review, "
                "with {bn_small} now conditional on output targets at {fab_site}.",
            ),
            (
                "The agreement includes clawback provisions if the company misses deadlines.",
                "Officials said the review followed complaints that earlier awards lacked "
                "enforcement mechanisms.",
                "The company must report quarterly to the department's compliance office.",
            ),
        ),
    ),
    v.COMPETITION: (
        Event(
            (v.MODELS, v.TOOLING),
            (
                "{lab} cuts {model} API prices by {pct_mid}",
                "Price war deepens as {lab} slashes token prices",
                "{lab} undercuts {rival_lab} with cheaper {model} tier",
            ),
            (
                "{lab} lowered the price of its {model} API by {pct_mid} on {day}, the latest "
                "move in a price war with {rival_lab} and open-weight challengers.",
                "{lab} now charges {price} per million output tokens for {model}, undercutting "
                "{rival_lab}'s {rival_model} on list price.",
            ),
            (
                "The company attributed the cut to efficiency gains on newer hardware.",
                "Developers have been switching between providers within days of price changes, "
                "according to routing data from aggregators.",
                "{rival_lab} has not yet responded, but it matched a similar cut within a week "
                "in the spring.",
                "Open-weight models served by third parties now cost less than a fifth of "
                "comparable proprietary models.",
            ),
        ),
        Event(
            (v.HARDWARE,),
            (
                "{challenger_vendor} wins {partner} order as buyers hedge on Nvidia",
                "Nvidia's share of accelerator spending slips to {pct_big}, survey finds",
            ),
            (
                "{partner} has placed a large order for {challenger_chip}, people familiar with "
                "the "
                "deal said, as cloud buyers try to reduce their dependence on Nvidia.",
                "Nvidia still accounts for about {pct_big} of accelerator spending, but "
                "{challenger_vendor} and custom silicon are gaining ground, a survey of "
                "{n_mid} buyers found.",
            ),
            (
                "Software maturity, not raw performance, remains the main obstacle for "
                "challengers.",
                "Buyers cited total cost of ownership and availability as the main reasons "
                "for diversifying.",
                "Custom chips co-designed with Broadcom and other ASIC partners are expected "
                "to take a growing share of inference work.",
                "The order covers several thousand racks to be delivered through {next_year}.",
            ),
        ),
        Event(
            (v.INFRA, v.TOOLING),
            (
                "Cloud share: {company} gains on {rival} in AI workloads",
                "{company} narrows gap with {rival} as AI revenue grows {pct_mid}",
            ),
            (
                "{company} gained about {n_small} percentage points of share in AI cloud "
                "workloads over the past year, closing part of the gap with {rival}, according "
                "to a new market tracker.",
                "{company}'s AI-related cloud revenue grew {pct_mid} in the latest quarter, "
                "faster than {rival}, as enterprises spread workloads across providers.",
            ),
            (
                "Neoclouds such as CoreWeave and Nebius now hold a share in the low teens.",
                "Price discounts of {pct_mid} for committed spend have become common in large "
                "deals.",
                "Multi-cloud strategies make share gains easier to win and harder to keep.",
                "Capacity availability, rather than price, decided most large contracts this year.",
            ),
        ),
        Event(
            (v.MODELS,),
            (
                "{open_model} tops open-weight leaderboard, narrowing gap with closed models",
                "Open-weight challenger closes in on {model}",
            ),
            (
                "{open_model} now trails {model} by fewer than {n_small} points on a widely "
                "watched reasoning benchmark, the smallest gap yet between open and closed "
                "models.",
                "A new release of {open_model} scored {score} on a coding benchmark, within "
                "striking distance of {model}, according to independent evaluators.",
            ),
            (
                "Downloads of the weights passed {n_big} in the first week.",
                "Enterprise buyers say open weights let them run models inside their own "
                "networks at lower cost.",
                "Closed labs still lead on long-horizon agentic tasks, evaluators noted.",
                "Inference providers had the model available within hours of release.",
            ),
        ),
        Event(
            (v.APPS, v.TOOLING),
            (
                "Coding assistants battle for developers as {company} adds agent mode",
                "{company} and {rival} trade blows in AI coding market",
            ),
            (
                "{company} launched an agent mode on {day} that can open pull requests on its "
                "own, escalating competition with {rival} in AI coding tools.",
                "{company} said paid seats for its AI coding product passed {seats}, as "
                "competition with {rival} pushes both to bundle more capable models.",
            ),
            (
                "Switching costs are low: most tools work with the same editors and repositories.",
                "Pricing has moved from flat seats towards usage-based plans for heavy users.",
                "Gross margins for coding tools are squeezed by what they pay model providers.",
                "Several large customers run two tools side by side and compare output.",
            ),
        ),
    ),
    v.TALENT: (
        Event(
            (v.MODELS, v.HARDWARE, v.INFRA),
            (
                "AI researcher pay climbs as labs compete for talent",
                "Pay packages for top AI engineers top {salary}, survey shows",
            ),
            (
                "Median total compensation for senior machine-learning researchers rose "
                "{pct_mid} over the past year to about {salary}, according to a survey of "
                "{n_k} engineers.",
                "Labs including {lab} and {rival_lab} are offering retention grants worth "
                "multiples of base salary as competition for researchers intensifies.",
            ),
            (
                "Signing bonuses for infrastructure engineers who can run large training "
                "clusters have risen fastest.",
                "Hiring of inference and systems engineers outpaced research hiring for the "
                "first time.",
                "Start-ups say they cannot match cash offers and compete with equity instead.",
                "Some of the biggest packages vest over four years with back-loaded schedules.",
            ),
        ),
        Event(
            (v.APPS, v.TOOLING),
            (
                "{company} cuts {headcount} support roles as AI agents take over tickets",
                "{company} restructures customer service around AI, trimming staff",
            ),
            (
                "{company} plans to reduce its customer support workforce by {headcount} roles "
                "after AI agents began resolving about {pct_big} of incoming tickets.",
                "{company} said on {day} it would redeploy or cut {headcount} jobs in support "
                "and operations as it automates {workflow}.",
            ),
            (
                "The company said affected staff would be offered retraining first.",
                "Customer satisfaction scores were unchanged after the switch, it said.",
                "Labour economists caution that early productivity claims are often revised.",
                "Hiring for roles that supervise AI agents has increased at the same time.",
            ),
        ),
        Event(
            (v.MODELS, v.HARDWARE),
            (
                "{lab} opens research hub in {city}",
                "{company} to hire {headcount} engineers at new {city} center",
            ),
            (
                "{lab} is opening a research office in {city}, its {n_small}th outside its home "
                "market, and plans to hire about {n_mid} researchers there in the first year.",
                "{company} will hire {headcount} engineers at a new design center in {city}, "
                "drawn by local universities and lower costs than Silicon Valley.",
            ),
            (
                "The office will focus on multilingual models and evaluation.",
                "Local officials offered training subsidies tied to hiring targets.",
                "Competition for senior staff in the city has pushed salaries up {pct_mid}.",
                "Visa processing times remain the main bottleneck for relocating staff.",
            ),
        ),
        Event(
            (v.APPS, v.TOOLING, v.MODELS),
            (
                "Study finds AI tools raise junior worker output by {pct_mid}",
                "New data on AI and jobs: entry-level postings fall {pct_small}",
            ),
            (
                "Workers using AI assistants completed tasks {pct_mid} faster in a study of "
                "{n_k} employees across {sector}, with the biggest gains among less experienced "
                "staff.",
                "Postings for entry-level roles in occupations most exposed to AI fell "
                "{pct_small} over the past year, a labour-market study found, while senior "
                "postings held steady.",
            ),
            (
                "The authors caution that quality effects are harder to measure than speed.",
                "Wage effects have so far been small and concentrated in a few occupations.",
                "Employers report redesigning roles rather than eliminating them outright.",
                "Training budgets for AI skills rose in most surveyed companies.",
            ),
        ),
    ),
    v.TECHNOLOGY: (
        Event(
            (v.MODELS,),
            (
                "{lab} releases {model} with longer context and lower latency",
                "{lab} unveils new version of {model}",
                "{model} update pushes {lab} ahead on coding benchmarks",
            ),
            (
                "{lab} released an updated {model} on {day}, claiming a {score_gain}-point gain "
                "on a software-engineering benchmark and a context window of one million "
                "tokens.",
                "{lab}'s latest {model} scores {score} on a widely used reasoning test, up "
                "from the previous version, the company said in a technical report.",
            ),
            (
                "The model uses a mixture-of-experts design with {params} total parameters.",
                "Latency for the first token fell by about {pct_mid}, according to the release "
                "notes.",
                "Independent evaluators reproduced most of the headline results within a week.",
                "The company said the model was trained on {tokens_t} tokens, including a large "
                "share of synthetic data.",
                "Tool use and multi-step planning improved most, the technical report shows.",
            ),
        ),
        Event(
            (v.HARDWARE,),
            (
                "{chip_vendor} details next-generation accelerator at {conference}",
                "{company} begins volume production on {nm} process",
                "{company} samples {memory} as AI memory race accelerates",
            ),
            (
                "{chip_vendor} presented details of its next accelerator at {conference}, "
                "promising {times} the inference throughput of the {chip}.",
                "{company} has started volume production on its {nm} process at {fab_site}, "
                "with AI accelerators among the first products.",
                "{company} began sampling {memory} to customers on {day}, with volume shipments "
                "planned for the first half of {next_year}.",
            ),
            (
                "Bandwidth per stack rises by about {pct_mid} over the previous generation.",
                "Yields are reported to be above {pct_big} on early lots.",
                "Advanced packaging capacity remains tight, limiting how fast output can grow.",
                "The design uses a chiplet approach with two compute dies.",
                "Power draw per package rises to about {n_small}00 watts at peak.",
            ),
        ),
        Event(
            (v.INFRA,),
            (
                "{company} switches on liquid-cooled cluster of {n_gpus} GPUs in {site}",
                "Inside {company}'s new {gw} campus",
            ),
            (
                "{company} has brought online a cluster of {n_gpus} accelerators at its campus "
                "in {site}, one of the largest single training systems in operation.",
                "{company}'s new campus in {site} is designed for {gw} of IT load, with "
                "direct-to-chip liquid cooling throughout.",
            ),
            (
                "Power comes from a mix of grid supply from {utility} and on-site gas turbines.",
                "Racks draw up to {n_small}0 kilowatts each, several times a conventional "
                "server rack.",
                "The network uses co-packaged optics to cut power spent on interconnect.",
                "Water use is limited by a closed-loop cooling system, the company said.",
            ),
        ),
        Event(
            (v.MODELS, v.TOOLING, v.DATA),
            (
                "Researchers show {pct_mid} inference savings with new speculative decoding",
                "New quantization method runs {params}-parameter model on a single node",
            ),
            (
                "A team at the Meridian Compute Lab reported a decoding technique that cuts "
                "inference cost by {pct_mid} without measurable loss in accuracy.",
                "Researchers released a method for four-bit quantization that lets a "
                "{params}-parameter model run on a single eight-GPU server.",
            ),
            (
                "The code has been released under an open-source licence.",
                "Inference providers said they were already testing the approach.",
                "The gains are largest for long outputs such as code generation.",
                "Results were verified on {open_model} and two other open-weight models.",
            ),
        ),
    ),
    v.ADOPTION: (
        Event(
            (v.APPS, v.TOOLING, v.MODELS),
            (
                "{pct_big} of large firms now run generative AI in production, survey says",
                "Enterprise AI budgets rise {pct_mid} as pilots move to production",
            ),
            (
                "About {pct_big} of companies with more than 5,000 employees now run at least "
                "one generative AI application in production, up from a third a year ago, "
                "according to a survey of {n_k} IT leaders.",
                "Enterprise spending on generative AI is set to rise {pct_mid} next year, a "
                "survey of chief information officers found, as pilots in {workflow} move into "
                "production.",
            ),
            (
                "{workflow} and {sector2} use cases were cited most often.",
                "Respondents ranked data quality ahead of cost as the main obstacle.",
                "Most companies use two or more model providers.",
                "Budgets are increasingly taken from existing software and outsourcing lines.",
            ),
        ),
        Event(
            (v.MODELS, v.INFRA),
            (
                "{lab} says it now processes {tokens_t} tokens a month",
                "Token volumes surge as agents drive inference demand",
            ),
            (
                "{lab} said its platform now processes about {tokens_t} tokens a month, "
                "{times} the level at the start of the year, driven by agentic workloads.",
                "Inference demand is growing faster than expected: token volumes at the largest "
                "providers have risen {times} this year, with coding agents the biggest driver.",
            ),
            (
                "Reasoning models generate many more tokens per request than earlier chatbots.",
                "GPU rental prices for {chip} capacity have firmed to about {hourly} an hour.",
                "Providers are rationing capacity for the largest customers at peak times.",
                "Revenue per token is falling even as total revenue rises.",
            ),
        ),
        Event(
            (v.APPS,),
            (
                "{company} passes {seats} paying business customers for AI assistant",
                "{company}'s AI revenue run-rate reaches {bn_small}",
            ),
            (
                "{company} said its AI assistant now has {seats} paying business customers, "
                "with usage in {sector} growing fastest.",
                "{company}'s annualised revenue from AI products reached {bn_small}, the company "
                "said on {day}, up {pct_mid} from the previous quarter.",
            ),
            (
                "Net revenue retention among large accounts is above 140%.",
                "Usage-based pricing now accounts for {pct_mid} of AI revenue.",
                "The company said churn was concentrated among small customers.",
                "Average seats per customer have doubled since January.",
            ),
        ),
        Event(
            (v.INFRA, v.HARDWARE),
            (
                "{utility} signs {gw} of datacenter power deals",
                "Grid queue swells as datacenters request {gw_big} in one state",
            ),
            (
                "{utility} said it has signed agreements to supply {gw} to new datacenter "
                "projects, and that requests in its queue now exceed {gw_big}.",
                "Datacenter developers have requested {gw_big} of new grid connections in the "
                "territory served by {utility}, more than its current peak demand.",
            ),
            (
                "Most projects are linked to AI training and inference campuses.",
                "The utility plans {bn} of new generation and transmission.",
                "Wait times for large connections have stretched to more than four years.",
                "Developers are turning to on-site gas and fuel cells as bridging power.",
            ),
        ),
        Event(
            (v.HARDWARE, v.INFRA),
            (
                "GPU rental prices firm as {chip} demand returns",
                "Spot price for {chip} hours rises {pct_small} in a month",
            ),
            (
                "Rental prices for {chip} capacity rose to about {hourly} per GPU-hour this "
                "month, according to a marketplace index, as inference demand absorbed spare "
                "capacity.",
                "The spot price of {chip} hours climbed {pct_small} over the past month, a sign "
                "that demand for inference is catching up with the supply added last year.",
            ),
            (
                "Contract terms have lengthened, with one- to three-year commitments now the norm.",
                "Older H100 capacity still trades at a discount to newer parts.",
                "Smaller clouds report utilisation above {pct_big}.",
            ),
        ),
    ),
}

# Quotes are written for fictional voices only.
QUOTES: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "Nobody on the buy side wants to be the one who under-allocated to this cycle",
        "The money is real, but so are the depreciation schedules that come with it",
        "Valuations assume the revenue curve bends upward for five more years",
        "We are underwriting the team and the distribution, not this year's revenue",
        "The spending only makes sense if inference demand keeps compounding",
        "Every investment committee I sit on now asks the same question: who pays for the power",
        "There is more capital chasing this than there are good companies to absorb it",
        "The debt markets have decided GPUs are an asset class, for better or worse",
    ),
    v.REGULATORY: (
        "This is the first real test of how the AI Act will be enforced in practice",
        "Courts are being asked to apply a fair-use doctrine written for photocopiers",
        "Compliance is no longer a memo; it is a budget line with headcount",
        "Export controls only work if enforcement keeps pace with the workarounds",
        "Every general counsel in the industry will read this ruling tonight",
        "The regulators are signalling that documentation duties are not optional",
        "Litigation risk is now priced into licensing negotiations with publishers",
        "Companies that ignored the code of practice are about to learn what it was for",
        "We expect appeals, and we expect them to take years",
    ),
    v.COMPETITION: (
        "Price is the only lever left when everyone's benchmark scores look alike",
        "Buyers want a second source, and they are finally able to get one",
        "The moat is distribution, not the model",
        "Switching costs are close to zero for most API customers",
        "Margins in this layer will look like airline margins within two years",
        "Every incumbent is now competing with its own biggest supplier",
    ),
    v.TALENT: (
        "The scarce skill is running a ten-thousand-GPU job without it falling over",
        "We hire for judgment now; the tools handle a lot of the first draft",
        "Entry-level roles are being redesigned, not simply removed",
        "Compensation at the top has detached from the rest of the software market",
        "Retention grants have become the real battleground",
        "Managers are learning to supervise agents the way they once supervised interns",
    ),
    v.TECHNOLOGY: (
        "The improvement is mostly in how the model plans, not in what it knows",
        "Memory bandwidth, not compute, is what limits inference today",
        "Packaging is the new bottleneck, and it will stay that way into next year",
        "The efficiency gains compound: better kernels, smaller numbers, smarter batching",
        "We reproduced the headline result, which is more than we can say for most launches",
        "The cooling and power engineering is as novel as the chips",
    ),
    v.ADOPTION: (
        "The pilots that worked had a clear owner and a measurable process",
        "Demand is showing up in token counts before it shows up in revenue",
        "Our finance team stopped asking whether to use it and started asking how much",
        "The bottleneck is clean data and change management, not the model",
        "Usage doubled once we priced it per task instead of per seat",
        "We underestimated how fast agents would eat into the inference budget",
    ),
}

# Background sentences: paragraph filler that gives context without repeating the event.
BACKGROUND: dict[str, tuple[str, ...]] = {
    v.CAPITAL: (
        "The four largest cloud providers are on course to spend more than {bn_big} on capital "
        "projects this year.",
        "Venture funding for AI companies reached {bn_big} in the first half, more than in any "
        "full year before {year}.",
        "Secondary sales have become a common way for employees at late-stage AI companies to "
        "cash out without an IPO.",
        "Private credit funds have become important lenders to datacenter developers.",
        "Investors have started to distinguish between companies with durable gross margins "
        "and those reselling model capacity.",
        "Public-market investors have grown more sensitive to rising depreciation charges.",
    ),
    v.REGULATORY: (
        "Obligations for general-purpose AI models under the EU AI Act have applied since "
        "August 2025, with fines enforceable from August 2026.",
        "More than {n_mid} copyright lawsuits against AI developers are pending in US courts.",
        "Export controls on advanced chips have been revised several times since 2022.",
        "Antitrust regulators on both sides of the Atlantic have been examining partnerships "
        "between cloud providers and model developers.",
        "Several US states passed AI legislation this year, raising concerns about a "
        "patchwork of rules.",
        "Publishers have signed licensing deals with some AI developers while suing others.",
    ),
    v.COMPETITION: (
        "The gap between the best closed and open-weight models has narrowed to a few months.",
        "API prices for a given level of capability have fallen by roughly an order of "
        "magnitude each year.",
        "Custom accelerators designed by cloud providers now handle a growing share of "
        "internal inference.",
        "Most enterprises now route requests across several model providers.",
        "Neoclouds compete with the hyperscalers mainly on availability and price.",
    ),
    v.TALENT: (
        "Demand for engineers who can build and operate large clusters far exceeds supply.",
        "Several labs have introduced retention grants after a wave of departures earlier in "
        "the year.",
        "Economists remain divided on whether AI will reduce overall employment in exposed "
        "occupations.",
        "Companies increasingly list experience with AI agents as a requirement in job ads.",
        "Immigration policy remains a constraint on hiring for US labs.",
    ),
    v.TECHNOLOGY: (
        "Training runs for frontier models now use clusters of more than 100,000 accelerators.",
        "High-bandwidth memory has become one of the tightest parts of the AI supply chain.",
        "Reasoning models spend more compute at inference time to improve answers.",
        "Liquid cooling is becoming standard for new AI racks.",
        "Mixture-of-experts designs dominate the largest recent models.",
    ),
    v.ADOPTION: (
        "Coding assistants remain the most widely adopted enterprise use of generative AI.",
        "Datacenter power demand in the US could double by the end of the decade, utilities "
        "estimate.",
        "Surveys show most companies moved at least one AI pilot into production this year.",
        "Inference now accounts for the majority of AI compute demand at the largest clouds.",
        "Small and mid-sized firms lag large enterprises in adoption, surveys show.",
    ),
}

# Closing lines that do not depend on the force.
CODAS: tuple[str, ...] = (
    "{person}, {person_company}'s {person_role}, discussed the company's priorities at "
    "{conference} earlier this year.",
    "Shares of {company} were little changed in midday trading.",
    "The company declined to comment beyond its statement.",
    "A spokesperson for {company} confirmed the details but gave no timeline.",
    "Further details are expected at {conference}.",
    "{company} reports its next quarterly results in {month}.",
)


def choose_event(rng: random.Random, force: str, chain: str) -> Event:
    """An event type for the force, preferring one written for the chain."""
    events = EVENTS[force]
    fitting = [e for e in events if chain in e.chains]
    pool = fitting or list(events)
    return pool[rng.randrange(len(pool))]


def chain_for(rng: random.Random, force: str) -> str:
    """A value-chain layer for which the force has at least one event type."""
    chains = [c for c in v.CHAINS if any(c in e.chains for e in EVENTS[force])]
    return chains[rng.randrange(len(chains))]


def quote_paragraph(rng: random.Random, force: str, ctx: Context) -> str:
    """A quote with attribution in one of several newsroom styles."""
    quote = v.pick(rng, QUOTES[force])
    speaker = ctx["voice"]
    style = rng.randrange(4)
    if style == 0:
        return f"“{quote},” said {speaker}."
    if style == 1:
        name, _, role = speaker.partition(", ")
        return f"“{quote},” {name}, {role}, said in an interview."
    if style == 2:
        name, _, role = speaker.partition(", ")
        return f"{name}, {role}, put it more bluntly: “{quote}.”"
    return f"“{quote},” said {speaker}. “We are watching the next two quarters closely.”"


def background(rng: random.Random, force: str, ctx: Context, n: int) -> str:
    """``n`` distinct background sentences for the force, rendered."""
    pool = list(BACKGROUND[force])
    rng.shuffle(pool)
    return " ".join(render(s, ctx) for s in pool[:n])


def news_text(rng: random.Random, force: str, ctx: Context) -> tuple[str, str]:
    """A news report (title, text) for the force, 3 to 5 paragraphs."""
    event = choose_event(rng, force, ctx["chain"])
    title = sentence_case_title(render(v.pick(rng, event.headlines), ctx))
    details = list(event.details)
    rng.shuffle(details)
    paragraphs = [render(v.pick(rng, event.ledes), ctx)]
    paragraphs.append(" ".join(render(d, ctx) for d in details[: rng.randint(1, 2)]))
    paragraphs.append(quote_paragraph(rng, force, ctx))
    if rng.random() < 0.7:
        paragraphs.append(background(rng, force, ctx, rng.randint(1, 2)))
    rest = details[2:]
    if rest and rng.random() < 0.5:
        paragraphs.append(render(rest[0], ctx))
    if rng.random() < 0.45:
        paragraphs.append(render(v.pick(rng, CODAS), ctx))
    return title, "\n\n".join(paragraphs)
