"""Where a search nobody asked before spends its time, in process on a registry the benchmark
built (`python -m bench.search [QUERY ...]`, with DATABASE_URL naming it; a QUERY is the
search's parameters, "q=папір&sort=relevance"): each search's page (as the portal reads it,
its estimate of the total included) timed `ROUNDS` times, the first on a fresh database being
its first read, and the plans of its page's queries with what each step read (EXPLAIN ANALYZE):
the page looked for among the newest tenders first, and the whole search's."""

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
from portal.views import SEARCH_FIRST_AMONG, TENDERS_PER_PAGE  # noqa: E402
from tenders.models import Tender  # noqa: E402

ROUNDS = 5
SEARCHES = ["q=папір", "q=паперу", "q=папір&sort=relevance", "q=570", ""]


def measure(query: str) -> None:
    form = SearchForm(QueryDict(query))
    if not form.is_valid():
        raise SystemExit(f"{query}: {form.errors.as_text()}")
    public = Tender.objects.public()
    found = public.matching(**form.cleaned_data).listed()
    first = public.newest_matching(among=SEARCH_FIRST_AMONG, **form.cleaned_data)
    first = first.listed() if first is not None else None
    took = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        page = ListPage(found, TENDERS_PER_PAGE, 1, first_try=first)
        took.append((time.perf_counter() - start) * 1000)
    print(
        f"{query or '(no search)'}: first {took[0]:.1f} ms, then median "
        f"{statistics.median(took[1:]):.1f} ms; {len(page.object_list)} shown of "
        f"{page.total} ({'exact' if page.exact else 'estimated'})"
    )
    for name, read in (("first among the newest", first), ("the whole search", found)):
        if read is not None:
            plan = read[: TENDERS_PER_PAGE + 1].explain(analyze=True, buffers=True)
            print(f"-- {name}:\n{plan}", end="\n\n")


if __name__ == "__main__":
    for query in sys.argv[1:] or SEARCHES:
        measure(query)
