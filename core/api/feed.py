"""The listing feed of 2.3: pages ordered by dateModified (then id), followed by offset.

A crawler follows `next_page` until a page comes back empty, then polls the last offset. It
sees every change once, in order, and reaches an empty page at the head:

* ties: a page never ends between two objects with the same dateModified (the page grows to
  take them all), because the next page starts strictly after the offset (a page cut short
  for its size is cut between two stamps too);
* late commits: dateModified is stamped just before a transaction commits, so a write can become
  visible after another write with a later stamp. The feed therefore shows only changes that
  have settled, stamped at least FEED_WATERMARK_SECONDS ago. Why that is safe: a page is read
  at time t and shows stamps up to t - W; every write commits within W of its stamp (stamps are
  taken after the write's row locks, as its last step before saving), so every row stamped up
  to t - W was committed, hence visible, by t. No later commit can land below an offset a page
  handed out, so the next page, which starts strictly after that offset, misses nothing; and
  since offsets come from the rows shown, never from the clock, nothing is shown twice.
  The price: a change reaches the feed W seconds after it is made.
"""

import json
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from rest_framework.response import Response

from core import replicas
from core.errors import InvalidData, NotFound
from core.reads import FeedRows
from core.schema import iso, parse_iso

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
# With opt_fields a page holds at most this many (2.3's rule), and when the fields shown are
# large (a tender's items, its documents...) it ends once it passes FEED_PAGE_BYTES, between
# two objects stamped apart: what one page costs is bounded however large the objects are.
MAX_LIMIT_WITH_FIELDS = 100
FEED_PAGE_BYTES = 4 * 1024 * 1024
# Such a page is read a few objects at a time, this many first (the largest tenders are about
# 2 MiB each: two reads make a page).
FIRST_CHUNK = 4


def _limit(raw: str, most: int) -> int:
    if not raw:
        return min(DEFAULT_LIMIT, most)
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    digits = raw.lstrip("0") if raw.isascii() and raw.isdigit() else ""
    if not digits:
        raise InvalidData({"limit": ["Should be a positive integer."]}, location="params")
    return most if len(digits) > len(str(most)) else min(int(digits), most)


def _offset(raw: str):
    if not raw:
        return None
    try:
        # An unencoded "+" in a query string arrives as a space.
        return parse_iso(raw.replace(" ", "+"))
    except (ValueError, OverflowError):
        raise NotFound("offset", location="params", description="Offset expired/invalid") from None


def _is_set(raw: str) -> bool:
    return raw.strip().lower() not in ("", "0", "false", "no")


def opt_fields(request) -> list[str]:
    """The fields a feed page is asked to show beside id and dateModified (of a DRF request or
    a Django one, which middleware sees)."""
    raw = getattr(request, "query_params", request.GET).get("opt_fields", "")
    return [field for field in raw.split(",") if field.strip()]


def page(request, listing, represent, *, large=False) -> Response:
    """One page of the queryset `listing()` builds (objects with `date_modified`), or of the
    rows a `FeedRows` reads (`listing` itself), each shown by `represent(obj, fields)`, with
    next_page (and prev_page when paging from an offset or backwards). `large` says that the
    fields asked for may be large: the page then ends past FEED_PAGE_BYTES."""
    params = request.query_params
    fields = opt_fields(request)
    limit = _limit(params.get("limit", ""), MAX_LIMIT_WITH_FIELDS if fields else MAX_LIMIT)
    raw_offset = params.get("offset", "")
    offset = _offset(raw_offset)
    descending = _is_set(params.get("descending", ""))

    later, order = (
        ("lt", ("-date_modified", "-id")) if descending else ("gt", ("date_modified", "id"))
    )
    # (on a replica, counted back from what it has certainly replayed: core/replicas.py)
    settled = replicas.visible_until() - timedelta(seconds=settings.FEED_WATERMARK_SECONDS)

    if isinstance(listing, FeedRows):
        rows = listing.page(settled=settled, offset=offset, descending=descending, limit=limit)
        return _answer(request, rows, [represent(row, fields) for row in rows], descending)
    found = listing().filter(date_modified__lte=settled)
    if offset is not None:
        found = found.filter(**{f"date_modified__{later}": offset})
    if large:
        rows, shown = _up_to_bytes(_in_chunks(found, order, later), represent, fields, limit)
    else:
        # One row past the limit says whether the page ends between two objects stamped
        # alike, and only then are the rest of them read.
        rows = list(found.order_by(*order)[: limit + 1])
        if len(rows) > limit:
            beyond = rows.pop()
            last = rows[-1]
            if beyond.date_modified == last.date_modified:
                rows += (
                    listing()
                    .filter(date_modified=last.date_modified, **{f"id__{later}": last.id})
                    .order_by(*order)
                )
        shown = [represent(row, fields) for row in rows]
    return _answer(request, rows, shown, descending)


def _answer(request, rows: list, shown: list[dict], descending: bool) -> Response:
    params = request.query_params
    raw_offset = params.get("offset", "")
    kept = {key: params[key] for key in ("limit", "opt_fields", "mode") if params.get(key)}
    if rows:
        next_offset, prev_offset = iso(rows[-1].date_modified), iso(rows[0].date_modified)
    else:
        next_offset = prev_offset = raw_offset

    body = {
        "data": shown,
        "next_page": _link(
            request, {**kept, **({"descending": "1"} if descending else {})}, next_offset
        ),
    }
    if descending or raw_offset:
        body["prev_page"] = _link(
            request, {**kept, **({} if descending else {"descending": "1"})}, prev_offset
        )
    return Response(body)


def _up_to_bytes(found, represent, fields: list[str], limit: int) -> tuple[list, list[dict]]:
    """The rows of a page of large fields and how each is shown: up to `limit` rows, ending
    once they pass FEED_PAGE_BYTES, and in either case at the end of a run of rows stamped
    alike (the next page starts after a stamp: a run is never split). `found` yields the rows
    in the page's order and is read no further than the page needs."""
    rows, shown, size = [], [], 0
    for row in found:
        full = len(rows) >= limit or size > FEED_PAGE_BYTES
        if full and row.date_modified != rows[-1].date_modified:
            break
        rows.append(row)
        shown.append(represent(row, fields))
        size += len(json.dumps(shown[-1], ensure_ascii=False, cls=DjangoJSONEncoder))
    return rows, shown


def _in_chunks(found, order, later: str):
    """The objects of the queryset `found` in `order`, read a few at a time, each read starting
    after the last object read (by its stamp and id, so an object changed meanwhile, which
    leaves for a later stamp, moves no other out of place); the first reads are small, the
    next ones twice as large, so that a page of a few large objects reads few of them and a
    page of many small ones takes few reads."""
    size, last = FIRST_CHUNK, None
    while True:
        chunk = found
        if last is not None:
            chunk = chunk.filter(
                Q(**{f"date_modified__{later}": last.date_modified})
                | Q(date_modified=last.date_modified, **{f"id__{later}": last.id})
            )
        rows = list(chunk.order_by(*order)[:size])
        yield from rows
        if len(rows) < size:
            return
        size, last = min(size * 2, MAX_LIMIT), rows[-1]


def _link(request, params: dict, offset: str) -> dict:
    path = f"{request.path}?{urlencode({**params, 'offset': offset})}"
    return {"offset": offset, "path": path, "uri": request.build_absolute_uri(path)}
