"""What the auction module may do to a tender (2.3's /tenders/{id}/auction[/{lot_id}]): read
the auction's view, report the auction's links, report its results. Only an auction key may
(core.actors.Role.AUCTION), and it reports links and results only where an external module holds
the auctions (AUCTION_MODULE); the results go through Auction.record_results, the one rule our
own module's auctions end by too."""

from django.utils import timezone

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied, in_tender_status
from core.schema import IsoDateTime, Schema, Url, iso, to_json, validate
from core.transactions import atomic_change
from tenders.part_schemas import BidSchema, LotValue
from tenders.schema import Lot, Md5Id, Value

from .auction import builtin
from .statuses import TenderStatus
from .tender_wire import TENDER_FIELDS

# What the auction module's view of a tender shows (2.3's auction_view role).
VIEW_FIELDS = ("items", "minimalStep", "features", "submissionMethodDetails")


class ReportedLotValue(Schema):
    model_name = "LotValue"
    server_fields = frozenset(LotValue().fields)
    relatedLot = Md5Id()
    value = Value(required=False)
    date = IsoDateTime()
    participationUrl = Url()


class ReportedBid(Schema):
    model_name = "Bid"
    server_fields = frozenset(BidSchema().fields) | BidSchema.server_fields
    id = Md5Id(required=True)
    value = Value(required=False)
    date = IsoDateTime()
    lotValues = ReportedLotValue(many=True, required=False)
    participationUrl = Url()


class ReportedLot(Schema):
    model_name = "Lot"
    server_fields = frozenset(Lot().fields) | {"status", "date", "auctionPeriod"}
    id = Md5Id(required=True)
    auctionUrl = Url()


class AuctionReport(Schema):
    """What the auction module sends: the bids' results or links, the lots' links, the
    auction's link. What it read in the view and sends back is dropped."""

    model_name = "Tender"
    server_fields = TENDER_FIELDS | {"tenderID", "dateModified", "auctionPeriod"}
    bids = ReportedBid(many=True, required=False)
    lots = ReportedLot(many=True, required=False)
    auctionUrl = Url()


