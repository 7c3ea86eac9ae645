"""base.budget.Speed: the one speed estimator (the engine's agents, run_batches, the perfect agent)."""
from __future__ import annotations

import pytest

from base.budget import Speed


def test_a_measurement_replaces_the_rate_by_default() -> None:
    s = Speed(100.0)
    assert s.units(2.0) == 200
    s.measure(3000, 1.5)
    assert s.rate == 2000.0
    s.measure(500, 1.0)
    assert s.rate == 500.0


def test_smoothing_keeps_a_moving_average() -> None:
    s = Speed(1000.0, smoothing=0.5)
    s.measure(3000, 1.0)
    assert s.rate == 2000.0
    s.measure(1000, 0.25)  # 4000/s
    assert s.rate == 3000.0
    s.measure(4000, 1.0)
    assert s.rate == 3500.0


def test_short_or_empty_measurements_are_ignored() -> None:
    s = Speed(10.0, min_seconds=0.02, smoothing=0.5)
    s.measure(1_000_000, 0.019)
    s.measure(0, 1.0)
    assert s.rate == 10.0
    s.measure(30, 0.02)  # 1500/s, just long enough
    assert s.rate == pytest.approx(755.0)


def test_reset_forgets_and_may_take_a_new_guess() -> None:
    s = Speed(10.0)
    s.measure(100, 1.0)
    s.reset()
    assert s.rate == 10.0
    s.reset(40.0)
    assert s.rate == 40.0 and s.guess == 40.0


def test_units_apply_share_and_floor() -> None:
    s = Speed(1000.0)
    assert s.units(1.0, share=0.75) == 750
    assert s.units(-1.0, floor=0) == 0 and s.units(-1.0) == 1
    assert s.units(0.0001, floor=5) == 5


@pytest.mark.parametrize("smoothing", [0.0, -0.5, 1.5])
def test_smoothing_outside_its_range_is_refused(smoothing: float) -> None:
    with pytest.raises(ValueError, match="smoothing"):
        Speed(1.0, smoothing=smoothing)
