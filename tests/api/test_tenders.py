"""POST/GET/PATCH /tenders/{id} and /cancellations: creation, validation, the 2.3 merge rules."""

import re
from datetime import timedelta

import pytest

from core.schema import iso, parse_iso
from tenders.models import AuditEvent, Tender
from tests.helpers import create_tender, error, single_error, tender_data

pytestmark = pytest.mark.django_db


def test_create_answers_201_with_location_token_and_the_server_fields(api, anonymous):
    response = api.post("/tenders", tender_data())
    assert response.status_code == 201
    body = response.json()
    data = body["data"]
    assert response["Location"] == f"http://testserver/api/2.3/tenders/{data['id']}"
    assert re.fullmatch(r"[0-9a-f]{32}", body["access"]["token"])
    assert re.fullmatch(r"[0-9a-f]{32}", data["id"])
    assert re.fullmatch(r"UA-\d{4}-\d{2}-\d{2}-\d{6}", data["tenderID"])
    assert data["status"] == "active.enquiries"
    assert data["owner"] == "broker"
    assert data["value"] == {"amount": 500.0, "currency": "UAH", "valueAddedTaxIncluded": True}
    assert data["minimalStep"]["valueAddedTaxIncluded"] is True
    assert data["procurementMethod"] == "open"
    assert data["procurementMethodType"] == "belowThreshold"
    assert data["awardCriteria"] == "lowestCost"
    assert data["submissionMethod"] == "electronicAuction"
    assert data["tenderPeriod"]["startDate"] == data["enquiryPeriod"]["endDate"]
    assert data["enquiryPeriod"]["startDate"] == data["date"]
    assert data["next_check"] == data["tenderPeriod"]["startDate"]
    assert re.fullmatch(r"[0-9a-f]{32}", data["items"][0]["id"])
    for absent in ("bids", "numberOfBids", "awards", "documents", "access", "owner_token"):
        assert absent not in data

    read = anonymous.get(f"/tenders/{data['id']}")
    assert read.status_code == 200
    assert read.json() == {"data": data}


def test_the_server_adds_exactly_the_2_3_fields(api):
    sent = tender_data()
    created = api.post("/tenders", sent).json()["data"]
    assert set(created) - set(sent) == {
        "id", "dateModified", "tenderID", "date", "status", "procurementMethod",
        "awardCriteria", "submissionMethod", "next_check", "owner",
    }  # fmt: skip
    assert set(created["enquiryPeriod"]) == {"startDate", "endDate"}
    assert set(created["items"][0]) - set(sent["items"][0]) == {"id"}


def test_dates_are_kyiv_time_with_microseconds(api):
    data = create_tender(api).read()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+0[23]:00", data["dateModified"])


def test_naive_input_dates_are_kyiv_time(api, clock):
    end = (clock.now() + timedelta(days=3)).replace(microsecond=0, tzinfo=None)
    data = tender_data(enquiryPeriod={"endDate": end.isoformat()})
    response = api.post("/tenders", data)
    stored = parse_iso(response.json()["data"]["enquiryPeriod"]["endDate"])
    assert stored.replace(tzinfo=None) == end and stored.utcoffset() in (
        timedelta(hours=2),
        timedelta(hours=3),
    )


def test_client_supplied_ids_are_ignored(api):
    data = tender_data(id="hash", doc_id="hash2", tenderID="hash3", owner="someone", status="x")
    created = api.post("/tenders", data).json()["data"]
    assert created["id"] != "hash" and created["tenderID"] != "hash3"
    assert created["owner"] == "broker" and created["status"] == "active.enquiries"


def test_tender_ids_count_up_per_day(api):
    first = create_tender(api).read()["tenderID"]
    second = create_tender(api).read()["tenderID"]
    assert int(second[-6:]) == int(first[-6:]) + 1
    assert second[:-6] == first[:-6]


