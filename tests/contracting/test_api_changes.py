"""Contracting on the 2.3 wire, written: the contract's credentials, its changes, what may be
changed of it and when, its termination, its documents; 2.3's words for each refusal, and the
tender's contract always the same as the contracting one."""

import re
from datetime import timedelta

import pytest

from core.schema import iso, parse_iso
from tests.contracting.helpers import InContracting, feed
from tests.docservice.helpers import DocService, document
from tests.helpers import single_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def contract(api, api2, clock):
    return InContracting(api, api2, clock)


def same_in_both(contract: InContracting) -> dict:
    """The contract as contracting shows it, checked against the tender's contract."""
    data, in_tender = contract.read(), contract.in_tender()
    for field in ("id", "status", "value", "items", "period", "title", "dateSigned",
                  "contractNumber", "suppliers"):  # fmt: skip
        assert data.get(field) == in_tender.get(field), field
    return data


# --- credentials --------------------------------------------------------------------------


def test_credentials_give_the_contract_its_own_token_and_each_call_a_new_one(api, api2, contract):
    assert re.fullmatch(r"[0-9a-f]{32}", contract.token)
    first = contract.token
    again = api.patch(f"{contract.path}/credentials", token=contract.tender.token)
    assert again.status_code == 200 and again.json()["data"]["id"] == contract.id
    contract.token = again.json()["access"]["token"]

    assert single_error(contract.patch({"title": "x"}, token=first), 403)["description"] == (
        "Forbidden"
    )
    assert contract.patch({"title": "Договір поставки"}).status_code == 200
    assert (
        single_error(api2.patch(f"{contract.path}/credentials", token=contract.tender.token), 403)[
            "description"
        ]
        == "Forbidden"
    )
    assert api.get(f"{contract.path}/credentials").status_code == 405


def test_the_tender_s_token_changes_nothing_but_the_credentials(contract):
    refused = contract.patch({"title": "x"}, token=contract.tender.token)
    assert single_error(refused, 403) == {
        "location": "url", "name": "permission", "description": "Forbidden",
    }  # fmt: skip
    assert "title" not in contract.read()


# --- the contract's own fields and its termination -----------------------------------------


def test_what_was_paid_takes_only_its_amount_and_termination_needs_it(contract):
    refused = contract.patch({"status": "terminated"})
    assert single_error(refused, 403)["description"] == (
        "Can't terminate contract while 'amountPaid' is not set"
    )
    assert contract.read()["status"] == "active"

    paid = contract.patch(
        {"amountPaid": {"amount": 390, "currency": "USD", "valueAddedTaxIncluded": False},
         "terminationDetails": "Виконано не повністю", "status": "terminated"}
    )  # fmt: skip

    assert paid.status_code == 200, paid.content
    data = same_in_both(contract)
    assert data["status"] == "terminated"
    assert data["amountPaid"] == {"amount": 390, "currency": "UAH", "valueAddedTaxIncluded": True}
    assert data["terminationDetails"] == "Виконано не повністю"
    assert contract.in_tender()["status"] == "terminated"


def test_a_terminated_contract_takes_nothing_more(api, contract):
    assert (
        contract.patch({"amountPaid": {"amount": 400}, "status": "terminated"}).status_code == 200
    )

    assert single_error(contract.patch({"title": "x"}), 403)["description"] == (
        "Can't update contract in current (terminated) status"
    )
    assert single_error(contract.add_change(), 403)["description"] == (
        "Can't add contract change in current (terminated) contract status"
    )
    again = api.patch(f"{contract.path}/credentials", token=contract.tender.token)
    assert single_error(again, 403)["description"] == (
        "Can't generate credentials in current (terminated) contract status"
    )


def test_the_terms_change_only_with_a_change_pending(contract):
    for terms, name in (
        ({"value": {"amount": 380}}, "value"),
        ({"period": {"startDate": "2030-01-01T00:00:00+02:00"}}, "period"),
    ):
        refused = contract.patch(terms)
        assert single_error(refused, 403)["description"] == (
            f"Can't update contract {name} without a pending change"
        )
    assert contract.add_change(rationaleTypes=["priceReduction"]).status_code == 201

    lower = contract.patch({"value": {"amount": 380}})

    assert lower.status_code == 200, lower.content
    assert same_in_both(contract)["value"]["amount"] == 380


