"""A tender's time-driven changes: tendering opens and closes, qualification fails when every
bid is out, answered claims close. Applied whenever the tender is locked (a read that finds a
deadline passed, any write, the chronograph)."""

from django.db import transaction

from portal.core.actors import Actor

from .base import new_id
from .statuses import AwardStatus, TenderStatus


class TimeDrivenChanges:
    """Mixed into Tender."""

    def catch_up(self) -> bool:
        """Apply every time-driven change due by now; True if there was one (False too for a
        tender no longer there)."""
        try:
            with transaction.atomic():
                self._lock_and_catch_up()
        except type(self).DoesNotExist:
            return False
        return self._caught_up

    def _advance(self, now) -> bool:
        """Apply, in order, each change that became due by `now`, stamped with its due time."""
        changed = False
        for complaint in self.claims():
            if complaint.is_answered and complaint.closes_at <= now:
                complaint._expire(complaint.closes_at)
                changed = True
        if self.status == TenderStatus.ENQUIRIES and self.tender_start <= now:
            self._transit("start_tendering", Actor.system(), self.tender_start)
            changed = True
        if self.status == TenderStatus.TENDERING and self.tender_end <= now:
            self._close_tendering(at=self.tender_end)
            changed = True
        failed_at = self._qualification_failed_at()
        if failed_at is not None and failed_at <= now:
            self._transit("fail", Actor.system(), failed_at)
            changed = True
        return changed

    def _next_check(self):
        if self.status == TenderStatus.ENQUIRIES:
            return self.tender_start
        if self.status == TenderStatus.TENDERING:
            return self.tender_end
        due = [complaint.closes_at for complaint in self.claims() if complaint.is_answered]
        due.append(self._qualification_failed_at())
        return min((moment for moment in due if moment is not None), default=None)

    def _close_tendering(self, *, at) -> None:
        system = Actor.system()
        if not self.active_bids():
            self._transit("close_tendering", system, at, status=TenderStatus.UNSUCCESSFUL)
            return
        self._transit("close_tendering", system, at, status=TenderStatus.QUALIFICATION)
        self.award_period_start = at
        self._award_next_bid(at=at, by=system)

    def _qualification_failed_at(self):
        """When every bid has been disqualified, the tender fails once the last complaint
        period has ended and the last claim is closed; None while some bid is still in the
        running or a submitted claim awaits its end."""
        if self.status != TenderStatus.AWARDED:
            return None
        claims = self.claims()
        if any(complaint.holds_up_tender for complaint in claims):
            return None
        awards = list(self.awards.all())
        if not awards or awards[-1].status != AwardStatus.UNSUCCESSFUL:
            return None
        ends = [award.complaint_period_end for award in awards if award.complaint_period_end]
        ends += [complaint.date for complaint in claims if complaint.is_closed]
        return max(ends)

    def _award_next_bid(self, *, at, by: Actor) -> None:
        """Give a pending award to the lowest bid (earliest on ties) not yet disqualified, or,
        with none left, end the qualification. The award made is kept as `awarded_next` (2.3
        points the decision's answer at it)."""
        self.awarded_next = None
        disqualified = {
            award.bid_id for award in self.awards.all() if award.status == AwardStatus.UNSUCCESSFUL
        }
        candidates = sorted(
            (bid for bid in self.active_bids() if bid.pk not in disqualified),
            key=lambda bid: (bid.value["amount"], bid.number),
        )
        if not candidates:
            if self.status != TenderStatus.AWARDED:
                self._transit("awarded", Actor.system(), at)
            self.award_period_end = at
            return
        bid = candidates[0]
        award = self.awards.create(
            id=new_id(),
            number=self.awards.count() + 1,
            bid=bid,
            status=AwardStatus.PENDING,
            date=at,
            value=bid.value,
            suppliers=bid.tenderers,
            complaint_period_start=at,
        )
        self._record(award, "create", by, at, to_status=AwardStatus.PENDING)
        self.awarded_next = award
        if self.status != TenderStatus.QUALIFICATION:
            self._transit("reopen_qualification", Actor.system(), at)
        self.award_period_end = None
