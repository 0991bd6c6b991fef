"""Materialization metadata helpers for the Dagster UI: warehouse tables as asset specs with
their column schema, small frames as native tables (or Markdown), and charts as Markdown images
(embedded PNGs): the weekly volume of signals, of each theme, and the top movers."""

from __future__ import annotations

import base64
import io
from datetime import datetime

import dagster as dg
import polars as pl

WEEK = "week"
COUNT = "signals"


def markdown_table(frame: pl.DataFrame, *, max_rows: int = 20) -> str:
    """A Markdown table of the first ``max_rows`` rows; long cell values are shortened."""
    shown = frame.head(max_rows)
    head = "| " + " | ".join(shown.columns) + " |\n|" + "---|" * shown.width + "\n"
    rows = "".join("| " + " | ".join(_cell(v) for v in row) + " |\n" for row in shown.iter_rows())
    more = f"\n_{frame.height - max_rows} more rows_\n" if frame.height > max_rows else ""
    return head + rows + more


def column_schema(schema: pl.Schema) -> dg.TableSchema:
    """A Polars schema as Dagster's column schema (``dagster/column_schema``): each column with
    its Polars type, which the UI lists on the asset's page."""
    return dg.TableSchema(
        columns=[dg.TableColumn(name, str(dtype)) for name, dtype in schema.items()]
    )


def table_metadata(frame: pl.DataFrame) -> dict[str, dg.RawMetadataValue]:
    """What every materialization of a warehouse table records: its row count and the column
    schema of what was written (the declared schema, or the computed one for trend tables)."""
    return {
        "dagster/row_count": frame.height,
        "dagster/column_schema": column_schema(frame.schema),
    }


def warehouse_table(
    name: str,
    *,
    description: str,
    group_name: str,
    owner: str,
    schema: pl.Schema | None = None,
    deps: tuple[dg.AssetSpec | dg.AssetsDefinition | str, ...] = (),
    skippable: bool = False,
) -> dg.AssetSpec:
    """The asset of the warehouse table ``<data dir>/warehouse/<name>.parquet`` (the catalog's
    view ``name``), for a ``multi_asset`` that writes it beside others; ``schema`` is its
    declared column schema, when the table has one."""
    metadata: dict[str, dg.RawMetadataValue] = {"table": f"warehouse/{name}.parquet"}
    if schema is not None:
        metadata["dagster/column_schema"] = column_schema(schema)
    return dg.AssetSpec(
        name,
        description=description,
        group_name=group_name,
        owners=[owner],
        kinds={"polars", "parquet"},
        deps=list(deps),
        metadata=metadata,
        skippable=skippable,
    )


def graph_out(spec: dg.AssetSpec) -> dg.AssetOut:
    """``spec`` as the output of a graph-backed asset (``pipelines.chunks``), whose upstream
    tables are the graph's ``ins`` instead of the spec's ``deps``."""
    return dg.AssetOut.from_spec(spec.replace_attributes(deps=[]))


def native_table(frame: pl.DataFrame, *, max_rows: int = 20) -> dg.TableMetadataValue:
    """The first ``max_rows`` rows as Dagster table metadata, which the UI renders as a
    sortable table with typed columns. Values that are not numbers, booleans or text (times,
    lists) are shown as text, shortened like ``markdown_table``'s cells."""
    shown = frame.head(max_rows)
    records = [
        dg.TableRecord({name: _plain(value) for name, value in row.items()})
        for row in shown.iter_rows(named=True)
    ]
    return dg.MetadataValue.table(records, schema=column_schema(shown.schema))


def _plain(value: object) -> str | int | float | bool | None:
    if value is None or isinstance(value, str | int | float | bool):
        return _cell(value) if isinstance(value, str) else value
    return _cell(value)


def _cell(value: object) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def weekly_volume(published_at: pl.Series, *, weeks: int = 52) -> pl.DataFrame:
    """Rows per week (``week``: the Monday 00:00 UTC starting it; ``signals``: the count) over
    the last ``weeks`` weeks up to the latest timestamp, empty weeks included as zeros."""
    weekly = (
        published_at.drop_nulls()
        .dt.truncate("1w")
        .alias(WEEK)
        .to_frame()
        .group_by(WEEK)
        .len(COUNT)
        .sort(WEEK)
    )
    if weekly.is_empty():
        return weekly
    return weekly.upsample(WEEK, every="1w").with_columns(pl.col(COUNT).fill_null(0)).tail(weeks)


def weekly_volume_plot(weekly: pl.DataFrame, *, title: str = "signals per week") -> str:
    """A bar chart of a ``weekly_volume`` frame as Markdown: an image whose source is a base64
    PNG data URI, which the Dagster UI shows inline with the rest of the metadata."""
    if weekly.is_empty():
        return "_no rows yet: nothing to plot_"
    # Imported here: the Agg canvas needs no display and no pyplot state, and only the asset
    # that plots pays for matplotlib's import. One filled step patch, plain week indices and a
    # fixed layout keep a render well under the cost of a bar per week with date tickers.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    weeks: list[datetime] = weekly[WEEK].to_list()
    figure = Figure(figsize=(8, 2.5), dpi=80)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.07, right=0.99, bottom=0.14, top=0.88)
    axes = figure.add_subplot()
    axes.stairs(weekly[COUNT].to_list(), range(len(weeks) + 1), fill=True, color="#4c72b0")
    step = max(1, len(weeks) // 8)
    ticks = list(range(0, len(weeks), step))
    axes.set_xticks(ticks, [f"{weeks[i]:%Y-%m-%d}" for i in ticks], fontsize=8)
    axes.set_xlim(0, len(weeks))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.tick_params(axis="y", labelsize=8)
    axes.set_title(f"{title} (weeks from Monday, UTC)", fontsize=10)
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure, title)