def test_the_value_never_rises_above_the_award_nor_changes_currency(contract):
    assert contract.add_change().status_code == 201
    higher = contract.patch({"value": {"amount": 401}})
    assert single_error(higher, 403)["description"] == (
        "Value amount should be less or equal to awarded amount (400.0)"
    )
    dollars = contract.patch({"value": {"currency": "USD"}})
    assert single_error(dollars, 403)["description"] == "Can't update currency for contract value"
    assert contract.read()["value"]["amount"] == 400


def test_items_change_what_may_change_and_keep_the_rest(contract):
    assert contract.add_change(rationaleTypes=["volumeCuts"]).status_code == 201
    [item] = contract.read()["items"]

    cut = contract.patch({"items": [{**item, "quantity": 5, "classification": {"id": "x"}}]})

    assert cut.status_code == 200, cut.content
    [changed] = same_in_both(contract)["items"]
    assert changed["quantity"] == 5 and changed["classification"] == item["classification"]
    more = contract.patch({"items": [item, item]})
    assert single_error(more, 422)["description"] == ["Can't add or remove contract items"]


# --- changes ------------------------------------------------------------------------------


def test_a_change_is_pending_then_signed_and_the_contract_shows_it(contract, clock):
    made = contract.add_change(contractNumber="1/2")
    assert made.status_code == 201, made.content
    change = made.json()["data"]
    assert change["status"] == "pending" and change["rationaleTypes"] == ["volumeCuts"]
    assert made["Location"].endswith(f"{contract.path}/changes/{change['id']}")

    clock.advance(hours=1)
    signed_at = iso(parse_iso(contract.read()["dateSigned"]) + timedelta(minutes=30))
    active = contract.patch_change(change["id"], {"status": "active", "dateSigned": signed_at})

    assert active.status_code == 200, active.content
    assert active.json()["data"]["status"] == "active"
    assert active.json()["data"]["dateSigned"] == signed_at
    [shown] = contract.read()["changes"]
    assert shown == active.json()["data"]
    assert contract.api.get(f"{contract.path}/changes").json()["data"] == [shown]
    late = contract.patch_change(change["id"], {"rationale": "інше"})
    assert single_error(late, 403)["description"] == (
        "Can't update contract change in current (active) status"
    )


def test_one_change_pending_at_a_time(contract):
    assert contract.add_change().status_code == 201
    assert single_error(contract.add_change(), 403)["description"] == (
        "Can't create new contract change while any (pending) change exists"
    )


def test_a_change_s_fields_are_checked_with_2_3_words(contract):
    empty = contract.api.post(f"{contract.path}/changes", {}, token=contract.token)
    assert {e["name"] for e in empty.json()["errors"]} == {"rationale", "rationaleTypes"}
    odd = contract.add_change(rationaleTypes=["whim"])
    assert single_error(odd, 422)["name"] == "rationaleTypes"
    assert "Value must be one of ['volumeCuts'" in str(odd.json()["errors"][0]["description"])
    assert contract.add_change(rationaleTypes=[]).json()["errors"][0]["description"] == [
        "Please provide at least 1 item."
    ]
    assert contract.read().get("changes") is None


