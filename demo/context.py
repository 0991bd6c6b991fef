"""Slot filling for the demo templates: one random context per document, and the renderer.

A context holds every slot any template may use, drawn at most once per document so that a
company, its model and its rival stay consistent across the paragraphs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import datetime

from demo import vocabulary as v

INVESTORS: tuple[str, ...] = (
    "Halden Ventures",
    "Northgate Capital",
    "Bramwell Partners",
    "SoftBank",
    "MGX",
    "Thrive Capital",
    "Lightspeed Venture Partners",
    "General Catalyst",
    "Greenoaks",
    "Index Ventures",
    "Temasek",
    "Quillon Growth",
    "a sovereign fund from the Gulf",
    "Fidelity",
)
# Fictional startups carry the small, named funding rounds so real firms are not overloaded.
STARTUPS: dict[str, tuple[str, ...]] = {
    v.HARDWARE: ("Parallax Silicon", "Kiln Photonics", "Lumen Interconnect", "Tessera Memory"),
    v.INFRA: ("Tidewater Compute", "Boreal Datacenters", "Ferrous Power", "Granite Grid"),
    v.DATA: ("Quarry Data", "Cartographer Labs", "Provenance AI", "Sieve Analytics"),
    v.MODELS: ("Fathom Labs", "Halcyon Models", "Loom Intelligence", "Northstar Research"),
    v.TOOLING: ("Sundial Agents", "Loomwork", "Tracer Evals", "Keystone Orchestration"),
    v.APPS: ("Brisk Legal", "Nimbus Voice", "Ostrander Bio", "Ledgerly", "Wayfinder Health"),
}
SECTORS: tuple[str, ...] = (
    "insurance",
    "retail banking",
    "logistics",
    "hospital systems",
    "telecoms",
    "automotive",
    "pharmaceuticals",
    "public sector",
    "consumer goods",
    "law firms",
    "accounting",
    "media",
)
WORKFLOWS: tuple[str, ...] = (
    "claims triage",
    "customer support",
    "code review",
    "contract analysis",
    "invoice matching",
    "clinical documentation",
    "sales research",
    "IT ticket resolution",
    "marketing copy",
    "fraud investigation",
    "vendor due diligence",
    "supplier onboarding",
)
QUARTER_BY_MONTH = {
    3: "fourth-quarter",
    4: "first-quarter",
    5: "first-quarter",
    6: "first-quarter",
    7: "second-quarter",
    8: "second-quarter",
    9: "second-quarter",
    10: "third-quarter",
}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SLOT = re.compile(r"\{(\w+)\}")


def _other(rng: random.Random, items: tuple[str, ...], exclude: str) -> str:
    rest = [i for i in items if i != exclude]
    return rest[rng.randrange(len(rest))]


def _partner(rng: random.Random, ctx: Context) -> str:
    chain = ctx["chain"]
    other_chain = v.CHAINS[(v.CHAINS.index(chain) + rng.randint(1, 5)) % len(v.CHAINS)]
    return _other(rng, v.COMPANIES[other_chain], ctx["company"])


_LABS = tuple(v.MODELS_BY_COMPANY)
_CHIP_VENDORS = tuple(v.CHIPS_BY_COMPANY)
_PEOPLE = tuple(v.PEOPLE)
_PARAMS = (7, 14, 32, 70, 120, 235, 405, 480, 671)
_EXPORT_CHIPS = v.CHIPS_BY_COMPANY["Nvidia"] + v.CHIPS_BY_COMPANY["AMD"]
_CHALLENGERS = tuple(c for c in _CHIP_VENDORS if c != "Nvidia")
_NODES = ("2-nanometer", "3-nanometer", "A16", "18A", "N2P")

Factory = Callable[[random.Random, "Context"], str]
# Slots are drawn on first use: a news brief needs a dozen of the sixty, and drawing all of them
# for every document would dominate the generator's run time. Draw order is still fixed by the
# template text, so output stays deterministic.
_FACTORIES: dict[str, Factory] = {
    "company": lambda r, c: v.pick(r, v.COMPANIES[c["chain"]]),
    "rival": lambda r, c: _other(r, v.COMPANIES[c["chain"]], c["company"]),
    "partner": _partner,
    "lab": lambda r, _c: v.pick(r, _LABS),
    "model": lambda r, c: v.pick(r, v.MODELS_BY_COMPANY[c["lab"]]),
    "rival_lab": lambda r, c: _other(r, _LABS, c["lab"]),
    "rival_model": lambda r, c: v.pick(r, v.MODELS_BY_COMPANY[c["rival_lab"]]),
    "open_model": lambda r, _c: v.pick(r, v.OPEN_WEIGHT_MODELS),
    "chip_vendor": lambda r, _c: v.pick(r, _CHIP_VENDORS),
    "chip": lambda r, c: v.pick(r, v.CHIPS_BY_COMPANY[c["chip_vendor"]]),
    "rival_chip_vendor": lambda r, c: _other(r, _CHIP_VENDORS, c["chip_vendor"]),
    "rival_chip": lambda r, c: v.pick(r, v.CHIPS_BY_COMPANY[c["rival_chip_vendor"]]),
    "memory": lambda r, _c: v.pick(r, v.MEMORY_PARTS),
    "platform": lambda r, _c: v.pick(r, v.PLATFORMS),
    "person": lambda r, _c: v.pick(r, _PEOPLE),
    "person_company": lambda _r, c: v.PEOPLE[c["person"]][0],
    "person_role": lambda _r, c: v.PEOPLE[c["person"]][1],
    "conference": lambda r, _c: v.pick(r, v.CONFERENCES),
    "site": lambda r, _c: v.pick(r, v.DATACENTER_SITES),
    "fab_site": lambda r, _c: v.pick(r, v.FAB_SITES),
    "city": lambda r, _c: v.pick(r, v.CITIES),
    "utility": lambda r, _c: v.pick(r, v.UTILITIES),
    "regulator": lambda r, _c: v.pick(r, v.REGULATORS),
    "antitrust_regulator": lambda r, _c: v.pick(r, v.ANTITRUST_REGULATORS),
    "privacy_regulator": lambda r, _c: v.pick(r, v.PRIVACY_REGULATORS),
    "export_chip": lambda r, _c: v.pick(r, _EXPORT_CHIPS),
    "challenger_vendor": lambda r, _c: v.pick(r, _CHALLENGERS),
    "challenger_chip": lambda r, c: v.pick(r, v.CHIPS_BY_COMPANY[c["challenger_vendor"]]),
    "court": lambda r, _c: v.pick(r, v.COURTS),
    "law": lambda r, _c: v.pick(r, v.LAWS),
    "plaintiff": lambda r, _c: v.pick(r, v.PLAINTIFFS),
    "investor": lambda r, _c: v.pick(r, INVESTORS),
    "investor2": lambda r, c: _other(r, INVESTORS, c["investor"]),
    "startup": lambda r, c: v.pick(r, STARTUPS[c["chain"]]),
    "sector": lambda r, _c: v.pick(r, SECTORS),
    "sector2": lambda r, c: _other(r, SECTORS, c["sector"]),
    "workflow": lambda r, _c: v.pick(r, WORKFLOWS),
    "voice": lambda r, c: v.voice(r, c["force"]),
    "voice2": lambda r, c: v.voice(r, c["force"]),
    "bn_big": lambda r, _c: v.billions(r, 12, 95),
    "bn": lambda r, _c: v.billions(r, 1.2, 18),
    "bn_small": lambda r, _c: v.billions(r, 0.3, 3.5),
    "valuation": lambda r, _c: v.billions(r, 4, 160),
    "mn": lambda r, _c: v.millions(r, 25, 900),
    "mn_small": lambda r, _c: v.millions(r, 6, 80),
    "pct_small": lambda r, _c: v.pct(r, 2, 12),
    "pct_mid": lambda r, _c: v.pct(r, 14, 45),
    "pct_big": lambda r, _c: v.pct(r, 48, 92),
    "pct_dec": lambda r, _c: v.pct(r, 0.4, 9.5, 1),
    "gw": lambda r, _c: v.gigawatts(r, 0.3, 5.5),
    "gw_big": lambda r, _c: v.gigawatts(r, 1.5, 10),
    "times": lambda r, _c: v.multiple(r, 1.6, 6.5),
    "n_small": lambda r, _c: str(r.randint(3, 14)),
    "n_mid": lambda r, _c: str(r.randint(18, 95)),
    "n_k": lambda r, _c: v.count(r, 1_200, 48_000),
    "n_big": lambda r, _c: v.count(r, 60_000, 900_000),
    "n_gpus": lambda r, _c: v.count(r, 8_000, 400_000),
    "params": lambda r, _c: f"{_PARAMS[r.randrange(len(_PARAMS))]} billion",
    "tokens_t": lambda r, _c: f"{r.uniform(1.5, 40):.1f} trillion",
    "price": lambda r, _c: f"${r.uniform(0.08, 15):.2f}",
    "hourly": lambda r, _c: f"${r.uniform(1.4, 4.9):.2f}",
    "months": lambda r, _c: str(r.randint(6, 30)),
    "later_year": lambda r, c: str(int(c["year"]) + r.randint(2, 4)),
    "day": lambda r, c: WEEKDAYS[(WEEKDAYS.index(c["weekday"]) - r.randint(0, 1)) % 7],
    "score": lambda r, _c: f"{r.uniform(52, 91):.1f}",
    "score_gain": lambda r, _c: f"{r.uniform(2, 14):.1f}",
    "nm": lambda r, _c: v.pick(r, _NODES),
    "headcount": lambda r, _c: v.count(r, 120, 4_000),
    "salary": lambda r, _c: f"${r.randint(28, 95) * 10_000:,}",
    "seats": lambda r, _c: v.count(r, 5_000, 250_000),
    "days": lambda r, _c: str(r.randint(30, 180)),
    "pick": lambda r, _c: str(r.randrange(1_000_000)),
}


class Context:
    """The slots of one document, drawn lazily and then fixed.

    ``extended`` returns a view with extra fixed slots that shares the drawn values, so a
    paragraph rendered through the view names the same company as the rest of the document.
    """

    def __init__(
        self, rng: random.Random, values: dict[str, str], extra: dict[str, str] | None = None
    ) -> None:
        self._rng = rng
        self._values = values
        self._extra = extra or {}

    def __getitem__(self, key: str) -> str:
        if key in self._extra:
            return self._extra[key]
        if key not in self._values:
            self._values[key] = _FACTORIES[key](self._rng, self)
        return self._values[key]

    def extended(self, **extra: str) -> Context:
        """A view of this context with additional (or overriding) fixed slots."""
        return Context(self._rng, self._values, {**self._extra, **extra})


def make_context(rng: random.Random, chain: str, force: str, when: datetime) -> Context:
    """The slot source for one document about ``chain`` and ``force`` published at ``when``."""
    month_idx = when.month - 1
    values = {
        "chain": chain,
        "force": force,
        "year": str(when.year),
        "next_year": str(when.year + 1),
        "month": MONTHS[month_idx],
        "prev_month": MONTHS[month_idx - 1],
        "weekday": WEEKDAYS[when.weekday()],
        "quarter": QUARTER_BY_MONTH.get(when.month, "quarterly"),
    }
    return Context(rng, values)


def render(template: str, ctx: Context) -> str:
    """Fill ``{slot}`` markers; an unknown slot is a template bug and raises ``KeyError``."""
    return _SLOT.sub(lambda m: ctx[m.group(1)], template)


def sentence_case_title(text: str) -> str:
    """Headlines keep the template's casing; only the first character is forced upper."""
    return text[:1].upper() + text[1:]
