"""The tender page's bids: the bids opened (with the prices they were sealed at), the visitor's
organization's own with what it may do with them, and the form for a new one."""

from decimal import Decimal

from core.actors import Role, portal_actor
from core.errors import worth_offering
from core.forms import DocumentsForm, with_ids
from tenders.documents import latest_versions
from tenders.forms.bids import BidForm, BidPriceForm


def public_bid_entries(tender, lots: dict) -> list[dict]:
    """The bids opened, each offer with its sealed price where an auction changed it, dated
    when it was sealed (the auction dates the prices it sets, as 2.3 does); the lowest price
    first where the price alone ranks them, else in the order they came."""
    sealed = {
        (auction.lot_id, bid_id): price
        for auction in tender.auctions.all()
        for bid_id, price in auction.sealed_prices().items()
    }
    entries = []
    for bid in tender.active_bids():
        entry = _bid_entry(bid, lots)
        dates = []
        for offer in entry["offers"]:
            if (offer["lot_id"], bid.pk) not in sealed:
                continue
            amount, at = sealed[offer["lot_id"], bid.pk]
            dates.append(at)
            if amount != Decimal(str(offer["value"]["amount"])):
                offer["initial"] = amount
        entry["submitted"] = min(dates) if dates else bid.date
        entries.append(entry)
    if tender.ranks_by_price:
        entries.sort(key=lambda entry: Decimal(str(entry["offers"][0]["value"]["amount"])))
    return entries


def _bid_entry(bid, lots: dict) -> dict:
    """A bid with what it offers (its price, or a price for each lot, by the lot's title) and
    its documents (shown only where the bid is: to its bidder, or once bids are opened)."""
    offers = [
        {
            "lot": lots.get(offer["relatedLot"], {}).get("title", ""),
            "lot_id": offer["relatedLot"],
            "value": offer["value"],
        }
        for offer in bid.lot_values
    ]
    return {
        "bid": bid,
        "offers": offers or [{"lot": "", "lot_id": "", "value": bid.value}],
        "documents": latest_versions(bid.documents.all()),
    }


def my_bid_entries(user, tender, owner, now, refused, lots: dict) -> list[dict]:
    """The visitor's organization's bids, each with what its bidder may do with it now: add
    papers, change the price (a refused change stays in its form), withdraw it."""
    entries = []
    for bid in tender.active_bids():
        if not bid.is_owned_by_organization(owner.organization):
            continue
        bidder = portal_actor(user, (Role.BID_OWNER, bid))
        repriced = refused.get(f"bid-price:{bid.pk}")
        changeable = repriced is not None or bid.can("edit", bidder, now)
        entries.append(
            {
                **_bid_entry(bid, lots),
                "documents_form": with_ids(
                    refused.get(f"bid-documents:{bid.pk}") or DocumentsForm(), f"bid-{bid.pk}"
                ),
                "takes_documents": worth_offering(bid.check_document_change, bidder, "add"),
                "price_form": with_ids(repriced or BidPriceForm(bid=bid), f"price-{bid.pk}")
                if changeable
                else None,
                "withdrawable": bid.can("withdraw", bidder, now),
            }
        )
    return entries


def new_bid_form(user, tender, owner, now, refused):
    """A form that was refused stays in place with its errors; else one while the model would
    take a bid from the user's organization."""
    if "bid" in refused:
        return refused["bid"]
    organization = owner.organization
    if organization is None:
        return None
    tenderer = {"identifier": organization.identifier_data}
    return (
        _filled_bid_form(user, tender)
        if worth_offering(tender.check_new_bid, tenderer, now)
        else None
    )


def _filled_bid_form(user, tender) -> BidForm:
    return BidForm(
        initial={"contact_name": user.get_full_name() or user.username, "email": user.email},
        tender=tender,
    )
