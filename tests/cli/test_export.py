"""``aimi export``'s options: the formats it offers are the export's own."""

from __future__ import annotations

from typing import get_args

from cli.export import Format
from publishing.export import FORMATS


def test_the_cli_offers_the_export_formats() -> None:
    # spelled out in cli.export so that `aimi` starts without loading the service
    assert get_args(Format) == FORMATS
