"""The flows of the service description, black-box: a sandbox tender made, bid on and decided
through the public API, then every way a claim can go. Only HTTP; the clock is moved."""

from datetime import timedelta
from urllib.parse import quote, urlsplit

import pytest

from core.schema import iso, parse_iso
from tests.docservice.helpers import DocService, download, fetched, md5
from tests.helpers import bid_data, organization, tender_data

pytestmark = pytest.mark.django_db

QUICK = "quick, accelerator=1440"  # a day is a minute
CLAIM = {"title": "Рішення про визначення переможця", "description": "Переможець не мав ліцензії.",
         "author": organization("ТОВ «Будмайстер»", "38012345")}  # fmt: skip
# A real (if small) PDF: what a claimant attaches to a claim.
FILE = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>"
        b"endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")  # fmt: skip
FILE_NAME = "Ліцензія переможця.pdf"
ANSWER = {"status": "answered", "resolutionType": "resolved", "resolution": "Рішення переглянуто, ліцензію перевірено.",
          "tendererAction": "Проведено повторну перевірку"}  # fmt: skip


class Sandbox:
    """A decided sandbox tender, reached only through the API, and its parties' calls."""

    def __init__(self, api, api2, anonymous, clock):
        self.api, self.api2, self.anonymous = api, api2, anonymous
        start = clock.now()
        data = tender_data(
            procurementMethodDetails=QUICK,
            submissionMethodDetails="quick",
            enquiryPeriod={"endDate": iso(start + timedelta(minutes=1))},
            tenderPeriod={"endDate": iso(start + timedelta(minutes=3))},
        )
        created = api.post("/tenders", data).json()
        self.path = f"/tenders/{created['data']['id']}"
        self.owner_token = created["access"]["token"]
        clock.advance(minutes=1, seconds=30)
        bid = api2.post(f"{self.path}/bids", bid_data(480, identifier="38012345")).json()
        self.bid_token = bid["access"]["token"]
        api.post(f"{self.path}/bids", bid_data(470, identifier="00000002"))
        clock.advance(minutes=2)
        award = anonymous.get(self.path).json()["data"]["awards"][0]
        response = api.patch(
            f"{self.path}/awards/{award['id']}", {"status": "active"}, token=self.owner_token
        )
        assert response.status_code == 200
        self.complaints = f"{self.path}/awards/{award['id']}/complaints"

    def file(self, **extra):
        response = self.api2.post(self.complaints, {**CLAIM, **extra}, token=self.bid_token)
        assert response.status_code == 201, response.content
        return response.json()["data"]["id"], response.json()["access"]["token"]

    def claimant(self, claim, data, token):
        return self.api2.patch(f"{self.complaints}/{claim}", data, token=token)

    def owner(self, claim, data):
        return self.api.patch(f"{self.complaints}/{claim}", data, token=self.owner_token)

    def read(self, claim):
        """The claim as its author's broker reads it (a draft is seen by nobody else)."""
        return self.api2.get(f"{self.complaints}/{claim}").json()["data"]

    def tender(self):
        return self.anonymous.get(self.path).json()["data"]

    def sign(self):
        contract = self.tender()["contracts"][0]
        return self.api.patch(
            f"{self.path}/contracts/{contract['id']}", {"status": "active"}, token=self.owner_token
        )


@pytest.fixture
def sandbox(api, api2, anonymous, clock, settings):
    settings.SANDBOX_MODE = True
    return Sandbox(api, api2, anonymous, clock)


def test_claim_in_three_steps_then_answered_and_accepted(sandbox, client):
    """Service description, "Document upload procedure": the claimant registers the file's MD5
    at the document service, attaches the document to the draft claim, uploads the content to
    the upload URL and submits the claim; the owner answers, the claimant accepts the answer."""
    claim, token = sandbox.file()
    assert sandbox.read(claim)["status"] == "draft"
    ds = DocService(client, key="broker2")  # the claimant's broker
    registered = ds.register(md5(FILE)).json()
    attach = {"title": FILE_NAME, "format": "application/pdf", "hash": md5(FILE)}
    attach["url"] = registered["data"]["url"]
    documents = f"{sandbox.complaints}/{claim}/documents"
    response = sandbox.api2.post(documents, attach, token=token)
    assert response.status_code == 201, response.content
    attached = response.json()["data"]
    assert (attached["title"], attached["hash"], attached["author"]) == (
        FILE_NAME,
        md5(FILE),
        "complaint_owner",
    )
    assert ds.upload(registered["upload_url"], FILE, FILE_NAME).status_code == 200
    submitted = sandbox.claimant(claim, {"status": "claim"}, token).json()["data"]
    assert submitted["status"] == "claim" and submitted["documents"] == [attached]
    assert sandbox.owner(claim, ANSWER).json()["data"]["status"] == "answered"
    data = sandbox.claimant(claim, {"status": "resolved", "satisfied": True}, token).json()["data"]
    assert (data["status"], data["satisfied"]) == ("resolved", True)
    assert data["documents"] == [attached]
    assert sandbox.anonymous.get(documents).json()["data"] == [attached]
    # The registry's URL of the document, and its ?download= redirect, give the same bytes.
    assert download(sandbox.anonymous, ds, data["documents"][0]["url"])[0] == FILE
    key = urlsplit(attached["url"]).path.rsplit("/", 1)[1]
    redirect = sandbox.anonymous.get(f"{documents}/{attached['id']}", {"download": key})
    assert redirect.status_code == 302
    assert fetched(ds, redirect["Location"]) == (
        FILE,
        f"attachment; filename*=utf-8''{quote(FILE_NAME)}",
    )


def test_claim_in_one_step_answered_and_rejected(sandbox):
    claim, token = sandbox.file(status="claim")
    sandbox.owner(claim, {**ANSWER, "resolutionType": "declined"})
    data = sandbox.claimant(claim, {"status": "resolved", "satisfied": False}, token).json()["data"]
    assert (data["status"], data["satisfied"], data["resolutionType"]) == (
        "resolved",
        False,
        "declined",
    )


def test_claim_cancelled_by_its_author(sandbox):
    claim, token = sandbox.file(status="claim")
    data = sandbox.claimant(
        claim, {"status": "cancelled", "cancellationReason": "Питання знято"}, token
    ).json()["data"]
    assert data["status"] == "cancelled"


def test_answered_claim_closes_after_three_accelerated_days(sandbox, clock):
    claim, _ = sandbox.file(status="claim")
    answered = sandbox.owner(claim, {**ANSWER, "resolutionType": "invalid"}).json()["data"]
    closes = parse_iso(answered["dateAnswered"]) + timedelta(minutes=3)
    assert sandbox.tender()["next_check"] == iso(closes)
    clock.move_to(closes + timedelta(seconds=1))
    data = sandbox.read(claim)
    assert (data["status"], data["date"]) == ("invalid", iso(closes))


def test_unanswered_claim_is_ignored_when_the_tender_completes(sandbox, clock):
    claim, _ = sandbox.file(status="claim")
    assert sandbox.sign().status_code == 403  # the two (accelerated) working days are not over
    clock.advance(minutes=2, seconds=1)
    assert sandbox.sign().status_code == 200
    assert sandbox.tender()["status"] == "complete"
    assert sandbox.read(claim)["status"] == "ignored"
