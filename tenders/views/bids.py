"""Bidding from the tender page, as the signed-in user's organization."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from core.actors import Role, portal_actor
from core.errors import PermissionDenied
from core.forms import DocumentsForm, OnceForm
from core.reviews import Review, not_now
from core.words import moment
from docservice import client
from tenders.forms.bids import BidForm, BidPriceForm

from .page import about_tender, act_on_tender


@require_POST
@login_required
def bid_place(request, tender_id):
    """Bid as the signed-in user's organization, the bid's tenderer."""

    def change(tender, _owner, form):
        organization = request.user.organization
        if organization is None:
            raise PermissionDenied()  # the bidder is an organization
        tender.place_bid(by=portal_actor(request.user), data=form.as_bid(organization))
        return _("Your bid is placed. It stays sealed until bidding closes.")

    return act_on_tender(
        request, tender_id, BidForm, change, at="bid", form_kwargs=lambda t: {"tender": t}
    )


def bid_of(tender, bid_id: str):
    """One of the tender's bids that take part (from what is prefetched), or a 404 page."""
    bid = next((bid for bid in tender.active_bids() if bid.pk == bid_id), None)
    if bid is None:
        raise Http404
    bid.tender = tender
    return bid


@require_POST
@login_required
def bid_documents(request, tender_id, bid_id):
    """The bidder's papers for its bid (licences, specifications), sealed with it until bids
    are opened."""

    def change(tender, _owner, form):
        bid = bid_of(tender, bid_id)
        bidder = portal_actor(request.user, (Role.BID_OWNER, bid))
        client.attach_uploads(bid, bidder, form.cleaned_data["documents"])
        return _("The documents are added to your bid; they stay sealed with it.")

    return act_on_tender(
        request,
        tender_id,
        DocumentsForm,
        change,
        at=f"bid-documents:{bid_id}",
        find=lambda tender: bid_of(tender, bid_id),
    )


def own_bid_of(tender, bid_id: str, user):
    """One of the tender's bids that take part, if the user's organization placed it; else a
    404 page (a sealed bid is not even said to exist to anyone else)."""
    bid = bid_of(tender, bid_id)
    if not bid.is_owned_by_organization(user.organization):
        raise Http404
    return bid


@require_POST
@login_required
def bid_reprice(request, tender_id, bid_id):
    """New prices for the organization's bid while bids are taken (2.3's PATCH of the bid)."""

    def change(tender, _owner, form):
        bid = own_bid_of(tender, bid_id, request.user)
        bid.patch(by=portal_actor(request.user, (Role.BID_OWNER, bid)), data=form.as_patch())
        return _("Your bid's price is changed. It stays sealed until bidding closes.")

    return act_on_tender(
        request,
        tender_id,
        BidPriceForm,
        change,
        at=f"bid-price:{bid_id}",
        find=lambda tender: own_bid_of(tender, bid_id, request.user),
        form_kwargs=lambda tender: {"bid": own_bid_of(tender, bid_id, request.user)},
    )


@require_http_methods(["GET", "POST"])
@login_required
def bid_withdraw(request, tender_id, bid_id):
    """Read, the review of withdrawing the organization's bid; sent, the withdrawal (2.3's
    DELETE of the bid)."""

    def change(tender, _owner, _form):
        bid = own_bid_of(tender, bid_id, request.user)
        bid.withdraw(by=portal_actor(request.user, (Role.BID_OWNER, bid)))
        return _("Your bid is withdrawn. You may place a new one while bids are accepted.")

    def review(tender, _owner, form) -> Review:
        bid = own_bid_of(tender, bid_id, request.user)
        bidder = portal_actor(request.user, (Role.BID_OWNER, bid))
        end = {"end": moment(tender.tender_end)}
        return Review(
            title=_("Withdraw your bid?"),
            about=about_tender(tender),
            happens=[
                _("Your bid no longer takes part, with its documents; nobody will see it."),
                _("You may place a new bid until %(end)s.") % end,
            ],
            seen_by=_("Nobody: bids are sealed until %(end)s, and a withdrawn bid is never shown.")
            % end,
            form=form,
            url=reverse("bid-withdraw", args=[tender.pk, bid.pk]),
            confirm=_("Withdraw the bid"),
            back=reverse("tender", args=[tender.pk]) + "#my-bid-title",
            danger=True,
            refusal=not_now(form, lambda: bid.refused("withdraw", bidder, timezone.now())),
        )

    return act_on_tender(
        request,
        tender_id,
        OnceForm,
        change,
        at=f"bid-withdraw:{bid_id}",
        find=lambda tender: own_bid_of(tender, bid_id, request.user),
        review=review,
    )
