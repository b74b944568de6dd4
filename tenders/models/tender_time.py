"""A tender's time-driven changes: tendering opens (its auctions are planned) and closes,
auctions end (or, lost, are planned again), qualification fails when every bid is out, answered
claims close. Applied whenever the tender is locked (a read that finds a
deadline passed, any write, the chronograph)."""

from core.actors import Actor
from core.schema import iso
from core.transactions import recoverable
from tenders.schema import features_by_lot, features_of

from .auction import Auction, builtin, outcome_of
from .base import new_id
from .bidding import Weighing
from .statuses import AwardStatus, TenderStatus


class TimeDrivenChanges:
    """Mixed into Tender."""

    def catch_up(self) -> bool:
        """Apply every time-driven change due by now; True if there was one (False too for a
        tender no longer there)."""
        try:
            with recoverable():
                self.lock_and_catch_up()
        except type(self).DoesNotExist:
            return False
        return self.caught_up

    def apply_changes_due(self, now) -> bool:
        """Apply, in order, each change that became due by `now`, stamped with its due time."""
        changed = False
        for complaint in self.claims():
            if complaint.is_answered and complaint.closes_at <= now:
                complaint.expire(complaint.closes_at)
                changed = True
        if self.status == TenderStatus.ENQUIRIES and self.tender_start <= now:
            self.perform("start_tendering", Actor.system(), self.tender_start)
            for line in self.awarding_lines() if self.procedure.has_auction else []:
                Auction(tender=self, lot_id=line or "").plan(self, now)
            changed = True
        if self.status == TenderStatus.TENDERING and self.tender_end <= now:
            self._close_tendering(at=self.tender_end, now=now)
            changed = True
        if self.status == TenderStatus.AUCTION:
            changed = self._hold_auctions(now) or changed
        for line, failed_at in sorted(self._failures(), key=lambda failure: failure[1]):
            if failed_at <= now:
                self._fail_line(line, failed_at)
                changed = True
        return changed

    def next_check_due(self):
        # (Claims against the tender are answered, and close, while questions and bids are
        # taken too.)
        due = [complaint.closes_at for complaint in self.claims() if complaint.is_answered]
        if self.status == TenderStatus.ENQUIRIES:
            return min([self.tender_start, *due])
        if self.status == TenderStatus.TENDERING:
            return min([self.tender_end, *due])
        if self.status == TenderStatus.AUCTION:
            due += [auction.expected_end(self) for auction in self.open_auctions()]
        due += [failed_at for _line, failed_at in self._failures()]
        return min(due, default=None)

    def _close_tendering(self, *, at, now) -> None:
        """Bids are opened. A lot nobody bid for is unsuccessful, and so is the tender when no
        line (the tender, or an active lot) has a bid. A line with two or more bids keeps its
        auction (planned now if it was not); when no line has one, each line gets a pending
        award for its best bid at once, else once every auction is over."""
        system = Actor.system()
        bids = self.active_bids()
        for lot_id in self.awarding_lines():
            if lot_id is not None and not any(bid.offer_for(lot_id) for bid in bids):
                self.lot_machine(lot_id).end("fail", system, at)
        competing = self.lines_with_auction()
        self.perform("close_tendering", system, at)
        planned = {auction.lot_id: auction for auction in self.auctions.all()}
        for line, offers in competing.items():
            auction = planned.pop(line or "", None) or Auction(tender=self, lot_id=line or "")
            auction.sealed = {
                bid.pk: {
                    "amount": offer["value"]["amount"],
                    "date": offer.get("date") or iso(bid.date),
                }
                for bid, offer in offers
            }
            if auction.start is None:
                auction.plan(self, now)
            else:
                auction.save()
        for unheld in planned.values():
            unheld.delete()
        if self.status == TenderStatus.AUCTION:
            return
        if self.status != TenderStatus.UNSUCCESSFUL:
            self._auctions_over(at)

    def lines_with_auction(self) -> dict:
        """The lines (the tender: None, or active lots) two or more bids compete for, with
        their (bid, offer) pairs (none, in a procedure without an auction)."""
        if not self.procedure.has_auction:
            return {}
        offers = self._offers_by_line(self.active_bids())
        return {
            line: offers[line] for line in self.awarding_lines() if len(offers.get(line, [])) >= 2
        }

    def status_after_tendering(self) -> TenderStatus:
        """Where closing tendering leads: to the auction when two or more bids compete for a
        line (the tender, or an active lot), else to qualification when a line has a bid, else
        to unsuccessful."""
        if not self.active_bids() or not self.awarding_lines():
            return TenderStatus.UNSUCCESSFUL
        if self.lines_with_auction():
            return TenderStatus.AUCTION
        return TenderStatus.QUALIFICATION

    # --- auctions -------------------------------------------------------------------------

    def open_auctions(self) -> list:
        """The auctions still to be held (read from those loaded with it)."""
        return [auction for auction in self.auctions.all() if auction.is_open(self)]

    def _hold_auctions(self, now) -> bool:
        """Each auction whose time is over by `now`: ours ends with the prices as they stand;
        an external module's that sent no results is lost and planned again. Once none is left
        to hold, the awards are made. True if anything changed."""
        changed = False
        for auction in self.open_auctions():
            ends = auction.expected_end(self)
            if ends > now:
                continue
            if builtin():
                prices, protocol = outcome_of(auction, self)
                auction.record_results(self, prices, ends)
                self.record_event(
                    self, "auction_ended", Actor.system(), ends, lot_id=auction.lot_id
                )
                self.publish_protocol(auction, protocol)
            else:
                auction.plan(self, now)
            changed = True
        self.start_awarding_if_auctions_over(now)
        return changed

    def start_awarding_if_auctions_over(self, now) -> None:
        """When no auction is left to hold, the award period starts when the last one ended
        (or now, when a lot's cancellation left none)."""
        if self.status != TenderStatus.AUCTION or self.open_auctions():
            return
        ended = [auction.ended for auction in self.auctions.all() if auction.ended is not None]
        self._auctions_over(max(ended, default=now))

    def _auctions_over(self, at) -> None:
        """The awards are decided from `at`: each line's best bid's is pending."""
        if self.status == TenderStatus.AUCTION:
            self.perform("auctions_over", Actor.system(), at)
        self.award_period_start = at
        self.award_next_bid(at=at, by=Actor.system())

    def _failures(self) -> list[tuple]:
        """(line, when it fails) for each line whose every bid was disqualified: it fails once
        its last complaint period has ended and its last claim is closed (none while a
        submitted claim on it awaits its end)."""
        if self.status not in TenderStatus.deciding():
            return []
        if not self.has_lots and self.status != TenderStatus.AWARDED:
            return []
        failures = []
        claims = self.claims()
        awards = None
        for line in self.awarding_lines():
            mine = [claim for claim in claims if claim.concerns_line(line)]
            if any(claim.holds_up_tender for claim in mine):
                continue
            awards = self._awards_by_line() if awards is None else awards  # (read once)
            decided = awards.get(line or "", [])
            if not decided or decided[-1].status != AwardStatus.UNSUCCESSFUL:
                continue
            ends = [award.complaint_period_end for award in decided if award.complaint_period_end]
            ends += [claim.date for claim in mine if claim.is_closed]
            failures.append((line, max(ends)))
        return failures

    def _awards_by_line(self) -> dict[str, list]:
        """The awards, in order, by the lot they decide ("" without lots)."""
        by_line: dict[str, list] = {}
        for award in self.awards.all():
            by_line.setdefault(award.lot_id, []).append(award)
        return by_line

    def _fail_line(self, line, at) -> None:
        if line is None:
            self.perform("fail", Actor.system(), at)
            return
        self.lot_machine(line).end("fail", Actor.system(), at)
        self.end_when_no_lot_is_active(at, Actor.system())

    def best_bid_for(self, line: str | None, *, leaving_out) -> tuple | None:
        """The best bid for `line` (a lot's id, or None: the tender without lots) among the
        bids taking part whose ids are not in `leaving_out`, with its offer; None if none is
        left."""
        offers = self._offers_by_line(self.active_bids()).get(line, [])
        return self._best_of(offers, Weighing.of(features_of(self.data, line)), leaving_out)

    def _offers_by_line(self, bids) -> dict:
        """Each line's offers, (bid, offer) pairs, in one pass over the bids' offers."""
        by_line = {}
        for bid in bids:
            if self.has_lots:
                for offer in bid.lot_values:
                    by_line.setdefault(offer["relatedLot"], []).append((bid, offer))
            elif (offer := bid.offer_for(None)) is not None:
                by_line.setdefault(None, []).append((bid, offer))
        return by_line

    @staticmethod
    def _best_of(offers: list, weighing: Weighing, leaving_out) -> tuple | None:
        competing = [(bid, offer) for bid, offer in offers if bid.pk not in leaving_out]
        if not competing:
            return None
        return min(competing, key=lambda pair: pair[0].rank_of(pair[1], weighing))

    def award_next_bid(self, *, at, by: Actor) -> None:
        """Give each line (the tender, or each active lot) whose last award was neither
        pending nor active a pending award for its best bid not yet disqualified; then the
        tender is in qualification while some award is pending, awarded otherwise. The award
        made last is kept as `awarded_next` (2.3 points the decision's answer at it)."""
        self.awarded_next = None
        pending = False
        awards = self._awards_by_line()
        number = sum(len(decided) for decided in awards.values())
        lines = self.awarding_lines()
        # (every line's offers and features read once: a tender may hold many lots and bids)
        offers = self._offers_by_line(self.active_bids())
        features = (
            features_by_lot(self.data, lines)
            if self.has_lots
            else {None: features_of(self.data, None)}
        )
        shared = {}  # (lines weighed by the same features share their weighing)
        weighing = {
            line: shared.setdefault(frozenset(f["code"] for f in weighed), Weighing.of(weighed))
            for line, weighed in features.items()
        }
        for line in lines:
            decided = awards.get(line or "", [])
            if decided and decided[-1].status in (AwardStatus.PENDING, AwardStatus.ACTIVE):
                pending = pending or decided[-1].status == AwardStatus.PENDING
                continue
            disqualified = {
                award.bid_id for award in decided if award.status == AwardStatus.UNSUCCESSFUL
            }
            best = self._best_of(offers.get(line, []), weighing[line], disqualified)
            if best is None:
                continue
            bid, offer = best
            number += 1
            award = self.awards.model(
                id=new_id(),
                tender=self,
                number=number,
                bid=bid,
                lot_id=line or "",
                value=offer["value"],
                suppliers=bid.tenderers,
                complaint_period_start=at,
            )
            award.perform("create", Actor.system(), at)
            self.awarded_next = award
            pending = True
        if pending:
            if self.status != TenderStatus.QUALIFICATION:
                self.perform("reopen_qualification", Actor.system(), at)
            self.award_period_end = None
        else:
            if self.status != TenderStatus.AWARDED:
                self.perform("awarded", Actor.system(), at)
            self.award_period_end = at
