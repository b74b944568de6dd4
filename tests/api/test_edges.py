"""Input at the edges is checked before it reaches the database or int(): a NUL byte or a
digit that str.isdigit() takes but int() refuses, in any path segment or query parameter, is a
4xx in the envelope; free text has generous, stated bounds."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from core.schema import LONG_TEXT_MAX, SHORT_TEXT_MAX
from tests.docservice.helpers import CONTENT, DocService, document
from tests.factories import make_user
from tests.helpers import create_tender, error, routes, single_error, tender_data

pytestmark = pytest.mark.django_db

BAD_SEGMENTS = ("%00", "a%00b", "%C2%B2", "%E2%80%8B", "x" * 300, "%F0%9F%92%A9")
BAD_VALUES = ("%00", "%C2%B2", "%EF%BC%91", "1%00", "9" * 5000)


@pytest.fixture
def segment_ids(api, api2, clock, client, brokers):
    """Real ids for every kind of segment: a tender with an award, a claim with a document."""
    from tests.helpers import Claims

    claims = Claims(api, api2, clock)
    claim, token = claims.filed()
    sent = document(DocService(client, key="broker2"), CONTENT, "Вимога.pdf")
    path = f"{claims.path}/{claim['id']}/documents"
    doc = claims.api2.post(path, sent, token=token).json()["data"]
    tender = claims.tender.read()
    return {
        "tender_id": tender["id"],
        "award_id": claims.award["id"],
        "bid_id": claims.award["bid_id"],
        "complaint_id": claim["id"],
        "document_id": doc["id"],
        "contract_id": "0" * 32,
        "cancellation_id": "0" * 32,
        "doc_id": doc["url"].split("/get/")[1].split("?")[0],
    }


def fill(route: str, segment_ids: dict, bad: str | None = None, which: str | None = None) -> str:
    def value(match):
        name = match[1]
        if name == which:
            return bad
        return segment_ids.get(name, segment_ids["document_id"] if name == "pk" else "0" * 32)

    return re.sub(r"{(\w+)}", value, route)


def test_the_routes_are_found():
    assert "/api/2.3/tenders/{tender_id}" in routes("/api/")
    assert "/ds/get/{doc_id}" in routes("/ds/")
    assert "/claims/{complaint_id}/" in routes("/claims/")


@pytest.mark.parametrize("bad", BAD_SEGMENTS)
def test_a_bad_segment_anywhere_in_the_api_is_a_json_4xx(api, segment_ids, bad):
    for route in routes("/api/") + routes("/ds/"):
        for which in re.findall(r"{(\w+)}", route):
            path = fill(route, segment_ids, bad, which)
            for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
                response = api.client.generic(
                    method, path, '{"data": {}}', content_type="application/json",
                    **api.headers(),
                )  # fmt: skip
                assert 400 <= response.status_code < 500, (method, path, response.content)
                assert response["Content-Type"].startswith("application/json"), (method, path)
                error(response)


# A confirmation link that is not one is explained on its own page (it came by e-mail).
NOT_FOUND = {"/accounts/confirm/{token}/": 400}


@pytest.mark.parametrize("bad", BAD_SEGMENTS)
def test_a_bad_segment_anywhere_in_the_portal_is_a_404_page(client, segment_ids, bad):
    """Signed in (so that no sign-in page answers first), each route a bad segment reaches
    finds nothing: a 404 (a 405 only where the route does not take the method even with good
    segments). A visitor is sent to sign in, or finds nothing."""
    signed_in = Client()
    signed_in.force_login(make_user("edges", "ТОВ «Краї»", "41999888", "bidder"))
    for prefix in ("/tenders/", "/claims/", "/organization/", "/accounts/"):
        for route in routes(prefix):
            for which in re.findall(r"{(\w+)}", route):
                path = fill(route, segment_ids, bad, which)
                for method in ("get", "post"):
                    method_taken = getattr(signed_in, method)(fill(route, segment_ids)).status_code
                    response = getattr(signed_in, method)(path)
                    expected = {404, 405} if method_taken == 405 else {NOT_FOUND.get(route, 404)}
                    assert response.status_code in expected, (method, path, response.status_code)
                    visitor = getattr(client, method)(path)
                    assert visitor.status_code in expected | {302}, (method, path)
                    if visitor.status_code == 302:
                        assert visitor["Location"].startswith(reverse("login")), (method, path)


@pytest.mark.parametrize("bad", BAD_VALUES)
def test_a_bad_query_value_is_refused_or_ignored_never_a_500(api, segment_ids, bad):
    tender = f"/api/2.3/tenders/{segment_ids['tender_id']}"
    document = f"{tender}/awards/{segment_ids['award_id']}/complaints/{segment_ids['complaint_id']}"
    for path, names in (
        ("/api/2.3/tenders", ("limit", "offset", "descending", "opt_fields", "mode")),
        (tender, ("acc_token", "opt_fields", "opt_pretty")),
        (f"{document}/documents/{segment_ids['document_id']}", ("download", "all", "acc_token")),
        (f"/ds/get/{segment_ids['doc_id']}", ("Expires", "KeyID", "Signature")),
        ("/", ("q", "tender_id", "cpv", "buyer", "status", "published_from", "page")),
    ):
        for name in names:
            response = api.client.get(f"{path}?{name}={bad}", **api.headers())
            assert response.status_code < 500, (path, name, response.content)


def test_limit_takes_ascii_digits_only(api):
    for value in ("%C2%B2", "%EF%BC%91", "0", "-1", "1.5"):
        response = api.client.get(f"/api/2.3/tenders?limit={value}")
        assert single_error(response, 422) == {
            "location": "params",
            "name": "limit",
            "description": ["Should be a positive integer."],
        }
    assert api.get("/tenders", {"limit": "9" * 5000}).status_code == 200
    assert api.get("/tenders", {"limit": "0002"}).status_code == 200


def test_an_expiry_that_is_not_ascii_digits_is_refused(api, segment_ids, client):
    response = client.get(f"/ds/get/{segment_ids['doc_id']}?Expires=%C2%B2&KeyID=x&Signature=y")
    assert single_error(response, 403) == {
        "location": "url",
        "name": "Expires",
        "description": "Request has expired",
    }


@pytest.mark.parametrize(
    "body",
    [
        '{"data": {"title": "a\\u0000b"}}',
        '{"data": {"title\\u0000": "x"}}',
        '{"data": {"items": [{"description": "\\u0000"}]}}',
    ],
)
def test_a_nul_character_in_a_json_body_is_refused(api, body):
    assert single_error(api.post("/tenders", body=body), 422) == {
        "location": "body",
        "name": "data",
        "description": "Null characters are not allowed.",
    }


def test_text_is_bounded_generously_and_says_so(api):
    response = api.post("/tenders", tender_data(title="Папір " * 200))
    assert single_error(response, 422) == {
        "location": "body",
        "name": "title",
        "description": [f"Ensure this field has no more than {SHORT_TEXT_MAX} characters."],
    }
    response = api.post("/tenders", tender_data(description="п" * (LONG_TEXT_MAX + 1)))
    assert single_error(response, 422)["description"] == [
        f"Ensure this field has no more than {LONG_TEXT_MAX} characters."
    ]
    tender = create_tender(api, title="П" * SHORT_TEXT_MAX, description="п" * LONG_TEXT_MAX)
    assert len(tender.read()["title"]) == SHORT_TEXT_MAX
