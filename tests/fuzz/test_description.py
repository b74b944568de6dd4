"""The published OpenAPI description: valid OpenAPI 3, covering every path of the API and the
document service, with every error answered in the 2.3 envelope."""

import re

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate

from tests.helpers import routes

pytestmark = pytest.mark.django_db


@pytest.fixture
def description(client):
    response = client.get("/api/2.3/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    return response.json()


def test_the_description_is_valid_openapi_3(description):
    validate(description)
    assert description["openapi"].startswith("3.")
    assert description["info"]["version"] == "2.3"


def test_every_path_of_the_api_and_the_document_service_is_described(description):
    described = set(description["paths"])
    served = {
        route
        for route in routes("/api/2.3/") + routes("/ds/")
        if not route.endswith(("/docs/", "openapi.json"))
    }
    normalized = {re.sub(r"{\w+}", "{}", path) for path in described}
    assert {re.sub(r"{\w+}", "{}", route) for route in served} <= normalized
    assert {"/api/2.3/tenders", "/api/2.3/spore", "/api/2.3/health"} <= described


def test_every_error_answer_is_the_envelope(description):
    for path, operations in description["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert {"400", "429", "503"} <= set(answers), (method, path)
            for status, answer in answers.items():
                if int(status) >= 400:
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}, (path, status)


def test_statuses_and_answer_types_are_enums(description):
    schemas = description["components"]["schemas"]
    enums = {name: schema.get("enum") for name, schema in schemas.items() if "enum" in schema}
    values = {value for options in enums.values() for value in options}
    assert {"active.tendering", "claim", "answered", "resolved", "declined"} <= values
    assert {"tender_owner", "complaint_owner"} <= values  # document authors
    assert set(schemas["ErrorEnvelope"]["required"]) == {"status", "errors"}


def test_the_reference_page_is_served_from_here(client):
    page = client.get("/api/2.3/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert not re.search(r"""(src|href)=["']https?://""", html)  # nothing from elsewhere


def test_the_reference_page_answers_options_with_what_it_allows(client):
    answer = client.options("/api/2.3/docs/")
    assert answer.status_code == 200
    assert answer["Allow"] == "GET, HEAD, OPTIONS"
    assert client.head("/api/2.3/docs/").status_code == 200


def test_the_description_is_generated_once_not_per_request(client, monkeypatch):
    generated = []
    original = SchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        generated.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counting)
    first, second = client.get("/api/2.3/openapi.json"), client.get("/api/2.3/openapi.json")
    assert first.content == second.content
    assert len(generated) == 1
