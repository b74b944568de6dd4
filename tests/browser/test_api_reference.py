"""The API's reference page renders in a real browser from this host alone: Swagger UI and its
assets come from the project (drf-spectacular-sidecar), never from a CDN."""

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_reference_page_renders_without_external_requests(people, live_server):
    page = people()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("/")
    page.get_by_role("link", name="its reference").or_(
        page.get_by_role("link", name="її довідник")
    ).click()
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert "/api/2.3/docs/" in page.url
    operations = page.locator(".swagger-ui .opblock-summary-path").all_inner_texts()
    assert any(path.endswith("/api/2.3/tenders") for path in operations)
    assert any("/ds/register" in path for path in operations)

    ours = urlsplit(live_server.url).netloc
    assert {urlsplit(url).netloc for url in requested if url.startswith("http")} == {ours}
    assert page.errors == []