def test_missing_required_fields_are_all_reported(api):
    response = api.post("/tenders", {"procurementMethod": "invalid_value"})
    errors = error(response, 422)
    for name in ("title", "items", "value", "minimalStep", "enquiryPeriod", "tenderPeriod"):
        assert {
            "location": "body",
            "name": name,
            "description": ["This field is required."],
        } in errors
    assert {
        "location": "body",
        "name": "procurementMethod",
        "description": ["Value must be one of ['open', 'selective', 'limited']."],
    } in errors
    assert not Tender.objects.exists()


@pytest.mark.parametrize(
    ("change", "name", "description"),
    [
        (
            {"value": "500"},
            "value",
            ["Please use a mapping for this field or Value instance instead of unicode."],
        ),
        (
            {"value": {"amount": "much"}},
            "value",
            {"amount": ["Number 'much' failed to convert to a decimal."]},
        ),
        ({"value": {"amount": -1}}, "value", {"amount": ["Float value should be greater than 0."]}),
        (
            {"value": {"amount": True}},
            "value",
            {"amount": ["Number 'True' failed to convert to a decimal."]},
        ),
        (
            {"value": {"amount": 500, "currency": "UAHH"}},
            "value",
            {"currency": ["Ensure this field has no more than 3 characters."]},
        ),
        (
            {"enquiryPeriod": {"endDate": "invalid_value"}},
            "enquiryPeriod",
            {"endDate": ["Could not parse invalid_value. Should be ISO8601."]},
        ),
        (
            {"enquiryPeriod": {"endDate": "9999-12-31T23:59:59+00:00"}},
            "enquiryPeriod",
            {"endDate": ["date value out of range"]},
        ),
        ({"items": []}, "items", ["Please provide at least 1 item."]),
        ({"items": "x"}, "items", ["Please provide a list."]),
        ({"mode": "prod"}, "mode", ["Value must be one of ['test']."]),
        ({"title": ""}, "title", ["This field may not be blank."]),
        ({"title": ["a"]}, "title", ["Couldn't interpret '['a']' as string."]),
        ({"hasEnquiries": "maybe"}, "hasEnquiries", ["Must be either true or false."]),
    ],
)
def test_field_errors_have_the_2_3_shape(api, change, name, description):
    response = api.post("/tenders", tender_data(**change))
    assert {"location": "body", "name": name, "description": description} in error(response, 422)
    assert not Tender.objects.exists()


def test_minimal_step_must_match_the_value(api):
    def refused(step):
        response = api.post("/tenders", tender_data(minimalStep=step))
        return single_error(response, 422)

    assert refused({"amount": 501})["description"] == ["value should be less than value of tender"]
    assert refused({"amount": 35, "currency": "USD"})["description"] == [
        "currency should be identical to currency of value of tender"
    ]
    assert refused({"amount": 35, "valueAddedTaxIncluded": False})["description"] == [
        "valueAddedTaxIncluded should be identical to valueAddedTaxIncluded of value of tender"
    ]
    assert not Tender.objects.exists()


def test_periods_in_the_wrong_order_are_refused(api, clock):
    now = clock.now()
    response = api.post(
        "/tenders",
        tender_data(
            enquiryPeriod={"endDate": iso(now + timedelta(days=7))},
            tenderPeriod={
                "startDate": iso(now + timedelta(days=6)),
                "endDate": iso(now + timedelta(days=9)),
            },
        ),
    )
    assert single_error(response, 422) == {
        "location": "body",
        "name": "tenderPeriod",
        "description": ["period should begin after enquiryPeriod"],
    }
    response = api.post(
        "/tenders",
        tender_data(tenderPeriod={"endDate": iso(now + timedelta(days=3))}),
    )
    assert single_error(response, 422)["description"] == {
        "startDate": ["period should begin before its end"]
    }
    response = api.post(
        "/tenders",
        tender_data(
            enquiryPeriod={
                "startDate": iso(now + timedelta(days=2)),
                "endDate": iso(now + timedelta(days=1)),
            }
        ),
    )
    assert single_error(response, 422)["description"] == {
        "startDate": ["period should begin before its end"]
    }
    response = api.post(
        "/tenders", tender_data(enquiryPeriod={"endDate": iso(now - timedelta(days=1))})
    )
    assert single_error(response, 422)["description"] == {
        "endDate": ["enquiryPeriod should end in the future"]
    }
    assert not Tender.objects.exists()


