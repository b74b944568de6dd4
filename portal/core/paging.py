"""Pages of long lists whose cost is what they show, not the size of the registry."""

from functools import cached_property

from django.core.paginator import Paginator


class BoundedPaginator(Paginator):
    """Counts at most CAP + 1 rows (an exact count reads every match, however many): past CAP
    the list is the first CAP, and `capped` says there are more."""

    CAP = 1000

    @cached_property
    def _counted(self) -> int:
        # Unordered: the database may count the matches in whatever order its index gives.
        return self.object_list.order_by()[: self.CAP + 1].count()

    @cached_property
    def count(self) -> int:
        return min(self._counted, self.CAP)

    @property
    def capped(self) -> bool:
        return self._counted > self.CAP
