"""Durations the server computes: working days in Ukraine's calendar; the sandbox accelerator."""

import re
from datetime import date, datetime, time, timedelta
from functools import cache

import holidays
from django.conf import settings

from core.schema import KYIV

ACCELERATOR = re.compile(r"accelerator=(?P<accelerator>\d+)")


@cache
def _calendar():
    # Holidays that are days off (none while martial law suspends them), plus weekend days
    # moved to working days; the library expands to new years as they are asked for.
    return holidays.country_holidays("UA")


def is_working_day(day: date) -> bool:
    return _calendar().is_working_day(day)


def accelerator(procurement_method_details: str) -> int | None:
    """N from "quick, accelerator=N", honoured only in sandbox mode."""
    if not settings.SANDBOX_MODE or not procurement_method_details:
        return None
    match = ACCELERATOR.search(procurement_method_details)
    if not match:
        return None
    return max(int(match["accelerator"]), 1)


def shift(
    start: datetime, duration: timedelta, *, working_days: bool = False, speedup: int | None = None
) -> datetime:
    """`start` + `duration`, counting whole days as working days when asked.

    Counting working days, a start on a day off counts from the next midnight; each day added
    skips days off. An accelerated (sandbox) tender divides the duration and ignores the calendar.
    """
    if speedup:
        return start + duration / speedup
    if not working_days:
        return start + duration
    moment = start.astimezone(KYIV)
    if not is_working_day(moment.date()):
        moment = datetime.combine(moment.date() + timedelta(days=1), time(), tzinfo=KYIV)
    for _ in range(duration.days):
        moment += timedelta(days=1)
        while not is_working_day(moment.date()):
            moment += timedelta(days=1)
    return moment + (duration - timedelta(days=duration.days))