def test_a_change_is_signed_with_a_date_not_ahead_nor_before_the_last_signature(contract, clock):
    change = contract.add_change().json()["data"]
    unsigned = contract.patch_change(change["id"], {"status": "active"})
    assert single_error(unsigned, 403)["description"] == (
        "Can't update contract change status. 'dateSigned' is required."
    )
    ahead = contract.patch_change(change["id"], {"dateSigned": "2099-01-01T00:00:00+02:00"})
    assert single_error(ahead, 422)["description"] == [
        "Contract signature date can't be in the future"
    ]
    contract_signed = contract.read()["dateSigned"]
    before = iso(parse_iso(contract_signed) - timedelta(days=1))
    early = contract.patch_change(change["id"], {"dateSigned": before})
    assert single_error(early, 403)["description"] == (
        f"Change dateSigned ({before}) can't be earlier than contract dateSigned "
        f"({contract_signed})"
    )
    assert (
        contract.patch_change(
            change["id"], {"status": "active", "dateSigned": contract_signed}
        ).status_code
        == 200
    )  # (equal is allowed)

    clock.advance(hours=1)
    second = contract.add_change().json()["data"]
    earlier = iso(parse_iso(contract_signed) - timedelta(seconds=1))
    refused = contract.patch_change(second["id"], {"dateSigned": earlier})
    assert single_error(refused, 403)["description"] == (
        f"Change dateSigned ({earlier}) can't be earlier than last active change dateSigned "
        f"({contract_signed})"
    )


def test_every_change_moves_the_contract_in_its_feed(anonymous, contract, clock):
    [before] = feed(anonymous, clock)
    assert contract.add_change().status_code == 201
    clock.advance(minutes=1)
    assert contract.patch({"title": "Договір № 7"}).status_code == 200

    [after] = feed(anonymous, clock, offset=before["dateModified"])

    assert after["id"] == contract.id and after["dateModified"] > before["dateModified"]
    assert after["dateModified"] == contract.read()["dateModified"]


# --- documents ----------------------------------------------------------------------------


def test_the_contract_s_owner_adds_documents_while_it_is_active(client, contract):
    paper = document(DocService(client, key="broker"))
    added = contract.api.post(f"{contract.path}/documents", paper, token=contract.token)
    assert added.status_code == 201, added.content
    document_id = added.json()["data"]["id"]
    assert [d["id"] for d in contract.read()["documents"]][-1] == document_id
    assert [d["id"] for d in contract.in_tender()["documents"]][-1] == document_id
    refused = contract.api.post(f"{contract.path}/documents", paper, token=contract.tender.token)
    assert single_error(refused, 403)["description"] == "Forbidden"

    assert (
        contract.patch({"amountPaid": {"amount": 400}, "status": "terminated"}).status_code == 200
    )
    late = contract.api.post(f"{contract.path}/documents", paper, token=contract.token)
    assert single_error(late, 403)["description"] == (
        "Can't add document in current (terminated) contract status"
    )


# --- what the review of the change found ---------------------------------------------------


def test_a_document_moves_the_contract_and_its_tender_in_their_feeds(
    client, anonymous, contract, clock
):
    [before] = feed(anonymous, clock)
    tender_before = contract.tender.read()["dateModified"]
    clock.advance(minutes=1)
    paper = document(DocService(client, key="broker"))
    assert (
        contract.api.post(f"{contract.path}/documents", paper, token=contract.token).status_code
        == 201
    )

    [after] = feed(anonymous, clock, offset=before["dateModified"])

    assert after["id"] == contract.id and after["dateModified"] > before["dateModified"]
    assert contract.tender.read()["dateModified"] > tender_before


def test_a_contract_with_a_change_pending_is_not_terminated(contract):
    change = contract.add_change().json()["data"]

    refused = contract.patch({"amountPaid": {"amount": 1}, "status": "terminated"})

    assert single_error(refused, 403)["description"] == (
        "Can't terminate contract while any (pending) change exists"
    )
    assert contract.read()["status"] == "active" and "amountPaid" not in contract.read()
    assert contract.patch_change(change["id"], {"rationale": "інше"}).status_code == 200


def test_a_change_is_made_pending_whatever_status_is_sent(contract):
    made = contract.add_change(status="active", dateSigned=contract.read()["dateSigned"])
    assert made.status_code == 201, made.content
    assert made.json()["data"]["status"] == "pending"


def test_a_change_s_number_is_bounded_by_what_is_kept(contract):
    refused = contract.add_change(contractNumber="7" * 256)
    assert single_error(refused, 422)["name"] == "contractNumber"
    assert "changes" not in contract.read()


