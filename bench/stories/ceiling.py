"""How far the stories' evidence goes (issue 31): the judged event pairs scored by pair
classifiers over everything the clustering may read, not by a clustering.

Usage:
    .venv/bin/python -m bench.stories.ceiling --warehouse DIR/warehouse --title-text F \
        [--judged bench/stories/event_pairs_judged.json] [--boot 2000] [--json OUT]
    # how far two readings of the same pairs agree (no warehouse needed)
    .venv/bin/python -m bench.stories.ceiling --agreement bench/stories/event_pairs_rejudged.json

The inputs, the judged pool and the estimator are those of ``events.py`` (same build, same
strata cut by year, same cells). Every pair of the pool gets the evidence the issue lets a
story method use: the MiniLM cosine of the two posts' title + text and of their unit vectors,
the overlap of their entities, the cosine of their IDF-weighted terms (IDF over the served
signals of the later post's day and the ``term_days`` days before it, as the clustering weighs
a day's pairs), the days between them, and whether they share an author or a site. A
*classifier* groups the pool's pairs whose score reaches a threshold, pair by pair: it need not
be a clustering (no transitivity, no growth across days) and never groups a pair outside the
pool. It says what these scores of the evidence reach, not what any use of it could.

Scored, each year in turn:

- each piece of evidence alone and the day similarity the clustering uses (units + entity
  weight x entities + term weight x terms), its threshold chosen on the *other* year by the
  estimator's F1, and the best threshold on the year itself (chosen on what it is scored on:
  optimistic);
- weighted logistic regressions, *linear* over the evidence and *quadratic* (every product of
  two pieces and the square of each that is not 0/1 added), each judged pair weighed by its
  stratum's size over its stratum's judged pairs: fitted on the other year, the threshold
  chosen there, then scored on this year; and fitted on this year itself (in sample:
  optimistic);
- the shipped clustering, on the same resamples (paired differences against it).

A threshold is only chosen among those whose grouped pairs lie in judged cells but for at most
``MAX_OUTSIDE`` of them (``unknown_grouped``, reported). The intervals resample the judged
pairs with the fit and the threshold held fixed. Each score's weighted AUC over the year's
judged pairs is reported beside it.

``--agreement`` compares a second reading of some judged pairs (``event_pairs_rejudged.json``)
with the committed verdicts: the share of pairs on which they agree, Cohen's kappa, and the
pairwise F1 of one reading scored against the other (symmetric) — what a method that judges as
a reader does would score against a reader, an upper reference for any method.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analytics.stories import TermIdf, signal_terms, sparse_dot
from bench.stories.events import (
    JUDGED,
    MAX_OUTSIDE,
    YEARS,
    Pair,
    by_year,
    cells,
    f1,
    from_cells,
    interval,
    load,
    load_judged,
    method_pairs,
    paired_gain,
    resamples,
    strata,
    strata_of,
    yearly,
)
from bench.stories.variants import BenchParams

FEATURES = ("title_text", "units", "entities", "terms", "days_apart", "same_author", "same_site")
BINARY = tuple(name.startswith("same_") for name in FEATURES)
# the days apart are capped: the pool's pairs are at most a story's span apart, a few farther
MAX_DAYS = 4
# scored alone, each with its threshold (the yes/no evidence and the days only inside the fit)
SCORED_ALONE = ("title_text", "units", "entities", "terms", "day similarity")
THRESHOLDS = 200
RIDGE = 1e-2


def scored_by(name: str, x: np.ndarray, params: BenchParams) -> np.ndarray:
    """One piece of evidence of ``x``'s rows (a name of ``FEATURES``), or ``"day similarity"``:
    the clustering's own similarity of a day's pairs."""
    if name != "day similarity":
        return np.asarray(x[:, FEATURES.index(name)])
    column = {n: k for k, n in enumerate(FEATURES)}
    return np.asarray(
        x[:, column["units"]]
        + params.entity_weight * x[:, column["entities"]]
        + params.term_weight * x[:, column["terms"]]
    )


def pool_pairs(pools: dict[str, set[Pair]]) -> list[Pair]:
    """Every pair of the judged pool's strata, sorted."""
    return sorted(set().union(*(pools[n] for n in strata_of(pools))))


