"""What every endpoint shares: envelopes, content types, auth, tokens, 404/405, limits."""

import json

import pytest

from tests.helpers import basic, create_tender, error, single_error, tender_data

pytestmark = pytest.mark.django_db


def test_wrong_content_type_is_415_with_the_2_3_description(api):
    response = api.post("/tenders", body="data", content_type="application/x-www-form-urlencoded")
    assert single_error(response, 415) == {
        "location": "header",
        "name": "Content-Type",
        "description": "Content-Type header should be one of ['application/json']",
    }


def test_json_with_charset_is_accepted(api):
    response = api.post("/tenders", tender_data(), content_type="application/json; charset=utf-8")
    assert response.status_code == 201


@pytest.mark.parametrize("body", ["data", "{", '{"data": NaN}', b"\xff\xfe"])
def test_body_that_is_not_json_is_422(api, body):
    response = api.post("/tenders", body=body)
    assert single_error(response, 422) == {
        "location": "body",
        "name": "data",
        "description": "No JSON object could be decoded",
    }


def test_lone_surrogate_escape_is_refused_not_stored(api):
    response = api.post("/tenders", body='{"data": {"title": "\\ud800"}}')
    assert single_error(response, 422)["description"] == "No JSON object could be decoded"


@pytest.mark.parametrize(
    "body", ['"data"', '{"not_data": {}}', '{"data": []}', "{}", '{"data": "x"}']
)
def test_body_without_a_data_object_is_422_data_not_available(api, body):
    response = api.post("/tenders", body=body)
    assert single_error(response, 422) == {
        "location": "body",
        "name": "data",
        "description": "Data not available",
    }


def test_unknown_field_is_a_rogue_field(api):
    response = api.post("/tenders", tender_data(invalid_field=1))
    assert single_error(response, 422) == {
        "location": "body",
        "name": "invalid_field",
        "description": "Rogue field",
    }


def test_unknown_nested_field_is_reported_under_its_parent(api):
    data = tender_data()
    data["value"]["foo"] = "bar"
    response = api.post("/tenders", data)
    assert single_error(response, 422) == {
        "location": "body",
        "name": "value",
        "description": {"foo": "Rogue field"},
    }


def test_body_over_the_limit_is_413_and_nothing_is_stored(api, settings):
    from tenders.models import Tender

    settings.API_MAX_BODY_BYTES = 2048
    data = tender_data(description="x" * 4096)
    response = api.post("/tenders", data)
    entry = single_error(response, 413)
    assert entry["name"] == "data" and "2048 bytes" in entry["description"]
    assert not Tender.objects.exists()


def test_write_without_a_key_is_403_permission_not_401(anonymous):
    response = anonymous.post("/tenders", tender_data())
    assert single_error(response, 403) == {
        "location": "url",
        "name": "permission",
        "description": "Forbidden",
    }


def test_write_with_an_unknown_key_is_403(client, brokers):
    response = client.post(
        "/api/2.3/tenders",
        json.dumps({"data": tender_data()}),
        content_type="application/json",
        HTTP_AUTHORIZATION=basic("no-such-key"),
    )
    assert single_error(response, 403)["name"] == "permission"


@pytest.mark.parametrize("header", ["Basic !!!", "Basic", "Digest abc", "Bearer", ""])
def test_malformed_authorization_is_anonymous_not_an_error(client, brokers, header):
    response = client.get("/api/2.3/tenders", HTTP_AUTHORIZATION=header)
    assert response.status_code == 200
    response = client.post(
        "/api/2.3/tenders", "{}", content_type="application/json", HTTP_AUTHORIZATION=header
    )
    assert single_error(response, 403)["name"] == "permission"


def test_bearer_key_is_accepted(client, brokers):
    response = client.post(
        "/api/2.3/tenders",
        json.dumps({"data": tender_data()}),
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer broker",
    )
    assert response.status_code == 201
    assert response.json()["data"]["owner"] == "broker"


