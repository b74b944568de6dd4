"""A search's tenders to take away (`/search.csv?<the search>`, `/search.xlsx?<the search>`):
every tender it finds, up to EXPORT_MOST, in the search's order, with the columns people filter
on; headers in the reader's language, numbers as numbers, moments in Kyiv time. Read a chunk of
tenders at a time (their winners and contracts with them), so the cost follows the rows."""

import csv
import tempfile
from datetime import datetime
from itertools import batched

import xlsxwriter
from django.db.models.fields.json import KT
from django.http import (
    FileResponse,
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop
from django.views.decorators.http import require_safe

from core import limits
from core.errors import NotFound
from core.replicas import may_read_a_replica
from core.schema import KYIV
from portal.forms import SearchForm
from tenders.api import stored
from tenders.models import Award, Contract, Tender

# The most tenders one export holds (a narrower search takes the rest).
EXPORT_MOST = 10_000
CHUNK = 500
COLUMNS = (
    gettext_lazy("Tender ID"),
    gettext_lazy("Title"),
    gettext_lazy("Buyer"),
    gettext_lazy("Buyer's code"),
    gettext_lazy("CPV code"),
    gettext_lazy("Region"),
    gettext_lazy("Expected value"),
    gettext_lazy("Currency"),
    gettext_lazy("Status"),
    gettext_lazy("Published"),
    gettext_lazy("Questions until"),
    gettext_lazy("Bids until"),
    gettext_lazy("Winner"),
    gettext_lazy("Contract value"),
)
MOMENTS = (9, 10, 11)  # (the columns of moments, in the spreadsheet)
NUMBERS = (6, 13)


@require_safe
@may_read_a_replica
def search_export(request, kind: str):
    form = SearchForm(request.GET)
    if not form.is_valid():
        refused = "; ".join(" ".join(errors) for errors in form.errors.values())
        return HttpResponseBadRequest(
            _("This search can't be exported: %(errors)s") % {"errors": refused},
            content_type="text/plain; charset=utf-8",
        )
    try:  # (an export reads up to EXPORT_MOST tenders)
        limits.hit(
            "exports",
            f"address:{limits.client_address(request)}",
            limits.Rate.setting("EXPORT_RATE"),
            gettext_noop("Too many downloads from your address. Try again later."),
        )
    except limits.RateLimited as error:
        response = HttpResponse(
            _(error.description), status=429, content_type="text/plain; charset=utf-8"
        )
        response["Retry-After"] = str(error.retry_after)
        return response
    rows = exported_rows(form.cleaned_data)
    name = f"tenders-{timezone.localtime(timezone.now(), KYIV):%Y-%m-%d}.{kind}"
    # (written whole to a temporary file, then sent with its length: a download is never cut
    # short without saying so, and no worker waits on a slow reader while reading tenders)
    made = csv_file(rows) if kind == "csv" else xlsx_file(rows)
    return FileResponse(made, as_attachment=True, filename=name)


def exported_rows(criteria: dict):
    """Each tender the search finds, as a row of COLUMNS' values."""
    found = (
        Tender.objects.public()
        .matching(**criteria)
        .listed()
        .annotate(
            cpv=KT("data__items__0__classification__id"),
            region=KT("data__procuringEntity__address__region"),
        )
    )
    for chunk in batched(found[:EXPORT_MOST].iterator(chunk_size=CHUNK), CHUNK, strict=False):
        ids = [tender.pk for tender in chunk]
        winners, contracts = Award.objects.won(ids), Contract.objects.signed_values(ids)
        for tender in chunk:
            yield [
                tender.tender_id,
                tender.title,
                tender.buyer_name,
                tender.buyer_identifier,
                tender.cpv,
                tender.region,
                float(tender.value_amount) if tender.value_amount else None,
                tender.value_currency,
                str(tender.get_status_display()),
                local(tender.published),
                local(tender.enquiry_end),
                local(tender.tender_end),
                "; ".join(winners.get(tender.pk, [])),
                contracts.get(tender.pk),
            ]


def local(moment):
    return timezone.localtime(moment, KYIV).replace(tzinfo=None) if moment else None


class Echo:
    def write(self, value):
        return value


# What a spreadsheet would take for a formula at the start of a cell (a title anyone writes).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value):
    """A CSV cell: a moment as Kyiv time; text that would read as a formula kept as text."""
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%d %H:%M}"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_line(writer, row) -> str:
    return writer.writerow([cell(value) for value in row])


