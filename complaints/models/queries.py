"""Finding and filing claims."""

from typing import TYPE_CHECKING

from django.db import models, transaction

from complaints import notifications
from portal.core.actors import Actor
from tenders.models import Counter, new_id

from .table import S

if TYPE_CHECKING:
    from .complaint import Complaint


class ComplaintQuerySet(models.QuerySet):
    def answered(self):
        return self.filter(status=S.ANSWERED)

    def unanswered(self):
        return self.filter(status=S.CLAIM)

    def file(self, *, award, by: Actor, title: str, author: dict, description: str = "",
             submit: bool = False) -> tuple["Complaint", str]:  # fmt: skip
        """A bidder's claim against `award`: a draft, or submitted at once. Returns the claim
        and its access token."""
        with transaction.atomic():
            now = award.lock_for_change()
            tender = award.tender
            self.model.check_filing(award, by, now, submit=submit)
            number = Counter.next(f"complaints:{tender.pk}")
            complaint = self.model(
                id=new_id(),
                tender=tender,
                award=award,
                bid=by.subject,
                broker=by.broker,
                organization=by.organization,
                number=number,
                complaint_id=f"{tender.tender_id}.{number}",
                status=S.CLAIM if submit else S.DRAFT,
                title=title,
                description=description,
                author=author,
                date=now,
                date_submitted=now if submit else None,
            )
            token = complaint.issue_token()
            complaint.save(force_insert=True)
            tender._claim_filed(complaint)
            tender._record(complaint, "file", by, now, to_status=complaint.status)
            tender._touch(now)
            notifications.notify(complaint)
        return complaint, token
