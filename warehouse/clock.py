"""The data dir's remembered clock (docs/design.md §7).

A build with a fixed clock (``aimi build --as-of`` or ``--demo``) pins it here, in
``<data dir>/clock.json``; every later run of any kind — another ``aimi build``, a Dagster UI
run, the schedule, the sensor, an admin refresh — keeps that ``as_of`` until a build fixes
another or returns to the wall clock (``aimi build --wall-clock``). Without it, the first
sensor tick after ``make run`` republished the demo with the wall clock: the trend window slid
past the demo's last signal and every trend served was zero.

What decides a run's ``as_of``, first match wins: the run's own (``--as-of``), ``AIMI_AS_OF``,
this file, the wall clock. ``effective_clock`` is that rule, the one place it is written: runs
(``pipelines.resources``), ``aimi status``, the build's option checks and the admin refresh
all ask it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from warehouse.files import atomic_write_text
from warehouse.paths import DataDir
from warehouse.settings import Settings, load_settings, parse_as_of

# Where a run's ``as_of`` comes from: its own option, ``AIMI_AS_OF``, the pinned clock, or the
# wall clock (the run's own instant).
ClockSource = Literal["run", "environment", "pinned", "wall"]


@dataclass(frozen=True)
class PinnedClock:
    """A fixed ``as_of``, when it was pinned and by which command."""

    as_of: datetime
    pinned_at: datetime
    by: str

    def to_json(self) -> str:
        return (
            json.dumps(
                {
                    "as_of": self.as_of.isoformat(),
                    "pinned_at": self.pinned_at.isoformat(),
                    "by": self.by,
                },
                indent=2,
            )
            + "\n"
        )


class ClockFileError(ValueError):
    """``clock.json`` exists but cannot be read: a run must not guess its clock."""


def read_pinned(data: DataDir) -> PinnedClock | None:
    """The pinned clock, or None when the data dir follows the wall clock.

    Raises ``ClockFileError`` naming the file and the fix when it is unreadable: silently
    falling back to the wall clock is the trap this file exists to close.
    """
    path = data.clock_file
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return PinnedClock(
            as_of=parse_as_of(raw["as_of"]),
            pinned_at=parse_as_of(raw["pinned_at"]),
            by=str(raw.get("by", "")),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ClockFileError(
            f"{path} cannot be read ({type(exc).__name__}: {exc}); pin a clock again with "
            "`aimi build --as-of DATE`, or return to the wall clock with `aimi build --wall-clock`"
        ) from None


def pin(data: DataDir, as_of: datetime, *, by: str, now: datetime | None = None) -> PinnedClock:
    """Remember ``as_of`` for every later run of this data dir."""
    pinned = PinnedClock(as_of.astimezone(UTC), (now or datetime.now(UTC)).astimezone(UTC), by)
    data.root.mkdir(parents=True, exist_ok=True)
    atomic_write_text(data.clock_file, pinned.to_json())
    return pinned


def unpin(data: DataDir) -> bool:
    """Follow the wall clock again; True when a clock was pinned."""
    try:
        data.clock_file.unlink()
    except FileNotFoundError:
        return False
    return True


@dataclass(frozen=True)
class EffectiveClock:
    """The ``as_of`` a run takes and where it comes from; ``None`` on the wall clock (the run's
    own instant). ``pinned`` is the file's record when the source is ``pinned``."""

    source: ClockSource
    as_of: datetime | None = None
    pinned: PinnedClock | None = None


def effective_clock(
    data: DataDir, *, own: datetime | None = None, settings: Settings | None = None
) -> EffectiveClock:
    """The clock of a run over ``data`` (the module docstring's rule): ``own`` (the run's
    ``--as-of``), else ``AIMI_AS_OF`` (``settings``, read when not given), else the pinned
    clock, else the wall clock. Raises ``ClockFileError`` when it comes to an unreadable
    ``clock.json``."""
    if own is not None:
        return EffectiveClock("run", own)
    fixed = (settings or load_settings()).as_of
    if fixed is not None:
        return EffectiveClock("environment", fixed)
    pinned = read_pinned(data)
    if pinned is not None:
        return EffectiveClock("pinned", pinned.as_of, pinned)
    return EffectiveClock("wall")
