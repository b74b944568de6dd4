"""Bidding from the tender page, as the signed-in user's organization."""

from django.contrib.auth.decorators import login_required
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from portal.core.actors import portal_actor
from portal.core.errors import PermissionDenied
from tenders.forms import (
    BidForm,
)

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
