"""No malformed request produces a 500: every one is a 4xx in the error envelope."""

import pytest

from tests.helpers import error, in_qualification, tender_data

pytestmark = pytest.mark.django_db

NASTY = [
    None,
    [],
    "",
    0,
    1e308,
    10**400,
    -1,
    True,
    "\x00",
    "x" * 10_000,
    {"": None},
    {"a": {"b": {"c": []}}},
    [None, {}, [[]]],
    "9999-12-31T23:59:59-12:00",
    "0001-01-01T00:00:00",
]

BODIES = [
    "[" * 5000 + "]" * 5000,
    '{"data": {"title": ' + "[" * 40 + "]" * 40 + "}}",
    '{"data": {"title": "a"}, "data": 1}',
    '{"data": {"title": "\\u0000"}}',
    "\ufeff{}",
]


def fields_of_every_endpoint(tender):
    return {
        "/tenders": [*tender_data(), "status", "mode", "lots", "features"],
        tender.path: [*tender_data(), "status"],
        f"{tender.path}/bids": ["tenderers", "value", "status", "id"],
        f"{tender.path}/cancellations": ["reason", "status", "cancellationOf"],
        f"{tender.path}/awards/{tender.award()['id']}": ["status", "title", "value", "suppliers"],
        f"{tender.path}/documents": ["title", "url", "hash", "format", "documentOf", "relatedItem"],
        f"{tender.path}/awards/{tender.award()['id']}/complaints": [
            "title",
            "author",
            "status",
            "description",
        ],
    }


def test_nasty_values_in_every_field_are_4xx(api, clock):
    tender = in_qualification(api, clock)
    for path, fields in fields_of_every_endpoint(tender).items():
        for field in fields:
            for value in NASTY:
                for send in (api.post, api.patch):
                    response = send(path, {field: value}, token=tender.token)
                    assert response.status_code < 500, (path, field, value, response.content)
                    if response.status_code >= 400:
                        error(response)


def test_nasty_values_inside_nested_objects_are_4xx(api):
    for value in NASTY:
        for path in (
            ("value", "amount"),
            ("enquiryPeriod", "endDate"),
            ("procuringEntity", "identifier"),
        ):
            data = tender_data()
            data[path[0]][path[1]] = value
            response = api.post("/tenders", data)
            assert response.status_code < 500, (path, value, response.content)
        data = tender_data()
        data["items"][0]["classification"] = value
        assert api.post("/tenders", data).status_code < 500


@pytest.mark.parametrize("body", BODIES)
def test_malformed_bodies_are_4xx(api, body):
    response = api.post("/tenders", body=body)
    assert 400 <= response.status_code < 500, response.content
    error(response)


def test_long_procurement_method_details_is_422(api):
    response = api.post("/tenders", tender_data(procurementMethodDetails="x" * 300))
    assert error(response, 422)[0]["name"] == "procurementMethodDetails"
