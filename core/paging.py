"""Pages of long lists whose cost is what they show, not the size of the registry."""

import json
import math

from django.db import connections


def estimated_count(queryset, cap: int) -> tuple[int, str]:
    """How many rows `queryset` holds, and how that is known: "estimate" (PostgreSQL's planner,
    from its statistics, without reading a match: an exact count reads every one), else the
    rows counted, at most `cap` + 1: "exact", or "more" than `cap`."""
    unordered = queryset.order_by()
    if connections[queryset.db].vendor == "postgresql":
        [plan] = json.loads(unordered.explain(format="json"))
        return int(plan["Plan"]["Plan Rows"]), "estimate"
    counted = unordered[: cap + 1].count()
    return counted, "exact" if counted <= cap else "more"


def about(number: int) -> int:
    """`number` to two significant digits: an estimate shown as no more precise than it is."""
    return round(number, -max(0, len(str(number)) - 2))


def rows_of(ordered, start: int, stop: int, *, first_try=None) -> list:
    """Rows `start` to `stop` of `ordered`, read first from `first_try` (a bounded part of it
    that holds its first rows, in its order), and from `ordered` only when that part holds
    fewer of them: a part that fills them is the list's own."""
    if first_try is not None:
        rows = list(first_try[start:stop])
        if len(rows) == stop - start:
            return rows
    return list(ordered[start:stop])


class ListPage:
    """One page of an ordered list, read with one row more than it shows (is there a next
    page?). How many rows there are in all is known exactly on the last page; before it, it is
    the database's estimate (`estimated_count`). Pages go no further than the first CAP
    rows: past them, a narrower search. `first_try`: the same list among a bounded part of
    what it lists that holds its first rows (the newest N, as the list orders them), read
    first: when it fills the page, the page is the list's and costs what that part costs."""

    CAP = 1000

    def __init__(self, ordered, per_page: int, number: str | int | None, *, first_try=None):
        self.per_page = per_page
        last_page = max(1, self.CAP // per_page)
        try:
            self.number = min(max(1, int(number or 1)), last_page)
        except (TypeError, ValueError):
            self.number = 1
        rows = rows_of(ordered, self.offset, self.offset + per_page + 1, first_try=first_try)
        if not rows and self.number > 1:  # past the end (the list got shorter): its last page
            counted = ordered.order_by()[: self.CAP].count()
            self.number = max(1, math.ceil(counted / per_page))
            rows = self._rows(ordered)
        self.object_list = rows[:per_page]
        shown_to = self.offset + len(self.object_list)
        more = len(rows) > per_page
        self.has_next = more and self.number < last_page
        known = "exact"
        if more:
            counted, known = estimated_count(ordered, self.CAP)
            self.total = max(counted, shown_to + 1)
        else:
            self.total = shown_to
        self.exact = known == "exact"
        # Known to go past the pages (an estimate says "about", however large).
        self.capped = known == "more" or (more and not self.has_next)

    @property
    def shown_total(self) -> int:
        """The total as the page says it: an estimate no more precise than it is."""
        return self.total if self.exact else about(self.total)

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.per_page

    def _rows(self, ordered) -> list:
        return list(ordered[self.offset : self.offset + self.per_page + 1])

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_other_pages(self) -> bool:
        return self.has_previous or self.has_next

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def num_pages(self) -> int | None:
        """The number of pages, when the total is exact."""
        if not self.exact:
            return None
        return max(1, math.ceil(min(self.total, self.CAP) / self.per_page))
