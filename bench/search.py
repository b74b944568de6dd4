"""Where a search nobody asked before spends its time, in process on a registry the benchmark
built (`python -m bench.search [QUERY ...]`, with DATABASE_URL naming it; a QUERY is the
search's parameters, "q=папір&sort=relevance"): each search's page (as the portal reads it,
its estimate of the total included) timed `ROUNDS` times, the first on a fresh database being
its first read, and the plan of its page's query with what each step read (EXPLAIN ANALYZE)."""

import os
import statistics
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
django.setup()

from django.http import QueryDict  # noqa: E402

from core.paging import ListPage  # noqa: E402
from portal.forms import SearchForm  # noqa: E402
from portal.views import TENDERS_PER_PAGE  # noqa: E402
from tenders.models import Tender  # noqa: E402

ROUNDS = 5
SEARCHES = ["q=папір", "q=паперу", "q=папір&sort=relevance", "q=570", ""]


def measure(query: str) -> None:
    form = SearchForm(QueryDict(query))
    if not form.is_valid():
        raise SystemExit(f"{query}: {form.errors.as_text()}")
    found = Tender.objects.public().matching(**form.cleaned_data).listed()
    took = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        page = ListPage(found, TENDERS_PER_PAGE, 1)
        took.append((time.perf_counter() - start) * 1000)
    print(
        f"{query or '(no search)'}: first {took[0]:.1f} ms, then median "
        f"{statistics.median(took[1:]):.1f} ms; {len(page.object_list)} shown of "
        f"{page.total} ({'exact' if page.exact else 'estimated'})"
    )
    print(found[: TENDERS_PER_PAGE + 1].explain(analyze=True, buffers=True), end="\n\n")


if __name__ == "__main__":
    for query in sys.argv[1:] or SEARCHES:
        measure(query)
