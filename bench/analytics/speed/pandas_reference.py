"""A straightforward pandas implementation of docs/design.md §7, the baseline of the analytics
benchmark.

Written the way an analyst would: merge, groupby, unstack to a key × week table, column
arithmetic, ``apply`` for the per-key binomial test and the reasoning sentence. It follows the
same definitions as ``analytics.trends.trend_metrics`` / ``analytics.cooccurrence`` (including the
"decide thresholds exactly" rule of the Numerics note: ratios compared in integers, the
coefficient of variation rounded to 12 significant digits), but none of its tricks (no p-value
cache, no dense numpy matrix built by hand).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd
from scipy.stats import binomtest, false_discovery_control

WEEKS = 12
# docs/design.md §7 and docs/decisions/0032-trend-analytics.md: a key is notable from its third
# signal on; `New` is dated by that signal, within 26 weeks of the key's first signal
NOTABLE_AT = 3
NEW_LEAD = pd.Timedelta(weeks=26)


def _week_start(as_of: datetime, k: int) -> pd.Timestamp:
    """Start of week ``W{k}`` (k in -11…0): W0 is the last complete week before as_of's week."""
    day = pd.Timestamp(as_of).normalize()
    current = day - pd.Timedelta(days=day.weekday())
    return current + pd.Timedelta(weeks=k - 1)


