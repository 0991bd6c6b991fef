"""Write the API's OpenAPI document (``create_app().openapi()``, what ``/openapi.json`` serves)
to a file, for ``make client`` to generate the Python client from. No data dir or server is
needed: the document depends only on the code."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from pydantic import SecretStr

from serving.app import create_app
from warehouse.settings import Settings


def openapi_document() -> dict[str, object]:
    """The document ``/openapi.json`` serves, from an app that is never started."""
    with tempfile.TemporaryDirectory() as empty:
        settings = Settings(_env_file=None, data_dir=Path(empty), dev_api_key=SecretStr("unused"))
        document: dict[str, object] = create_app(settings).openapi()
        return document


def main(path: str) -> None:
    text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
