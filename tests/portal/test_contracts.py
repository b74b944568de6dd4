"""A signed contract in the portal: its page for anyone (terms, what was paid, documents, every
change), the buyer's signed change and termination through review pages, refusals in words."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from contracting.models import SignedContract
from core.actors import Actor, Role
from tests.portal.forms import signing_form, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def signed(world, as_user, clock):
    """The buyer signed the contract (through its page)."""
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    url = reverse("contract-sign", args=[world.tender.pk, world.award.pk])
    assert as_user(world.buyer).post(url, signing_form()).status_code == 302
    world.refresh()
    world.contract = world.tender.contracts.get()
    return world


def change_form(**extra) -> dict:
    return {
        "once": "c" * 32,
        "rationale_types": ["priceReduction"],
        "rationale": "Постачальник погодився знизити ціну",
        "contract_number": "1",
        "amount": "390.00",
        "date_signed": timezone.localtime().strftime("%Y-%m-%dT%H:%M"),
        **extra,
    }


def test_anyone_reads_the_contract_from_the_tender_page(signed, client, as_user):
    visitor = as_user(None)
    tender_page = visitor.get(reverse("tender", args=[signed.tender.pk])).content.decode()
    page_url = reverse("contract", args=[signed.contract.pk])
    assert page_url in tender_page

    page = visitor.get(page_url).content.decode()

    assert signed.contract.contract_id in page
    assert "ПП «Чисто»" in page
    assert signed.tender.data["procuringEntity"]["name"] in page
    assert "400.00 UAH" in page
    assert "No changes: the contract stands as it was signed." in page
    assert "Record a change" not in page and "Terminate the contract" not in page


def test_a_contract_not_signed_has_no_page(world, as_user):
    contract = world.tender.contracts.get()
    assert as_user(None).get(reverse("contract", args=[contract.pk])).status_code == 404
    assert as_user(None).get(reverse("contract", args=["x" * 3])).status_code == 404


def test_the_buyer_records_a_signed_change_through_its_review(signed, as_user):
    buyer = as_user(signed.buyer)
    page = buyer.get(reverse("contract", args=[signed.contract.pk])).content.decode()
    assert "Record a change" in page
    url = reverse("contract-change", args=[signed.contract.pk])
    review = buyer.get(url).content.decode()
    assert "Record a change of contract" in review and "Sign the change" in review

    done = buyer.post(url, {**change_form(), "document": upload("зміна.pdf")})

    assert done.status_code == 302, done.content.decode()[:3000]
    contract = signed.tender.contracts.get()
    assert contract.data["value"]["amount"] == 390
    [change] = contract.changes.all()
    assert change.status == "active" and change.rationale_types == ["priceReduction"]
    page = as_user(None).get(reverse("contract", args=[contract.pk])).content.decode()
    assert "390.00 UAH" in page
    assert "The price is agreed lower" in page and "Постачальник погодився" in page
    assert "зміна.pdf" in page


def test_a_change_the_model_refuses_changes_nothing_and_says_why(signed, as_user):
    buyer = as_user(signed.buyer)
    url = reverse("contract-change", args=[signed.contract.pk])

    higher = buyer.post(url, change_form(amount="999.00"))

    assert higher.status_code == 422
    assert "be above the awarded price of 400.00 UAH." in higher.text
    contract = signed.tender.contracts.get()
    assert contract.data["value"]["amount"] == 400 and not contract.changes.exists()


def test_only_the_buyer_changes_or_terminates(signed, as_user):
    for user in (signed.bidder, signed.stranger):
        other = as_user(user)
        url = reverse("contract-terminate", args=[signed.contract.pk])
        refused = other.post(url, {"once": "t" * 32, "amount_paid": "1"})
        assert refused.status_code == 422
        assert "You may not do this" in refused.content.decode()
        changing = other.post(reverse("contract-change", args=[signed.contract.pk]), change_form())
        assert changing.status_code == 422
        assert "You may not do this" in changing.content.decode()
    contract = signed.tender.contracts.get()
    assert contract.status == "active" and not contract.changes.exists()


def test_the_buyer_terminates_stating_what_was_paid(signed, as_user):
    buyer = as_user(signed.buyer)
    url = reverse("contract-terminate", args=[signed.contract.pk])
    assert "Terminate the contract" in buyer.get(url).content.decode()
    empty = buyer.post(url, {"once": "t" * 32})
    assert empty.status_code == 422

    done = buyer.post(
        url, {"once": "u" * 32, "amount_paid": "380", "details": "Поставлено частково"}
    )

    assert done.status_code == 302
    contract = signed.tender.contracts.get()
    assert contract.status == "terminated" and contract.data["amountPaid"]["amount"] == 380
    page = as_user(None).get(reverse("contract", args=[contract.pk])).content.decode()
    assert "terminated" in page and "380.00 UAH" in page and "Поставлено частково" in page
    buyer = as_user(signed.buyer)  # (the same client: signed in again)
    again = buyer.get(reverse("contract-change", args=[contract.pk])).content.decode()
    assert "Not in its present state" in again


def dashboard(client) -> str:
    response = client.get(reverse("dashboard"))
    assert response.status_code == 200
    return response.text


def test_a_contract_whose_term_ended_waits_in_the_buyer_s_queue_until_terminated(
    signed, as_user, clock
):
    buyer = as_user(signed.buyer)
    end = timezone.localtime() + timedelta(days=30)
    made = buyer.post(
        reverse("contract-change", args=[signed.contract.pk]),
        change_form(amount="", end_date=end.strftime("%Y-%m-%dT%H:%M")),
    )
    assert made.status_code == 302, made.content.decode()[:2000]
    assert "Terminate contract" not in dashboard(buyer)

    clock.move_to(end + timedelta(minutes=1))
    buyer = as_user(signed.buyer)  # (signed in again: the session has expired meanwhile)
    page = dashboard(buyer)

    assert f"Terminate contract {signed.contract.contract_id}, stating what was paid" in page
    url = reverse("contract-terminate", args=[signed.contract.pk])
    assert buyer.post(url, {"once": "v" * 32, "amount_paid": "400"}).status_code == 302
    assert "Terminate contract" not in dashboard(buyer)


def test_a_change_left_pending_waits_in_the_buyer_s_queue(signed, as_user):
    contract = SignedContract.objects.get(tender=signed.tender)
    owner = Actor(Role.CONTRACT_OWNER, user=signed.buyer, subject=contract)
    contract.add_change(by=owner, data={"rationale": "Податок", "rationaleTypes": ["taxRate"]})

    page = dashboard(as_user(signed.buyer))

    assert f"Sign or edit the pending change of contract {contract.contract_id}" in page
    assert (
        "Pending: not signed yet" in as_user(None).get(reverse("contract", args=[contract.pk])).text
    )


def test_contracts_are_found_by_supplier_buyer_and_status(signed, as_user):
    visitor = as_user(None)
    contract = signed.tender.contracts.get()
    buyer_code = signed.tender.data["procuringEntity"]["identifier"]["id"]
    for query in ({"supplier": "40999888"}, {"supplier": "Чисто"}, {"buyer": buyer_code},
                  {"status": "active"}, {}):  # fmt: skip
        page = visitor.get(reverse("contracts"), query).text
        assert contract.contract_id in page, query
    for query in ({"supplier": "38012345"}, {"buyer": "Інший"}, {"status": "terminated"}):
        page = visitor.get(reverse("contracts"), query).text
        assert contract.contract_id not in page and "No signed contract matches." in page, query
    contract_page = visitor.get(reverse("contract", args=[contract.pk])).text
    assert f"{reverse('contracts')}?supplier=40999888" in contract_page
    tender_page = visitor.get(reverse("tender", args=[signed.tender.pk])).text
    assert f"{reverse('contracts')}?supplier=40999888" in tender_page


def test_a_contract_not_signed_is_not_found(world, as_user):
    page = as_user(None).get(reverse("contracts"), {"supplier": "40999888"}).text
    assert "No signed contract matches." in page


@pytest.mark.postgres
def test_a_supplier_s_name_is_found_in_any_case(signed, as_user):
    """(PostgreSQL compares Ukrainian letters case-insensitively; SQLite only Latin ones)"""
    page = as_user(None).get(reverse("contracts"), {"supplier": "чисто"}).text
    assert signed.tender.contracts.get().contract_id in page


def test_a_change_left_pending_is_signed_from_the_contract_s_page(signed, as_user):
    contract = SignedContract.objects.get(tender=signed.tender)
    owner = Actor(Role.CONTRACT_OWNER, user=signed.buyer, subject=contract)
    contract.add_change(by=owner, data={"rationale": "Податок", "rationaleTypes": ["taxRate"]})
    buyer = as_user(signed.buyer)
    page = buyer.get(reverse("contract", args=[contract.pk])).text
    assert "Sign the pending change" in page and "Record a change" not in page
    terminate = buyer.get(reverse("contract-terminate", args=[contract.pk])).text
    assert "A change is pending already" in terminate

    url = reverse("contract-change-sign", args=[contract.pk])
    form = {"once": "p" * 32, "date_signed": timezone.localtime().strftime("%Y-%m-%dT%H:%M")}
    done = buyer.post(url, {**form, "document": upload("зміна.pdf")})

    assert done.status_code == 302, done.text[:2000]
    [change] = contract.changes.all()
    assert change.status == "active"
    [paper] = contract.documents.all()
    assert paper.metadata["documentOf"] == "change" and paper.metadata["relatedItem"] == change.pk
    assert "Sign the pending change" not in buyer.get(reverse("contract", args=[contract.pk])).text


def test_a_search_that_can_t_be_read_finds_nothing_and_says_why(signed, as_user):
    page = as_user(None).get(reverse("contracts"), {"status": "bogus"}).text
    assert signed.tender.contracts.get().contract_id not in page
    assert "Select a valid choice" in page


def test_a_price_above_the_award_is_refused_in_ukrainian(signed, as_user, client):
    client.cookies["django_language"] = "uk"
    buyer = as_user(signed.buyer)
    refused = buyer.post(
        reverse("contract-change", args=[signed.contract.pk]), change_form(amount="999.00")
    )
    assert refused.status_code == 422
    assert "Ціна не може бути більшою за ціну переможця" in refused.text


def test_signing_records_the_contract_s_number_signature_term_and_price(signed, client):
    contract = client.get(
        f"/api/2.3/tenders/{signed.tender.pk}/contracts/{signed.contract.pk}"
    ).json()["data"]
    assert contract["status"] == "active" and contract["contractNumber"] == "Д-17/2026"
    assert contract["value"]["amount"] == 400  # (left empty: the awarded price)
    assert contract["period"]["startDate"] == contract["dateSigned"]
    assert contract["period"]["endDate"] > contract["dateSigned"]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"contract_number": ""}, "contract_number", "This field is required."),
        ({"end_date": "2020-01-01T10:00"}, "end_date", "would end before it begins or before"),
        ({"amount": "0"}, "amount", "The contract's price is above zero."),
        ({"amount": "400.01"}, "amount", "can't be above the awarded price of 400.00 UAH"),
    ],
)
def test_a_signing_that_would_make_an_impossible_record_is_refused_by_its_field(
    world, as_user, clock, change, field, words
):
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    url = reverse("contract-sign", args=[world.tender.pk, world.award.pk])

    refused = as_user(world.buyer).post(url, signing_form(**change))

    assert refused.status_code == 422
    errors = refused.context["review"].form.errors
    assert any(words in error for error in errors[field]), errors
    assert world.tender.contracts.get().status == "pending"


def test_a_change_may_not_end_the_contract_before_it_was_signed_nor_price_it_at_zero(
    signed, as_user
):
    buyer = as_user(signed.buyer)
    url = reverse("contract-change", args=[signed.contract.pk])

    early = buyer.post(url, change_form(amount="", end_date="2020-01-01T10:00"))
    nothing = buyer.post(url, change_form(amount="0"))

    assert early.status_code == nothing.status_code == 422
    assert (
        "would end before it begins or before it is signed"
        in (early.context["review"].form.errors["end_date"][0])
    )
    assert nothing.context["review"].form.errors["amount"] == [
        "The contract's price is above zero."
    ]
    assert not signed.tender.contracts.get().changes.exists()


def test_more_paid_than_the_price_is_asked_about_and_said_why(signed, as_user):
    buyer = as_user(signed.buyer)
    url = reverse("contract-terminate", args=[signed.contract.pk])
    paid = {"once": "t" * 32, "amount_paid": "99999999"}

    asked = buyer.post(url, paid)

    assert asked.status_code == 422
    said = asked.content.decode()
    assert "99,999,999.00 UAH is more than the contract&#x27;s price of 400.00 UAH" in said
    assert 'type="checkbox" name="more_paid"' in said  # (the question, with its box)
    why = buyer.post(url, {**paid, "more_paid": "on"})
    assert why.context["review"].form.errors["details"] == [
        "Say why more than the contract's price of 400.00 UAH was paid."
    ]
    assert signed.tender.contracts.get().status == "active"
    done = buyer.post(
        url, {**paid, "more_paid": "on", "details": "Штрафні санкції сплачено за рішенням суду"}
    )
    assert done.status_code == 302
    assert signed.tender.contracts.get().data["amountPaid"]["amount"] == 99999999