def csv_file(rows):
    """UTF-8 with its mark (spreadsheets then read Cyrillic right); a number with a point."""
    file = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it once sent)
    writer = csv.writer(Echo())
    file.write(("\ufeff" + csv_line(writer, [str(column) for column in COLUMNS])).encode())
    for row in rows:
        file.write(csv_line(writer, row).encode())
    file.seek(0)
    return file


def xlsx_file(rows):
    """The rows in a workbook written row by row to a temporary file (constant memory)."""
    file = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it once sent)
    book = xlsxwriter.Workbook(file, {"constant_memory": True, "in_memory": False})
    sheet = book.add_worksheet(_("Tenders"))
    bold = book.add_format({"bold": True})
    moment = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    money = book.add_format({"num_format": "#,##0.00"})
    sheet.write_row(0, 0, [str(column) for column in COLUMNS], bold)
    for number, row in enumerate(rows, start=1):
        for column, value in enumerate(row):
            if value is None:
                continue
            if column in MOMENTS:
                sheet.write_datetime(number, column, value, moment)
            elif column in NUMBERS:
                sheet.write_number(number, column, value, money)
            else:
                sheet.write_string(number, column, str(value))
    book.close()
    file.seek(0)
    return file


# A tender's parts as CSV (`/tenders/<id>/<part>.csv`): what its public 2.3 representation
# shows of them (bids once opened; a claim's author where 2.3 shows it).
PARTS = {
    "bids": (
        (gettext_lazy("Bidder"), gettext_lazy("Code"), gettext_lazy("Price"),
         gettext_lazy("Currency"), gettext_lazy("Submitted"), gettext_lazy("Status")),
        lambda tender: [
            [*_named((bid.get("tenderers") or [{}])[0]), *_amount(bid.get("value")),
             bid.get("date"), bid.get("status")]
            for bid in tender.get("bids", [])
        ],
    ),
    "awards": (
        (gettext_lazy("Bidder"), gettext_lazy("Code"), gettext_lazy("Price"),
         gettext_lazy("Currency"), gettext_lazy("Decided"), gettext_lazy("Status"),
         gettext_lazy("Lot")),
        lambda tender: [
            [*_named((award.get("suppliers") or [{}])[0]), *_amount(award.get("value")),
             award.get("date"), award.get("status"), award.get("lotID", "")]
            for award in tender.get("awards", [])
        ],
    ),
    "claims": (
        (gettext_lazy("Claim ID"), gettext_lazy("Title"), gettext_lazy("Claimant"),
         gettext_lazy("Status"), gettext_lazy("Submitted"), gettext_lazy("Answered"),
         gettext_lazy("Answer"), gettext_lazy("Decision")),
        lambda tender: [
            [claim.get("complaintID"), claim.get("title"),
             (claim.get("author") or {}).get("name", ""), claim.get("status"),
             claim.get("dateSubmitted"), claim.get("dateAnswered"),
             claim.get("resolutionType", ""), award_id]
            for award_id, claim in _claims(tender)
        ],
    ),
}  # fmt: skip


@require_safe
@may_read_a_replica
def tender_part_export(request, tender_id: str, part: str):
    try:
        tender = stored.read_as_the_public(request, tender_id)
    except NotFound:
        raise Http404 from None
    columns, rows_of = PARTS[part]
    writer = csv.writer(Echo())
    lines = ["\ufeff" + csv_line(writer, [str(column) for column in columns])]
    lines += [csv_line(writer, row) for row in rows_of(tender)]
    response = HttpResponse("".join(lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tender["tenderID"]}-{part}.csv"'
    return response


def _named(org: dict) -> list:
    return [org.get("name", ""), org.get("identifier", {}).get("id", "")]


def _amount(value: dict | None) -> list:
    value = value or {}
    return [value.get("amount"), value.get("currency", "")]


def _claims(tender: dict) -> list[tuple[str, dict]]:
    """Every claim, with the decision it is about (none: the tender's conditions)."""
    found = [("", claim) for claim in tender.get("complaints", [])]
    for award in tender.get("awards", []):
        found += [(award["id"], claim) for claim in award.get("complaints", [])]
    return found