def trend_metrics(
    mentions: pd.DataFrame, signals: pd.DataFrame, as_of: datetime, kind: str
) -> pd.DataFrame:
    """One row per key with the §7 fields and labels, sorted by key."""
    window_start = _week_start(as_of, -11)
    window_end = _week_start(as_of, 0) + pd.Timedelta(weeks=1)
    known = signals[signals["published_at"] <= pd.Timestamp(as_of)]

    pairs = mentions[["signal_id", "key"]].drop_duplicates()
    pairs = pairs.merge(known[["signal_id", "published_at", "domain"]], on="signal_id")

    out = pairs.groupby("key").agg(
        signal_count=("signal_id", "size"),
        first_seen=("published_at", "min"),
        last_seen=("published_at", "max"),
    )
    # the NOTABLE_AT-th earliest signal of each key, first_seen for keys with fewer
    ordered = pairs.sort_values(["key", "published_at"], kind="stable")
    nth = ordered[ordered.groupby("key").cumcount() == NOTABLE_AT - 1]
    out["notable_since"] = (
        nth.set_index("key")["published_at"].reindex(out.index).fillna(out["first_seen"])
    )

    in_window = (pairs["published_at"] >= window_start) & (pairs["published_at"] < window_end)
    windowed = pairs[in_window].copy()
    windowed["week"] = (windowed["published_at"] - window_start) // pd.Timedelta(weeks=1)
    counts = (
        windowed.groupby(["key", "week"])
        .size()
        .unstack(fill_value=0)
        .reindex(index=out.index, columns=range(WEEKS), fill_value=0)
    )

    known_window = known[
        (known["published_at"] >= window_start) & (known["published_at"] < window_end)
    ].copy()
    known_window["week"] = (known_window["published_at"] - window_start) // pd.Timedelta(weeks=1)
    totals = known_window.groupby("week")["signal_id"].nunique().reindex(range(WEEKS), fill_value=0)

    recent, mid, prior = counts[[8, 9, 10, 11]], counts[[4, 5, 6, 7]], counts[list(range(8))]
    k1, k_mid, k2 = recent.sum(axis=1), mid.sum(axis=1), prior.sum(axis=1)
    n1, n2 = int(totals[8:].sum()), int(totals[:8].sum())
    history = counts.div(totals.replace(0, np.nan), axis=1).fillna(0.0)

    out["current_week"] = counts[11]
    out["prior_week"] = counts[10]
    out["share_of_voice"] = k1 / n1 if n1 else 0.0
    out["share_of_voice_history"] = history.values.tolist()

    grew = counts.diff(axis=1).iloc[:, 1:] > 0  # week j grew over week j-1, inside the window
    out["streak"] = grew.iloc[:, ::-1].cumprod(axis=1).sum(axis=1)

    wow = (counts[11] - counts[10]) / counts[10].clip(lower=1)
    wow_before = (counts[10] - counts[9]) / counts[9].clip(lower=1)
    out["momentum_wow"] = wow
    out["momentum_4w"] = (k1 - k_mid) / k_mid.clip(lower=1)
    out["acceleration"] = wow - wow_before

    base = counts[list(range(11))]
    out["z_score"] = (counts[11] - base.mean(axis=1)) / base.std(axis=1, ddof=1).clip(lower=1)
    active = (counts >= 1).sum(axis=1)
    out["persistence"] = active / WEEKS
    out["source_diversity"] = (
        windowed.groupby("key")["domain"].nunique().reindex(out.index, fill_value=0)
    )
    out["window_mentions"] = counts.sum(axis=1)
    out["active_weeks"] = active
    out["recent_mentions"] = k1
    out["prior_mentions"] = k2
    out["recent_total"] = n1
    out["prior_total"] = n2

    eligible = out["signal_count"] >= 8

    # direction: r = (k1/n1) / (k2/n2) against 1.25 and 0.8, decided in integers.
    has_recent, has_prior = (k1 > 0) & (n1 > 0), (k2 > 0) & (n2 > 0)
    direction = np.select(
        [
            ~has_recent & ~has_prior,
            ~has_prior,
            ~has_recent,
            4 * k1 * n2 >= 5 * k2 * n1,
            5 * k1 * n2 <= 4 * k2 * n1,
        ],
        ["Stable", "Rising", "Declining", "Rising", "Declining"],
        default="Stable",
    )
    direction = pd.Series(direction, index=out.index, dtype=object)
    if kind == "entity":
        notable = out["notable_since"]
        new = (notable >= _week_start(as_of, -3)) & (notable - out["first_seen"] <= NEW_LEAD)
        direction[new] = "New"
    out["direction"] = direction.where(eligible, None)

    # stability: coefficient of variation (population std / mean) of the 12 weekly shares.
    mean, std = history.mean(axis=1), history.std(axis=1, ddof=0)
    cv = (std / mean).where(mean > 0, 0.0)
    volatile = cv.map(lambda x: float(f"{x:.12g}")) > 0.5
    out["stability"] = np.where(volatile, "Volatile", "Steady")
    out["stability"] = out["stability"].where(eligible, None)

    # confidence: conditional binomial test per eligible key, Benjamini–Hochberg across them.
    def p_value(row: pd.Series) -> float:
        a, b = int(row["recent_mentions"]), int(row["prior_mentions"])
        if a + b == 0 or n1 == 0 or n2 == 0:
            return 1.0
        return float(binomtest(a, a + b, n1 / (n1 + n2)).pvalue)

    chosen = out[eligible]
    if len(chosen):
        raw = chosen.apply(p_value, axis=1)
        out["p_value"] = pd.Series(false_discovery_control(raw, method="bh"), index=chosen.index)
    else:
        out["p_value"] = np.nan
    out["confidence"] = np.where(out["p_value"] < 0.05, "Significant", "Insignificant")
    out["confidence"] = out["confidence"].where(out["p_value"].notna(), None)

    # scale (entities): rank eligible keys by window mentions, signal_count desc, key asc.
    if kind == "entity":
        ranked = (
            out[eligible]
            .reset_index()
            .sort_values(["window_mentions", "signal_count", "key"], ascending=[False, False, True])
        )
        n = len(ranked)
        rank = np.arange(1, n + 1)
        ranked["scale"] = np.select(
            [rank <= -(-n // 10), rank <= -(-7 * n // 20)], ["Large", "Medium"], default="Small"
        )
        out["scale"] = ranked.set_index("key")["scale"].reindex(out.index).fillna("Small")
        base_points = out["scale"].map({"Large": 3, "Medium": 2, "Small": 1})
    else:
        out["scale"] = None
        base_points = 2

    points = (
        base_points
        + (out["source_diversity"] >= 5).astype(int)
        + (out["persistence"] >= 0.5).astype(int)
        + (out["confidence"] == "Significant").astype(int)
    )
    out["notability_points"] = points.where(eligible)
    out["notability"] = np.select(
        [points >= 5, points == 4, points == 3], ["High", "Medium", "Low"], default="Negligible"
    )
    out["notability"] = out["notability"].where(eligible, None)

    def reasoning(row: pd.Series) -> str | None:
        if pd.isna(row["notability"]):
            return None
        scale = row["scale"] if kind == "entity" else None
        points_of = {"Large": 3, "Medium": 2, "Small": 1}
        base = f"scale {scale} +{points_of[scale]}" if scale else "theme base +2"
        diversity, active = int(row["source_diversity"]), int(row["active_weeks"])
        return (
            f"{row['notability']} ({int(row['notability_points'])} points): {base}, "
            f"{diversity} source domains ({'≥' if diversity >= 5 else '<'} 5) "
            f"+{int(diversity >= 5)}, "
            f"persistence {active}/{WEEKS} ({'≥' if 2 * active >= WEEKS else '<'} 0.5) "
            f"+{int(2 * active >= WEEKS)}, "
            f"change {row['confidence']} +{int(row['confidence'] == 'Significant')}."
        )

    out["notability_reasoning"] = out.apply(reasoning, axis=1)
    return out.sort_index().reset_index()


def co_occurrence(mentions: pd.DataFrame) -> pd.DataFrame:
    """Signals containing both keys, for every ordered pair of distinct keys."""
    pairs = mentions[["signal_id", "key"]].drop_duplicates()
    both = pairs.merge(pairs, on="signal_id", suffixes=("_a", "_b"))
    both = both[both["key_a"] != both["key_b"]]
    return (
        both.groupby(["key_a", "key_b"])
        .size()
        .rename("count")
        .reset_index()
        .sort_values(["key_a", "key_b"], ignore_index=True)
    )
