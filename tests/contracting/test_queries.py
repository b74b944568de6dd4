"""A contract's reads cost the same number of queries however many changes and documents it
holds, and a page of the contracts' feed however many contracts it shows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.contracting.helpers import InContracting, feed
from tests.docservice.helpers import DocService, document

pytestmark = pytest.mark.django_db


def queries(api, path, params=None) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = api.get(path, params)
    assert response.status_code == 200
    return len(captured.captured_queries)


def page_queries(client, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured.captured_queries)


def grown(contract: InContracting, client, changes: int) -> None:
    """`changes` more signed changes, each with a document."""
    for _ in range(changes):
        change = contract.add_change().json()["data"]
        signed_at = contract.read()["dateSigned"]
        paper = document(DocService(client, key="broker"))
        assert (
            contract.api.post(f"{contract.path}/documents", paper, token=contract.token).status_code
            == 201
        )
        assert (
            contract.patch_change(
                change["id"], {"status": "active", "dateSigned": signed_at}
            ).status_code
            == 200
        )


def test_a_contract_reads_the_same_however_much_it_holds(api, api2, anonymous, client, clock):
    contract = InContracting(api, api2, clock)
    paths = [contract.path, f"{contract.path}/changes", f"{contract.path}/documents"]
    before = [queries(anonymous, path) for path in paths]

    page = reverse("contract", args=[contract.id])
    page_before = page_queries(client, page)

    grown(contract, client, 3)

    assert [queries(anonymous, path) for path in paths] == before
    assert before[0] <= 5
    assert page_queries(client, page) == page_before


def test_a_feed_page_reads_the_same_however_many_contracts_it_shows(api, api2, anonymous, clock):
    InContracting(api, api2, clock)
    fields = {"opt_fields": "status,changes,documents,suppliers,owner"}
    clock.advance(minutes=1)
    one = queries(anonymous, "/contracts", fields)
    for _ in range(3):
        InContracting(api, api2, clock)
    clock.advance(minutes=1)
    assert len(feed(anonymous, clock)) == 4

    assert queries(anonymous, "/contracts", fields) == one
