"""The work queue: what an organization must do next, each thing with its deadline and what
happens when it passes, soonest first. What counts as waiting is the models' (their query
methods); this module only gathers and words it."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Func, Subquery
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from complaints.models import Complaint
from contracting.models import SignedContract
from tenders.models import Auction, Award, Bid, Contract, Question, Tender
from tenders.models.auction import page_path

# How many of each kind the dashboard lists (the header counts them all).
SHOWN = 50


@dataclass(frozen=True)
class Task:
    kind: str  # award, contract, contract-change, contract-end, claim, question, draft...
    what: str
    subject: str  # what it is about: a tender's or a claim's title
    reference: str  # the tender ID or the claim's ID
    url: str
    # Its date (None: none is set), and what the date is: "by" a deadline, "from" when it may
    # be done (a contract's signing), "at" when it starts (an auction), "ended" when its term
    # ended (a contract to terminate). The queue is in the order of the dates.
    due: datetime | None
    then: str
    due_is: str = "by"


def _tender_url(tender_pk: str, anchor: str = "") -> str:
    return reverse("tender", args=[tender_pk]) + (f"#{anchor}" if anchor else "")


def buyer_tasks(organization, now) -> list[Task]:
    """What the buyer decides, signs, answers and publishes."""
    tasks = []
    for award in Award.objects.to_decide_by(organization)[:SHOWN]:
        tasks.append(
            Task(
                "award",
                _("Decide on the bid of %(supplier)s") % {"supplier": award.supplier_name},
                award.tender.title,
                award.tender.tender_id,
                _tender_url(award.tender_id, f"award-{award.pk}"),
                award.decision_due,
                _(
                    "the law gives 5 working days to consider the bid (up to 20, with a reason "
                    "you publish); the bidders wait for your decision"
                ),
            )
        )
    for claim in Complaint.objects.granted_against_decisions_of(organization)[:SHOWN]:
        award = claim.award
        tasks.append(
            Task(
                "award-remedy",
                _("Take back the decision on %(supplier)s: you granted the claim %(claim)s")
                % {"supplier": award.supplier_name, "claim": claim.complaint_id},
                award.tender.title,
                award.tender.tender_id,
                reverse("award-decision", args=[award.tender_id, award.pk]) + "?action=cancel",
                None,
                _("No deadline is set: until then the contract with the winner may still be "
                  "signed, against what you answered."),
            )
        )  # fmt: skip
    for contract in Contract.objects.to_sign_by(organization)[:SHOWN]:
        opens = contract.award.complaint_period_end
        tasks.append(
            Task(
                "contract",
                _("Sign the contract with %(supplier)s")
                % {"supplier": contract.award.supplier_name},
                contract.tender.title,
                contract.tender.tender_id,
                _tender_url(contract.tender_id, f"award-{contract.award_id}"),
                opens,
                _("may be signed from then, once every claim against the decision is settled")
                if opens and opens > now
                else _("may be signed now, unless a claim against the decision is unsettled"),
                "from",
            )
        )
    for contract in SignedContract.objects.with_change_pending_of(organization)[:SHOWN]:
        tasks.append(
            Task(
                "contract-change",
                _("Sign or edit the pending change of contract %(id)s")
                % {"id": contract.contract_id},
                contract.tender.title,
                contract.contract_id,
                reverse("contract", args=[contract.pk]),
                None,
                _("No deadline is set: the change is not in force until it is signed."),
            )
        )
    for contract in SignedContract.objects.to_terminate_by(organization, now)[:SHOWN]:
        tasks.append(
            Task(
                "contract-end",
                _("Terminate contract %(id)s, stating what was paid")
                % {"id": contract.contract_id},
                contract.tender.title,
                contract.contract_id,
                reverse("contract", args=[contract.pk]),
                contract.ends,
                _("its term ended then: the public waits to read what was paid"),
                "ended",
            )
        )
    for claim in Complaint.objects.to_answer_by(organization)[:SHOWN]:
        if claim.award is None:
            due = claim.tender.tender_end
            then = _(
                "a claim about the conditions: bids close then, and a claim still unanswered "
                "when the tender ends is left ignored"
            )
        else:
            due = claim.award.complaint_period_end
            then = _("then the contract may be signed and the claim is left ignored")
        tasks.append(
            Task(
                "claim",
                pgettext_lazy("to do", "Answer the claim"),
                claim.title,
                claim.complaint_id,
                reverse("claim", args=[claim.pk]),
                due,
                then,
            )
        )
    for question in Question.objects.to_answer_by(organization)[:SHOWN]:
        tasks.append(
            Task(
                "question",
                _("Answer the question"),
                question.title,
                question.tender.tender_id,
                _tender_url(question.tender_id, f"question-{question.pk}"),
                question.tender.tender_start,
                _("then bids are accepted and questions can no longer be answered"),
            )
        )
    for tender in Tender.objects.drafts_of(organization, now).defer("data")[:SHOWN]:
        tasks.append(
            Task(
                "draft",
                _("Publish the draft"),
                tender.title,
                tender.tender_id,
                _tender_url(tender.pk),
                tender.enquiry_end,
                _("then its questions' period is over and it can no longer be published"),
            )
        )
    return tasks


def bidder_tasks(organization, now) -> list[Task]:
    """The auctions the bidder takes part in, the decisions it may still claim against, and
    the answers it is to rate."""
    tasks = []
    for auction in Auction.objects.held_for(organization, most=SHOWN):
        tasks.append(
            Task(
                "auction",
                _("Your auction: offer lower prices in your turns"),
                auction.tender.title,
                auction.tender.tender_id,
                page_path(auction),
                auction.start,
                _("it starts then: three rounds, in which each bidder has its turn"),
                "at",
            )
        )
    for award in Award.objects.open_to_claims_of(organization, now)[:SHOWN]:
        decided = (
            _("%(supplier)s chosen as the winner") if award.won else _("%(supplier)s disqualified")
        ) % {"supplier": award.supplier_name}
        tasks.append(
            Task(
                "claim-window",
                _("A decision you may file a claim against: %(decision)s") % {"decision": decided},
                award.tender.title,
                award.tender.tender_id,
                _tender_url(award.tender_id, f"award-{award.pk}"),
                award.complaint_period_end,
                _("then no claim can be filed and the contract may be signed"),
            )
        )
    for claim in Complaint.objects.to_rate_by(organization)[:SHOWN]:
        tasks.append(
            Task(
                "answer",
                _("Accept or reject the answer to your claim"),
                claim.title,
                claim.complaint_id,
                reverse("claim", args=[claim.pk]),
                claim.closes_at,
                _("then the claim closes with the answer as given"),
            )
        )
    return tasks


# On the same date, what has a deadline comes before what may be done from then.
KINDS = (
    "auction", "claim", "answer", "question", "claim-window", "award", "award-remedy", "draft",
    "contract", "contract-end", "contract-change",
)  # fmt: skip


def tasks_of(organization, now) -> list[Task]:
    """Everything waiting for `organization`, soonest deadline first (none set: last)."""
    tasks = buyer_tasks(organization, now) + bidder_tasks(organization, now)
    return sorted(
        tasks, key=lambda task: (task.due is None, task.due or now, KINDS.index(task.kind))
    )


def _count(queryset) -> Subquery:
    # COUNT(*) as a scalar subquery (not an aggregate of the outer query).
    return Subquery(queryset.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n"))


def count_of(organization, now) -> int:
    """How many things wait for `organization`: the header's count, in one query."""
    parts = {
        "awards": Award.objects.to_decide_by(organization),
        "remedies": Complaint.objects.granted_against_decisions_of(organization),
        "contracts": Contract.objects.to_sign_by(organization),
        "changes": SignedContract.objects.with_change_pending_of(organization),
        "ended": SignedContract.objects.to_terminate_by(organization, now),
        "claims": Complaint.objects.to_answer_by(organization),
        "questions": Question.objects.to_answer_by(organization),
        "drafts": Tender.objects.drafts_of(organization, now),
        "windows": Award.objects.open_to_claims_of(organization, now),
        "answers": Complaint.objects.to_rate_by(organization),
        "auctions": Auction.objects.awaited_by(organization),
    }
    row = (
        type(organization)
        .objects.filter(pk=organization.pk)
        .values(**{name: _count(queryset.select_related(None)) for name, queryset in parts.items()})
        .first()
    )
    return sum(row.values()) if row else 0


