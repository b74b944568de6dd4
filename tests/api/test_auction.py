"""The electronic auction on the 2.3 wire: when tendering closes with two or more bids the tender
is in active.auction until the auction is over; the auction module's routes, with its own key,
and 2.3's refusals."""

import os
import subprocess
import sys
from datetime import datetime, time, timedelta

import pytest

from core.schema import KYIV, iso, parse_iso
from opendata.models import Release
from tenders.models import Tender
from tenders.workdays import is_working_day
from tests.docservice.helpers import DocService, document
from tests.helpers import (
    FIRST,
    SECOND,
    Api,
    assert_kept_representations_are_current,
    assert_releases_are_current,
    bid_on,
    close_tendering,
    create_tender,
    error,
    offer,
    open_for_bids,
    open_two_lots,
    place_bid,
    single_error,
)

pytestmark = pytest.mark.django_db

# Our module's auction of two bidders: a first pause of 300 s, three rounds of two turns of
# 120 s, two pauses of 120 s.
TWO_BIDDERS = timedelta(seconds=300 + 3 * 2 * 120 + 2 * 120)


@pytest.fixture
def auction_module(client, brokers):
    """The auction module's key (manage.py add_broker --role auction)."""
    from core.models import Broker

    module = Broker(name="auction", role="auction")
    module.set_key("auction", short_allowed=True)
    module.save()
    return Api(client, key="auction")


@pytest.fixture
def external(settings):
    settings.AUCTION_MODULE = "external"
    yield
    # The kept representations and releases are checked while the module is still the external
    # one (their auctionUrl is its), then set aside: the settings go back before the usual check,
    # which tells open data of each published tender anew.
    assert_kept_representations_are_current()
    assert_releases_are_current()
    Tender.objects.update(public_text="")
    Release.objects.all().delete()
    Tender.objects.filter(published__isnull=False).update(untold=True)


def two_bids(api, api2, clock, amounts=(450, 400), **overrides):
    tender = open_for_bids(api, clock, **overrides)
    for number, amount in enumerate(amounts):
        place_bid(api2, tender, amount, identifier=f"{number + 1:08d}")
        clock.advance(minutes=1)
    return tender


def past_tendering(tender, clock) -> dict:
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    return tender.read()


def results(data: dict, prices: dict) -> dict:
    """The results body: every bid of the auction view with the price `prices` gives it (by
    its place in the view), or its own."""
    return {
        "bids": [
            {"id": bid["id"], "value": {"amount": prices.get(n, bid["value"]["amount"])}}
            for n, bid in enumerate(data["bids"])
        ]
    }


# --- planning and the status ----------------------------------------------------------------


def test_two_bids_go_to_an_auction_planned_in_a_slot_of_a_working_day(api, api2, clock):
    tender = two_bids(api, api2, clock)
    tendering = tender.read()
    end = parse_iso(tendering["tenderPeriod"]["endDate"]).astimezone(KYIV)
    midnight = datetime.combine(end.date() + timedelta(days=1), time(0), tzinfo=KYIV)
    planned = tendering["auctionPeriod"]
    assert planned["shouldStartAfter"] == iso(midnight)
    start = parse_iso(planned["startDate"]).astimezone(KYIV)
    assert is_working_day(start.date())
    assert time(11) <= start.time() < time(16) and start.minute in (0, 30)
    assert start >= midnight + timedelta(hours=1)

    data = past_tendering(tender, clock)
    assert data["status"] == "active.auction"
    # Sealed until the auction is over, as 2.3 keeps them.
    assert "bids" not in data and "numberOfBids" not in data
    assert single_error(api.get(f"{tender.path}/bids"), 403)["description"] == (
        "Can't view bids in current (active.auction) tender status"
    )
    assert parse_iso(data["next_check"]) == start + TWO_BIDDERS

    clock.move_to(start + TWO_BIDDERS)
    data = tender.read()
    over = iso(start + TWO_BIDDERS)
    assert data["status"] == "active.qualification"
    assert data["auctionPeriod"] == {"startDate": iso(start), "endDate": over}
    assert data["awardPeriod"] == {"startDate": over}
    [award] = data["awards"]
    assert award["value"]["amount"] == 400 and award["date"] == over
    assert data["numberOfBids"] == 2


