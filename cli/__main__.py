"""``python -m cli``: the ``aimi`` command line, where the console script is not installed."""

from __future__ import annotations

from cli.app import main

if __name__ == "__main__":
    main()
