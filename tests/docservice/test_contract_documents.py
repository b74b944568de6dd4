"""The contract's papers: documents on a contract, the tender owner's while the tender is in
qualification or awarded and the contract pending or active (2.3)."""

from datetime import timedelta

import pytest

from core.schema import parse_iso
from tenders.models import ContractDocument
from tests.docservice.helpers import document, download, md5
from tests.helpers import in_qualification, single_error

pytestmark = pytest.mark.django_db

SIGNED = b"%PDF the signed contract"


@pytest.fixture
def awarded(api, clock):
    """A tender whose lowest bid won: its contract pending."""
    tender = in_qualification(api, clock, amounts=(450, 400))
    tender.decide("active")
    return tender


def documents_path(tender) -> str:
    return f"{tender.path}/contracts/{tender.read()['contracts'][0]['id']}/documents"


def sign(api, tender, clock):
    data = tender.read()
    clock.move_to(parse_iso(data["awards"][0]["complaintPeriod"]["endDate"]) + timedelta(hours=1))
    path = f"{tender.path}/contracts/{data['contracts'][0]['id']}"
    assert api.patch(path, {"status": "active"}, token=tender.token).status_code == 200


def test_the_owner_adds_the_contract_which_shows_with_it(api, anonymous, ds, awarded):
    path = documents_path(awarded)
    sent = document(ds, SIGNED, "Договір.pdf", documentType="contractSigned")

    response = api.post(path, sent, token=awarded.token)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["hash"], data["documentType"], data["author"]) == (
        md5(SIGNED),
        "contractSigned",
        "tender_owner",
    )
    assert response["Location"] == f"http://testserver/api/2.3{path}/{data['id']}"
    assert anonymous.get(path).json()["data"] == [data]
    assert awarded.read()["contracts"][0]["documents"] == [data]
    assert download(anonymous, ds, data["url"])[0] == SIGNED


def test_versions_while_awarded_and_nothing_once_complete(api, ds, awarded, clock):
    path = documents_path(awarded)
    draft = api.post(path, document(ds, b"%PDF draft"), token=awarded.token).json()["data"]
    replaced = api.put(f"{path}/{draft['id']}", document(ds, SIGNED), token=awarded.token)
    assert replaced.status_code == 200, replaced.content
    assert replaced.json()["data"]["hash"] == md5(SIGNED)
    sign(api, awarded, clock)
    assert awarded.read()["status"] == "complete"

    added = api.post(path, document(ds, b"%PDF annex"), token=awarded.token)
    again = api.put(f"{path}/{draft['id']}", document(ds, b"%PDF later"), token=awarded.token)

    assert single_error(added, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't add document in current (complete) tender status",
    }
    assert single_error(again, 403)["description"] == (
        "Can't update document in current (complete) tender status"
    )
    assert ContractDocument.objects.count() == 2


def test_a_cancelled_contract_takes_no_documents(api, ds, awarded):
    path = documents_path(awarded)
    awarded.decide("cancelled")  # the award taken back voids its contract

    response = api.post(path, document(ds, SIGNED), token=awarded.token)

    assert single_error(response, 403)["description"] == (
        "Can't add document in current contract status"
    )


def test_nobody_but_the_tender_owner_adds_them(api, api2, ds, awarded):
    response = api2.post(documents_path(awarded), document(ds, SIGNED), token=awarded.token)
    assert single_error(response, 403)["name"] == "permission"
    assert not ContractDocument.objects.exists()
