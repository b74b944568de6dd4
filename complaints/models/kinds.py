"""The two kinds of claim: against an award decision, and against the tender's conditions
(2.3's award complaints and tender complaints of type claim). One status machine serves both
(table.py); what differs is written here, as data of the kind."""

from dataclasses import dataclass

from tenders.models import TenderStatus

from .table import S

T = TenderStatus


@dataclass(frozen=True)
class ClaimKind:
    name: str
    # The tender statuses in which a claim is filed, and its draft edited and submitted (for
    # claims against an award, also only inside the award's complaint period).
    filed_in: frozenset
    # The tender statuses in which a claim changes at all: answered, closed, withdrawn, its
    # documents.
    changed_in: frozenset
    # The claim statuses that keep the claim's line (its lot, or the tender) from failing.
    # Either kind in "answered" also holds the line's contract (tenders.models.contract).
    holds_up: frozenset
    # The tender statuses in which who filed it is not shown (2.3 shows it from qualification).
    author_hidden_in: frozenset
    # The refusal of an answer shorter than MIN_RESOLUTION_LENGTH (2.3's words differ).
    short_answer: str
    # The refusal of a draft edited or submitted outside the time it may be.
    late_draft: str
    # Does it change only while its lot is active (2.3 checks the lot of a claim against an
    # award; one against the conditions is filed only on an active lot, then follows the
    # tender alone: a claim answered before its lot was cancelled may still be closed)?
    follows_its_lot: bool


AGAINST_AWARD = ClaimKind(
    name="award",
    filed_in=T.deciding(),
    changed_in=T.deciding(),
    holds_up=frozenset({S.CLAIM, S.ANSWERED}),
    author_hidden_in=frozenset(),
    short_answer="Can't update complaint",
    late_draft="Can update complaint only in complaintPeriod",
    follows_its_lot=True,
)

# 2.3: filed by anyone known while questions and bids are taken; answered, closed and
# withdrawn until the tender ends; a claim still unanswered then is ignored. Tendering ends on
# time whatever claims are open; an answered claim nobody has closed holds its lot (without a
# lot: every lot) from failing and its contracts from being signed, as 2.3's
# block_complaint_status.
AGAINST_TENDER = ClaimKind(
    name="tender",
    filed_in=frozenset({T.ENQUIRIES, T.TENDERING}),
    changed_in=frozenset({T.ENQUIRIES, T.TENDERING, *T.deciding()}),
    holds_up=frozenset({S.ANSWERED}),
    author_hidden_in=T.bidders_unnamed(),
    short_answer="Can't update complaint: resolution too short",
    late_draft="Can't update complaint",
    follows_its_lot=False,
)
