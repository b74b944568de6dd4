"""One OCDS release per published change of a tender (opendata/releases.py), written when open
data is told of the change: by the background, or by a read of its OCDS, a state the tender's
next change kept first included; tagged by what changed; a tender's record compiled from all
of them; and the bulk feed of release packages (GET /releases), paged by the feed's rules."""

import importlib
import json
import re
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from core.schema import iso, parse_iso
from opendata.models import Release
from opendata.releases import keep_releases
from tenders.models import Tender, UntoldState
from tests.contracting.helpers import InContracting
from tests.helpers import (
    CLAIM,
    FIRST,
    SECOND,
    bid_on,
    create_tender,
    in_qualification,
    offer,
    open_two_lots,
    place_bid,
    tell_every_change,
)

pytestmark = pytest.mark.django_db

FEATURE = {"code": "years", "featureOf": "tenderer", "title": "Досвід",
           "enum": [{"value": 0, "title": "0"}, {"value": 0.1, "title": "10%"}]}  # fmt: skip


def told(tender_id: str) -> list[dict]:
    """The tender's releases, once open data is told of every change."""
    tell_every_change()
    kept = Release.objects.filter(tender_id=tender_id).order_by("tender_modified")
    return [json.loads(release.text.replace("\x01", "x")) for release in kept]


def tags_of(tender_id: str) -> list[list[str]]:
    return [release["tag"] for release in told(tender_id)]


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


def test_the_next_change_keeps_the_last_state_and_the_background_tells_each_in_order(api):
    tender = create_tender(api)
    for title in ("Папір А4", "Папір А3"):
        assert tender.patch({"title": title}).status_code == 200

    # Nobody told of them meanwhile (no background here): each change kept the state before it
    # (its rows), and told nothing itself.
    assert not Release.objects.filter(tender_id=tender.id).exists()
    assert UntoldState.objects.filter(tender_id=tender.id).count() == 2
    assert Tender.objects.get(pk=tender.id).untold
    titles = [release["tender"]["title"] for release in told(tender.id)]

    assert titles == ["футляри до державних нагород", "Папір А4", "Папір А3"]
    assert Release.objects.filter(tender_id=tender.id).count() == 3
    assert not Tender.objects.filter(untold=True).exists()
    assert not UntoldState.objects.exists()


def test_a_state_with_a_contract_s_changes_is_put_back_whole(api, api2, clock):
    """A contract's changes hang on the tender through the contract: a state kept with them is
    put back with them (found through the contract's row, so they go before it)."""
    contract = InContracting(api, api2, clock)
    tell_every_change()
    for reason in ("Зменшення обсягу", "Зниження ціни"):  # each change made, then signed
        made = contract.add_change(rationale=reason).json()["data"]
        signing = {"status": "active", "dateSigned": iso(clock.now())}
        assert contract.patch_change(made["id"], signing).status_code == 200
        clock.advance(minutes=1)

    told_changes = [
        [change["rationale"] for change in release["contracts"][0].get("amendments") or []]
        for release in told(contract.tender.id)
        if release.get("contracts")
    ]

    assert told_changes[-2:] == [["Зменшення обсягу"], ["Зменшення обсягу", "Зниження ціни"]]


def test_a_refused_change_tells_nothing_and_leaves_the_last_untold(api):
    tender = create_tender(api)
    assert tender.patch({"value": {"amount": -1}}).status_code == 422
    assert Tender.objects.get(pk=tender.id).untold  # (its telling went back with the refusal)
    assert tags_of(tender.id) == [["tender"]]


def test_a_read_of_a_tender_s_ocds_tells_its_last_change_first(api, client):
    tender = create_tender(api)
    assert tender.patch({"title": "Папір А4"}).status_code == 200

    package = client.get(f"/api/2.3/tenders/{tender.id}", {"opt_schema": "ocds"}).json()

    assert package["releases"][0]["tender"]["title"] == "Папір А4"
    assert not Tender.objects.get(pk=tender.id).untold


def test_a_tender_open_data_cannot_be_told_of_holds_up_no_other_and_no_change(api, caplog):
    broken, fine = create_tender(api), create_tender(api)
    keep = keep_releases

    def failing(sender, tender_ids, **kwargs):
        if broken.id in tender_ids:
            raise ValueError("a mapping that fails")
        return keep(sender, tender_ids=tender_ids)

    from tenders.extensions import TENDER_CHANGED

    TENDER_CHANGED.plug("opendata", failing)
    try:
        # A change of the broken one is made all the same (its last change is not told).
        assert broken.patch({"title": "Папір А4"}).status_code == 200
        assert Tender.objects.tell_untold() == 1  # the other one, alone
    finally:
        TENDER_CHANGED.plug("opendata", keep)
    assert Release.objects.filter(tender_id=fine.id).exists()
    assert "could not be told" in caplog.text and Tender.objects.get(pk=broken.id).untold


