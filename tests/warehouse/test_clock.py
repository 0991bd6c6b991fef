"""The data dir's remembered clock (``warehouse.clock``): pinned, read back, forgotten, and
never guessed when its file is damaged; and the one rule that decides a run's clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from warehouse.clock import ClockFileError, EffectiveClock, effective_clock, pin, read_pinned, unpin
from warehouse.paths import DataDir
from warehouse.settings import Settings


def test_a_pinned_clock_reads_back_in_utc(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")  # created on pin
    assert read_pinned(data) is None
    paris = timezone(timedelta(hours=1))
    now = datetime(2026, 11, 25, 12, tzinfo=UTC)
    pinned = pin(data, datetime(2026, 10, 28, 1, tzinfo=paris), by="aimi build --demo", now=now)
    assert read_pinned(data) == pinned
    assert pinned.as_of == datetime(2026, 10, 28, tzinfo=UTC)
    assert json.loads(data.clock_file.read_text()) == {
        "as_of": "2026-10-28T00:00:00+00:00",
        "pinned_at": "2026-11-25T12:00:00+00:00",
        "by": "aimi build --demo",
    }


def test_pinning_again_replaces_and_unpin_forgets(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    pin(data, datetime(2026, 1, 1, tzinfo=UTC), by="first")
    pin(data, datetime(2026, 2, 1, tzinfo=UTC), by="second")
    pinned = read_pinned(data)
    assert pinned is not None and (pinned.as_of.month, pinned.by) == (2, "second")
    assert unpin(data) is True
    assert read_pinned(data) is None
    assert unpin(data) is False


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", '{"as_of": "yesterday", "pinned_at": "2026-01-01"}', '{"by": "x"}'],
)
def test_a_damaged_clock_file_is_an_error_that_names_the_fix(tmp_path: Path, content: str) -> None:
    data = DataDir(tmp_path)
    data.clock_file.write_text(content)
    with pytest.raises(ClockFileError, match=r"clock\.json cannot be read.*--wall-clock"):
        read_pinned(data)


def test_the_effective_clock_is_the_runs_own_then_the_environment_then_the_pin(
    tmp_path: Path,
) -> None:
    data = DataDir(tmp_path)
    unset, environment = Settings(as_of=None), Settings(as_of="2026-01-01")
    own = datetime(2025, 6, 30, tzinfo=UTC)
    assert effective_clock(data, settings=unset) == EffectiveClock("wall")
    pinned = pin(data, datetime(2026, 10, 28, tzinfo=UTC), by="aimi build --demo")
    assert effective_clock(data, settings=unset) == EffectiveClock("pinned", pinned.as_of, pinned)
    assert effective_clock(data, settings=environment) == EffectiveClock(
        "environment", datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert effective_clock(data, own=own, settings=environment) == EffectiveClock("run", own)
    # a damaged file is never guessed over, unless something before it decides
    data.clock_file.write_text("{not json")
    with pytest.raises(ClockFileError):
        effective_clock(data, settings=unset)
    assert effective_clock(data, settings=environment).source == "environment"
