"""The soak's publish schedule (tests/harness/soak.py, `make soak`, docs/deployment.md): a publish
that overruns its slot skips the slots it overran, never queues them. The soak itself runs for
20 minutes and is not in `make test`."""

from __future__ import annotations

from tests.harness.soak import next_slot


def test_a_publish_inside_its_slot_skips_nothing() -> None:
    assert next_slot(0, 45.0, 120.0, 10) == (1, [])
    assert next_slot(3, 400.0, 120.0, 10) == (4, [])


def test_a_publish_ending_on_a_slot_boundary_starts_the_next_at_once() -> None:
    assert next_slot(1, 240.0, 120.0, 10) == (2, [])


def test_an_overrun_skips_the_slots_it_covered_and_resumes_on_the_grid() -> None:
    # slot 2 (240 s) ran until 500 s: slots 3 (360 s) and 4 (480 s) are skipped, 5 is next
    assert next_slot(2, 500.0, 120.0, 10) == (5, [3, 4])


def test_slots_past_the_traffic_are_not_counted_as_skipped() -> None:
    # the last slot is 9 (1,080 s of a 20-minute run); a publish of slot 8 running past the end
    assert next_slot(8, 1250.0, 120.0, 10) == (11, [9])
    assert next_slot(9, 1250.0, 120.0, 10) == (11, [])
