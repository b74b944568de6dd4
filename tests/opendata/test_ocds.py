"""Every tender as OCDS 1.1 (`GET /tenders/{id}?opt_schema=ocds`, as Prozorro's API answers):
valid against the official release and record package schemas with the declared extensions,
offline; drafts and sealed bids never in it."""

from datetime import timedelta

import pytest
from django.core.management import call_command

from core.schema import parse_iso
from opendata.schema import declared_extensions
from tenders.models import Tender
from tests.factories import portal_world
from tests.helpers import (
    FIRST,
    bid_data,
    create_tender,
    open_for_bids,
    open_two_lots,
    organization,
    place_bid,
)

pytestmark = pytest.mark.django_db


def ocds_of(client, tender_id, schema="ocds"):
    response = client.get(f"/api/2.3/tenders/{tender_id}", {"opt_schema": schema})
    assert response.status_code == 200, response.content[:500]
    return response.json()


def test_every_demo_tender_is_valid_ocds_in_a_release_and_a_record_package(client, ocds, settings):
    settings.OCID_PREFIX = "ocds-abc123"
    call_command("load_demo", stdout=None)
    statuses = set()

    for tender in Tender.objects.exclude(status="draft"):
        package = ocds_of(client, tender.pk)
        assert ocds.errors(ocds.release_package, package) == []
        [release] = package["releases"]
        assert release["ocid"] == f"ocds-abc123-{tender.tender_id}"
        assert package["extensions"] == declared_extensions()
        record = ocds_of(client, tender.pk, "ocds-record")
        assert ocds.errors(ocds.record_package, record) == []
        assert record["records"][0]["compiledRelease"]["tag"] == ["compiled"]
        statuses.add(release["tender"]["status"])

    assert statuses == {"active", "complete", "unsuccessful"}


def test_a_signed_change_of_a_contract_is_its_amendment(client, ocds):
    call_command("load_demo", stdout=None)
    tender = Tender.objects.get(title="Рукавички медичні оглядові")  # its contract changed

    package = ocds_of(client, tender.pk)

    assert ocds.errors(ocds.release_package, package) == []
    [contract] = package["releases"][0]["contracts"]
    [amendment] = contract["amendments"]
    assert amendment["rationale"].startswith("Постачальник знизив ціну")
    assert amendment["description"] == "itemPriceVariation"
    assert contract["value"]["amount"] == 115_000


def test_what_a_release_tells_of_a_decided_tender(client, ocds):
    call_command("load_demo", stdout=None)
    tender = Tender.objects.get(title="Послуги з прибирання приміщень")  # awarded, a claim

    release = ocds_of(client, tender.pk)["releases"][0]
    [record] = ocds_of(client, tender.pk, "ocds-record")["records"]

    assert release["tag"] == ["awardUpdate"]  # its last change: a claim against the award
    told = [tag for kept in record["releases"] for tag in kept["tag"]]
    assert told[0] == "tender" and {"tenderUpdate", "award", "contract"} <= set(told)
    assert record["releases"][-1] == release
    roles = {party["name"]: party["roles"] for party in release["parties"]}
    assert roles["Київська міська клінічна лікарня №3"] == ["buyer", "procuringEntity"]
    [award] = [a for a in release["awards"] if a["status"] == "active"]
    [supplier] = award["suppliers"]
    assert "supplier" in roles[supplier["name"]] and "tenderer" in roles[supplier["name"]]
    assert release["bids"]["details"][0]["status"] == "valid"
    [claim] = award["complaints"]
    assert claim["type"] == "claim" and claim["status"] == "claim"
    assert release["buyer"]["id"] == "UA-EDR-01993913"


def test_a_lot_tender_a_question_and_a_cancellation(api, api2, client, clock, ocds):
    tender = open_two_lots(api, clock)
    lots = ocds_of(client, tender.id)
    assert ocds.errors(ocds.release_package, lots) == []
    assert lots["releases"][0]["tender"]["lots"][0]["id"] == FIRST

    other = create_tender(api)
    asked = api2.post(
        f"{other.path}/questions",
        {"title": "Строки?", "description": "Які строки поставки?",
         "author": organization("ДКП «Школяр»", "00137226")},
    )  # fmt: skip
    assert asked.status_code == 201
    api.post(
        f"{other.path}/cancellations",
        {"reason": "Потреба відпала", "status": "active"},
        token=other.token,
    )
    cancelled = ocds_of(client, other.id)
    assert ocds.errors(ocds.release_package, cancelled) == []
    release = cancelled["releases"][0]
    assert release["tag"] == ["tenderCancellation"]
    assert release["tender"]["status"] == "cancelled"
    assert release["tender"]["enquiries"][0]["title"] == "Строки?"


