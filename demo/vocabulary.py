"""Vocabulary of the demo corpus: entities, outlets, fictional voices and number formatting.

Everything a template may name lives here so that the planted entities (see ``planted``) can be
kept out of the background text by construction: none of these lists mentions them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# The two taxonomies the analytics classify into; templates are written per market force and
# draw their entities from a value-chain layer.
FORCES: tuple[str, ...] = (
    "Competition",
    "Capital & Investment",
    "Regulatory & Legal",
    "Talent & Labor",
    "Technology & Scientific Innovation",
    "Adoption & Demand",
)
CHAINS: tuple[str, ...] = (
    "Semiconductors & Hardware",
    "Infrastructure",
    "Data",
    "Foundation Models",
    "Tooling & Platforms",
    "Applications",
)

COMPETITION, CAPITAL, REGULATORY, TALENT, TECHNOLOGY, ADOPTION = FORCES
HARDWARE, INFRA, DATA, MODELS, TOOLING, APPS = CHAINS

# Companies by value-chain layer. A company may sit in several layers.
COMPANIES: dict[str, tuple[str, ...]] = {
    HARDWARE: (
        "Nvidia",
        "AMD",
        "TSMC",
        "Intel",
        "ASML",
        "SK Hynix",
        "Samsung",
        "Broadcom",
        "Qualcomm",
        "Arm",
    ),
    INFRA: (
        "Microsoft",
        "Amazon Web Services",
        "Google Cloud",
        "Oracle",
        "CoreWeave",
        "Meta",
        "xAI",
        "Equinix",
        "Nebius",
        "Crusoe",
    ),
    DATA: (
        "Scale AI",
        "Hugging Face",
        "Databricks",
        "Snowflake",
        "Reddit",
        "Surge AI",
        "Common Crawl",
    ),
    MODELS: (
        "OpenAI",
        "Anthropic",
        "Google DeepMind",
        "Meta",
        "Mistral AI",
        "Cohere",
        "xAI",
        "DeepSeek",
        "Alibaba",
        "Moonshot AI",
    ),
    TOOLING: (
        "Databricks",
        "Hugging Face",
        "Microsoft",
        "Amazon Web Services",
        "Google Cloud",
        "Snowflake",
        "LangChain",
        "Weights & Biases",
        "GitHub",
        "Vercel",
    ),
    APPS: (
        "Perplexity",
        "Anysphere",
        "Harvey",
        "Glean",
        "Salesforce",
        "ServiceNow",
        "Adobe",
        "Duolingo",
        "Klarna",
        "ElevenLabs",
        "Cognition",
        "Replit",
    ),
}

# Products that belong to a company, so that a sentence never pairs a model with a rival's name.
MODELS_BY_COMPANY: dict[str, tuple[str, ...]] = {
    "OpenAI": ("GPT-5", "GPT-4.1", "o3", "gpt-oss-120b"),
    "Anthropic": ("Claude Opus 4", "Claude Sonnet 4", "Claude Haiku 3.5"),
    "Google DeepMind": ("Gemini 2.5 Pro", "Gemini 2.5 Flash", "Gemma 3"),
    "Meta": ("Llama 4 Maverick", "Llama 4 Scout"),
    "Mistral AI": ("Mistral Large", "Mistral Medium 3", "Codestral"),
    "Cohere": ("Command A", "Command R+"),
    "xAI": ("Grok 4",),
    "DeepSeek": ("DeepSeek-V3", "DeepSeek-R1"),
    "Alibaba": ("Qwen3", "Qwen3-Coder"),
    "Moonshot AI": ("Kimi K2",),
}
OPEN_WEIGHT_MODELS: tuple[str, ...] = (
    "Llama 4 Maverick",
    "DeepSeek-V3",
    "Qwen3",
    "Mistral Medium 3",
    "gpt-oss-120b",
    "Gemma 3",
    "Kimi K2",
)
CHIPS_BY_COMPANY: dict[str, tuple[str, ...]] = {
    "Nvidia": ("H100", "H200", "B200", "GB200 NVL72", "GB300"),
    "AMD": ("MI300X", "MI325X", "MI355X"),
    "Google Cloud": ("TPU v5p", "Trillium", "Ironwood"),
    "Amazon Web Services": ("Trainium2", "Inferentia2"),
    "Microsoft": ("Maia 100",),
    "Intel": ("Gaudi 3",),
    "Meta": ("MTIA v2",),
}
ACCELERATORS: tuple[str, ...] = tuple(c for chips in CHIPS_BY_COMPANY.values() for c in chips)
MEMORY_PARTS: tuple[str, ...] = ("HBM3E", "12-high HBM3E", "HBM4", "LPDDR5X", "CXL memory")
PLATFORMS: tuple[str, ...] = (
    "Azure AI Foundry",
    "Amazon Bedrock",
    "Vertex AI",
    "GitHub Copilot",
    "Databricks Mosaic AI",
    "Snowflake Cortex",
    "Hugging Face Inference Endpoints",
)

# Real people appear only as actors in neutral statements, never as the source of a quote.
PEOPLE: dict[str, tuple[str, str]] = {
    "Sam Altman": ("OpenAI", "chief executive"),
    "Dario Amodei": ("Anthropic", "chief executive"),
    "Demis Hassabis": ("Google DeepMind", "chief executive"),
    "Jensen Huang": ("Nvidia", "chief executive"),
    "Satya Nadella": ("Microsoft", "chief executive"),
    "Lisa Su": ("AMD", "chief executive"),
    "Mark Zuckerberg": ("Meta", "chief executive"),
    "Sundar Pichai": ("Google Cloud", "Alphabet chief executive"),
    "Andy Jassy": ("Amazon Web Services", "Amazon chief executive"),
    "Arthur Mensch": ("Mistral AI", "chief executive"),
    "Aidan Gomez": ("Cohere", "chief executive"),
    "C.C. Wei": ("TSMC", "chairman"),
    "Lip-Bu Tan": ("Intel", "chief executive"),
    "Christophe Fouquet": ("ASML", "chief executive"),
    "Hock Tan": ("Broadcom", "chief executive"),
    "Michael Intrator": ("CoreWeave", "chief executive"),
    "Ali Ghodsi": ("Databricks", "chief executive"),
    "Clem Delangue": ("Hugging Face", "chief executive"),
    "Aravind Srinivas": ("Perplexity", "chief executive"),
}

CONFERENCES: tuple[str, ...] = (
    "Computex in Taipei",
    "Hot Chips in Palo Alto",
    "the OCP Global Summit in San Jose",
    "SEMICON West",
    "VivaTech in Paris",
    "ICML in Vancouver",
    "Google I/O",
    "Microsoft Build",
    "an investor day in New York",
    "a developer conference in San Francisco",
    "the Collision conference in Toronto",
    "a Goldman Sachs technology conference",
)

DATACENTER_SITES: tuple[str, ...] = (
    "Abilene, Texas",
    "Loudoun County, Virginia",
    "New Albany, Ohio",
    "Council Bluffs, Iowa",
    "Memphis, Tennessee",
    "Mount Pleasant, Wisconsin",
    "Richland Parish, Louisiana",
    "Quincy, Washington",
    "Dublin",
    "Frankfurt",
    "Johor, Malaysia",
    "Querétaro, Mexico",
    "Luleå, Sweden",
    "Stargate's second Texas campus",
    "Kristiansand, Norway",
    "Jurong West, Singapore",
    "Inzai, Japan",
    "Chennai",
    "Abu Dhabi",
    "Cheyenne, Wyoming",
)
FAB_SITES: tuple[str, ...] = (
    "Hsinchu",
    "Phoenix, Arizona",
    "Kumamoto, Japan",
    "Pyeongtaek, South Korea",
    "Dresden",
    "Chandler, Arizona",
    "Yongin, South Korea",
    "Veldhoven",
    "New Albany, Ohio",
    "Taichung",
)
CITIES: tuple[str, ...] = (
    "San Francisco",
    "London",
    "Paris",
    "Toronto",
    "Seoul",
    "Tokyo",
    "Berlin",
    "Bangalore",
    "Tel Aviv",
    "Singapore",
    "New York",
    "Zurich",
)
UTILITIES: tuple[str, ...] = (
    "Entergy",
    "Dominion Energy",
    "AEP Ohio",
    "Xcel Energy",
    "Georgia Power",
    "Oncor",
    "Duke Energy",
    "NextEra Energy",
)

# Regulators, courts and laws for the Regulatory & Legal force.
REGULATORS: tuple[str, ...] = (
    "the European Commission's AI Office",
    "the US Federal Trade Commission",
    "the Justice Department's antitrust division",
    "Britain's Competition and Markets Authority",
    "the Bureau of Industry and Security",
    "Ireland's Data Protection Commission",
    "Italy's Garante",
    "Japan's Fair Trade Commission",
    "Korea's Fair Trade Commission",
    "the California Privacy Protection Agency",
    "France's CNIL",
    "Germany's Bundeskartellamt",
)
ANTITRUST_REGULATORS: tuple[str, ...] = (
    "the US Federal Trade Commission",
    "the Justice Department's antitrust division",
    "Britain's Competition and Markets Authority",
    "the European Commission's competition directorate",
    "Japan's Fair Trade Commission",
    "Germany's Bundeskartellamt",
)
PRIVACY_REGULATORS: tuple[str, ...] = (
    "Ireland's Data Protection Commission",
    "Italy's Garante",
    "France's CNIL",
    "the Dutch Data Protection Authority",
    "Spain's AEPD",
)
COURTS: tuple[str, ...] = (
    "the US District Court for the Northern District of California",
    "the US District Court for the Southern District of New York",
    "the Munich Regional Court",
    "the High Court in London",
    "the District Court of Delaware",
    "the Ninth Circuit Court of Appeals",
    "the Paris Judicial Court",
    "the Tokyo District Court",
)
LAWS: tuple[str, ...] = (
    "the EU AI Act",
    "the CHIPS Act",
    "US export controls",
    "the Digital Markets Act",
    "the GDPR",
    "California's SB 53",
    "the Colorado AI Act",
    "Japan's AI Promotion Act",
    "Korea's AI Basic Act",
    "the UK Data (Use and Access) Act",
)
PLAINTIFFS: tuple[str, ...] = (
    "a coalition of European news publishers",
    "a group of non-fiction authors",
    "two major record labels",
    "a stock-photo agency",
    "a class of software developers",
    "a German collecting society",
    "three Canadian newspaper groups",
    "a group of visual artists",
    "a textbook publisher",
    "a union representing voice actors",
)

# Fictional voices: the only people in the corpus who are quoted.
FIRST_NAMES: tuple[str, ...] = (
    "Priya",
    "Marcus",
    "Elena",
    "Tomasz",
    "Aiko",
    "Daniel",
    "Fatima",
    "Jonas",
    "Mei",
    "Rafael",
    "Ingrid",
    "Kwame",
    "Sofia",
    "Hiroshi",
    "Leah",
    "Oren",
    "Camille",
    "Nikhil",
    "Greta",
    "Samuel",
    "Yasmin",
    "Anders",
    "Lucia",
    "Theo",
    "Nadia",
    "Victor",
    "Hannah",
    "Ravi",
    "Clara",
    "Mateo",
)
LAST_NAMES: tuple[str, ...] = (
    "Raman",
    "Okafor",
    "Lindqvist",
    "Wierzbicki",
    "Tanaka",
    "Feld",
    "Haddad",
    "Brenner",
    "Zhou",
    "Castellanos",
    "Aalto",
    "Mensah",
    "Ricci",
    "Morimoto",
    "Goldfarb",
    "Shapiro",
    "Dubois",
    "Varma",
    "Holm",
    "Adeyemi",
    "Karimi",
    "Nygaard",
    "Ferreira",
    "Whitlock",
    "Petrova",
    "Achebe",
    "Kessler",
    "Iyer",
    "Vance",
    "Ortega",
)


@dataclass(frozen=True)
class Affiliation:
    """A fictional organisation and the role its people are introduced with."""

    org: str
    role: str
    beat: str  # which forces this kind of voice comments on: "markets", "legal", "tech", "ops"


AFFILIATIONS: tuple[Affiliation, ...] = (
    Affiliation("Halden Ventures", "a partner at", "markets"),
    Affiliation("Corbett & Vail Securities", "a semiconductor analyst at", "markets"),
    Affiliation("Northgate Capital", "a managing director at", "markets"),
    Affiliation("Larchmont Research", "an analyst at", "markets"),
    Affiliation("Bramwell Partners", "an infrastructure investor at", "markets"),
    Affiliation("Quillon Advisory", "a principal at", "markets"),
    Affiliation("Marlowe Finch LLP", "a partner at", "legal"),
    Affiliation("Kestrel Policy Group", "a senior fellow at", "legal"),
    Affiliation("Ashdown & Reyes", "a litigation partner at", "legal"),
    Affiliation("the Lindenberg Institute for Technology Law", "a researcher at", "legal"),
    Affiliation("Stoneleigh Compliance", "the founder of", "legal"),
    Affiliation("the Meridian Compute Lab", "a research scientist at", "tech"),
    Affiliation("Tessellate Labs", "the chief technology officer of", "tech"),
    Affiliation("the Orinoco Systems Group", "a hardware architect at", "tech"),
    Affiliation("Pallas Research", "a principal engineer at", "tech"),
    Affiliation("Brightline Logistics", "the chief information officer of", "ops"),
    Affiliation("Calder Health", "the head of data at", "ops"),
    Affiliation("Westmarch Insurance", "the chief digital officer of", "ops"),
    Affiliation("Fenwick Grid Consulting", "a power-markets consultant at", "ops"),
    Affiliation("Ardent Talent Partners", "a recruiter at", "talent"),
    Affiliation("Harrowgate Labor Institute", "an economist at", "talent"),
    Affiliation("Vantage Workforce Analytics", "the head of research at", "talent"),
)
BEAT_BY_FORCE: dict[str, tuple[str, ...]] = {
    COMPETITION: ("markets", "tech"),
    CAPITAL: ("markets",),
    REGULATORY: ("legal",),
    TALENT: ("talent", "ops"),
    TECHNOLOGY: ("tech",),
    ADOPTION: ("ops", "markets"),
}


@dataclass(frozen=True)
class Outlet:
    """A fictional publication: its host, how it builds URLs and which kinds it publishes."""

    name: str
    host: str
    kinds: tuple[tuple[str, int], ...]  # (kind, weight)
    path_style: str  # "dated", "section", "flat", "substack"
    authors: tuple[str, ...]


OUTLETS: tuple[Outlet, ...] = (
    Outlet(
        "Compute Ledger",
        "www.computeledger.com",
        (("news", 6), ("article", 3)),
        "dated",
        ("Hannah Brenner", "Kwame Adeyemi", "Mei Zhou"),
    ),
    Outlet(
        "Silicon Weekly",
        "blog.siliconweekly.news",
        (("article", 4), ("news", 3)),
        "section",
        ("Tomasz Wierzbicki", "Aiko Morimoto"),
    ),
    Outlet(
        "Frontier Memos",
        "frontiermemos.substack.com",
        (("memo", 5), ("essay", 3)),
        "substack",
        ("Nadia Karimi",),
    ),
    Outlet(
        "AI Wire",
        "www.aiwire.co.uk",
        (("news", 8),),
        "dated",
        ("Oren Goldfarb", "Clara Holm", "Theo Vance"),
    ),
    Outlet(
        "TechDesk",
        "news.techdesk.co.uk",
        (("news", 7), ("article", 2)),
        "section",
        ("Ingrid Aalto", "Samuel Ferreira"),
    ),
    Outlet(
        "The Inference Review",
        "www.inferencereview.com",
        (("essay", 4), ("article", 4)),
        "flat",
        ("Leah Shapiro", "Anders Nygaard"),
    ),
    Outlet(
        "Gridline",
        "www.gridline.energy",
        (("news", 4), ("article", 3)),
        "dated",
        ("Rafael Castellanos", "Greta Lindqvist"),
    ),
    Outlet(
        "Capex Notes",
        "capexnotes.substack.com",
        (("memo", 5), ("essay", 2)),
        "substack",
        ("Victor Petrova",),
    ),
    Outlet(
        "Wafer & Wire",
        "www.waferandwire.com",
        (("news", 5), ("article", 3)),
        "dated",
        ("Hiroshi Tanaka", "Sofia Ricci"),
    ),
    Outlet(
        "The Model Brief",
        "www.modelbrief.ai",
        (("news", 5), ("article", 2), ("essay", 1)),
        "section",
        ("Nikhil Varma", "Camille Dubois"),
    ),
    Outlet(
        "Policy Circuit",
        "www.policycircuit.eu",
        (("news", 4), ("article", 3), ("memo", 1)),
        "dated",
        ("Lucia Ortega", "Jonas Kessler"),
    ),
    Outlet(
        "Southern Cross Tech",
        "www.southerncrosstech.com.au",
        (("news", 5), ("article", 1)),
        "dated",
        ("Daniel Whitlock", "Yasmin Haddad"),
    ),
    Outlet(
        "Stack Economics",
        "stackeconomics.substack.com",
        (("essay", 4), ("memo", 2)),
        "substack",
        ("Elena Castellanos",),
    ),
    Outlet(
        "Enterprise AI Today",
        "www.enterpriseaitoday.com",
        (("news", 5), ("article", 3)),
        "section",
        ("Fatima Okafor", "Marcus Holm"),
    ),
    Outlet(
        "Data Layer",
        "www.datalayer.io",
        (("article", 3), ("news", 3)),
        "flat",
        ("Mateo Iyer", "Priya Nygaard"),
    ),
    Outlet(
        "Tokyo Chip Report",
        "www.tokyochipreport.co.jp",
        (("news", 4),),
        "dated",
        ("Aiko Tanaka",),
    ),
    Outlet(
        "Halden Insights",
        "insights.haldenventures.com",
        (("memo", 3), ("essay", 2)),
        "flat",
        ("Priya Raman", "Marcus Feld"),
    ),
    Outlet(
        "Workbench",
        "www.workbench.news",
        (("news", 4), ("article", 2)),
        "dated",
        ("Hannah Achebe", "Ravi Mensah"),
    ),
    Outlet(
        "Open Weights Journal",
        "openweights.substack.com",
        (("essay", 3), ("article", 2)),
        "substack",
        ("Anders Zhou",),
    ),
    Outlet(
        "Maple Tech Daily",
        "www.mapletechdaily.ca",
        (("news", 4),),
        "dated",
        ("Samuel Okafor",),
    ),
)
PODCAST_SHOWS: tuple[tuple[str, str, tuple[str, ...], int], ...] = (
    # (show, podcast host name, hosts, first episode number)
    ("The Compute Ledger", "computeledger", ("Hannah Brenner", "Kwame Adeyemi"), 27),
    ("Frontier Margins", "frontiermargins", ("Nadia Karimi",), 112),
    ("Stack Economics Live", "stackeconomics", ("Elena Castellanos", "Oren Shapiro"), 58),
    ("The Wafer Hour", "waferhour", ("Hiroshi Tanaka",), 9),
)
SOCIAL_HANDLES: tuple[tuple[str, str], ...] = (
    ("chipwatcher", "Greta Holm"),
    ("capexcassandra", "Victor Ortega"),
    ("tokenomist", "Mei Varma"),
    ("gridwonk", "Rafael Aalto"),
    ("modelcardreader", "Camille Mensah"),
    ("fablesswonder", "Tomasz Ricci"),
    ("evalsguy", "Daniel Karimi"),
    ("policylayer", "Lucia Brenner"),
    ("hbm_hawk", "Hiroshi Feld"),
    ("saasmultiple", "Leah Okafor"),
    ("opsandtokens", "Nikhil Haddad"),
    ("labourmarketAI", "Hannah Iyer"),
    ("infra_ledger", "Kwame Zhou"),
    ("ai_termsheet", "Yasmin Whitlock"),
    ("benchmarkskeptic", "Jonas Tanaka"),
    ("datacenterdaily", "Sofia Nygaard"),
    ("agentops", "Ravi Dubois"),
    ("euaiwatch", "Ingrid Castellanos"),
)
PAPER_AFFILIATIONS: tuple[str, ...] = (
    "Meridian Compute Lab",
    "University of Edinburgh",
    "ETH Zurich",
    "Carnegie Mellon University",
    "KAIST",
    "University of Toronto",
    "Tsinghua University",
    "Mila",
    "Stanford University",
    "University of Tokyo",
    "EPFL",
    "Harrowgate Labor Institute",
)


def pick(rng: random.Random, items: tuple[str, ...] | list[str]) -> str:
    """One item, chosen with the caller's generator so output depends only on the seed."""
    return items[rng.randrange(len(items))]


