"""How often the API and the document service answer one caller: per broker key, per address
without one, reads and writes apart; keys that match no broker are limited per address. Over a
limit: 429 in the 2.3 envelope with Retry-After, and nothing changes. Tokens never come back in
an error."""

import pytest

from tenders.models import Tender
from tests.docservice.helpers import multipart
from tests.helpers import Api, basic, create_tender, single_error, tender_data

pytestmark = pytest.mark.django_db


def refused_for_rate(response) -> dict:
    entry = single_error(response, 429)
    assert entry == {
        "location": "request",
        "name": "rate",
        "description": "Too many requests. Try again later.",
    }
    assert 0 < int(response["Retry-After"]) <= 60
    return entry


def test_anonymous_reads_are_limited_per_address(anonymous, settings):
    settings.API_RATE_ANONYMOUS_READS = "3/minute"
    answers = [anonymous.get("/tenders", REMOTE_ADDR="192.0.2.1") for _ in range(4)]

    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    refused_for_rate(answers[3])
    assert anonymous.get("/tenders", REMOTE_ADDR="192.0.2.2").status_code == 200


def test_a_broker_key_has_its_own_larger_allowance(api, api2, anonymous, settings):
    settings.API_RATE_ANONYMOUS_READS = "2/minute"
    settings.API_RATE_BROKER_READS = "4/minute"
    for _ in range(2):
        anonymous.get("/tenders")
    refused_for_rate(anonymous.get("/tenders"))

    # Same address, but the key counts: the broker reads on.
    answers = [api.get("/tenders") for _ in range(5)]
    assert [a.status_code for a in answers[:4]] == [200] * 4
    refused_for_rate(answers[4])
    assert api2.get("/tenders").status_code == 200


def test_writes_are_counted_apart_from_reads_and_a_refused_write_changes_nothing(api, settings):
    settings.API_RATE_BROKER_WRITES = "1/minute"
    create_tender(api)

    refused = api.post("/tenders", tender_data())

    refused_for_rate(refused)
    assert Tender.objects.count() == 1
    assert api.get("/tenders").status_code == 200


def test_anonymous_writes_are_limited_before_they_are_refused(anonymous, settings):
    settings.API_RATE_ANONYMOUS_WRITES = "2/minute"
    answers = [anonymous.post("/tenders", tender_data()) for _ in range(3)]

    assert [a.status_code for a in answers[:2]] == [403, 403]
    refused_for_rate(answers[2])


def test_keys_that_match_no_broker_are_limited_per_address(client, api, settings, brokers):
    settings.API_RATE_FAILED_KEYS = "3/minute"
    guessing = Api(client, key="guess-" + "x" * 30)
    answers = [guessing.get("/tenders") for _ in range(4)]

    # A wrong key reads as anonymous, until the address has guessed too often.
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    refused_for_rate(answers[3])
    # Now even the right key from that address waits: keys cannot be tried at speed.
    refused_for_rate(api.get("/tenders"))
    assert api.get("/tenders", REMOTE_ADDR="192.0.2.9").status_code == 200


def test_the_document_service_is_limited_too(client, brokers, settings):
    settings.API_RATE_BROKER_WRITES = "1/minute"
    settings.API_RATE_ANONYMOUS_READS = "1/minute"
    body, content_type = multipart("a.pdf", b"content")
    upload = dict(content_type=content_type, HTTP_AUTHORIZATION=basic("broker"))

    first = client.post("/ds/upload", body, **upload)
    second = client.post("/ds/upload", body, **upload)
    reads = [client.get(first.json()["data"]["url"]) for _ in range(2)]

    assert first.status_code == 200
    refused_for_rate(second)
    assert reads[0].status_code == 200
    refused_for_rate(reads[1])


def test_tokens_never_come_back_in_an_error(api, api2, anonymous):
    tender = create_tender(api)
    secret = "f" * 32
    answers = [
        api2.patch(f"{tender.path}?acc_token={secret}", {"title": "x"}),
        api2.patch(tender.path, {"title": "x"}, token=secret),
        api.patch(tender.path, {"status": "nonsense", "value": secret}, token=secret),
        api.post(f"{tender.path}/awards/{secret}/complaints?acc_token={secret}", {"title": "x"}),
        api.post("/tenders", body=f'{{"data": {{}}, "access": {{"token": "{secret}"}}}}'),
        Api(api.client, key=secret).post("/tenders", tender_data()),
    ]

    for answer in answers:
        assert answer.status_code >= 400
        assert secret not in answer.content.decode(), answer.content
