"""The tenders' feed (GET /tenders): what a page reads, by the fields it shows, and how it shows
each tender (the paging itself is core/api/feed.py)."""

from functools import lru_cache

from django.urls import NoReverseMatch, reverse
from drf_spectacular.utils import OpenApiParameter

from core.api import feed
from core.api.auth import api_context
from core.api.serializers import ABSENT
from core.reads import FeedRows
from core.schema import iso
from tenders.models import Tender

from .serializers import TenderOut

FEED_PARAMETERS = [
    OpenApiParameter("offset", str, description="Where the previous page ended (next_page)."),
    OpenApiParameter(
        "limit", int, description="Objects per page: 1 to 1000, 100 with opt_fields (default 100)."
    ),
    OpenApiParameter("descending", str, description="Any non-empty value but 0: newest first."),
    OpenApiParameter("opt_fields", str, description="Comma-separated fields to add to each."),
    OpenApiParameter("mode", str, enum=["test", "_all_"], description="Test tenders, or all."),
    OpenApiParameter("opt_pretty", str, description="Indent the answer."),
]


def is_a_feed_page_of_parts(request) -> bool:
    """A feed page whose opt_fields name tenders' documents or parts reads its tenders whole:
    its caller has as few of them answered at once as of its writes (registered as the app is
    ready, tenders/apps.py)."""
    if request.method != "GET" or "opt_fields" not in request.GET:
        return False
    try:
        if request.path != reverse("api:tenders"):
            return False
    except NoReverseMatch:  # (the document service deployed alone has no API)
        return False
    return reads_whole_tenders(TenderOut.known_fields(feed.opt_fields(request)))


def reads_whole_tenders(fields: list[str]) -> bool:
    """Whether a feed page of `fields` (known ones) reads its tenders' documents or parts."""
    return not TenderOut.FROM_COLUMNS.issuperset(fields)


def listed(request, fields: list[str]):
    """How the feed shows a tender: id and dateModified, and the opt_fields asked for (read
    from the tender's row unless one of them is shown from its parts)."""
    context = api_context(request)
    whole = not TenderOut.FROM_RELATED.isdisjoint(fields)
    with_data = not TenderOut.FROM_COLUMNS.issuperset(fields)

    def show(tender, fields: list[str]) -> dict:
        shown = {"id": tender.id, "dateModified": iso(tender.date_modified)}
        if whole:
            full = TenderOut(tender, context=context).data
            shown.update({field: full[field] for field in fields if field in full})
            return shown
        for field in fields:
            value = TenderOut.own_field(tender, field, with_data=with_data)
            if value not in ABSENT:
                shown[field] = value
        return shown

    return show


# The feed's pages that show only columns of the tender's row are read as rows in SQL written
# once (core/reads.py), one read per kind of tenders listed and set of columns shown.
@lru_cache(maxsize=64)
def _feed_rows(kind: str, columns: tuple[str, ...]) -> FeedRows:
    where = {"published__isnull": False}
    if kind == "test":
        where["mode"] = "test"
    elif not kind:
        where["mode__ne"] = "test"
    return FeedRows("tenders.Tender", columns=list(columns), where=where)


def feed_rows(mode: str, columns: list[str]) -> FeedRows:
    """The read of `mode`'s tenders as rows of `columns`; the reads of the pages asked most
    are kept (64 of them: opt_fields can name some two thousand sets of columns, and each read
    keeps its SQL)."""
    return _feed_rows(mode if mode in ("test", "_all_") else "", tuple(columns))


def feed_listing(mode: str, fields: list[str]):
    """What a feed page reads: the rows of `mode`'s tenders (when only columns of the tender's
    row are shown), or a function building its queryset (as much of each tender as `fields`
    need)."""
    if not fields:
        # Rows, not model objects: a page shows two columns of each.
        return feed_rows(mode, [])
    if TenderOut.FROM_COLUMNS.issuperset(fields) and "owner" not in fields:
        # Rows too: each field is shown from its own columns.
        return feed_rows(mode, sorted(TenderOut.columns_of(fields) - {"id", "date_modified"}))
    if TenderOut.FROM_COLUMNS.issuperset(fields):
        columns, how = sorted(TenderOut.columns_of(fields)), "objects"
    elif TenderOut.FROM_RELATED.isdisjoint(fields):
        columns, how = [], "whole rows"
    else:
        columns, how = [], "with related"

    def listing():
        tenders = Tender.objects.published()
        if mode == "test":
            tenders = tenders.filter(mode="test")
        elif mode != "_all_":
            tenders = tenders.exclude(mode="test")
        unshown = tenders.UNLISTED
        if how == "objects":
            tenders = tenders.only(*columns, "id", "date_modified")
            return tenders.select_related("broker") if "owner" in fields else tenders
        if how == "whole rows":
            return tenders.select_related("broker").defer(*unshown)
        return tenders.with_related().defer(*unshown)

    return listing
