"""Features (non-price criteria) and the parameters bids name for them: validated, stored and
weighed into the ranking as 2.3 does."""

from datetime import timedelta

import pytest

from core.schema import parse_iso
from tests.helpers import (
    FIRST,
    SECOND,
    awards_by_lot,
    close_tendering,
    create_tender,
    error,
    offer,
    open_two_lots,
    organization,
    single_error,
    tender_data,
)

pytestmark = pytest.mark.django_db


def feature(code: str, *values: float, of: str = "tenderer", related: str | None = None):
    made = {
        "code": code,
        "featureOf": of,
        "title": f"критерій {code}",
        "enum": [{"value": value, "title": f"{value:.0%}"} for value in values],
    }
    if related:
        made["relatedItem"] = related
    return made


YEARS = feature("years", 0, 0.05, 0.15)
WARRANTY = feature("warranty", 0, 0.15)


def bid(amount, *parameters, identifier="00000001") -> dict:
    return {
        "tenderers": [organization(f"Учасник {identifier}", identifier)],
        "value": {"amount": amount},
        "parameters": [{"code": code, "value": value} for code, value in parameters],
    }


def open_with_features(api, clock, features):
    tender = create_tender(api, features=features)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    return tender


def test_features_are_stored_and_shown(api):
    tender = create_tender(api, features=[YEARS, WARRANTY])
    assert tender.read()["features"] == [YEARS, WARRANTY]


@pytest.mark.parametrize(
    ("features", "description"),
    [
        ([YEARS, YEARS], ["Feature code should be uniq for all features"]),
        ([feature("a", 0.1, 0.1)], [{"enum": ["Feature value should be uniq for feature"]}]),
        ([feature("a", 0.31)], [{"enum": [{"value": ["Float value should be less than 0.3."]}]}]),
        ([feature("a", 0.2), feature("b", 0.15)],
         ["Sum of max value of all features should be less then or equal to 30%"]),
        ([feature("a", 0.1, of="item")], [{"relatedItem": ["This field is required."]}]),
        ([feature("a", 0.1, of="item", related="nope")],
         [{"relatedItem": ["relatedItem should be one of items"]}]),
        ([feature("a", 0.1, of="lot", related="nope")],
         [{"relatedItem": ["relatedItem should be one of lots"]}]),
        ([{**YEARS, "enum": []}], [{"enum": ["Please provide at least 1 item."]}]),
    ],
)  # fmt: skip
def test_features_are_checked_as_2_3_checks_them(api, features, description):
    response = api.post("/tenders", tender_data(features=features))
    assert single_error(response, 422) == {
        "location": "body",
        "name": "features",
        "description": description,
    }


def test_the_owner_changes_the_features_during_enquiries(api):
    tender = create_tender(api, features=[YEARS])
    assert tender.patch({"features": [YEARS, WARRANTY]}).status_code == 200
    assert [entry["code"] for entry in tender.read()["features"]] == ["years", "warranty"]


@pytest.mark.parametrize(
    ("parameters", "description"),
    [
        ((), ["This field is required."]),
        ((("years", 0.05),), ["All features parameters is required."]),
        ((("years", 0.05), ("warranty", 0), ("colour", 0.1)),
         [{}, {}, {"code": ["code should be one of feature code."]}]),
        ((("years", 0.07), ("warranty", 0)),
         [{"value": ["value should be one of feature value."]}, {}]),
        ((("years", 0.05), ("years", 0.05), ("warranty", 0)),
         ["Parameter code should be uniq for all parameters"]),
    ],
)  # fmt: skip
def test_a_bid_names_a_value_for_every_feature(api, api2, clock, parameters, description):
    tender = open_with_features(api, clock, [YEARS, WARRANTY])
    response = api2.post(f"{tender.path}/bids", bid(400, *parameters))
    assert single_error(response, 422) == {
        "location": "body",
        "name": "parameters",
        "description": description,
    }


def test_bids_are_ranked_by_their_price_weighed_by_their_features(api, api2, clock):
    tender = open_with_features(api, clock, [YEARS, WARRANTY])
    # 400 / (1 + 0.15 / (1 - 0.3)) = 329.41 beats a plain 350.
    response = api2.post(
        f"{tender.path}/bids", bid(400, ("years", 0.15), ("warranty", 0), identifier="00000001")
    )
    assert response.status_code == 201, response.content
    assert response.json()["data"]["parameters"] == [
        {"code": "years", "value": 0.15},
        {"code": "warranty", "value": 0},
    ]
    api2.post(f"{tender.path}/bids", bid(350, ("years", 0), ("warranty", 0), identifier="00000002"))
    # 330 / (1 + 0.05 / 0.7) = 308.0: the best.
    cheapest = api2.post(
        f"{tender.path}/bids", bid(330, ("years", 0.05), ("warranty", 0), identifier="00000003")
    )

    data = close_tendering(tender, clock)

    [award] = data["awards"]
    assert award["bid_id"] == cheapest.json()["data"]["id"]
    assert award["value"]["amount"] == 330  # the price offered, not the weighed one
    assert tender.decide("unsuccessful").status_code == 200
    second = tender.read()["awards"][-1]
    assert second["value"]["amount"] == 400


def test_a_lot_bid_names_values_only_for_the_features_of_its_lots(api, api2, clock):
    features = [
        feature("years", 0, 0.1),
        feature("first", 0, 0.2, of="lot", related=FIRST),
        feature("second", 0, 0.2, of="lot", related=SECOND),
    ]
    tender = open_two_lots(api, clock, features=features)
    body = {
        "tenderers": [organization("Учасник", "00000001")],
        "lotValues": [offer(SECOND, 150)],
        "parameters": [{"code": "years", "value": 0.1}, {"code": "first", "value": 0.2}],
    }
    refused = api2.post(f"{tender.path}/bids", body)
    assert single_error(refused, 422)["description"] == ["All features parameters is required."]
    body["parameters"] = [{"code": "years", "value": 0}, {"code": "second", "value": 0}]
    assert api2.post(f"{tender.path}/bids", body).status_code == 201
    # 180 / (1 + 0.3 / 0.7) = 126 beats 150 on the second lot.
    body = {
        "tenderers": [organization("Інший", "00000002")],
        "lotValues": [offer(SECOND, 180)],
        "parameters": [{"code": "years", "value": 0.1}, {"code": "second", "value": 0.2}],
    }
    assert api2.post(f"{tender.path}/bids", body).status_code == 201
    by_lot = awards_by_lot(close_tendering(tender, clock))
    assert by_lot[SECOND][0]["value"]["amount"] == 180


def test_features_for_a_lot_are_summed_lot_by_lot(api):
    features = [
        feature("years", 0, 0.15),
        feature("first", 0, 0.15, of="lot", related=FIRST),
        feature("second", 0, 0.15, of="lot", related=SECOND),
    ]
    lots = tender_data(
        lots=[
            {"id": FIRST, "title": "1", "value": {"amount": 300}, "minimalStep": {"amount": 5}},
            {"id": SECOND, "title": "2", "value": {"amount": 200}, "minimalStep": {"amount": 5}},
        ],
        features=features,
    )
    assert api.post("/tenders", lots).status_code == 201
    too_much = [*features, feature("more", 0, 0.05, of="lot", related=FIRST)]
    response = api.post("/tenders", {**lots, "features": too_much})
    assert error(response, 422)[0]["description"] == [
        "Sum of max value of all features for lot should be less then or equal to 30%"
    ]