# What each standing of a bid (Bid.standing) means to its bidder, and its badge's tone.
STANDINGS = {
    "draft": (_("a draft: it does not take part"), "closed"),
    "sealed": (_("sealed: you may change or withdraw it until bids close"), "waiting"),
    "opening": (_("bidding closed: the bids are being opened"), "waiting"),
    "in auction": (_("in the auction: you may lower your price in your turns"), "waiting"),
    "waiting": (_("another bid is considered first"), "waiting"),
    "considered": (_("being considered by the procuring entity"), "waiting"),
    "won": (_("chosen as the winner"), "settled"),
    "contracted": (_("the contract is signed"), "settled"),
    "disqualified": (_("disqualified"), "disputed"),
    "withdrawn decision": (_("the decision on it was taken back"), "waiting"),
    "not chosen": (_("not chosen"), "closed"),
    "failed": (_("the tender failed"), "closed"),
    "cancelled": (_("the tender is cancelled"), "closed"),
}


@dataclass(frozen=True)
class BidEntry:
    bid: object
    standing: str
    tone: str


def bids_of(organization, now) -> list[BidEntry]:
    """`organization`'s bids, newest first, each with where it stands."""
    entries = []
    for bid in Bid.objects.placed_by(organization)[:SHOWN]:
        label, tone = STANDINGS[bid.standing(now)]
        entries.append(BidEntry(bid, label, tone))
    return entries