def test_items_rules(api):
    item = tender_data()["items"][0]
    other_group = {**item, "classification": {**item["classification"], "id": "30197630-1"}}
    response = api.post("/tenders", tender_data(items=[item, other_group]))
    assert single_error(response, 422)["description"] == ["CPV group of items be identical"]

    twin = {**item, "id": "a" * 32}
    response = api.post("/tenders", tender_data(items=[twin, twin]))
    assert single_error(response, 422)["description"] == ["Item id should be uniq for all items"]

    unknown = {**item, "classification": {**item["classification"], "id": "99999999-9"}}
    del unknown["additionalClassifications"]
    response = api.post("/tenders", tender_data(items=[unknown]))
    assert single_error(response, 422)["description"] == [
        {"additionalClassifications": ["This field is required."]}
    ]

    wrong_scheme = {**item, "classification": {**item["classification"], "scheme": "CPV"}}
    response = api.post("/tenders", tender_data(items=[item, wrong_scheme]))
    assert single_error(response, 422)["description"] == [
        {},
        {"classification": {"scheme": ["Value must be one of ['ДК021']."]}},
    ]


def test_a_made_up_cpv_code_is_refused_with_the_catalogue_named(api):
    """2.3 checks a ДК021 code against the catalogue, and its message names every code."""
    item = tender_data()["items"][0]
    for made_up in ("11111111-1", "3019763-1", "30197630-2"):
        wrong = {**item, "classification": {**item["classification"], "id": made_up}}
        response = api.post("/tenders", tender_data(items=[wrong]))
        [described] = single_error(response, 422)["description"]
        [message] = described["classification"]["id"]
        assert message.startswith("Value must be one of ['03000000-1', '03100000-2', ")
        assert message.endswith(", '99999999-9'].")
        assert message.count("'") == 2 * 9458
    assert not Tender.objects.exists()


def test_contact_point_needs_a_telephone_or_an_email(api):
    data = tender_data()
    del data["procuringEntity"]["contactPoint"]["telephone"]
    response = api.post("/tenders", data)
    assert single_error(response, 422)["description"] == {
        "contactPoint": {"email": ["telephone or email should be present"]}
    }


@pytest.mark.parametrize("kind", [None, "social"])
def test_procuring_entity_that_cannot_publish_is_403(api, kind):
    data = tender_data()
    data["procuringEntity"]["kind"] = kind
    response = api.post("/tenders", data)
    assert single_error(response, 403) == {
        "location": "procuringEntity",
        "name": "kind",
        "description": f"'{kind or ''}' procuringEntity cannot publish this type of procedure. "
        "Only general, special, defense, other are allowed.",
    }


def test_other_procurement_method_type_is_415_not_implemented(api):
    response = api.post("/tenders", tender_data(procurementMethodType="aboveThresholdUA"))
    assert single_error(response, 415) == {
        "location": "data",
        "name": "procurementMethodType",
        "description": "Not implemented",
    }


def test_test_mode_prefixes_the_titles(api):
    data = create_tender(api, mode="test", title_en="Cases", title_ru="Футляры").read()
    assert data["mode"] == "test"
    assert data["title"] == "[ТЕСТУВАННЯ] футляри до державних нагород"
    assert data["title_en"] == "[TESTING] Cases"
    assert data["title_ru"] == "[ТЕСТИРОВАНИЕ] Футляры"