class AuctionRoutes:
    """Mixed into Tender."""

    @staticmethod
    def check_auction_module(by: Actor) -> None:
        if by.role is not Role.AUCTION:
            raise PermissionDenied()

    def auction_view(self, *, by: Actor, lot_id: str | None = None) -> dict:
        """GET /auction[/{lot_id}]: what the module needs to hold the auction(s), while the
        tender is in active.auction."""
        self.check_auction_module(by)
        if lot_id is not None:
            self.lot(lot_id)
        if self.status != TenderStatus.AUCTION:
            raise in_tender_status("get auction info", self)
        now = timezone.now()
        auctions = {auction.lot_id: auction for auction in self.auctions.all()}
        view = {"id": self.id, "tenderID": self.tender_id, "dateModified": iso(self.date_modified)}
        view.update({name: self.data[name] for name in VIEW_FIELDS if name in self.data})
        if self.has_lots:
            view["lots"] = [
                self._lot_for_auction(lot, auctions.get(lot["id"]), now) for lot in self.lots
            ]
        elif "" in auctions:
            view["auctionPeriod"] = auctions[""].period(self, now)
            if auctions[""].link:
                view["auctionUrl"] = auctions[""].link
        view["bids"] = [self._bid_for_auction(bid) for bid in self.active_bids()]
        return view

    def _lot_for_auction(self, lot: dict, auction, now) -> dict:
        shown = dict(lot)
        if auction is not None:
            shown["auctionPeriod"] = auction.period(self, now)
            if auction.link:
                shown["auctionUrl"] = auction.link
        return shown

    @staticmethod
    def _bid_for_auction(bid) -> dict:
        """A bid as the module sees it: its prices and parameters, not who bid."""
        shown = {"id": bid.id, "date": iso(bid.date), **bid.wire()}
        del shown["tenderers"], shown["status"]
        if bid.participation_url:
            shown["participationUrl"] = bid.participation_url
        return shown

    def report_auction_urls(self, *, by: Actor, data: dict, lot_id: str | None = None) -> None:
        """PATCH /auction[/{lot_id}]: the auction's link and each bid's (per lot on a lot
        tender: those of the path's lot only)."""
        self.check_auction_module(by)
        report = to_json(validate(AuctionReport, data))
        with atomic_change():
            now = self.lock_and_catch_up()
            auctions = self._auctions_reported("update auction urls", lot_id)
            bids = self._reported_bids(report, lot_id)
            if self.has_lots:
                self._check_lot_urls(report, auctions, bids)
            elif "auctionUrl" in report and "" in auctions:
                auctions[""].url = report["auctionUrl"]
            for bid, reported in bids:
                if self.has_lots:
                    urls = {
                        o["relatedLot"]: o.get("participationUrl") for o in reported["lotValues"]
                    }
                    bid.lot_values = [
                        {**offer, "participationUrl": urls[offer["relatedLot"]]}
                        if urls.get(offer["relatedLot"]) and offer["relatedLot"] in auctions
                        else offer
                        for offer in bid.lot_values
                    ]
                elif "participationUrl" in reported:
                    bid.participation_url = reported["participationUrl"]
                bid.save()
            for auction in auctions.values():
                auction.save()
            self.stamp_change(now)
            self.record_event(self, "auction_urls", by, now, lot_id=lot_id or "")

    def _check_lot_urls(self, report: dict, auctions: dict, bids: list) -> None:
        """On a lot tender the links are per lot: refused at the tender's level (2.3)."""
        if "auctionUrl" in report:
            raise InvalidData.field("auctionUrl", "url should be posted for each lot")
        if any("participationUrl" in reported for _bid, reported in bids):
            raise InvalidData(
                {
                    "bids": [
                        {"participationUrl": ["url should be posted for each lot of bid"]}
                        if "participationUrl" in reported
                        else {}
                        for _bid, reported in bids
                    ]
                }
            )
        for lot in report.get("lots", []):
            if lot["id"] in auctions and "auctionUrl" in lot:
                auctions[lot["id"]].url = lot["auctionUrl"]

    def record_auction_results(self, *, by: Actor, data: dict, lot_id: str | None = None):
        """POST /auction[/{lot_id}]: each bid's final price (per lot: for the path's lot, or
        for every lot without one); the auctions reported end now, and once none is left to
        hold the best bids' awards are pending."""
        self.check_auction_module(by)
        report = to_json(validate(AuctionReport, data))
        with atomic_change():
            now = self.lock_and_catch_up()
            auctions = self._auctions_reported("report auction results", lot_id)
            bids = self._reported_bids(report, lot_id)
            for auction in auctions.values():
                prices = {}
                for bid, reported in bids:
                    offer = self._reported_offer(reported, auction.line)
                    if offer is not None and "value" in offer:
                        prices[bid.pk] = (offer["value"]["amount"], offer.get("date") or iso(now))
                auction.record_results(self, prices, now, order=[bid.pk for bid, _r in bids])
            self.start_awarding_if_auctions_over(now)
            self.stamp_change(now)
            self.record_event(self, "auction_results", by, now, lot_id=lot_id or "")

    def _auctions_reported(self, doing: str, lot_id: str | None) -> dict:
        """The auctions a report is about, by lot id ("" without lots): the path's lot's, or
        every one still to be held."""
        if lot_id is not None:
            self.lot(lot_id)
        if self.status != TenderStatus.AUCTION:
            raise in_tender_status(doing, self)
        if builtin():  # (our module reports them: another's report would race it)
            raise NotAllowed(
                f"Can't {doing}: auctions are held by this registry's own module",
                code="auction_builtin",
            )
        if lot_id is not None:
            self.check_lot_active(lot_id, doing)
        auctions = {auction.lot_id: auction for auction in self.open_auctions()}
        if lot_id is not None:
            if lot_id not in auctions:  # (one bid, or none: the lot has no auction)
                raise NotAllowed(f"Can {doing} only in active lot status", code="lot_not_active")
            return {lot_id: auctions[lot_id]}
        return auctions

    def _reported_bids(self, report: dict, lot_id: str | None) -> list[tuple]:
        """The tender's bids, each with what the report says of it: every one, and only
        those, as 2.3 checks (its messages)."""
        reported = report.get("bids", [])
        bids = self.active_bids()
        if len(reported) != len(bids):
            raise InvalidData.field(
                "bids", "Number of auction results did not match the number of tender bids"
            )
        by_id = {bid.pk: bid for bid in bids}
        if {entry["id"] for entry in reported} != set(by_id):  # (as many: none twice)
            raise InvalidData.field("bids", "Auction bids should be identical to the tender bids")
        if self.has_lots:
            self._check_reported_lots(report, [(by_id[e["id"]], e) for e in reported])
        return [(by_id[entry["id"]], entry) for entry in reported]

    def _check_reported_lots(self, report: dict, pairs: list[tuple]) -> None:
        if "lots" in report:
            if len(report["lots"]) != len(self.lots):
                raise InvalidData.field(
                    "lots", "Number of lots did not match the number of tender lots"
                )
            if {lot["id"] for lot in report["lots"]} != {lot["id"] for lot in self.lots}:
                raise InvalidData.field(
                    "lots", "Auction lots should be identical to the tender lots"
                )
        miscounted = "Number of lots of auction results did not match the number of tender lots"
        counted = [
            {"lotValues": [miscounted]} if len(entry.get("lotValues", [])) != len(bid.lot_values)
            else {}
            for bid, entry in pairs
        ]  # fmt: skip
        if any(counted):
            raise InvalidData({"bids": counted})
        stray = {"relatedLot": ["relatedLot should be one of lots of bid"]}
        related = [
            {
                "lotValues": [
                    stray if offer.get("relatedLot") != mine["relatedLot"] else {}
                    for offer, mine in zip(entry["lotValues"], bid.lot_values, strict=True)
                ]
            }
            for bid, entry in pairs
        ]
        if any(any(errors["lotValues"]) for errors in related):
            raise InvalidData(
                {"bids": [errors if any(errors["lotValues"]) else {} for errors in related]}
            )

    @staticmethod
    def _reported_offer(reported: dict, line: str | None) -> dict | None:
        if line is None:
            return reported
        return next((o for o in reported.get("lotValues", []) if o.get("relatedLot") == line), None)