def test_the_bulk_feed_pages_every_release_once_in_valid_packages(
    api, client, ocds, clock, settings
):
    call_command("load_demo", stdout=None)  # every status, claims, questions, contracts
    lots = open_two_lots(api, clock)
    assert lots.read()["status"] == "active.tendering"  # (read: its tendering began)
    create_tender(api, features=[FEATURE])
    cancelled = create_tender(api)
    reason = {"reason": "Потреба відпала", "status": "active"}
    cancelling = api.post(f"{cancelled.path}/cancellations", reason, token=cancelled.token)
    assert cancelling.status_code == 201
    tell_every_change()
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)
    kept = [
        f"{release.tender.tender_id}-{iso(release.tender_modified)}"
        for release in Release.objects.select_related("tender")
    ]

    seen, head, packages = crawl(client, "/api/2.3/releases?limit=3")

    ids = [release["id"] for release in seen]
    assert sorted(ids) == sorted(kept) and len(set(ids)) == len(ids) > 20
    for ocid in {release["ocid"] for release in seen}:  # each tender's in the order they were
        dates = [release["date"] for release in seen if release["ocid"] == ocid]
        assert dates == sorted(dates)
    *pages, head_page = packages
    for package in pages:
        assert ocds.errors(ocds.release_package, package) == []
        assert package["links"]["next"] == package["next_page"]["uri"]
    # (at the head, no release: the standard's package needs one, the empty page says "none yet")
    assert head_page["releases"] == [] and head_page["links"]["next"]
    # A sealed bid later: the public sees nothing new, the poll at the head finds no release.
    bid_on(api, lots, offer(FIRST, 280), offer(SECOND, 190))
    tell_every_change()
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)
    assert crawl(client, head)[0] == []
    for tender in Tender.objects.filter(published__isnull=False):
        record = client.get(f"/api/2.3/tenders/{tender.pk}", {"opt_schema": "ocds-record"})
        assert ocds.errors(ocds.record_package, record.json()) == [], tender.title


def test_the_feed_hands_out_no_token_and_refuses_a_bad_offset(client, clock, api, settings):
    create_tender(api)
    tell_every_change()
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)

    package = client.get("/api/2.3/releases", {"acc_token": "secret", "limit": "1"}).json()

    assert "secret" not in package["uri"] and "secret" not in package["links"]["next"]
    assert len(package["releases"]) == 1
    refused = client.get("/api/2.3/releases", {"offset": "yesterday"})
    assert refused.status_code == 404
    assert refused.json()["errors"][0]["description"] == "Offset expired/invalid"


def test_a_tender_published_before_releases_were_kept_gets_one(api, client):
    tender = create_tender(api)
    told(tender.id)
    Release.objects.filter(tender_id=tender.id).delete()  # (as before releases were kept)

    migration = importlib.import_module("opendata.migrations.0002_tell_of_published_tenders")
    migration.leave_published_tenders_untold(django_apps, None)

    assert Tender.objects.get(pk=tender.id).untold
    assert tags_of(tender.id) == [["tender"]]  # the tender as it stands
    assert keep_releases(Tender, tender_ids=[tender.id])() == []  # nothing new to tell


def test_states_kept_by_the_next_change_are_told_as_if_told_at_once(api, api2, clock):
    """Two tenders live the same story at the same moments: open data is told of the first's
    state after each step, of the second's only at the end (each of its changes kept the state
    before it). Their releases tell the same, state by state (ids aside)."""
    told_at_once, kept = create_tender(api), create_tender(api)

    def step(act):
        for tender in (told_at_once, kept):
            act(tender)
        Tender.objects.tell_untold_of(told_at_once.id)
        clock.advance(minutes=3)

    step(lambda t: t.patch({"title": "Папір А4, 500 аркушів"}))
    step(lambda t: t.patch({"description": "Уточнено щільність"}))
    clock.move_to(parse_iso(kept.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    step(lambda t: t.read())  # (tendering begins: a change time makes)
    for number, amount in enumerate((450, 400)):
        step(lambda t, n=number, a=amount: place_bid(api2, t, a, identifier=f"{n + 1:08d}"))
    clock.move_to(parse_iso(kept.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    step(lambda t: t.read())  # (to the auction)
    clock.move_to(max(parse_iso(t.read()["next_check"]) for t in (told_at_once, kept)))
    step(lambda t: t.read())  # (the auction over: the best bid's award)
    step(lambda t: t.decide("active"))
    step(lambda t: api2.post(
        f"{t.path}/awards/{t.award()['id']}/complaints",
        {**CLAIM, "status": "claim"}, token=t.bids[0][1],
    ))  # fmt: skip

    def releases(tender) -> list[str]:
        text = json.dumps(told(tender.id), ensure_ascii=False, sort_keys=True)
        tender_id = Tender.objects.get(pk=tender.id).tender_id
        ids = list(dict.fromkeys(re.findall(r"[0-9a-f]{32}", text)))
        for number, found in enumerate(ids):
            text = text.replace(found, f"<id {number}>")
        return json.loads(text.replace(tender_id, "<tenderID>"))

    expected = releases(told_at_once)
    assert len(expected) >= 8
    assert releases(kept) == expected