def test_one_bid_has_no_auction_and_its_award_at_once(api, api2, clock):
    tender = two_bids(api, api2, clock, amounts=(450,))
    data = past_tendering(tender, clock)
    assert data["status"] == "active.qualification"
    assert "auctionPeriod" not in data
    assert data["awards"][0]["date"] == data["tenderPeriod"]["endDate"]


def test_auctions_fill_a_slot_then_the_next(api, api2, clock, settings):
    settings.AUCTION_STREAMS = 1
    first, second = create_tender(api), create_tender(api)
    clock.move_to(parse_iso(first.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    starts = [parse_iso(t.read()["auctionPeriod"]["startDate"]) for t in (first, second)]
    assert starts[1] - starts[0] == timedelta(minutes=30)


def test_a_cancelled_tender_s_auction_leaves_its_slot_to_the_next(api, api2, clock, settings):
    settings.AUCTION_STREAMS = 1
    first, second = create_tender(api), create_tender(api)
    clock.move_to(parse_iso(first.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    taken = first.read()["auctionPeriod"]["startDate"]  # (planned as it is read)
    cancelled = api.post(
        f"{first.path}/cancellations",
        {"reason": "закупівля більше не потрібна", "status": "active"},
        token=first.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    assert second.read()["auctionPeriod"]["startDate"] == taken


def test_a_sandbox_quick_auction_starts_when_tendering_ends_and_runs_accelerated(
    api, api2, clock, settings
):
    settings.SANDBOX_MODE = True
    tender = two_bids(
        api, api2, clock,
        procurementMethodDetails="quick, accelerator=1440", submissionMethodDetails="quick",
    )  # fmt: skip
    end = tender.read()["tenderPeriod"]["endDate"]
    clock.move_to(parse_iso(end))
    data = tender.read()
    assert data["status"] == "active.auction"
    assert data["auctionPeriod"]["startDate"] == end
    # (each length divided by the accelerator, as the rounds are: to the microsecond)
    accelerated = sum(
        (timedelta(seconds=s) / 1440 for s in (300, *[120] * 6, 120, 120)), timedelta()
    )
    assert accelerated - TWO_BIDDERS / 1440 < timedelta(microseconds=10)
    assert parse_iso(data["next_check"]) == parse_iso(end) + accelerated
    clock.move_to(parse_iso(data["next_check"]))
    assert tender.read()["status"] == "active.qualification"


@pytest.mark.parametrize("mode", ["no-auction", "fast-forward"])
def test_a_sandbox_auction_without_auction_ends_as_tendering_closes(
    api, api2, clock, settings, mode
):
    settings.SANDBOX_MODE = True
    tender = two_bids(api, api2, clock, submissionMethodDetails=f"quick(mode:{mode})")
    data = past_tendering(tender, clock)
    end = data["tenderPeriod"]["endDate"]
    assert data["status"] == "active.qualification"
    assert data["auctionPeriod"] == {"startDate": end, "endDate": end}


# --- the auction module's key ---------------------------------------------------------------


def test_only_the_auction_key_reads_the_auction_and_only_in_its_status(
    api, api2, clock, auction_module
):
    tender = two_bids(api, api2, clock)
    refused = single_error(auction_module.get(f"{tender.path}/auction"), 403)
    assert refused["description"] == (
        "Can't get auction info in current (active.tendering) tender status"
    )
    past_tendering(tender, clock)
    for stranger in (api, api2):
        assert single_error(stranger.get(f"{tender.path}/auction"), 403)["description"] == (
            "Forbidden"
        )
    view = auction_module.get(f"{tender.path}/auction").json()["data"]
    assert view["tenderID"] == tender.read()["tenderID"]
    assert [bid["value"]["amount"] for bid in view["bids"]] == [450, 400]
    assert all("tenderers" not in bid for bid in view["bids"])
    assert "startDate" in view["auctionPeriod"] and view["minimalStep"]["amount"] == 35


def test_the_auction_key_acts_as_no_broker(api, api2, clock, auction_module):
    from tests.helpers import bid_data, organization, tender_data

    assert single_error(auction_module.post("/tenders", tender_data()), 403)["name"] == (
        "permission"
    )
    tender = create_tender(api)
    question = {"title": "Питання", "author": organization()}
    assert auction_module.post(f"{tender.path}/questions", question).status_code == 403
    claim = {"title": "Вимога", "description": "Умови дискримінаційні", "author": organization()}
    assert auction_module.post(f"{tender.path}/complaints", claim).status_code == 403
    assert auction_module.patch(tender.path, {"title": "x"}, token=tender.token).status_code == (
        403
    )
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    assert auction_module.post(f"{tender.path}/bids", bid_data(300)).status_code == 403
    assert not tender.read().get("questions") and not tender.read().get("complaints")


def test_the_auction_key_reports_nothing_where_our_module_holds_the_auctions(
    api, api2, clock, auction_module
):
    tender = two_bids(api, api2, clock)
    data = past_tendering(tender, clock)
    view = auction_module.get(f"{tender.path}/auction").json()["data"]
    links = {"auctionUrl": "https://auction.example/a", "bids": [{"id": view["bids"][0]["id"]}]}
    for refused, doing in (
        (auction_module.patch(f"{tender.path}/auction", links), "update auction urls"),
        (
            auction_module.post(f"{tender.path}/auction", results(view, {0: 300})),
            "report auction results",
        ),
    ):
        assert single_error(refused, 403)["description"] == (
            f"Can't {doing}: auctions are held by this registry's own module"
        )
    assert tender.read() == data


def test_an_external_auction_reports_its_links_and_results(
    api, api2, clock, auction_module, external
):
    tender = two_bids(api, api2, clock)
    past_tendering(tender, clock)
    path = f"{tender.path}/auction"
    view = auction_module.get(path).json()["data"]
    links = {
        "auctionUrl": "https://auction.example/t1",
        "bids": [
            {"id": bid["id"], "participationUrl": f"https://auction.example/t1/{n}"}
            for n, bid in enumerate(view["bids"])
        ],
    }
    patched = auction_module.patch(path, links)
    assert patched.status_code == 200, patched.content
    data = tender.read()
    assert data["auctionUrl"] == "https://auction.example/t1"
    (first_id, first_token), _second = tender.bids
    assert (
        api2.get(f"{tender.path}/bids/{first_id}", token=first_token).json()["data"][
            "participationUrl"
        ]
        == "https://auction.example/t1/0"
    )

    # The results: the first bid (450 sealed) bid 380 and wins.
    done = auction_module.post(path, results(view, {0: 380}))
    assert done.status_code == 200, done.content
    data = done.json()["data"]
    assert data["status"] == "active.qualification"
    assert data["auctionPeriod"]["endDate"] == iso(clock.now())
    [award] = data["awards"]
    assert (award["bid_id"], award["value"]["amount"]) == (first_id, 380)
    # A bid's link is its owner's: not in the tender, nor in the bid as others read it.
    assert all("participationUrl" not in bid for bid in data["bids"])
    assert "participationUrl" not in api.get(f"{tender.path}/bids/{first_id}").json()["data"]
    assert single_error(auction_module.post(path, results(view, {})), 403)["description"] == (
        "Can't report auction results in current (active.qualification) tender status"
    )
    assert single_error(auction_module.patch(path, links), 403)["description"] == (
        "Can't update auction urls in current (active.qualification) tender status"
    )


def test_results_that_differ_from_the_bids_are_refused_with_2_3_words(
    api, api2, clock, auction_module, external
):
    tender = two_bids(api, api2, clock)
    past_tendering(tender, clock)
    path = f"{tender.path}/auction"
    view = auction_module.get(path).json()["data"]
    body = results(view, {})
    one = {"bids": body["bids"][:1]}
    assert single_error(auction_module.post(path, one), 422) == {
        "location": "body",
        "name": "bids",
        "description": ["Number of auction results did not match the number of tender bids"],
    }
    stray = {"bids": [body["bids"][0], {**body["bids"][1], "id": "f" * 32}]}
    assert single_error(auction_module.post(path, stray), 422)["description"] == [
        "Auction bids should be identical to the tender bids"
    ]
    too_high = results(view, {1: 501})
    assert single_error(auction_module.post(path, too_high), 422)["description"] == [
        {}, {"value": ["value of bid should be less than value of tender"]},
    ]  # fmt: skip
    reversed_order = {"bids": list(reversed(too_high["bids"]))}
    assert single_error(auction_module.post(path, reversed_order), 422)["description"] == [
        {"value": ["value of bid should be less than value of tender"]}, {},
    ]  # fmt: skip
    rogue = {**body, "bogus": 1}
    assert error(auction_module.post(path, rogue), 422) == [
        {"location": "body", "name": "bogus", "description": "Rogue field"}
    ]
    assert tender.read()["status"] == "active.auction"  # nothing of it was taken


def test_a_lost_external_auction_is_planned_again(api, api2, clock, external):
    tender = two_bids(api, api2, clock)
    data = past_tendering(tender, clock)
    start = parse_iso(data["auctionPeriod"]["startDate"])
    # 2.3 expects it over in 6 minutes per bidder and 24 more.
    expected_end = start + timedelta(minutes=2 * 6 + 24)
    assert parse_iso(data["next_check"]) == expected_end
    clock.move_to(expected_end + timedelta(minutes=1))
    data = tender.read()
    assert data["status"] == "active.auction"
    again = parse_iso(data["auctionPeriod"]["startDate"])
    assert again > expected_end and again.astimezone(KYIV).date() > start.astimezone(KYIV).date()


# --- lots -----------------------------------------------------------------------------------


def test_each_lot_with_two_bids_has_its_auction_and_the_awards_wait_for_it(
    api, api2, clock, auction_module, external
):
    tender = open_two_lots(api, clock)
    bid_on(api2, tender, offer(FIRST, 280), offer(SECOND, 190), identifier="00000001")
    bid_on(api2, tender, offer(FIRST, 270), identifier="00000002")
    data = past_tendering(tender, clock)
    assert data["status"] == "active.auction"
    lots = {lot["id"]: lot for lot in data["lots"]}
    assert "startDate" in lots[FIRST]["auctionPeriod"]
    assert "auctionPeriod" not in lots[SECOND]  # one bid: no auction
    assert "auctionPeriod" not in data

    path = f"{tender.path}/auction"
    view = auction_module.get(path).json()["data"]
    every_bid = [
        {"id": bid["id"], "lotValues": [{"relatedLot": o["relatedLot"]} for o in bid["lotValues"]]}
        for bid in view["bids"]
    ]
    tender_level = {"auctionUrl": "https://auction.example/t", "bids": every_bid}
    assert single_error(auction_module.patch(f"{path}/{FIRST}", tender_level), 422) == {
        "location": "body",
        "name": "auctionUrl",
        "description": ["url should be posted for each lot"],
    }
    per_lot = {
        "lots": [{"id": FIRST, "auctionUrl": "https://auction.example/l1"}, {"id": SECOND}],
        "bids": [
            {"id": bid["id"], "lotValues": [
                {"relatedLot": o["relatedLot"], "participationUrl": "https://auction.example/p"}
                for o in bid["lotValues"]
            ]}
            for bid in view["bids"]
        ],
    }  # fmt: skip
    assert auction_module.patch(f"{path}/{FIRST}", per_lot).status_code == 200
    lots = {lot["id"]: lot for lot in tender.read()["lots"]}
    assert lots[FIRST]["auctionUrl"] == "https://auction.example/l1"
    assert "auctionUrl" not in lots[SECOND]
    no_auction = auction_module.patch(f"{path}/{SECOND}", per_lot)
    assert single_error(no_auction, 403)["description"] == (
        "Can update auction urls only in active lot status"
    )

    miscounted = {"bids": [{"id": bid["id"], "lotValues": []} for bid in view["bids"]]}
    assert single_error(auction_module.post(f"{path}/{FIRST}", miscounted), 422)[
        "description"
    ] == [
        {"lotValues": ["Number of lots of auction results did not match the number of tender lots"]},
        {"lotValues": ["Number of lots of auction results did not match the number of tender lots"]},
    ]  # fmt: skip
    final = {
        "bids": [
            {"id": bid["id"], "lotValues": [
                {"relatedLot": o["relatedLot"],
                 "value": {"amount": 250 if o["relatedLot"] == FIRST and n == 0
                           else o["value"]["amount"]}}
                for o in bid["lotValues"]
            ]}
            for n, bid in enumerate(view["bids"])
        ]
    }  # fmt: skip
    done = auction_module.post(f"{path}/{FIRST}", final)
    assert done.status_code == 200, done.content
    data = done.json()["data"]
    assert data["status"] == "active.qualification"
    awards = {award["lotID"]: award for award in data["awards"]}
    assert awards[FIRST]["value"]["amount"] == 250  # the first bidder won the lot's auction
    assert awards[SECOND]["value"]["amount"] == 190
    assert single_error(auction_module.post(f"{path}/{SECOND}", final), 403)["description"] == (
        "Can't report auction results in current (active.qualification) tender status"
    )


def test_a_cancelled_lot_reports_nothing_and_the_other_lots_go_on(
    api, api2, clock, auction_module, external
):
    tender = open_two_lots(api, clock)
    bid_on(api2, tender, offer(FIRST, 280), offer(SECOND, 190), identifier="00000001")
    bid_on(api2, tender, offer(FIRST, 270), offer(SECOND, 180), identifier="00000002")
    past_tendering(tender, clock)
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "лот більше не потрібен", "relatedLot": SECOND, "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    path = f"{tender.path}/auction"
    view = auction_module.get(path).json()["data"]
    final = {
        "bids": [
            {"id": bid["id"], "lotValues": [
                {"relatedLot": o["relatedLot"], "value": o["value"]} for o in bid["lotValues"]
            ]}
            for bid in view["bids"]
        ]
    }  # fmt: skip
    assert (
        single_error(auction_module.post(f"{path}/{SECOND}", final), 403)["description"]
        == "Can report auction results only in active lot status"
    )
    assert single_error(auction_module.get(f"{path}/{'9' * 32}"), 404)["name"] == "lot_id"
    assert auction_module.post(f"{path}/{FIRST}", final).status_code == 200
    data = tender.read()
    assert data["status"] == "active.qualification"
    assert [award["lotID"] for award in data["awards"]] == [FIRST]
    cancelled_lot = {lot["id"]: lot for lot in data["lots"]}[SECOND]
    assert "shouldStartAfter" not in cancelled_lot["auctionPeriod"]


def test_the_last_auction_cancelled_makes_the_awards(api, api2, clock, external):
    tender = open_two_lots(api, clock)
    bid_on(api2, tender, offer(FIRST, 280), offer(SECOND, 190), identifier="00000001")
    bid_on(api2, tender, offer(FIRST, 270), identifier="00000002")
    past_tendering(tender, clock)
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "лот більше не потрібен", "relatedLot": FIRST, "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    data = tender.read()
    assert data["status"] == "active.qualification"
    assert [award["lotID"] for award in data["awards"]] == [SECOND]


# --- the protocol -------------------------------------------------------------------------


def test_the_auction_key_publishes_its_protocol_and_replaces_only_its_own(
    api, api2, clock, client, auction_module
):
    tender = create_tender(api)
    owners = api.post(
        f"{tender.path}/documents", document(DocService(client, key="broker")), token=tender.token
    )
    assert owners.status_code == 201, owners.content
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    for number, amount in enumerate((450, 400)):
        place_bid(api2, tender, amount, identifier=f"{number + 1:08d}")
    past_tendering(tender, clock)
    module_ds = DocService(client, key="auction")
    protocol = auction_module.post(f"{tender.path}/documents", document(module_ds))
    assert protocol.status_code == 201, protocol.content
    replaced = auction_module.put(
        f"{tender.path}/documents/{protocol.json()['data']['id']}", document(module_ds)
    )
    assert replaced.status_code == 200, replaced.content
    refused = auction_module.put(
        f"{tender.path}/documents/{owners.json()['data']['id']}", document(module_ds)
    )
    assert single_error(refused, 403)["description"] == "Can update document only author"
    late = api.post(
        f"{tender.path}/documents", document(DocService(client, key="broker")), token=tender.token
    )
    assert single_error(late, 403)["description"] == (
        "Can't add document in current (active.auction) tender status"
    )
    close_tendering(tender, clock)  # (past the auction)
    after = auction_module.post(f"{tender.path}/documents", document(module_ds))
    assert after.status_code == 201, after.content


def test_an_external_module_holds_even_a_sandbox_auction_without_auction(
    api, api2, clock, settings, external
):
    settings.SANDBOX_MODE = True
    tender = two_bids(api, api2, clock, submissionMethodDetails="quick(mode:no-auction)")
    data = past_tendering(tender, clock)
    assert data["status"] == "active.auction"  # (the module decides how it holds it)
    start = parse_iso(data["auctionPeriod"]["startDate"])
    assert parse_iso(data["next_check"]) == start + timedelta(minutes=2 * 6 + 24)


def test_a_slot_holds_at_least_one_auction_or_the_site_does_not_start():
    """With no place in any slot, planning an auction would look for one forever (holding its
    tender's lock)."""
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "portal.settings", "AUCTION_STREAMS": "0"},
        capture_output=True,
        text=True,
    )
    assert started.returncode != 0
    assert "AUCTION_STREAMS is at least 1." in started.stderr
