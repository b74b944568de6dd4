"""Bidding from the tender page, as the signed-in user's organization."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from docservice import client
from portal.core.actors import Role, portal_actor
from portal.core.errors import PermissionDenied
from portal.core.forms import DocumentsForm
from tenders.forms import BidForm

from .page import _act


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

    return _act(request, tender_id, BidForm, change, at="bid", form_kwargs=lambda t: {"tender": t})


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

    return _act(
        request,
        tender_id,
        DocumentsForm,
        change,
        at=f"bid-documents:{bid_id}",
        find=lambda tender: bid_of(tender, bid_id),
    )
