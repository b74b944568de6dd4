from datetime import datetime, timedelta

import pytest

from core.schema import KYIV
from tenders import workdays


def kyiv(*args) -> datetime:
    return datetime(*args, tzinfo=KYIV)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (kyiv(2026, 11, 26, 10, 0), kyiv(2026, 11, 30, 10, 0)),  # Thursday -> Monday
        (kyiv(2026, 11, 27, 15, 30), kyiv(2026, 12, 1, 15, 30)),  # Friday -> Tuesday
        (kyiv(2026, 11, 23, 9, 0), kyiv(2026, 11, 25, 9, 0)),  # Monday -> Wednesday
        # A decision on a day off counts from the next midnight.
        (kyiv(2026, 11, 28, 10, 0), kyiv(2026, 12, 1, 0, 0)),  # Saturday -> Tuesday 00:00
        # Christmas 2021 and the day off moved from Saturday 16 January.
        (kyiv(2021, 1, 6, 12, 0), kyiv(2021, 1, 12, 12, 0)),
        # ...and that Saturday was a working day.
        (kyiv(2021, 1, 14, 10, 0), kyiv(2021, 1, 16, 10, 0)),
        # Across the switch to winter time the wall clock is kept.
        (kyiv(2026, 10, 23, 12, 0), kyiv(2026, 10, 27, 12, 0)),
    ],
)
def test_two_working_days(start, end):
    assert workdays.shift(start, timedelta(days=2), working_days=True) == end


def test_martial_law_holidays_are_working_days():
    # 8 March 2023 was a Wednesday and, under martial law, a working day.
    assert workdays.is_working_day(kyiv(2023, 3, 8).date())
    assert not workdays.is_working_day(kyiv(2023, 3, 11).date())


def test_calendar_days_ignore_the_calendar():
    start = kyiv(2026, 11, 27, 15, 30)
    assert workdays.shift(start, timedelta(days=3)) == kyiv(2026, 11, 30, 15, 30)


def test_accelerator_divides_and_ignores_days_off(settings):
    settings.SANDBOX_MODE = True
    speedup = workdays.accelerator("quick, accelerator=1440")
    assert speedup == 1440
    start = kyiv(2026, 11, 28, 10, 0)
    assert workdays.shift(
        start, timedelta(days=2), working_days=True, speedup=speedup
    ) == start + timedelta(minutes=2)


def test_accelerator_is_ignored_outside_the_sandbox(settings):
    settings.SANDBOX_MODE = False
    assert workdays.accelerator("quick, accelerator=1440") is None


@pytest.mark.parametrize("details", ["", "quick", "accelerator=x", None])
def test_no_accelerator(settings, details):
    settings.SANDBOX_MODE = True
    assert workdays.accelerator(details) is None
