"""The portal's words for the models' refusals, by their code (DomainError.code). The API
sends 2.3's English description; a page says the same in its reader's language, with statuses
in words and moments as people write them. A refusal whose code has no words here is said in
its description, translated where the catalog has it (the portal's own refusals are written
for people already)."""

import re
from datetime import datetime
from functools import cache

from django.utils.translation import gettext, gettext_noop
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
    "ends_too_soon": _(
        "The contract's term would end before it begins or before it is signed: let it end at "
        "%(earliest)s or later."
    ),
    "paid_above_price": _(
        "%(paid)s is more than the contract's price of %(price)s. If that much was paid, tick "
        "«More than the price was paid» and say why below."
    ),
    "paid_above_price_why": _("Say why more than the contract's price of %(price)s was paid."),
    "auction_builtin": _("Auctions here are held by the registry's own module."),
    "auction_stage": _("Not now: prices are offered only in a bidder's turn."),
    "auction_too_high": _(
        "Too high: you may offer at most %(highest)s UAH now (your price less the step, "
        "%(step)s UAH)."
    ),
    "auction_price_in_doubt": _(
        "%(amount)s UAH is far below your price of %(current)s UAH: an offer taken binds you "
        "and stays in the auction's record. If it is right, confirm it."
    ),
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
    "legal_questions_period": _(
        "The law gives at least 3 working days for questions from publication: let them end "
        "at %(earliest)s or later."
    ),
    "legal_bids_period": _(
        "The law gives at least 2 working days for bids after the questions end: let bids end "
        "at %(earliest)s or later."
    ),
    "legal_questions_past": _("The questions' end cannot be moved into the past."),
    "items_kept": _(
        "Items are not taken away once the tender is published (questions may name them): "
        "change them or add new ones."
    ),
    "amend_lot_cancelled": _("A tender with a cancelled lot cannot be amended in this form."),
    "lots_fixed": _(
        "Lots are neither added nor removed once the tender is published: cancel a lot instead."
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


# Django's own words its Ukrainian catalogue says wrongly ("Зробить коректний вибір",
# "Відправленний"): marked here so that the project's catalogue, read before Django's, says them.
DJANGO_WORDS = (
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    gettext_noop("The submitted file is empty."),
)


# The 2.3 descriptions people meet in the portal without a code of their own (refusals with one
# are said in WORDS), marked for the translators: the API sends them as they are; a page says
# them in its language (`said`). Those that name something (a number, a status, a date) are
# written with it as %(name)s, and found by their shape (tests/portal/test_translations.py
# checks that every message the models and schemas refuse with is here or in WORDS).
MESSAGES = (
    gettext_noop("Forbidden"),
    gettext_noop("Contract signature date can't be in the future"),
    gettext_noop("Only users of a procuring entity can publish tenders"),
    gettext_noop("value should be less than value of tender"),
    gettext_noop("value should be less than value of lot"),
    gettext_noop("enquiryPeriod should end in the future"),
    gettext_noop("period should begin after enquiryPeriod"),
    gettext_noop("period should begin before its end"),
    gettext_noop("period should end after it begins and is signed"),
    gettext_noop("Amount paid is above the contract's value"),
    gettext_noop("CPV group of items be identical"),
    gettext_noop("date value out of range"),
    gettext_noop("relatedItem should be one of lots"),
    gettext_noop("relatedItem should be one of items"),
    gettext_noop("Lots may not be added or removed once the tender is published"),
    gettext_noop("Items may not be removed once the tender is published"),
    gettext_noop("Can't amend a tender with a cancelled lot in one form"),
    gettext_noop("relatedLot should be one of lots"),
    gettext_noop("Should be a positive integer."),
    gettext_noop("Please provide a list."),
    gettext_noop("Please provide at least 1 item."),
    gettext_noop("Must be either true or false."),
    gettext_noop("Not a well formed email address."),
    gettext_noop("Not a well formed URL."),
    gettext_noop("Content already uploaded"),
    gettext_noop("Invalid checksum"),
    gettext_noop("Please use a mapping for this field or a list."),
    gettext_noop("Can add document only from document service."),
    gettext_noop("Document url expired."),
    gettext_noop("Document url signature invalid."),
    gettext_noop("Document url invalid."),
    gettext_noop("url should be posted for each lot"),
    gettext_noop("url should be posted for each lot of bid"),
    gettext_noop("Number of auction results did not match the number of tender bids"),
    gettext_noop("Auction bids should be identical to the tender bids"),
    gettext_noop("Number of lots did not match the number of tender lots"),
    gettext_noop("Auction lots should be identical to the tender lots"),
    gettext_noop("value should be posted for each lot of bid"),
    gettext_noop("bids don't allow duplicated proposals"),
    gettext_noop("Parameter code should be uniq for all parameters"),
    gettext_noop("All features parameters is required."),
    gettext_noop("Can't update contract status"),
    gettext_noop("Can't add or remove contract items"),
    gettext_noop("relatedItem should be one of changes"),
    gettext_noop("This field cannot be deleted"),
    gettext_noop("telephone or email should be present"),
    gettext_noop("Feature value should be uniq for feature"),
    gettext_noop("Hash value is wrong length."),
    gettext_noop("Hash value is not hexadecimal."),
    gettext_noop("currency should be identical to currency of value of tender"),
    gettext_noop(
        "valueAddedTaxIncluded should be identical to valueAddedTaxIncluded of value of tender"
    ),
    gettext_noop("Lot id should be uniq for all lots"),
    gettext_noop("lot guarantee currency should be identical to tender guarantee currency"),
    gettext_noop("Item id should be uniq for all items"),
    gettext_noop("value of bid should be less than value of tender"),
    gettext_noop("value of bid should be less than value of lot"),
)
PATTERNS = (
    gettext_noop("Please provide at least %(min_length)s item."),
    gettext_noop("Please provide no more than %(max_length)s items."),
    gettext_noop("Please use a mapping for this field or %(model)s instance instead of %(type)s."),
    gettext_noop("Couldn't interpret '%(input)s' as string."),
    gettext_noop("Number '%(input)s' failed to convert to a decimal."),
    gettext_noop("Float value should be greater than %(minimum)s."),
    gettext_noop("Float value should be less than %(maximum)s."),
    gettext_noop("Could not parse %(input)s. Should be ISO8601."),
    gettext_noop("Can't %(doing)s an organization in current (%(status)s) status"),
    gettext_noop("relatedItem should be one of %(kind)ss"),
    gettext_noop("Can't update %(name)s for contract value"),
    gettext_noop(
        "Contract signature date should be after award complaint period end date (%(end)s)"
    ),
    gettext_noop("One broker or organization has at most %(most)s %(name)s on a tender"),
    gettext_noop("Value must be one of %(choices)s."),
    gettext_noop("value of bid should be less than value of %(of)s"),
    gettext_noop("currency of bid should be identical to currency of value of %(of)s"),
    gettext_noop(
        "valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of value of "
        "%(of)s"
    ),
)


@cache
def _shapes() -> list[tuple[re.Pattern, str]]:
    """Each message that names something, as a pattern that finds its names."""
    shapes = []
    for template in PATTERNS:
        parts = re.split(r"%\((\w+)\)s", template)
        pattern = "".join(
            re.escape(part) if n % 2 == 0 else f"(?P<{part}>.+?)" for n, part in enumerate(parts)
        )
        shapes.append((re.compile(f"^{pattern}$", re.DOTALL), template))
    return shapes


def said(message: str) -> str:
    """A 2.3 message (a refusal's description, a field's error) in the page's language, where
    the catalog has it: as it is, or by its shape with what it names."""
    message = str(message)  # (a portal refusal's words may be lazy)
    translated = gettext(message)
    if translated != message:
        return translated
    for pattern, template in _shapes():
        found = pattern.match(message)
        if found:
            return gettext(template) % found.groupdict()
    return message


def in_words(error) -> str:
    """`error` (a DomainError) in the words of the page's language."""
    words = WORDS.get(error.code)
    if words is None:
        return said(error.description)
    return str(words) % {name: value_in_words(value) for name, value in error.params.items()}


def value_in_words(value) -> str:
    if isinstance(value, datetime):
        return moment(value)
    return "—" if value is None else str(value)
