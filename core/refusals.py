"""The portal's words for the models' refusals, by their code (DomainError.code). The API
sends 2.3's English description; a page says the same in its reader's language, with statuses
in words and moments as people write them. A refusal whose code has no words here is said in
its description, translated where the catalog has it (the portal's own refusals are written
for people already)."""

from datetime import datetime

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .words import moment

WORDS = {
    "permission": _("You may not do this: it is not yours to do."),
    "role": _("You may not do this here."),
    "tender_status": _("Not at this stage of the tender: «%(status)s»."),
    "own_status": _("Not in its present state: «%(status)s»."),
    "no_claim_to_remedy": _(
        "A disqualification is taken back only to remedy a claim against it, and none stands."
    ),
    "award_status": _("Not while the decision is «%(status)s»."),
    "lot_not_active": _("Not any more: the lot is no longer open."),
    "value_above_award": _("The price can't be above the awarded price of %(amount)s."),
    "change_none_pending": _("No change is waiting for its signature."),
    "change_pending": _("A change is pending already: sign it or edit it first."),
    "change_needed": _(
        "The contract's value, term and items change only with a change that states why: "
        "record the change first."
    ),
    "change_date_signed": _(
        "The change is signed on a date: not before the contract's last signature."
    ),
    "change_signed": _("A signed change takes no more documents."),
    "amount_paid_needed": _("State the amount paid before the contract is terminated."),
    "auction_builtin": _("Auctions here are held by the registry's own module."),
    "auction_stage": _("Not now: prices are offered only in a bidder's turn."),
    "auction_turn": _("Not your turn: wait for it."),
    "auction_offers": _(
        "No more offers in this turn: you have made as many as a turn takes; the last counts."
    ),
    "stand_still": _(
        "Not yet: the contract may be signed from %(end)s, when the time for claims is over."
    ),
    "claims_answered": _(
        "Not yet: a claim has been answered and waits for its claimant to accept or reject "
        "the answer."
    ),
    "tendering_period": _("Bids are taken only from %(start)s to %(end)s."),
    "own_tender": _("A procuring entity does not bid on its own tender."),
    "one_bid": _("Your organization has a bid on this tender already: change that one."),
    "questions_period": _("Questions are taken only from %(start)s to %(end)s."),
    "award_pending": _("Not yet: a claim is filed against a decision once it is taken."),
    "claims_period": _("Claims against this decision are taken only from %(start)s to %(end)s."),
    "claims_time_over": _("Not any more: the time for claims is over."),
    "claim_closed": _("The claim can't be changed now."),
    "resolution_too_short": _("The answer is too short: write at least %(count)s characters."),
    "bid_not_considered": _("Papers are added to a bid only while it is being considered."),
    "draft_lot_cancelled": _(
        "A draft with a cancelled lot is not edited: cancel it and write the tender anew."
    ),
    "procuring_entity_kind": _(
        "A procuring entity of this kind does not publish tenders of this procedure."
    ),
}


def in_words(error) -> str:
    """`error` (a DomainError) in the words of the page's language."""
    words = WORDS.get(error.code)
    if words is None:
        return gettext(error.description)
    return str(words) % {name: value_in_words(value) for name, value in error.params.items()}


def value_in_words(value) -> str:
    if isinstance(value, datetime):
        return moment(value)
    return "—" if value is None else str(value)