def voice(rng: random.Random, force: str) -> str:
    """A fictional speaker introduced for attribution: 'Priya Raman, a partner at ...'."""
    beats = BEAT_BY_FORCE[force]
    candidates = [a for a in AFFILIATIONS if a.beat in beats]
    aff = candidates[rng.randrange(len(candidates))]
    return f"{pick(rng, FIRST_NAMES)} {pick(rng, LAST_NAMES)}, {aff.role} {aff.org}"


def billions(rng: random.Random, lo: float, hi: float) -> str:
    """A dollar amount in billions, rounded the way trade press rounds it."""
    value = rng.uniform(lo, hi)
    if value >= 20:
        return f"${round(value):d} billion"
    return f"${value:.1f} billion"


def millions(rng: random.Random, lo: int, hi: int) -> str:
    """A dollar amount in millions, rounded to a plausible precision."""
    value = rng.randint(lo, hi)
    if value >= 100:
        value = value // 5 * 5
    return f"${value:d} million"


def pct(rng: random.Random, lo: float, hi: float, decimals: int = 0) -> str:
    """A percentage string."""
    value = rng.uniform(lo, hi)
    return f"{value:.{decimals}f}%"


def count(rng: random.Random, lo: int, hi: int) -> str:
    """A whole number with thousands separators."""
    return f"{rng.randint(lo, hi):,}"


def gigawatts(rng: random.Random, lo: float, hi: float) -> str:
    """A power figure; small sites are quoted in megawatts as the industry does."""
    value = rng.uniform(lo, hi)
    if value < 1:
        return f"{int(value * 1000) // 10 * 10} megawatts"
    return f"{value:.1f} gigawatts"


def multiple(rng: random.Random, lo: float, hi: float) -> str:
    """A multiplier such as '3.4 times'."""
    return f"{rng.uniform(lo, hi):.1f} times"
