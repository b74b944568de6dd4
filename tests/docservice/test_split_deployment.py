"""The registry with the document service on another host (DOCSERVICE_URL): uploads go to it
over HTTP, and the URLs shown point at it."""

from urllib.request import urlopen

import pytest

from tests.docservice.helpers import CONTENT, md5, multipart
from tests.helpers import create_tender, single_error

pytestmark = pytest.mark.django_db(transaction=True)


def test_registry_uploads_through_a_remote_document_service(api, live_server, settings):
    settings.DOCSERVICE_URL = f"{live_server.url}/ds"
    settings.DOCSERVICE_UPLOAD_KEY = "broker"
    tender = create_tender(api)
    body, content_type = multipart("Оголошення.pdf", CONTENT)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["url"].startswith(f"{live_server.url}/ds/get/") and data["hash"] == md5()
    with urlopen(data["url"], timeout=10) as got:
        assert got.read() == CONTENT


def test_unreachable_document_service_is_a_clear_error(api, settings):
    settings.DOCSERVICE_URL = "http://127.0.0.1:9/ds"
    tender = create_tender(api)
    body, content_type = multipart("x.pdf", CONTENT)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert (
        single_error(response, 422)["description"] == "Can't upload document to document service."
    )
    assert "documents" not in tender.read()


def test_the_document_service_apart_makes_its_schema(settings):
    """gunicorn.conf.py refuses to start on a check's error, and one check makes the OpenAPI
    schema: the document service's own paths make it without the registry's."""
    from django.core.checks import run_checks
    from django.urls import clear_url_caches

    settings.ROOT_URLCONF = "docservice.standalone_urls"
    clear_url_caches()
    try:
        found = [
            message.id
            for message in run_checks(include_deployment_checks=True)
            if message.id.startswith("drf_spectacular")
        ]
    finally:
        clear_url_caches()
    assert found == []