def test_basic_password_is_ignored(client, brokers):
    import base64

    credentials = base64.b64encode(b"broker:anything").decode()
    response = client.post(
        "/api/2.3/tenders",
        json.dumps({"data": tender_data()}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {credentials}",
    )
    assert response.status_code == 201


def test_reads_are_public(api, anonymous):
    tender = create_tender(api)
    assert anonymous.get(tender.path).status_code == 200
    assert anonymous.get("/tenders").status_code == 200


@pytest.mark.parametrize("where", ["query", "header", "body"])
def test_token_is_taken_from_query_header_or_body(api, client, where):
    tender = create_tender(api)
    path = f"/api/2.3{tender.path}"
    payload = {"data": {"title": f"via {where}"}}
    headers = {"HTTP_AUTHORIZATION": basic("broker")}
    if where == "query":
        path += f"?acc_token={tender.token}"
    elif where == "header":
        headers["HTTP_X_ACCESS_TOKEN"] = tender.token
    else:
        payload["access"] = {"token": tender.token}
    response = client.patch(path, json.dumps(payload), content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    assert response.json()["data"]["title"] == f"via {where}"


def test_token_works_only_with_the_key_that_created_the_object(api, api2):
    tender = create_tender(api)
    response = api2.patch(tender.path, {"title": "hijacked"}, token=tender.token)
    assert single_error(response, 403)["name"] == "permission"
    assert tender.read()["title"] == "футляри до державних нагород"


def test_wrong_token_is_403_and_changes_nothing(api):
    tender = create_tender(api)
    before = tender.read()
    response = api.patch(tender.path, {"title": "changed"}, token="0" * 32)
    assert single_error(response, 403) == {
        "location": "url",
        "name": "permission",
        "description": "Forbidden",
    }
    assert tender.read() == before


def test_permission_is_checked_before_the_content_type(api):
    tender = create_tender(api)
    response = api.patch(tender.path, body="x", content_type="text/plain", token="0" * 32)
    assert single_error(response, 403)["name"] == "permission"


def test_unknown_id_is_404_naming_the_segment(api):
    assert single_error(api.get("/tenders/some_id"), 404) == {
        "location": "url",
        "name": "tender_id",
        "description": "Not Found",
    }
    assert single_error(api.patch("/tenders/some_id", {}), 404)["name"] == "tender_id"


def test_outermost_missing_segment_is_named(api):
    tender = create_tender(api)
    assert single_error(api.get("/tenders/x/awards/y"), 404)["name"] == "tender_id"
    assert single_error(api.get(f"{tender.path}/awards/y"), 404)["name"] == "award_id"
    assert single_error(api.get(f"{tender.path}/bids/y"), 404)["name"] == "bid_id"
    assert single_error(api.get(f"{tender.path}/contracts/y"), 404)["name"] == "contract_id"
    assert single_error(api.get(f"{tender.path}/cancellations/y"), 404)["name"] == "cancellation_id"


def test_method_the_path_does_not_have_is_405_in_the_envelope(api):
    tender = create_tender(api)
    response = api.delete(tender.path)
    assert single_error(response, 405)["description"] == "Method not allowed"
    assert "PATCH" in response["Allow"] and "DELETE" not in response["Allow"]
    assert api.put("/tenders", {}).status_code == 405


@pytest.mark.parametrize(
    "path", ["/api/2.3/nothing", "/api/2.3/tenders/", "/api/9.9/tenders", "/api/"]
)
def test_unknown_api_route_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert error(response)[0]["description"] == "Not Found"


def test_responses_are_json_whatever_the_accept_header(api):
    response = api.get("/tenders", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")


def test_opt_pretty_indents(api):
    response = api.get("/tenders", {"opt_pretty": "1"})
    assert b'\n    "data"' in response.content


def test_errors_are_in_english_whatever_the_client_language(api):
    response = api.post("/tenders", {}, HTTP_ACCEPT_LANGUAGE="uk")
    assert {"location": "body", "name": "title", "description": ["This field is required."]} in (
        error(response, 422)
    )


def test_spore_answers_get_and_head(api, anonymous):
    assert anonymous.get("/spore").status_code == 200
    assert anonymous.head("/spore").status_code == 200


def test_health_reports_the_database(anonymous):
    response = anonymous.get("/health")
    assert response.status_code == 200
    assert response.json() == {"data": {"database": "ok"}}
