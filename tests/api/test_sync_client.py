"""The scenario of the 2.3 brokers' sync client (openprocurement-client's ResourceFeeder), on
whichever database the suite runs (SQLite as `make run` serves, or PostgreSQL): tenders are
made, then changed while it crawls, and it sees every tender's last change, and no change twice.

Its protocol, as its source has it: one request backwards from the head (`descending=1`,
`feed=changes`, `opt_fields=status`, `mode=_all_`) gives two offsets, the backward crawler's
(`next_page`) and the forward one's (`prev_page`); the backward crawler follows `next_page`
until an empty page and stops; the forward crawler follows `next_page` to the head, then polls
that offset after a pause, forever."""

import pytest

from tests.helpers import create_tender

pytestmark = pytest.mark.django_db

PARAMS = {"feed": "changes", "opt_fields": "status", "mode": "_all_"}


class ResourceFeeder:
    """ResourceFeeder's paging, request by request (its pauses are the test's clock)."""

    def __init__(self, api):
        self.api, self.seen = api, []
        first = self.get({**PARAMS, "descending": "1"})
        self.backward = {**PARAMS, "descending": "1", "offset": first["next_page"]["offset"]}
        self.forward = {**PARAMS, "offset": first["prev_page"]["offset"]}
        self.backward_done = False

    def get(self, params: dict) -> dict:
        response = self.api.get("/tenders", params)
        assert response.status_code == 200, response.content
        body = response.json()
        self.seen += [(item["id"], item["dateModified"]) for item in body["data"]]
        return body

    def step_backward(self) -> None:
        if not self.backward_done:
            body = self.get(self.backward)
            self.backward_done = not body["data"]
            self.backward["offset"] = body["next_page"]["offset"]

    def step_forward(self) -> None:
        body = self.get(self.forward)
        self.forward["offset"] = body["next_page"]["offset"]


def test_the_sync_client_sees_every_last_change_once(api, anonymous, clock):
    tenders = []
    for _ in range(12):
        tenders.append(create_tender(api))
        clock.advance(seconds=7)
    clock.advance(minutes=1)

    feeder = ResourceFeeder(anonymous)
    for round_ in range(12):
        # While it crawls, a broker changes some tenders and makes new ones.
        for tender in tenders[round_ % 4 :: 3]:
            assert tender.patch({"description": f"Зміна {round_}"}).status_code == 200
            clock.advance(seconds=1)
        if round_ % 3 == 0:
            tenders.append(create_tender(api))
        feeder.step_backward()
        feeder.step_forward()
        clock.advance(seconds=5)
    clock.advance(minutes=1)
    for _ in range(5):
        feeder.step_backward()
        feeder.step_forward()

    last = {tender.id: tender.read()["dateModified"] for tender in tenders}
    seen = set(feeder.seen)
    assert {(tender_id, moment) for tender_id, moment in last.items()} <= seen
    assert len(feeder.seen) == len(seen), "a change was seen twice"
    assert feeder.backward_done


def test_the_forward_crawler_polls_the_head_and_sees_each_new_change(api, anonymous, clock):
    tender = create_tender(api)
    clock.advance(minutes=1)
    feeder = ResourceFeeder(anonymous)
    for attempt in range(3):
        feeder.step_forward()
        assert tender.patch({"description": f"Зміна {attempt}"}).status_code == 200
        clock.advance(seconds=30)
        feeder.step_forward()
        assert (tender.id, tender.read()["dateModified"]) in feeder.seen
    assert len(feeder.seen) == len(set(feeder.seen))
