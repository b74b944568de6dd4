"""One OCDS release per published change of a tender, kept with the change (opendata/releases.py),
tagged by what changed; a tender's record compiled from all of them; and the bulk feed of
release packages (GET /releases), paged by the feed's rules."""

import importlib
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import transaction

from core.schema import iso
from core.writes import before_commit, unit_of_work
from opendata.models import Release
from opendata.releases import keep_releases
from tenders.models import Tender
from tests.helpers import create_tender, in_qualification, place_bid

pytestmark = pytest.mark.django_db


def tags_of(tender_id: str) -> list[list[str]]:
    import json

    kept = Release.objects.filter(tender_id=tender_id).order_by("date_modified")
    return [json.loads(release.text.replace("\x01", "x"))["tag"] for release in kept]


def crawl(client, path: str) -> tuple[list[dict], str, list[dict]]:
    """Follow the feed to its empty page: (releases seen, the path to poll, the packages)."""
    seen, packages = [], []
    while True:
        package = client.get(path).json()
        packages.append(package)
        if not package["releases"]:
            return seen, path, packages
        seen += package["releases"]
        path = package["next_page"]["path"]


def test_each_change_the_public_sees_is_one_release_and_a_sealed_bid_none(api, clock):
    tender = create_tender(api)
    assert tags_of(tender.id) == [["tender"]]

    assert tender.patch({"title": "Папір для принтерів"}).status_code == 200
    assert tags_of(tender.id) == [["tender"], ["tenderUpdate"]]

    clock.move_to(clock.now() + timedelta(days=8))  # tendering has started
    Tender.objects.current(tender.id, viewer=None)
    place_bid(api, tender, 440)
    # Tendering began (a change the public sees); the sealed bid showed the public nothing.
    assert tags_of(tender.id) == [["tender"], ["tenderUpdate"], ["tenderUpdate"]]


def test_a_draft_and_a_test_tender_have_no_release(api):
    draft = create_tender(api, status="draft")
    test = create_tender(api, mode="test")
    assert not Release.objects.filter(tender_id__in=[draft.id, test.id]).exists()

    assert draft.patch({"status": "active.enquiries"}).status_code == 200
    assert tags_of(draft.id) == [["tender"]]  # published: the first release


def test_a_decision_a_contract_and_a_cancellation_are_tagged_as_ocds_tags_them(api, clock, client):
    tender = in_qualification(api, clock)
    assert ["tenderUpdate", "award"] in tags_of(tender.id)

    assert tender.decide("active").status_code == 200
    assert tags_of(tender.id)[-1] == ["tenderUpdate", "awardUpdate", "contract"]
    assert tender.decide("cancelled", 0).status_code == 200  # the decision taken back
    assert tags_of(tender.id)[-1] == [
        "tenderUpdate",
        "awardCancellation",
        "award",
        "contractUpdate",
    ]

    other = in_qualification(api, clock)
    assert other.decide("unsuccessful").status_code == 200
    # (the next bid's award follows at once)
    assert tags_of(other.id)[-1] == ["tenderUpdate", "awardUpdate", "award"]
    api.post(f"{other.path}/cancellations", {"reason": "Потреба відпала", "status": "active"},
             token=other.token)  # fmt: skip
    assert tags_of(other.id)[-1] == ["tenderCancellation"]
    record = client.get(f"/api/2.3/tenders/{other.id}", {"opt_schema": "ocds-record"}).json()
    [kept] = record["records"]
    assert [release["tag"] for release in kept["releases"]] == tags_of(other.id)
    assert kept["compiledRelease"]["tender"]["status"] == "cancelled"


def test_a_change_that_fails_leaves_no_release(api):
    tender = create_tender(api)
    before = Release.objects.count()

    with pytest.raises(RuntimeError), transaction.atomic(), unit_of_work():
        Tender.objects.get(pk=tender.id).told_changed()
        raise RuntimeError("the change failed")

    assert Release.objects.count() == before


def test_a_step_before_commit_runs_once_after_the_last_write_and_not_for_a_failed_part(db):
    done = []
    with transaction.atomic(), unit_of_work():
        before_commit("a", lambda about: done.append(("a", about)), 1)
        before_commit("a", lambda about: done.append(("a again", about)), 2)
        before_commit("a", lambda about: done.append(("a again", about)), 1)
        try:
            with unit_of_work():
                before_commit("a", lambda about: done.append(("a", about)), 3)
                before_commit("b", lambda about: done.append(("b", about)), 1)
                raise ValueError
        except ValueError:
            pass
        assert done == []
    assert done == [("a", [1, 2])]  # once, about each once; not what the failed part asked

    before_commit("c", lambda about: done.append(("c", about)), 1)  # outside a change: at once
    assert done == [("a", [1, 2]), ("c", [1])]


def test_the_bulk_feed_pages_every_release_once_in_valid_packages(client, ocds, clock, settings):
    call_command("load_demo", stdout=None)
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)
    kept = [
        f"{release.tender.tender_id}-{iso(release.date_modified)}"
        for release in Release.objects.select_related("tender")
    ]

    seen, head, packages = crawl(client, "/api/2.3/releases?limit=3")

    ids = [release["id"] for release in seen]
    assert sorted(ids) == sorted(kept) and len(set(ids)) == len(ids) > 20
    dates = [release["date"] for release in seen]
    assert dates == sorted(dates)
    *pages, head_page = packages
    for package in pages:
        assert ocds.errors(ocds.release_package, package) == []
        assert package["links"]["next"] == package["next_page"]["uri"]
    # (at the head, no release: the standard's package needs one, the empty page says "none yet")
    assert head_page["releases"] == [] and head_page["links"]["next"]
    # A change later: the poll at the head gives its release, and only it.
    tender = Tender.objects.get(title="Папір офісний А4")
    with transaction.atomic():
        locked = Tender.objects.select_for_update().get(pk=tender.pk)
        locked.stamp_change(clock.now())  # (stands for a change the public sees nothing of)
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)
    assert crawl(client, head)[0] == []


def test_the_feed_hands_out_no_token_and_refuses_a_bad_offset(client, clock, api, settings):
    create_tender(api)
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)

    package = client.get("/api/2.3/releases", {"acc_token": "secret", "limit": "1"}).json()

    assert "secret" not in package["uri"] and "secret" not in package["links"]["next"]
    assert len(package["releases"]) == 1
    refused = client.get("/api/2.3/releases", {"offset": "yesterday"})
    assert refused.status_code == 404
    assert refused.json()["errors"][0]["description"] == "Offset expired/invalid"


def test_a_tender_published_before_releases_were_kept_gets_one(api, client):
    tender = create_tender(api)
    Release.objects.filter(tender_id=tender.id).delete()
    # Until then its OCDS is the tender as it stands.
    package = client.get(f"/api/2.3/tenders/{tender.id}", {"opt_schema": "ocds"}).json()
    assert package["releases"][0]["tag"] == ["tender"]

    migration = importlib.import_module("opendata.migrations.0002_releases_of_published_tenders")
    migration.keep_a_release_of_each(None, None)

    assert tags_of(tender.id) == [["tender"]]
    assert keep_releases(Tender, tender_ids=[tender.id]) == []  # nothing new to tell