MOVER = "mover"
CHANGE = "share_change_pp"


def top_movers(
    metrics: pl.DataFrame,
    *,
    names: dict[str, str] | None = None,
    count: int = 8,
    min_signals: int = 8,
) -> pl.DataFrame:
    """The keys whose share of voice moved most between the 8 weeks before the last 4 and the
    last 4 (``recent_mentions / recent_total`` against ``prior_mentions / prior_total``, in
    percentage points): up to ``count`` risers and ``count`` fallers among keys with at least
    ``min_signals`` signals, largest rise first, largest fall last. ``mover`` is the key's
    display name from ``names`` (else the key); keys that did not move are left out."""
    recent = pl.col("recent_mentions") / pl.when(pl.col("recent_total") > 0).then(
        pl.col("recent_total")
    )
    prior = pl.col("prior_mentions") / pl.when(pl.col("prior_total") > 0).then(
        pl.col("prior_total")
    )
    moved = (
        metrics.filter(pl.col("signal_count") >= min_signals)
        .select(
            pl.col("key"),
            (100 * (recent.fill_null(0.0) - prior.fill_null(0.0))).alias(CHANGE),
        )
        .filter(pl.col(CHANGE) != 0)
    )
    risers = moved.filter(pl.col(CHANGE) > 0).sort(CHANGE, "key", descending=[True, False])
    fallers = moved.filter(pl.col(CHANGE) < 0).sort(CHANGE, "key", descending=[False, False])
    chosen = pl.concat([risers.head(count), fallers.head(count).reverse()])
    names = names or {}
    return chosen.select(
        pl.col("key").replace_strict(names, default=pl.col("key")).alias(MOVER),
        "key",
        CHANGE,
    )


def _png(figure: object, title: str) -> str:
    from matplotlib.figure import Figure

    assert isinstance(figure, Figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"![{title}](data:image/png;base64,{encoded})"


def movers_plot(movers: pl.DataFrame, *, title: str = "top movers") -> str:
    """A ``top_movers`` frame as a horizontal bar chart in Markdown (an embedded PNG): risers
    above, in green, fallers below, in red, each bar the change in share of voice."""
    if movers.is_empty():
        return "_no key with enough signals moved: nothing to plot_"
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels = [_short(label) for label in movers[MOVER].to_list()]
    changes = movers[CHANGE].to_list()
    figure = Figure(figsize=(8, 0.6 + 0.28 * len(labels)), dpi=80)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.32, right=0.97, bottom=0.5 / (0.6 + 0.28 * len(labels)), top=0.9)
    axes = figure.add_subplot()
    rows = list(range(len(labels)))[::-1]  # the first row on top
    axes.barh(rows, changes, color=["#2e7d32" if c > 0 else "#c62828" for c in changes])
    axes.set_yticks(rows, labels, fontsize=8)
    axes.axvline(0, color="#555", linewidth=0.8)
    axes.tick_params(axis="x", labelsize=8)
    axes.set_xlabel("share of voice, last 4 weeks vs the 8 before (percentage points)", fontsize=8)
    axes.set_title(title, fontsize=10)
    axes.spines[["top", "right"]].set_visible(False)
    return _png(figure, title)


def weekly_lines_plot(
    weekly: pl.DataFrame, *, panels: dict[str, tuple[str, ...]], title: str
) -> str:
    """Weekly counts (``key``, ``week_start``, ``count``) as one line per key, in one panel per
    group of keys (``panels``: name to keys, e.g. the two theme axes), as Markdown (an
    embedded PNG)."""
    if weekly.is_empty():
        return "_no rows yet: nothing to plot_"
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    weeks: list[datetime] = weekly["week_start"].unique().sort().to_list()
    figure = Figure(figsize=(11, 3.2), dpi=80)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.05, right=0.99, bottom=0.3, top=0.88, wspace=0.15)
    for index, (panel, keys) in enumerate(panels.items(), start=1):
        axes = figure.add_subplot(1, len(panels), index)
        for key in keys:
            counts = weekly.filter(pl.col("key") == key).sort("week_start")
            if counts.height:
                axes.plot(range(counts.height), counts["count"].to_list(), label=_short(key))
        step = max(1, len(weeks) // 6)
        ticks = list(range(0, len(weeks), step))
        axes.set_xticks(ticks, [f"{weeks[i]:%m-%d}" for i in ticks], fontsize=8)
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.tick_params(axis="y", labelsize=8)
        axes.set_title(panel.replace("_", " "), fontsize=9)
        axes.spines[["top", "right"]].set_visible(False)
        axes.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    figure.suptitle(f"{title} (weeks from Monday, UTC)", fontsize=10)
    return _png(figure, title)


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"