def features(data: dict[str, Any], pairs: list[Pair], params: BenchParams) -> np.ndarray:
    """One row of ``FEATURES`` per pair."""
    social = data["social"]
    index = {sid: i for i, sid in enumerate(data["ids"])}
    served = data["served"]
    served_index = {sid: i for i, sid in enumerate(served["signal_id"].to_list())}
    text_vectors, unit_vectors = data["vectors"], data["signal_vectors"]
    authors = social["author"].fill_null("").to_list()
    sites = social["domain"].fill_null("").to_list()
    days = data["days"]
    # the served signals' terms, day by day, for the IDF each pair's later day sees
    texts = (served["title"].fill_null("") + " " + served["text"].fill_null("")).to_list()
    served_days = served["published_at"].dt.date().to_list()
    terms = {sid: signal_terms(t) for sid, t in zip(served["signal_id"], texts, strict=True)}
    by_day: dict[Any, list[str]] = {}
    for sid, day in zip(served["signal_id"].to_list(), served_days, strict=True):
        by_day.setdefault(day, []).append(sid)
    later: dict[Any, list[int]] = {}
    for k, (a, b) in enumerate(pairs):
        later.setdefault(max(days[index[a]], days[index[b]]), []).append(k)
    term_cosine = np.zeros(len(pairs))
    idf = TermIdf(params.term_days)
    for day in sorted(by_day):
        idf.add_day(day, [terms[s] for s in by_day[day]])
        for k in later.get(day, ()):
            a, b = pairs[k]
            va, vb = idf.vectors([terms[a], terms[b]])
            term_cosine[k] = sparse_dot(va, vb)
    entity_sets = data["entities"]
    out = np.zeros((len(pairs), len(FEATURES)))
    for k, (a, b) in enumerate(pairs):
        i, j = index[a], index[b]
        ea, eb = entity_sets.get(a, frozenset()), entity_sets.get(b, frozenset())
        union = len(ea | eb)
        out[k] = (
            float(text_vectors[i] @ text_vectors[j]),
            float(unit_vectors[served_index[a]] @ unit_vectors[served_index[b]]),
            len(ea & eb) / union if union else 0.0,
            term_cosine[k],
            min(abs((days[i] - days[j]).days), MAX_DAYS),
            float(authors[i] == authors[j] and authors[i] != ""),
            float(sites[i] == sites[j] and sites[i] != ""),
        )
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted logistic regression by Newton's method on ``x`` standardized by the weighted
    mean and spread, with a ridge on the slopes of ``RIDGE`` times the total weight (a row of
    weight 2 counts as the row twice; scaling every weight changes nothing); returns the
    coefficients on the raw features, intercept last."""
    w = weights / weights.sum()
    mean = w @ x
    scale = np.sqrt(w @ (x - mean) ** 2)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    ridge = np.full(z.shape[1], RIDGE)
    ridge[-1] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (w * (p - y)) + ridge * beta
        hessian = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(ridge)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    else:
        raise RuntimeError("the logistic fit did not converge in 100 Newton steps")
    slopes = beta[:-1] / scale
    return np.append(slopes, beta[-1] - float(slopes @ mean))


def logistic_score(x: np.ndarray, beta: np.ndarray) -> np.ndarray:
    return np.asarray(x @ beta[:-1] + beta[-1])


def quadratic(x: np.ndarray, binary: Sequence[bool] | None = None) -> np.ndarray:
    """``x`` with every product of two of its columns and the square of every column that is
    not 0/1 (``binary``, one flag per column: ``FEATURES``' when None) appended."""
    k = x.shape[1]
    flags = BINARY if binary is None else tuple(binary)
    products = [x[:, i] * x[:, j] for i in range(k) for j in range(i + 1, k)]
    squares = [x[:, i] ** 2 for i in range(k) if not flags[i]]
    return np.column_stack([x, *products, *squares])


def weighted_auc(scores: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """The weighted share of (same-event, other) pairs of judged pairs that ``scores`` orders
    right (ties count half)."""
    pos, neg = y == 1, y == 0
    sp, sn = scores[pos][:, None], scores[neg][None, :]
    wp, wn = weights[pos][:, None], weights[neg][None, :]
    right = (wp * wn * ((sp > sn) + 0.5 * (sp == sn))).sum()
    return float(right / (weights[pos].sum() * weights[neg].sum()))


def judged_weights(judged: list[dict[str, Any]], pools: dict[str, set[Pair]]) -> np.ndarray:
    """Each judged pair's weight: its stratum's size over its stratum's judged pairs (each
    stratum drawn uniformly)."""
    counts: dict[str, int] = {}
    for r in judged:
        counts[r["stratum"]] = counts.get(r["stratum"], 0) + 1
    return np.asarray([len(pools[r["stratum"]]) / counts[r["stratum"]] for r in judged])


class Year:
    """One year's judged pairs, strata, pool pairs and their evidence."""

    def __init__(
        self,
        data: dict[str, Any],
        judged: list[dict[str, Any]],
        pools: dict[str, set[Pair]],
        x: dict[Pair, np.ndarray],
        shipped: set[Pair],
        year: int,
        rounds: int,
    ) -> None:
        self.judged, self.pools, methods = by_year(data, judged, pools, {"s": shipped}, year)
        self.shipped = methods["s"]
        self.pairs = pool_pairs(self.pools)
        self.x = np.stack([x[p] for p in self.pairs])
        row = {p: k for k, p in enumerate(self.pairs)}
        # each judged pair's row of ``self.pairs``
        self.judged_rows = np.asarray([row[(r["a"], r["b"])] for r in self.judged])
        self.judged_x = self.x[self.judged_rows]
        self.y = np.asarray([float(r["same_event"]) for r in self.judged])
        self.weights = judged_weights(self.judged, self.pools)
        self.boots = resamples(self.judged, rounds)

    def grouped(self, scores: np.ndarray, threshold: float) -> set[Pair]:
        return {p for p, s in zip(self.pairs, scores, strict=True) if s >= threshold}

    def figures(self, grouped: set[Pair]) -> dict[str, float]:
        sizes, rows = cells(self.judged, self.pools, grouped)
        return from_cells(sizes, rows)

    def best_threshold(self, scores: np.ndarray) -> tuple[float, float]:
        """The threshold (among quantiles of ``scores``) with the highest estimated F1 here,
        among those whose grouped pairs in unjudged cells are at most ``MAX_OUTSIDE`` of
        them."""
        candidates = np.unique(np.quantile(scores, np.linspace(0.0, 0.995, THRESHOLDS)))
        best, best_f1 = float(candidates[0]), -1.0
        for t in candidates:
            grouped = self.grouped(scores, float(t))
            figures = self.figures(grouped)
            if figures["unknown_grouped"] > MAX_OUTSIDE * max(len(grouped), 1):
                continue
            if f1(figures) > best_f1:
                best, best_f1 = float(t), f1(figures)
        return best, best_f1

    def auc(self, scores: np.ndarray) -> float:
        """The weighted AUC of ``scores`` (row-aligned with ``self.pairs``) over the judged
        pairs."""
        return weighted_auc(scores[self.judged_rows], self.y, self.weights)

    def report(self, grouped: set[Pair]) -> dict[str, Any]:
        """Precision, recall, F1 with 95 % intervals, and the F1 gain over the shipped
        clustering on the same resamples."""
        sizes, rows = cells(self.judged, self.pools, grouped)
        point = from_cells(sizes, rows)
        samples = [from_cells(sizes, [rows[i] for i in b]) for b in self.boots]
        out: dict[str, Any] = {
            "pairs": len(grouped),
            "unknown_grouped": int(point["unknown_grouped"]),
        }
        for k in ("precision", "recall"):
            out[k] = [round(point[k], 3), *interval([s[k] for s in samples])]
        out["f1"] = [round(f1(point), 3), *interval([f1(s) for s in samples])]
        out["minus_shipped"] = paired_gain(
            self.judged, self.pools, grouped, self.shipped, self.boots
        )
        return out


def agreement(first: list[bool], second: list[bool]) -> dict[str, float]:
    """Two readings of the same pairs: agreement, Cohen's kappa, and the F1 of one against the
    other."""
    n = len(first)
    both = sum(a and b for a, b in zip(first, second, strict=True))
    agree = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return {
        "pairs": n,
        "agreement": agree,
        "kappa": (agree - chance) / (1 - chance) if chance < 1 else 1.0,
        "yes_first": sum(first),
        "yes_second": sum(second),
        "yes_both": both,
        "f1": 2 * both / (sum(first) + sum(second)) if sum(first) + sum(second) else 1.0,
    }


def compare_readings(judged_path: Path, second_path: Path, rounds: int) -> dict[str, Any]:
    """The second reading's pairs against their committed verdicts, per ``sample`` (and over
    every sample when there are several), all of them and without the pairs the second reader
    marked close (the F1 with a 95 % bootstrap interval)."""
    committed = {
        (min(r["a"], r["b"]), max(r["a"], r["b"])): bool(r["same_event"])
        for r in json.loads(judged_path.read_text())["pairs"]
    }
    rows = json.loads(second_path.read_text())["pairs"]
    missing = [r for r in rows if (min(r["a"], r["b"]), max(r["a"], r["b"])) not in committed]
    if missing:
        raise SystemExit(f"{len(missing)} pairs of {second_path} were never judged")
    samples = sorted({r.get("sample", "all") for r in rows})
    groups = {s: [r for r in rows if r.get("sample", "all") == s] for s in samples}
    if len(samples) > 1:
        groups["every sample"] = rows
    out: dict[str, Any] = {}
    for sample, in_sample in groups.items():
        for name, keep in (
            (sample, in_sample),
            (f"{sample}, not close", [r for r in in_sample if not r["close"]]),
        ):
            first = [committed[(min(r["a"], r["b"]), max(r["a"], r["b"]))] for r in keep]
            second = [bool(r["same_event"]) for r in keep]
            out[name] = agreement(first, second)
            rng = random.Random(20261202)
            f1s = []
            for _ in range(rounds):
                picked = rng.choices(range(len(keep)), k=len(keep))
                f1s.append(agreement([first[i] for i in picked], [second[i] for i in picked])["f1"])
            out[name]["f1_interval"] = interval(f1s)
            print(f"{name}: {out[name]}")
    return out


def _identity(x: np.ndarray) -> np.ndarray:
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, help="a data dir's warehouse/")
    parser.add_argument("--title-text", type=Path, help="from embed_cache.py")
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap rounds")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument(
        "--agreement", type=Path, help="a second reading of judged pairs: compare the two"
    )
    args = parser.parse_args()
    if args.agreement:
        result = compare_readings(args.judged, args.agreement, args.boot)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return
    if args.warehouse is None or args.title_text is None:
        parser.error("--warehouse and --title-text are needed (or --agreement)")
    params = BenchParams()
    data = load(args.warehouse, args.title_text)
    pools = strata(data)
    judged = load_judged(data, args.judged, pools)
    shipped = method_pairs(data, params)
    judged, pools = yearly(data, judged, pools)
    everything = pool_pairs(pools)
    matrix = features(data, everything, params)
    x = dict(zip(everything, matrix, strict=True))
    years = {y: Year(data, judged, pools, x, shipped, y, args.boot) for y in YEARS}
    report: dict[str, Any] = {}
    for year, here in years.items():
        other = years[next(y for y in YEARS if y != year)]
        rows: dict[str, Any] = {"shipped clustering": here.report(here.shipped)}
        print(f"{year}: shipped clustering {rows['shipped clustering']}")
        for shape, expand in (("linear", _identity), ("quadratic", quadratic)):
            for fitted_on in (other, here):
                beta = fit_logistic(expand(fitted_on.judged_x), fitted_on.y, fitted_on.weights)
                threshold, _ = fitted_on.best_threshold(logistic_score(expand(fitted_on.x), beta))
                scores = logistic_score(expand(here.x), beta)
                out = here.report(here.grouped(scores, threshold))
                out["auc"] = round(here.auc(scores), 3)
                if shape == "linear":
                    names = (*FEATURES, "intercept")
                    out["coefficients"] = dict(zip(names, np.round(beta, 3).tolist(), strict=True))
                where = "the other year" if fitted_on is other else "this year (in sample)"
                name = f"logistic, {shape}, fitted on {where}"
                rows[name] = out
                print(f"  {name}: {out}")
        for name in SCORED_ALONE:
            scores = scored_by(name, here.x, params)
            threshold, _ = other.best_threshold(scored_by(name, other.x, params))
            out = here.report(here.grouped(scores, threshold))
            own, own_f1 = here.best_threshold(scores)
            out |= {
                "threshold": round(threshold, 3),
                "best_here": [round(own, 3), round(own_f1, 3)],
                "auc": round(here.auc(scores), 3),
            }
            rows[name] = out
            print(f"  {name}: {out}")
        report[str(year)] = rows
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
