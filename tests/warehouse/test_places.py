"""The registry's places come from gazetteers (pycountry, countryinfo, GeoNames): countries
with their names and demonyms, major cities, and nothing ambiguous; the committed registry
holds them and links them as locations."""

from __future__ import annotations

from analytics.linking import Linker
from warehouse.places import ascii_fold, countries, major_cities, us_states
from warehouse.registry import DEFAULT_REGISTRY, load_registry


def test_countries_carry_their_other_names_and_a_demonym_no_other_country_claims() -> None:
    by_code = {place.code: place for place in countries()}
    assert len(by_code) >= 240  # ISO 3166 has 249
    india = by_code["IN"]
    assert india.name == "India" and "Indian" in india.exact_aliases
    assert "Republic of India" in india.aliases
    swiss = by_code["CH"]
    assert swiss.name == "Switzerland" and "Swiss" in swiss.exact_aliases
    assert by_code["KR"].name == "South Korea"
    every_form = [
        form.casefold()
        for place in by_code.values()
        for form in {place.name, *place.aliases, *place.exact_aliases}
    ]
    assert len(every_form) == len(set(every_form))  # "Korean": nobody's; "Indian": India's
    # "Korea, Republic of" is a sort key, not a name anyone writes
    assert not [a for p in by_code.values() for a in p.aliases if "," in a]


def test_major_cities_by_population_and_capital_without_blocked_names() -> None:
    cities = {place.name: place for place in major_cities(blocked=["Brooklyn", "Georgia"])}
    assert {"Berlin", "Mumbai", "Lagos", "São Paulo", "Nairobi"} <= set(cities)
    assert cities["São Paulo"].aliases == ["Sao Paulo"]
    assert "Brooklyn" not in cities
    folded = [ascii_fold(name).casefold() for name in cities]
    assert len(folded) == len(set(folded))  # one city per name: the most populous
    assert "Georgia" in us_states()


def test_the_committed_registry_links_countries_demonyms_and_cities_as_locations() -> None:
    entities = load_registry(DEFAULT_REGISTRY)
    by_name = {e.name: e for e in entities}
    for name in ("India", "Switzerland", "Berlin", "Nigeria", "Mumbai"):
        assert by_name[name].type == "location", name
        assert by_name[name].extra.get("iso3166"), name
    # named like a person or a US state: left to the curated entries, not seeded
    assert "Chad" not in by_name and "Georgia" not in by_name
    ids = Linker(entities).entity_ids("Swiss and Indian labs opened offices in Mumbai and Berlin.")
    by_id = {e.entity_id: e.name for e in entities}
    assert {"Switzerland", "India", "Mumbai", "Berlin"} <= {by_id[i] for i in ids}
