"""Equal-jitter backoff and the choice of the next poll delay."""

from __future__ import annotations

import pytest

from jobgen.runtime.shared.policy import backoff, choose_delay


def half() -> float:
    return 0.5


@pytest.mark.parametrize(
    ("attempt", "rng", "expected"),
    [
        (0, 0.5, 1.5),
        (1, 0.5, 3.0),
        (2, 0.5, 6.0),
        (3, 0.5, 12.0),
        (4, 0.5, 22.5),
        (9, 0.5, 22.5),
        (0, 0.0, 1.0),
        (0, 1.0, 2.0),
        (10_000, 0.0, 15.0),
    ],
)
def test_backoff(attempt: int, rng: float, expected: float) -> None:
    assert backoff(attempt, first=1.0, cap=30.0, rng=lambda: rng) == expected


def test_longest_hint_wins_and_floor_applies() -> None:
    choose = {"attempt": 0, "first": 1.0, "cap": 30.0, "rng": half}
    assert choose_delay([(1.0, "hint"), (3.0, "retry-after")], floor=0, **choose) == (
        3.0,
        "retry-after",
    )
    assert choose_delay([(0.5, "hint")], floor=2.0, **choose) == (2.0, "floor")
    assert choose_delay([(2.0, "header"), (2.0, "hint")], floor=2.0, **choose) == (
        2.0,
        "header",
    )
    assert choose_delay([], floor=0.0, **choose) == (1.5, "backoff")
    assert choose_delay([], floor=5.0, **choose) == (5.0, "floor")


def test_zero_delay_never_happens() -> None:
    assert choose_delay(
        [(0.0, "retry-after")], attempt=0, floor=0.0, first=0.5, cap=30.0, rng=half
    ) == (0.5, "backoff")
    assert choose_delay([], attempt=3, floor=0.0, first=0.0, cap=0.0, rng=half) == (
        1.0,
        "backoff",
    )
