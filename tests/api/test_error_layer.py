"""One error layer for the machine faces: whatever goes wrong under /api/ and /ds/ (an unknown
path with any method, a method the path lacks, a request Django itself refuses, the database
out of reach) is answered in the 2.3 envelope, never with an HTML page or a bare 500."""

import pytest
from django.db import OperationalError, connection
from django.test import Client

from tenders.api import views
from tenders.models import Tender
from tests.docservice.helpers import CONTENT, DocService, document
from tests.helpers import Claims, basic, create_tender, error, single_error, tender_data

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete", "options")
UNKNOWN_PATHS = (
    "/api/2.3/nothing",
    "/api/2.3/tenders/",  # a trailing slash
    "/api/2.3/tenders/abc%2Fdef",  # an encoded slash in an id
    "/api/2.3/tenders/abc/nothing",
    "/api/9.9/tenders",
    "/ds/nothing",
    "/ds/get/",
)


@pytest.fixture
def strict_client():
    """A client that, like a browser, gets no CSRF exemption from the test runner."""
    return Client(enforce_csrf_checks=True)


def assert_envelope(response, status: int) -> list[dict]:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return error(response, status)


@pytest.mark.parametrize("path", UNKNOWN_PATHS)
@pytest.mark.parametrize("method", METHODS)
def test_any_method_on_an_unknown_path_is_a_json_404(strict_client, method, path):
    response = strict_client.generic(method.upper(), path, "{}", content_type="application/json")
    assert assert_envelope(response, 404) == [
        {"location": "url", "name": "url", "description": "Not Found"}
    ]


@pytest.mark.parametrize("path", ["//api/2.3/tenders", "//ds/register", "///api/2.3/spore"])
def test_slashes_doubled_before_the_api_are_still_the_api_s_404(strict_client, path):
    # (a client joining its base URL and a path; the test client would read "//api" as a host)
    response = strict_client.get("/", PATH_INFO=path)
    assert assert_envelope(response, 404)[0]["name"] == "url"  # (was the portal's HTML 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/ds/register"),
        ("put", "/ds/upload"),
        ("delete", "/ds/get/abc"),
        ("get", "/ds/upload"),
    ],
)
def test_a_method_the_document_service_path_lacks_is_a_json_405(strict_client, method, path):
    response = getattr(strict_client, method)(path)
    assert assert_envelope(response, 405) == [
        {"location": "request", "name": "method", "description": "Method not allowed"}
    ]
    assert response["Allow"]


def test_a_post_to_the_api_needs_no_csrf_cookie(strict_client, brokers):
    response = strict_client.post(
        "/api/2.3/tenders",
        "{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=basic("broker"),
    )
    assert assert_envelope(response, 422)


def test_an_unknown_host_is_a_json_400_on_the_machine_faces(client, settings):
    settings.ALLOWED_HOSTS = ["registry.example"]
    for path in ("/api/2.3/tenders", "/ds/register"):
        response = client.get(path, HTTP_HOST="evil.example")
        assert assert_envelope(response, 400)[0]["description"] == "Bad Request"
    # The portal keeps its page.
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


def test_too_many_form_fields_is_a_json_400(client, brokers, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    body = "&".join(f"field{n}=1" for n in range(20))
    response = client.post(
        "/ds/register",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=basic("broker"),
    )
    assert assert_envelope(response, 400)


def test_the_award_reads_with_a_claim_that_has_documents(api, api2, clock, client, brokers):
    claims = Claims(api, api2, clock)
    claim, token = claims.filed()
    path = f"{claims.path}/{claim['id']}/documents"
    sent = document(DocService(client, key="broker2"), CONTENT, "Вимога.pdf")
    assert claims.api2.post(path, sent, token=token).status_code == 201
    assert claims.patch(claim, {"status": "claim"}, token).status_code == 200

    award_path = f"{claims.tender.path}/awards/{claims.award['id']}"
    for reader in (api, api2):
        response = reader.get(award_path)
        assert response.status_code == 200, response.content
        (shown,) = response.json()["data"]["complaints"]
        assert [doc["title"] for doc in shown["documents"]] == ["Вимога.pdf"]
        assert shown["documents"][0]["url"].startswith("http://testserver/")
    assert api.get(f"{claims.tender.path}/awards").status_code == 200


@pytest.fixture
def database_down():
    """The database stops answering: the connection points at a port where nothing listens.
    (SQLite's in-memory test database cannot be taken away from a connection.)"""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["HOST"], connection.settings_dict["PORT"] = "127.0.0.1", "9"
    yield
    connection.close()
    connection.settings_dict.update(saved)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_every_face_answers_503(brokers, database_down):
    client = Client(raise_request_exception=False)
    auth = {"HTTP_AUTHORIZATION": basic("broker")}
    for response in (
        client.get("/api/2.3/tenders"),
        client.get("/api/2.3/tenders/" + "a" * 32, **auth),
        client.post("/api/2.3/tenders", '{"data": {}}', content_type="application/json", **auth),
        client.post("/ds/register", {"hash": "md5:" + "0" * 32}, **auth),
    ):
        assert single_error(response, 503) == {
            "location": "request",
            "name": "database",
            "description": "Service Unavailable",
        }
        assert int(response["Retry-After"]) > 0
    page = client.get("/")
    assert page.status_code == 503
    assert "Temporarily unavailable" in page.content.decode()
    assert int(page["Retry-After"]) > 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_service_answers_again_once_the_database_is_back(api):
    tender = create_tender(api)
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["PORT"] = "9"
    assert single_error(api.get(tender.path), 503)["name"] == "database"
    assert api.post("/tenders", {}).status_code == 503
    connection.close()
    connection.settings_dict.update(saved)
    assert api.get(tender.path).status_code == 200


@pytest.fixture
def rereads_fail(monkeypatch):
    """The database connection drops while the answer to a write is read back (a new tender's
    document, as the database orders it; a changed tender, whole). No real part can time a
    dropped connection to that moment, so the read itself is made to fail."""
    state = {"fail": True}

    def failing(step):
        def failing_step(*args, **kwargs):
            if state["fail"]:
                raise OperationalError("server closed the connection unexpectedly")
            return step(*args, **kwargs)

        return failing_step

    monkeypatch.setattr(views, "read_tender", failing(views.read_tender))
    monkeypatch.setattr(Tender, "refresh_from_db", failing(Tender.refresh_from_db))
    return state


def test_a_create_whose_answer_cannot_be_read_is_not_made(api, rereads_fail):
    response = api.post("/tenders", tender_data())
    assert single_error(response, 503)["name"] == "database"
    assert not Tender.objects.exists()  # the client's retry will not make a second one
    rereads_fail["fail"] = False
    assert api.post("/tenders", tender_data()).status_code == 201
    assert Tender.objects.count() == 1


def test_a_patch_whose_answer_cannot_be_read_changes_nothing(api, rereads_fail):
    rereads_fail["fail"] = False
    tender = create_tender(api)
    rereads_fail["fail"] = True
    assert single_error(tender.patch({"title": "Нова назва"}), 503)["name"] == "database"
    rereads_fail["fail"] = False
    assert tender.read()["title"] != "Нова назва"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_a_signed_in_person_reads_503_too(django_user_model):
    client = Client(raise_request_exception=False)
    client.force_login(django_user_model.objects.create_user("someone", password="x" * 12))
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["HOST"], connection.settings_dict["PORT"] = "127.0.0.1", "9"
    try:
        page = client.get("/dashboard/")
    finally:
        connection.close()
        connection.settings_dict.update(saved)
    assert page.status_code == 503
    assert "Temporarily unavailable" in page.content.decode()
