"""Deterministic synthetic corpus for the analytics benchmark (docs/design.md §7 inputs).

``generate(n_signals)`` returns, in memory and from a fixed numpy seed:

- ``signals`` (signal_id, published_at, domain): published over the 52 weeks ending at a fixed
  ``as_of`` (a Wednesday, so the last few days fall in the incomplete current week and are
  outside the 12-week window), domains drawn Zipf-like from ~2k domains;
- ``mentions`` (signal_id, key): ~5 entity mentions per signal on average (Poisson, at least
  one), entities drawn from a Zipf-like popularity over 50k entities, with 5% of the entities
  trending up, 5% trending down and 2% new (first mentioned in the last 3 weeks); a mention may
  repeat within a signal (the analytics count distinct signals);
- ``themes`` (signal_id, key): 1–2 of 300 themes per signal, also Zipf-like and drifting.

Nothing is written to disk. ``python -m bench.analytics.speed.generate --signals N`` prints the
sizes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.trends import Clock

AS_OF = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
WEEKS = 52
SEED = 20260610
N_ENTITIES = 50_000
N_DOMAINS = 2_000
N_THEMES = 300
MENTIONS_PER_SIGNAL = 5.0
_US_PER_WEEK = 7 * 86_400 * 1_000_000


@dataclass(frozen=True)
class Corpus:
    """The generated inputs and the clock they are analysed at."""

    signals: pl.DataFrame
    mentions: pl.DataFrame
    themes: pl.DataFrame
    clock: Clock


def _zipf_weights(n: int, exponent: float, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """Zipf-like popularity, shuffled so that popularity is unrelated to the id order."""
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    rng.shuffle(weights)
    return weights


def _draw_keys(
    weeks: npt.NDArray[np.int64],
    per_signal: npt.NDArray[np.int64],
    base: npt.NDArray[np.float64],
    rising: npt.NDArray[np.bool_],
    falling: npt.NDArray[np.bool_],
    new: npt.NDArray[np.bool_],
    rng: np.random.Generator,
) -> npt.NDArray[np.int64]:
    """Key index per mention, drawn week by week from the drifting popularity."""
    mention_weeks = np.repeat(weeks, per_signal)
    keys = np.empty(len(mention_weeks), dtype=np.int64)
    order = np.argsort(mention_weeks, kind="stable")
    bounds = np.searchsorted(mention_weeks[order], np.arange(WEEKS + 2))
    for week in range(WEEKS + 1):
        lo, hi = bounds[week], bounds[week + 1]
        if lo == hi:
            continue
        t = week / WEEKS  # 0 (oldest) … 1 (current week)
        weights = base.copy()
        weights[rising] *= np.exp(3.0 * t)
        weights[falling] *= np.exp(-3.0 * t)
        weights[new] *= 1.0 if week >= WEEKS - 3 else 0.0
        keys[order[lo:hi]] = rng.choice(len(base), size=hi - lo, p=weights / weights.sum())
    return keys


def generate(n_signals: int = 1_000_000, *, seed: int = SEED) -> Corpus:
    """Build the corpus for ``n_signals`` signals; the same arguments give the same frames."""
    rng = np.random.default_rng(seed)
    clock = Clock(AS_OF)
    end_us = int(AS_OF.timestamp() * 1_000_000)
    start_us = end_us - WEEKS * _US_PER_WEEK
    # Volume grows slowly over the year, so the weekly totals T(w) differ.
    u = rng.random(n_signals)
    published_us = start_us + (np.sqrt(0.25 + 0.75 * u) - 0.5) / 0.5 * (end_us - start_us)
    published_us = np.minimum(published_us.astype(np.int64), end_us)
    published_us.sort()
    weeks = ((published_us - start_us) // _US_PER_WEEK).astype(np.int64)

    domain_weights = _zipf_weights(N_DOMAINS, 1.0, rng)
    domains = rng.choice(N_DOMAINS, size=n_signals, p=domain_weights / domain_weights.sum())
    signal_ids = pl.Series("i", np.arange(n_signals)).cast(pl.String).str.zfill(8)
    signals = pl.DataFrame(
        {
            "signal_id": "s" + signal_ids,
            "published_at": pl.Series(published_us).cast(pl.Datetime("us", "UTC")),
            "domain": "d" + pl.Series(domains).cast(pl.String).str.zfill(4) + ".example",
        }
    )

    per_signal = np.maximum(rng.poisson(MENTIONS_PER_SIGNAL, size=n_signals), 1)
    base = _zipf_weights(N_ENTITIES, 1.05, rng)
    kinds = rng.random(N_ENTITIES)
    rising, falling, new = kinds < 0.05, (kinds >= 0.05) & (kinds < 0.10), kinds >= 0.98
    entity = _draw_keys(weeks, per_signal, base, rising, falling, new, rng)
    mention_signals = np.repeat(np.arange(n_signals), per_signal)
    mentions = pl.DataFrame(
        {
            "signal_id": "s" + pl.Series(mention_signals).cast(pl.String).str.zfill(8),
            "key": "e" + pl.Series(entity).cast(pl.String).str.zfill(5),
        }
    )

    per_theme = rng.integers(1, 3, size=n_signals)
    theme_base = _zipf_weights(N_THEMES, 0.8, rng)
    theme_kinds = rng.random(N_THEMES)
    theme = _draw_keys(
        weeks,
        per_theme,
        theme_base,
        theme_kinds < 0.1,
        (theme_kinds >= 0.1) & (theme_kinds < 0.2),
        np.zeros(N_THEMES, dtype=bool),
        rng,
    )
    theme_signals = np.repeat(np.arange(n_signals), per_theme)
    themes = pl.DataFrame(
        {
            "signal_id": "s" + pl.Series(theme_signals).cast(pl.String).str.zfill(8),
            "key": "theme-" + pl.Series(theme).cast(pl.String).str.zfill(3),
        }
    )
    return Corpus(signals=signals, mentions=mentions, themes=themes, clock=clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--signals", type=int, default=1_000_000)
    args = parser.parse_args()
    corpus = generate(args.signals)
    window = corpus.clock.window_start, corpus.clock.window_end
    print(
        f"as_of {corpus.clock.as_of.isoformat()}, window {window[0]:%Y-%m-%d}–{window[1]:%Y-%m-%d}"
    )
    print(f"signals {corpus.signals.height:,}, mentions {corpus.mentions.height:,}")
    print(f"entities {corpus.mentions['key'].n_unique():,}, themes {corpus.themes.height:,}")
    print(corpus.signals.head(3))
    print(corpus.mentions.head(3))


if __name__ == "__main__":
    main()