def test_patch_merges_and_moves_date_modified(api, anonymous, clock):
    tender = create_tender(api)
    before = tender.read()
    clock.advance(seconds=1)
    new_end = iso(parse_iso(before["tenderPeriod"]["endDate"]) + timedelta(days=1))
    response = tender.patch({"tenderPeriod": {"endDate": new_end}})
    assert response.status_code == 200
    after = response.json()["data"]
    assert after["tenderPeriod"] == {
        "startDate": before["tenderPeriod"]["startDate"],
        "endDate": new_end,
    }
    assert after["dateModified"] > before["dateModified"]
    assert after["next_check"] == before["next_check"]
    clock.advance(minutes=1)  # settled, so the feed shows it
    listed = anonymous.get("/tenders").json()["data"]
    assert listed == [{"id": tender.id, "dateModified": after["dateModified"]}]
    event = AuditEvent.objects.filter(action="edit").get()
    assert (event.actor_role, event.actor_name, event.payload) == (
        "tender_owner",
        "broker",
        {"fields": ["tenderPeriod"]},
    )


def test_patch_null_removes_a_field_and_nested_objects_merge(api):
    tender = create_tender(api)
    response = tender.patch(
        {"procuringEntity": {"contactPoint": {"faxNumber": "0440000001"}}, "description": "d"}
    )
    data = response.json()["data"]
    assert data["procuringEntity"]["contactPoint"] == {
        "name": "Державне управління справами",
        "telephone": "0440000000",
        "faxNumber": "0440000001",
    }
    data = tender.patch(
        {"procuringEntity": {"contactPoint": {"faxNumber": None}}, "description": None}
    ).json()["data"]
    assert "faxNumber" not in data["procuringEntity"]["contactPoint"]
    assert "description" not in data


def test_patch_lists_merge_by_position(api):
    tender = create_tender(api)
    original = tender.read()["items"][0]
    second = {k: v for k, v in original.items() if k != "id"}
    items = tender.patch({"items": [{}, second]}).json()["data"]["items"]
    assert len(items) == 2
    assert items[0] == original
    assert items[1]["id"] != original["id"] and items[1]["description"] == original["description"]
    items = tender.patch({"items": [{"quantity": 7}]}).json()["data"]["items"]
    assert items == [{**original, "quantity": 7}]


def test_patch_that_changes_nothing_keeps_date_modified(api, clock):
    tender = create_tender(api)
    before = tender.read()
    clock.advance(seconds=1)
    for change in ({}, {"dateModified": "2000-01-01T00:00:00"}, {"title": before["title"]}):
        response = tender.patch(change)
        assert response.status_code == 200
        assert response.json()["data"]["dateModified"] == before["dateModified"]
    assert not AuditEvent.objects.filter(action="edit").exists()


def test_fields_the_owner_may_not_set_are_dropped_silently(api):
    tender = create_tender(api)
    before = tender.read()
    response = tender.patch(
        {
            "status": "cancelled",
            "tenderID": "UA-1",
            "owner": "thief",
            "mode": "test",
            "procurementMethod": "limited",
            "procurementMethodDetails": "quick, accelerator=1440",
            "procuringEntity": {"kind": "special"},
        }
    )
    assert response.status_code == 200
    assert response.json()["data"] == before


def test_patch_with_a_rogue_field_changes_nothing(api):
    tender = create_tender(api)
    before = tender.read()
    response = tender.patch({"title": "new", "bidders": []})
    assert single_error(response, 422) == {
        "location": "body",
        "name": "bidders",
        "description": "Rogue field",
    }
    assert tender.read() == before


def test_patch_producing_an_invalid_tender_changes_nothing(api):
    tender = create_tender(api)
    before = tender.read()
    response = tender.patch({"value": {"amount": 10}})
    assert single_error(response, 422)["name"] == "minimalStep"
    assert tender.read() == before


def test_period_start_cannot_be_deleted(api):
    tender = create_tender(api)
    response = tender.patch({"tenderPeriod": {"startDate": None}})
    assert single_error(response, 422) == {
        "location": "body",
        "name": "tenderPeriod",
        "description": {"startDate": ["This field cannot be deleted"]},
    }


def test_patch_in_tendering_is_a_silent_no_op(api, clock):
    tender = create_tender(api)
    clock.advance(days=8)
    before = tender.read()
    assert before["status"] == "active.tendering"
    response = tender.patch({"title": "too late"})
    assert response.status_code == 200
    assert response.json()["data"] == before


