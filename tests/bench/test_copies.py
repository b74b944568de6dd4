"""The benchmark's large registry is a registry: the copies bench/multiply.py makes in SQL read
like their originals in both faces (every reference mapped to the same copy) and take writes
with the originals' tokens."""

import json

import pytest
from django.utils import timezone

from bench import multiply
from bench.build import BIDDER_BROKER_KEY, BROKER_KEY, broker, build_one
from bench.run import Registry, basic
from tenders.models import Tender

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_copies_read_like_their_originals_and_take_the_originals_tokens(
    client, time_machine, django_capture_on_commit_callbacks
):
    real_now = timezone.now().replace(microsecond=0)
    brokers = (broker("bench", BROKER_KEY), broker("bench-bidder", BIDDER_BROKER_KEY))
    with django_capture_on_commit_callbacks(execute=True):  # (the auctions' protocols)
        built = [build_one(n, brokers, real_now, time_machine) for n in range(2)]
    time_machine.move_to(real_now)
    multiply.copy_all(3)
    assert Tender.objects.count() == 6
    tender_ids = set(Tender.objects.values_list("tender_id", flat=True))
    assert len(tender_ids) == 6
    for story in built:
        original = client.get(f"/api/2.3/tenders/{story['tender']}").json()["data"]
        for k in (1, 2):
            copy_id = Registry.id(story["tender"], k)
            copy = client.get(f"/api/2.3/tenders/{copy_id}").json()["data"]
            assert copy["id"] == copy_id and copy["tenderID"] != original["tenderID"]
            assert copy["dateModified"] > original["dateModified"]
            assert [b["id"] for b in copy["bids"]] == [
                Registry.id(b["id"], k) for b in original["bids"]
            ]
            (award,) = copy["awards"]
            assert award["id"] == Registry.id(story["award"], k)
            assert award["bid_id"] == Registry.id(original["awards"][0]["bid_id"], k)
            assert [c["status"] for c in award["complaints"]] == [
                c["status"] for c in original["awards"][0]["complaints"]
            ]
            # (five of its owner's, and its auction's protocol: its data and its page)
            assert len(copy["documents"]) == len(original["documents"]) == 7
            assert copy["items"] == original["items"]
            claim = story["claims"]["claim"]
            path = (
                f"/api/2.3/tenders/{copy_id}/awards/{award['id']}/complaints/"
                f"{Registry.id(claim['id'], k)}"
            )
            answer = {
                "status": "answered", "resolutionType": "declined",
                "resolution": "Ліцензію надано у складі пропозиції.",
            }  # fmt: skip
            response = client.patch(
                f"{path}?acc_token={story['owner_token']}", json.dumps({"data": answer}),
                content_type="application/json", HTTP_AUTHORIZATION=basic(BROKER_KEY),
            )  # fmt: skip
            assert response.status_code == 200, response.content
            assert response.json()["data"]["status"] == "answered"
            page = client.get(f"/tenders/{copy_id}/")
            assert page.status_code == 200 and original["tenderID"].encode() not in page.content