def test_a_contract_takes_a_bounded_number_of_changes(contract, monkeypatch):
    from contracting.models import signed_contract

    monkeypatch.setattr(signed_contract, "MAX_CHANGES", 1)
    first = contract.add_change().json()["data"]
    signed_at = contract.read()["dateSigned"]
    assert (
        contract.patch_change(
            first["id"], {"status": "active", "dateSigned": signed_at}
        ).status_code
        == 200
    )

    refused = contract.add_change()

    assert single_error(refused, 422) == {
        "location": "body", "name": "changes", "description": ["Please provide no more than 1 items."],
    }  # fmt: skip


def test_an_edit_of_a_change_that_changes_nothing_stamps_nothing(contract, clock):
    change = contract.add_change().json()["data"]
    stamp = contract.read()["dateModified"]
    clock.advance(minutes=1)

    same = contract.patch_change(change["id"], {"rationale": change["rationale"]})

    assert same.status_code == 200
    assert contract.read()["dateModified"] == stamp


def test_a_period_sent_in_part_keeps_the_rest(contract):
    assert contract.add_change(rationaleTypes=["durationExtension"]).status_code == 201
    start, end = "2026-12-01T00:00:00+02:00", "2027-06-30T00:00:00+03:00"
    assert contract.patch({"period": {"startDate": start, "endDate": end}}).status_code == 200

    later = contract.patch({"period": {"endDate": "2027-12-31T00:00:00+02:00"}})

    assert later.status_code == 200, later.content
    period = same_in_both(contract)["period"]
    assert parse_iso(period["startDate"]) == parse_iso(start)
    assert parse_iso(period["endDate"]) == parse_iso("2027-12-31T00:00:00+02:00")


def test_every_contracting_write_is_on_the_tender_s_audit_trail(contract, clock):
    from tenders.models import AuditEvent

    change = contract.add_change().json()["data"]
    signed_at = contract.read()["dateSigned"]
    contract.patch_change(change["id"], {"status": "active", "dateSigned": signed_at})
    contract.patch({"amountPaid": {"amount": 400}, "status": "terminated"})

    events = AuditEvent.objects.filter(subject_type__in=["contract", "contractchange"]).values_list(
        "subject_type", "action", "to_status", "actor_role"
    )
    assert [e for e in events if e[1] not in ("create", "sign", "edit")] == [
        ("contract", "credentials", "active", "tender_owner"),
        ("contractchange", "activate", "active", "contract_owner"),
        ("contract", "change_terms", "active", "contract_owner"),
        ("contract", "terminate", "terminated", "contract_owner"),
    ]
    assert ("contractchange", "create", "pending", "contract_owner") in events


def test_a_document_of_a_change_names_a_pending_one(client, contract):
    ds = DocService(client, key="broker")
    change = contract.add_change().json()["data"]
    paper = document(ds, documentOf="change", relatedItem=change["id"])
    added = contract.api.post(f"{contract.path}/documents", paper, token=contract.token)
    assert added.status_code == 201, added.content
    assert added.json()["data"]["documentOf"] == "change"

    unknown = document(ds, documentOf="change", relatedItem="0" * 32)
    refused = contract.api.post(f"{contract.path}/documents", unknown, token=contract.token)
    assert single_error(refused, 422)["description"] == ["relatedItem should be one of changes"]

    signed_at = contract.read()["dateSigned"]
    contract.patch_change(change["id"], {"status": "active", "dateSigned": signed_at})
    late = document(ds, documentOf="change", relatedItem=change["id"])
    refused = contract.api.post(f"{contract.path}/documents", late, token=contract.token)
    assert single_error(refused, 403)["description"] == "Can't add document to 'active' change"


def test_a_signed_contract_s_documents_are_of_it_or_of_a_change(client, contract):
    paper = document(DocService(client, key="broker"), documentOf="lot", relatedItem="0" * 32)
    refused = contract.api.post(f"{contract.path}/documents", paper, token=contract.token)
    assert single_error(refused, 422) == {
        "location": "body", "name": "documentOf",
        "description": ["Value must be one of ['contract', 'change']."],
    }  # fmt: skip
