"""E-mail about a tender's decisions: every bidder (an organization of the portal) learns of a
decision on an award in its competition, with the claim window's end and where to file a
claim. Queued by the kernel's mailer with the change that decides it."""

from core import notices

from .models.statuses import BidStatus


def _competitors(award):
    """The bids of `award`'s competition (its lot's, on a tender with lots) whose bidder is an
    organization of the portal."""
    bids = award.tender.bids.filter(status=BidStatus.ACTIVE, organization__isnull=False)
    for bid in bids.select_related("organization"):
        if not award.lot_id or bid.offer_for(award.lot_id) is not None:
            yield bid


def award_decided(award) -> None:
    """Tell the bidders of `award`'s tender (of its lot, on a tender with lots) that it was
    decided: the winner chosen, or the bid disqualified."""
    tender = award.tender
    for bid in _competitors(award):
        notices.send(
            "tenders/email/award_decided.txt",
            {
                "award": award,
                "tender": tender,
                "supplier": award.supplier_name,
                "yours": bid.pk == award.bid_id,
                "link": notices.link("tender", tender.pk) + f"#award-{award.pk}",
                "claim_link": notices.link("claim-new", tender.pk, award.pk),
            },
            bid.organization.emails(),
        )


def award_taken_back(award, considered) -> None:
    """Tell the bidders of `award`'s competition that the decision on it was taken back: the
    former winner or the disqualified bidder, the bidder now considered (`considered`: the
    award drawn up next, or None), everyone whose claim window closed with it and opens again
    with the next decision."""
    tender = award.tender
    for bid in _competitors(award):
        notices.send(
            "tenders/email/award_taken_back.txt",
            {
                "award": award,
                "tender": tender,
                "supplier": award.supplier_name,
                "yours": bid.pk == award.bid_id,
                "considered": considered.supplier_name if considered else "",
                "yours_next": considered is not None and bid.pk == considered.bid_id,
                "link": notices.link("tender", tender.pk) + f"#award-{award.pk}",
            },
            bid.organization.emails(),
        )
