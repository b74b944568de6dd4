"""Public pages, search, accounts and dashboards."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from core.paging import ListPage, about
from core.schema import KYIV
from portal.models import Organization, User
from tenders.models import Tender
from tests.factories import make_user
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db


def publish(user, clock, **overrides) -> Tender:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=user), data=tender_data(clock.now(), **overrides)
    )
    return tender


def titles(response) -> list[str]:
    return [t.title for t in response.context["page"].object_list]


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", Organization.Kind.PROCURING)


def test_search_matches_cyrillic_keywords_whatever_their_case(client, buyer, clock):
    publish(buyer, clock, title="Папір офісний А4")
    publish(buyer, clock, title="Ремонт покрівлі")

    assert titles(client.get("/", {"q": "ПАПІР"})) == ["Папір офісний А4"]
    assert titles(client.get("/", {"q": "покрівлі ремонт"})) == ["Ремонт покрівлі"]


def test_search_by_items_cpv_buyer_id_status_and_dates(client, buyer, clock):
    paper = publish(buyer, clock, title="Папір")
    clock.advance(days=3)
    publish(buyer, clock, title="Інше")
    item = paper.data["items"][0]
    cpv = item["classification"]["id"]

    assert titles(client.get("/", {"q": item["description"].split()[0]}))[-1] == "Папір"
    assert "Папір" in titles(client.get("/", {"cpv": cpv}))
    assert titles(client.get("/", {"cpv": "11111111-1"})) == []
    assert titles(client.get("/", {"tender_id": paper.tender_id.lower()})) == ["Папір"]
    assert len(titles(client.get("/", {"buyer": paper.buyer_identifier}))) == 2
    assert titles(client.get("/", {"buyer": "00000000"})) == []
    assert len(titles(client.get("/", {"status": "active.enquiries"}))) == 2
    assert titles(client.get("/", {"status": "complete"})) == []
    day = paper.date.astimezone(KYIV).date()  # the registry's days are Kyiv's
    assert titles(client.get("/", {"published_to": day.isoformat()})) == ["Папір"]
    later = (day + timedelta(days=1)).isoformat()
    assert titles(client.get("/", {"published_from": later})) == ["Інше"]


def test_search_refuses_bad_filters_next_to_the_field(client, buyer, clock):
    publish(buyer, clock)

    response = client.get(
        "/", {"cpv": "paper", "published_from": "2026-02-01", "published_to": "2026-01-01"}
    )

    assert response.context["form"].errors.keys() == {"cpv", "published_to"}
    assert titles(response) == []


def test_search_results_swap_alone_for_htmx_and_page(client, buyer, clock):
    for number in range(25):
        publish(buyer, clock, title=f"Закупівля {number}")

    first = client.get("/", {"q": "закупівля"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")
    second = client.get("/", {"q": "закупівля", "page": 2})

    assert first.status_code == 200
    assert b"<html" not in first.content and b'id="results"' in first.content
    assert len(titles(first)) == 20 and len(titles(second)) == 5
    assert "Vary" in first and "HX-Request" in first["Vary"]


def test_drafts_and_test_tenders_are_not_listed(client, buyer, clock):
    publish(buyer, clock, title="Чернетка", status="draft")
    publish(buyer, clock, title="Пробна", mode="test")
    publish(buyer, clock, title="Справжня")

    assert titles(client.get("/")) == ["Справжня"]


def test_a_result_card_shows_the_buyer_and_the_expected_value(client, buyer, clock):
    publish(buyer, clock, value={"amount": 920000.5, "currency": "UAH"})

    response = client.get("/", {"q": "футляри"})

    [card] = response.context["page"].object_list
    assert "data" in card.get_deferred_fields()  # read out of the document by the database
    text = response.content.decode()
    assert "Державне управління справами" in text
    assert "920 000,50 UAH" in text.replace("\xa0", " ")


def test_search_costs_the_same_for_few_and_many_tenders(client, buyer, clock, query_count):
    publish(buyer, clock)
    with query_count() as few:
        client.get("/", {"q": "футляри"})
    for _ in range(15):
        publish(buyer, clock)
    with query_count() as many:
        client.get("/", {"q": "футляри"})

    assert len(many) == len(few)


def searched(client, **params):
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/", {"q": "футляри", **params})
    assert response.status_code == 200
    sql = [q["sql"] for q in captured.captured_queries]
    return response, response.context["page"], sql


def test_the_last_page_knows_the_total_without_counting(client, buyer, clock, monkeypatch):
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    for _ in range(3):
        publish(buyer, clock)

    response, page, sql = searched(client, page="2")

    assert len(titles(response)) == 1 and page.exact and page.total == 3
    assert page.num_pages == 2 and not page.has_next and page.has_previous
    assert "3 закупівлі" in response.content.decode()
    assert "Сторінка 2 з 2" in response.content.decode()
    assert not [q for q in sql if "COUNT(" in q or q.startswith("EXPLAIN")]


def test_before_the_last_page_the_total_is_the_database_s_estimate(
    client, buyer, clock, monkeypatch
):
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    for _ in range(3):
        publish(buyer, clock)

    _, page, sql = searched(client)

    assert page.has_next and page.total >= 3
    if connection.vendor == "postgresql":  # the planner's estimate: no match is read
        assert not page.exact
        assert [q for q in sql if q.startswith("EXPLAIN")]
        assert not [q for q in sql if "COUNT(" in q]
    else:  # counted, at most CAP + 1
        assert page.exact and page.total == 3
        (count,) = [q for q in sql if "COUNT(" in q]
        assert f"LIMIT {page.CAP + 1}" in count


@pytest.mark.parametrize(("estimate", "said"), [(417, 420), (5321, 5300)])
def test_an_estimate_is_said_to_be_one(client, buyer, clock, monkeypatch, estimate, said):
    """(past the cap too: "more than" is said only of what was seen or counted)"""
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    monkeypatch.setattr("core.paging.estimated_count", lambda queryset, cap: (estimate, "estimate"))
    for _ in range(3):
        publish(buyer, clock)

    response, page, _ = searched(client)

    assert not page.exact and not page.capped and page.shown_total == said
    assert f"Близько {said} закупівель" in response.content.decode()
    assert "Більше ніж" not in response.content.decode()
    assert page.num_pages is None and "Сторінка 1" in response.content.decode()
    assert " з " not in page_line(response)


def page_line(response) -> str:
    text = response.content.decode()
    start = text.index("Сторінка")
    return text[start : text.index("</span>", start)]


def test_pages_end_with_the_newest_cap_tenders(client, buyer, clock, monkeypatch):
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    monkeypatch.setattr(ListPage, "CAP", 4)
    for _ in range(5):
        publish(buyer, clock)

    response, page, _ = searched(client, page="9")

    assert page.number == 2 and not page.has_next and page.capped
    assert len(titles(response)) == 2
    assert "Більше ніж 4 закупівель" in response.content.decode()


def test_the_last_page_offers_no_next_when_pages_do_not_divide_the_cap(
    client, buyer, clock, monkeypatch
):
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 3)
    monkeypatch.setattr(ListPage, "CAP", 10)  # pages of 3: the third is the last
    for _ in range(12):
        publish(buyer, clock)

    _, page, _ = searched(client, page="3")

    assert page.number == 3 and not page.has_next and page.capped


def test_a_page_past_the_end_shows_the_last_one(client, buyer, clock, monkeypatch):
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    for _ in range(3):
        publish(buyer, clock)

    response, page, _ = searched(client, page="7")

    assert page.number == 2 and len(titles(response)) == 1 and page.exact


@pytest.mark.parametrize("number", ["", "0", "-3", "два", "1e3"])
def test_a_page_number_that_is_not_one_is_the_first_page(client, buyer, clock, number):
    publish(buyer, clock)
    _, page, _ = searched(client, page=number)
    assert page.number == 1


@pytest.mark.parametrize(("number", "shown"), [(9999, 10000), (4166, 4200), (47, 47), (123, 120)])
def test_estimates_are_shown_to_two_significant_digits(number, shown):
    assert about(number) == shown


def test_tender_page_shows_lifecycle_dates_bids_awards_and_claims(client, world):
    complaint, _ = Complaint.objects.file(
        award=world.award,
        by=Actor(
            Role.BID_OWNER,
            user=world.bidder,
            subject=world.tender.bids.get(organization=world.bidder.organization),
        ),
        title="Скарга <b>жирна</b>",
        description="Опис",
        author={"name": "ТОВ «Медтехсервіс»"},
        submit=True,
    )

    page = client.get(reverse("tender", args=[world.tender.pk])).content.decode()

    assert 'aria-current="step"' in page
    assert "ПП «Чисто»" in page  # the bids are public now
    assert complaint.complaint_id in page
    assert "Скарга &lt;b&gt;жирна&lt;/b&gt;" in page
    assert world.award.complaint_period_end.astimezone(KYIV).strftime("%d.%m.%Y %H:%M") in page


def test_tender_page_keeps_bids_sealed_while_tendering(client, buyer, clock):
    tender = publish(buyer, clock)
    clock.move_to(tender.tender_start + timedelta(hours=1))

    page = client.get(reverse("tender", args=[tender.pk]))

    assert page.context["bids"] is None


def test_tender_page_costs_the_same_with_more_claims(client, world, query_count):
    url = reverse("tender", args=[world.tender.pk])
    bid = world.tender.bids.get(organization=world.bidder.organization)
    by = Actor(Role.BID_OWNER, user=world.bidder, subject=bid)

    def file():
        Complaint.objects.file(
            award=world.award, by=by, title="t", author={"name": "n"}, submit=True
        )

    file()
    with query_count() as one:
        client.get(url)
    for _ in range(10):
        file()
    with query_count() as eleven:
        client.get(url)

    assert len(eleven) == len(one)


def test_a_draft_tender_is_its_organizations_alone(client, buyer, clock):
    tender = publish(buyer, clock, status="draft")
    url = reverse("tender", args=[tender.pk])

    assert client.get(url).status_code == 404
    client.force_login(buyer)
    assert client.get(url).status_code == 200


def test_unknown_tender_is_a_404_page(client, db):
    response = client.get(reverse("tender", args=["0" * 32]))

    assert response.status_code == 404
    assert b"<html" in response.content


def test_sign_up_with_bad_fields_keeps_what_was_typed(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "olena", "organization_identifier": "12", "password1": "a", "password2": "b"},
    )

    assert response.status_code == 422
    assert {"organization_identifier", "password2", "email"} <= response.context[
        "form"
    ].errors.keys()
    assert 'value="olena"' in response.content.decode()
    assert not User.objects.exists()


def test_dashboard_needs_sign_in(client, db):
    response = client.get(reverse("dashboard"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_dashboards_show_claims_to_answer_and_my_claims(client, world):
    bid = world.tender.bids.get(organization=world.bidder.organization)
    complaint, _ = Complaint.objects.file(
        award=world.award, by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Моя скарга", author={"name": "n"}, submit=True,
    )  # fmt: skip

    client.force_login(world.buyer)
    buyer_page = client.get(reverse("dashboard"))
    client.force_login(world.bidder)
    bidder_page = client.get(reverse("dashboard"))
    client.force_login(world.other_bidder)
    other_page = client.get(reverse("dashboard"))

    claims = [task.reference for task in buyer_page.context["tasks"] if task.kind == "claim"]
    assert claims == [complaint.complaint_id]
    assert list(bidder_page.context["my_claims"]) == [complaint]
    assert list(other_page.context["my_claims"]) == []
    assert not any(task.kind == "claim" for task in other_page.context["tasks"])


def test_pages_are_ukrainian_unless_english_is_chosen(client, db):
    assert 'lang="uk"' in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    client.post(reverse("set_language"), {"language": "en", "next": "/"})

    assert 'lang="en"' in client.get("/").content.decode()


def test_the_api_stays_english_and_untouched_by_the_language_switch(client, db):
    client.cookies["django_language"] = "uk"

    response = client.get("/api/2.3/tenders/" + "0" * 32)

    assert response.json()["errors"][0]["description"] == "Not Found"
    assert "Content-Language" not in response


def test_pages_forbid_inline_and_foreign_scripts(client, db):
    policy = client.get("/")["Content-Security-Policy"]

    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
