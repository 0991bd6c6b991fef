"""``aimi encoder export``: the search query encoder exported to ONNX in the model cache
(``warehouse.onnx_encoder``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import echo
from warehouse.onnx_encoder import Precision

encoder_app = typer.Typer(
    help="The search query encoder: MiniLM exported to ONNX and run by ONNX Runtime "
    "(AIMI_QUERY_ENCODER selects it, AIMI_MODEL_CACHE says where the file lives).",
    no_args_is_help=True,
)


@encoder_app.command("export")
def encoder_export(
    force: Annotated[
        bool, typer.Option("--force", help="Export even when the file is current.")
    ] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="Model cache folder (default: AIMI_MODEL_CACHE or ~/.cache/aimi).",
            show_default=False,
        ),
    ] = None,
    precision: Annotated[
        Precision | None,
        typer.Option(
            "--precision",
            help="Weights of the exported file (default: the one AIMI_QUERY_ENCODER serves; "
            "int8 when it is torch).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Export the query encoder to ONNX in the model cache, unless it is current there.

    MiniLM is exported from the packaged weights and optimized for ONNX Runtime (int8 weights
    for the default `onnx-int8` encoder); a file made from the same weights with the same torch,
    onnx and onnxruntime is kept. `make setup` runs this; otherwise a server exports when it
    starts (a few seconds of CPU), and searches with the torch encoder if it cannot. Exit
    status 1 when the export fails, 2 for an unknown precision.
    """
    from warehouse.onnx_encoder import export_onnx, onnx_model_path
    from warehouse.settings import load_settings

    settings = load_settings()
    chosen: Precision = precision or ("fp32" if settings.query_encoder == "onnx" else "int8")
    dest = onnx_model_path(cache_dir or settings.model_cache, chosen)
    try:
        outcome = export_onnx(dest, precision=chosen, force=force)
    # any failure is reported as one line: search still works, on the torch encoder
    except Exception as exc:
        echo(f"encoder: export to {dest} failed ({type(exc).__name__}: {exc})", err=True)
        raise typer.Exit(1) from exc
    sha = outcome.record.source_sha256[:12]
    if outcome.exported:
        echo(f"encoder: exported {dest} in {outcome.seconds:.1f} s (weights sha256 {sha}…)")
    else:
        echo(f"encoder: {dest} is current (weights sha256 {sha}…); nothing to do")