def test_draft_can_only_be_published(api, anonymous, clock):
    response = api.post("/tenders", tender_data(status="draft"))
    assert response.status_code == 201
    body = response.json()
    assert body["data"]["status"] == "draft"
    tender_id, token = body["data"]["id"], body["access"]["token"]
    clock.advance(minutes=1)
    assert anonymous.get("/tenders").json()["data"] == []

    response = api.patch(f"/tenders/{tender_id}", {"value": {"amount": 100}}, token=token)
    assert single_error(response, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't update tender in current (draft) status",
    }
    response = api.patch(f"/tenders/{tender_id}", {"status": "active.enquiries"}, token=token)
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "active.enquiries"
    clock.advance(minutes=1)
    assert [t["id"] for t in anonymous.get("/tenders").json()["data"]] == [tender_id]


def test_a_draft_whose_enquiries_ended_is_not_published(api, clock):
    # A deviation from 2.3, which published it and moved it on at once (to unsuccessful when
    # its bidding had ended too); a draft cannot be edited, so it is cancelled instead.
    response = api.post("/tenders", tender_data(clock.now(), status="draft"))
    tender_id, token = response.json()["data"]["id"], response.json()["access"]["token"]
    clock.move_to(Tender.objects.get(pk=tender_id).enquiry_end)

    response = api.patch(f"/tenders/{tender_id}", {"status": "active.enquiries"}, token=token)

    assert single_error(response, 422) == {
        "location": "body",
        "name": "enquiryPeriod",
        "description": "enquiryPeriod should end in the future",
    }
    assert Tender.objects.get(pk=tender_id).status == "draft"


def test_cancellation_in_two_steps(api):
    tender = create_tender(api)
    response = api.post(
        f"{tender.path}/cancellations", {"reason": "Змінилися потреби"}, token=tender.token
    )
    assert response.status_code == 201
    cancellation = response.json()["data"]
    assert cancellation["status"] == "pending" and cancellation["cancellationOf"] == "tender"
    assert response["Location"].endswith(f"{tender.path}/cancellations/{cancellation['id']}")
    assert tender.read()["status"] == "active.enquiries"

    path = f"{tender.path}/cancellations/{cancellation['id']}"
    response = api.patch(path, {"status": "active"}, token=tender.token)
    assert response.status_code == 200 and response.json()["data"]["status"] == "active"
    data = tender.read()
    assert data["status"] == "cancelled"
    assert data["cancellations"] == [response.json()["data"]]
    assert "next_check" not in data

    response = tender.patch({"title": "after"})
    assert (
        single_error(response, 403)["description"]
        == "Can't update tender in current (cancelled) status"
    )
    response = api.post(f"{tender.path}/cancellations", {"reason": "again"}, token=tender.token)
    assert (
        single_error(response, 403)["description"]
        == "Can't add cancellation in current (cancelled) tender status"
    )
    response = api.patch(path, {"reason": "changed"}, token=tender.token)
    assert (
        single_error(response, 403)["description"]
        == "Can't update cancellation in current (cancelled) tender status"
    )


def test_cancellation_in_one_step_and_its_rules(api, api2):
    tender = create_tender(api)
    path = f"{tender.path}/cancellations"
    assert single_error(api.post(path, {}, token=tender.token), 422)["name"] == "reason"
    assert single_error(
        api.post(path, {"reason": "x", "cancellationOf": "bid"}, token=tender.token), 422
    )["description"] == ["Value must be one of ['tender', 'lot']."]
    assert single_error(
        api2.post(path, {"reason": "x", "status": "active"}, token=tender.token), 403
    )["name"] == ("permission")
    response = api.post(
        path, {"reason": "Помилка в умовах", "status": "active"}, token=tender.token
    )
    assert response.status_code == 201
    assert tender.read()["status"] == "cancelled"
    assert api.get(path).json()["data"][0]["reason"] == "Помилка в умовах"
