"""Parallel writers on PostgreSQL: counters stay unique, no update is lost, one decision wins."""

import pytest

from tests.concurrency.conftest import run_racing_for, run_together
from tests.helpers import (
    Clock,
    bid_data,
    create_tender,
    in_qualification,
    open_for_bids,
    place_bid,
    tender_data,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_parallel_creates_get_unique_consecutive_tender_ids(fresh_api):
    responses = run_together(*[lambda: fresh_api().post("/tenders", tender_data())] * 8)
    assert [response.status_code for response in responses] == [201] * 8
    numbers = sorted(int(r.json()["data"]["tenderID"][-6:]) for r in responses)
    assert numbers == list(range(numbers[0], numbers[0] + 8))


def test_parallel_patches_of_one_tender_lose_no_update(fresh_api):
    for round_ in range(10):
        tender = create_tender(fresh_api())
        changes = [
            {"title": f"title {round_}"},
            {"description": f"description {round_}"},
            {"procuringEntity": {"contactPoint": {"email": f"r{round_}@example.org"}}},
            {"items": [{"quantity": round_ + 10}]},
        ]
        responses = run_racing_for(
            tender.id,
            *[
                lambda change=change, tender=tender: fresh_api().patch(
                    tender.path, change, token=tender.token
                )
                for change in changes
            ],
        )
        # Every writer waited for the row lock; each then applied its change on the last one.
        assert [r.status_code for r in responses] == [200] * 4, [r.content for r in responses]
        data = tender.read()
        for change in changes:
            key = next(iter(change))
            if key == "procuringEntity":
                assert data[key]["contactPoint"]["email"] == change[key]["contactPoint"]["email"]
            elif key == "items":
                assert data[key][0]["quantity"] == change[key][0]["quantity"]
            else:
                assert data[key] == change[key]


def test_parallel_bids_are_all_kept(fresh_api, time_machine):
    clock = Clock(time_machine)
    tender = open_for_bids(fresh_api(), clock)
    results = run_together(
        *[
            lambda n=n: place_bid(fresh_api("broker2"), tender, 400 + n, identifier=f"{n + 1:08d}")
            for n in range(6)
        ]
    )
    assert len({bid_id for bid_id, _ in results}) == 6
    clock.advance(days=8)
    assert tender.through_the_auction(clock)["numberOfBids"] == 6


def test_parallel_bids_of_one_tenderer_keep_one(fresh_api, time_machine):
    clock = Clock(time_machine)
    tender = open_for_bids(fresh_api(), clock)
    responses = run_together(
        *[
            lambda n=n: fresh_api("broker2").post(f"{tender.path}/bids", bid_data(400 + n))
            for n in range(6)
        ]
    )
    assert sorted(response.status_code for response in responses) == [201] + [403] * 5
    clock.advance(days=8)
    assert tender.read()["numberOfBids"] == 1


def test_activate_and_disqualify_at_once_one_decision_wins(fresh_api, time_machine):
    clock = Clock(time_machine)
    for _ in range(5):
        tender = in_qualification(fresh_api(), clock, amounts=(400, 450))
        award = tender.award()
        path = f"{tender.path}/awards/{award['id']}"
        responses = run_together(
            *[
                lambda status=status, path=path, token=tender.token: fresh_api().patch(
                    path, {"status": status}, token=token
                )
                for status in ("active", "unsuccessful")
            ]
        )
        assert sorted(response.status_code for response in responses) == [200, 403]
        data = tender.read()
        winner = next(r for r in responses if r.status_code == 200).json()["data"]["status"]
        assert data["awards"][0]["status"] == winner
        if winner == "active":
            assert data["status"] == "active.awarded" and len(data["contracts"]) == 1
        else:
            assert data["status"] == "active.qualification" and "contracts" not in data
            assert data["awards"][1]["status"] == "pending"


def test_named_counters_are_unique_under_parallel_increments(brokers):
    from tenders.models import Counter

    values = run_together(*[lambda: Counter.next("complaints:some-tender")] * 10)
    assert sorted(values) == list(range(1, 11))