def test_a_tender_with_features_is_ranked_by_rated_criteria(api, client, clock, ocds, settings):
    feature = {"code": "years", "featureOf": "tenderer", "title": "Досвід",
               "enum": [{"value": 0, "title": "0"}, {"value": 0.1, "title": "10%"}]}  # fmt: skip
    tender = open_for_bids(api, clock, features=[feature])
    for number, amount in enumerate((450, 400)):
        bid = {**bid_data(amount, identifier=f"{number + 1:08d}"),
               "parameters": [{"code": "years", "value": 0.1}]}  # fmt: skip
        assert api.post(f"{tender.path}/bids", bid).status_code == 201
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    tender.through_the_auction(clock)
    plain = create_tender(api)

    package = ocds_of(client, tender.id)
    record = ocds_of(client, tender.id, "ocds-record")

    assert ocds.errors(ocds.release_package, package) == []
    assert ocds.errors(ocds.record_package, record) == []
    release = package["releases"][0]
    assert release["tender"]["awardCriteria"] == "ratedCriteria"
    assert release["tender"]["features"] == [feature]
    assert [bid["parameters"] for bid in release["bids"]["details"]] == [
        [{"code": "years", "value": 0.1}]
    ] * 2
    assert record["records"][0]["compiledRelease"]["tender"]["features"] == [feature]
    assert ocds_of(client, plain.id)["releases"][0]["tender"]["awardCriteria"] == "priceOnly"
    assert package["publisher"] == {
        "name": "Public procurement registry",
        "uri": settings.SITE_URL,
    }


def test_our_own_extension_is_served_where_the_package_declares_it(client, settings):
    [declared] = [url for url in declared_extensions() if url.startswith(settings.SITE_URL)]
    path = declared.removeprefix(settings.SITE_URL)

    extension = client.get(path).json()
    schema = client.get(path.replace("extension.json", extension["schemas"][0])).json()

    assert extension["compatibility"] == ["1.1"]
    assert "features" in schema["definitions"]["Tender"]["properties"]
    assert client.get(path.replace("features", "bids")).status_code == 404
    assert client.get(path.replace("extension.json", "x.json")).status_code == 404


def test_drafts_and_sealed_bids_are_never_in_it(api, client, clock):
    draft = create_tender(api, status="draft")
    assert client.get(f"/api/2.3/tenders/{draft.id}", {"opt_schema": "ocds"}).status_code == 404

    tender = open_for_bids(api, clock)
    place_bid(api, tender)
    release = ocds_of(client, tender.id)["releases"][0]
    assert "bids" not in release and "numberOfTenderers" not in release["tender"]
    assert [party["roles"] for party in release["parties"]] == [["buyer", "procuringEntity"]]


def test_the_validation_refuses_what_the_schemas_refuse(api, client, ocds):
    """(so that a package found valid above is valid: the formats and the extensions count)"""
    tender = create_tender(api)
    package = ocds_of(client, tender.id)
    release = package["releases"][0]

    for broken, path in (
        ({**release, "tag": ["bidding"]}, "releases/0/tag/0"),
        ({**release, "date": "2026-11-27T10:00:00"}, "releases/0/date"),
        ({**release, "tender": {**release["tender"], "lots": [{"id": "1", "value": "x"}]}},
         "releases/0/tender/lots/0/value"),
    ):  # fmt: skip
        errors = ocds.errors(ocds.release_package, {**package, "releases": [broken]})
        assert [error for error in errors if error.startswith(path)], (path, errors)


def test_a_conditions_claim_a_test_tender_and_the_caller_s_token(api, api2, client, ocds):
    tender = create_tender(api)
    filed = api2.post(
        f"{tender.path}/complaints",
        {"title": "Умови дискримінаційні", "description": "Вимога щодо досвіду 10 років.",
         "author": organization("ДКП «Школяр»", "00137226"), "status": "claim"},
    )  # fmt: skip
    assert filed.status_code == 201
    test_mode = create_tender(api, mode="test")

    package = api.get(
        f"{tender.path}?opt_schema=ocds&acc_token={tender.token}"
    ).json()  # (its owner asks, with its token)

    assert ocds.errors(ocds.release_package, package) == []
    [claim] = package["releases"][0]["tender"]["complaints"]
    assert claim["author"] == {"name": "not disclosed yet"}  # (2.3 hides it until bids open)
    assert tender.token not in package["uri"] and package["uri"].endswith("?opt_schema=ocds")
    assert client.get(f"/api/2.3/tenders/{test_mode.id}", {"opt_schema": "ocds"}).status_code == 404


def test_a_bid_s_standing_and_who_is_a_supplier_follow_the_decisions(client, brokers, clock, ocds):
    world = portal_world(brokers, clock, decision="unsuccessful")

    release = ocds_of(client, world.tender.pk)["releases"][0]

    assert ocds.errors(ocds.release_package, ocds_of(client, world.tender.pk)) == []
    standing = {bid["id"]: bid["status"] for bid in release["bids"]["details"]}
    disqualified, pending = release["awards"][0]["relatedBid"], release["awards"][1]["relatedBid"]
    assert standing[disqualified] == "disqualified" and standing[pending] == "pending"
    assert not [party for party in release["parties"] if "supplier" in party.get("roles", [])]
