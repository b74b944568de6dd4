"""Our module's auction, live in the portal: anyone watches it; the bidder whose turn it is
offers a lower price from it, signed in (a member of the bid's organization) or entering by its
bid's participationUrl. The rules are the models' (auctions.models, auctions.course)."""

from urllib.parse import urlencode

from django import forms
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from core.actors import Actor, Role, portal_actor
from core.errors import DomainError
from core.forms import add_domain_error, posted
from core.fragments import fragment_key, kept_fragment
from tenders.documents import latest_versions
from tenders.models import Auction, Bid
from tenders.models.auction import builtin, is_participation_token
from tenders.views.page import current_tender

from .course import course_of
from .models import AuctionBid, AuctionTally


class OfferForm(forms.Form):
    amount = forms.DecimalField(
        label=gettext_lazy("Your new price"), max_digits=20, decimal_places=2, required=False
    )
    take_back = forms.BooleanField(required=False)
    # Sent by the button that confirms an amount far below the bidder's price: that amount.
    confirmed = forms.DecimalField(max_digits=20, decimal_places=2, required=False)

    # The amount asked about (shown with its button to confirm it): set by _offer.
    in_doubt = None


@require_http_methods(["GET", "POST"])
def auction_page(request, tender_id, lot_id=""):
    if request.htmx and request.method == "GET" and not _may_bid(request, tender_id, lot_id):
        # A watcher's renewal, every second: one rendering per auction and second serves every
        # watcher (core/fragments.py), an offer shown from the next second on. (The bidders
        # read the page as it is: an offer costs no write to the shared cache.)
        moment = int(timezone.now().timestamp())
        key = fragment_key("auction", f"{tender_id}:{lot_id}:{moment}")
        state = kept_fragment(key, lambda: _page(request, tender_id, lot_id).content.decode(), 5)
        return HttpResponse(state)
    return _page(request, tender_id, lot_id)


def _may_bid(request, tender_id: str, lot_id: str) -> bool:
    """Might this reader bid here (signed in, or entering by a participation link that holds:
    a link made up is read as a watcher's, from the shared cache)?"""
    if request.user.is_authenticated:
        return True
    entry = request.GET.get("bidder", "")
    auction = _held(tender_id, lot_id) if entry else None
    return auction is not None and _entering(entry, auction)


def _page(request, tender_id, lot_id, refused=None):
    """The page (or, with htmx, its state); `refused`: a form whose offer was refused."""
    if request.method == "POST" and not request.htmx and refused is None:
        return _offer_and_return(request, tender_id, lot_id)
    tender = current_tender(tender_id, request.user)
    auction = next((a for a in tender.auctions.all() if a.lot_id == lot_id), None)
    if auction is None or auction.start is None or not builtin():
        raise Http404  # (an external module's auction is held on its own pages)
    if auction.bidders < 2:
        return _before_bidders(request, tender, auction, lot_id)
    course = _course(auction, tender)
    entry = request.GET.get("bidder", "")
    bidder = _bidder(request.user, course.bids, auction, entry)
    form = refused or OfferForm(posted(request)[0])
    status = 422 if refused else 200
    if request.method == "POST" and refused is None:
        if bidder is None:
            raise Http404
        if _offer(form, auction, bidder):  # (htmx: a form without it is _offer_and_return's)
            form = OfferForm()
        else:
            status = 422
        tender = current_tender(tender_id, request.user)
        auction = next(a for a in tender.auctions.all() if a.pk == auction.pk)
        course = _course(auction, tender)
    # (a link that lets nobody in is not kept: the page renews as a watcher's, from the cache)
    here = request.path + (f"?{urlencode({'bidder': entry})}" if entry and bidder else "")
    context = {
        "here": here,
        "tender": tender,
        "lot": tender.lot(lot_id) if lot_id else None,
        "auction": auction,
        "form": form,
        "entry": entry,
        "renewal": request.htmx and request.method == "GET",
        **_state(course, tender, auction, bidder, timezone.now()),
    }
    template = "auctions/auction.html#state" if request.htmx else "auctions/auction.html"
    return render(request, template, context, status=status)


def _before_bidders(request, tender, auction, lot_id):
    """The auction planned, its bidders not yet known (tendering goes on): when it starts."""
    if request.method != "GET":
        raise Http404
    context = {
        "here": request.path,
        "tender": tender,
        "lot": tender.lot(lot_id) if lot_id else None,
        "auction": auction,
        "planned": True,
        "bidders_unknown": True,
    }
    template = "auctions/auction.html#state" if request.htmx else "auctions/auction.html"
    return render(request, template, context)


def _offer_and_return(request, tender_id, lot_id):
    """An offer sent without JavaScript: made, then the page read again (a refusal is shown
    by the page, with the form). Reads neither the tender nor the auction (the offer reads
    what it needs with the auction's tally locked)."""
    auction = _held(tender_id, lot_id)
    if auction is None or not builtin():
        raise Http404
    entry = request.GET.get("bidder", "")
    if _entering(entry, auction):  # (its bid is named by the link: nothing more to read)
        bid_id = entry.partition(":")[0]
        bids = {bid_id: Bid(pk=bid_id, tender_id=tender_id)}
    else:
        bids = {bid.pk: bid for bid in Bid.objects.filter(pk__in=list(auction.sealed))}
    bidder = _bidder(request.user, bids, auction, entry)
    if bidder is None:
        raise Http404
    form = OfferForm(request.POST)
    if _offer(form, auction, bidder):
        return redirect(request.get_full_path())
    return _page(request, tender_id, lot_id, refused=form)


# The auctions held (among two or more bids), by their line: their ids and bidders, which never
# change once tendering closed, remembered by each process (an offer need not look them up).
_HELD_AUCTIONS: dict[tuple[str, str], Auction] = {}
MOST_HELD = 10_000


def _held(tender_id: str, lot_id: str) -> Auction | None:
    auction = _HELD_AUCTIONS.get((tender_id, lot_id))
    if auction is None:
        auction = (
            Auction.objects.filter(tender_id=tender_id, lot_id=lot_id)
            .only("id", "tender_id", "lot_id", "sealed")
            .first()
        )
        if auction is None or auction.bidders < 2:
            return None
        if len(_HELD_AUCTIONS) >= MOST_HELD:
            _HELD_AUCTIONS.clear()
        _HELD_AUCTIONS[tender_id, lot_id] = auction
    return auction


# The course of each auction a process shows, as it was after the offers taken so far (as the
# tally counts them: one light read): the bidders' renewals, every second, do not read every
# offer again. One per auction, the latest.
_COURSES: dict[str, tuple] = {}
MOST_COURSES = 1_000


def _course(auction, tender):
    taken = (
        AuctionTally.objects.filter(pk=auction.pk)
        .values_list("turn", "turn_offers", "last_offer")
        .first()
    )
    kept_taken, course = _COURSES.get(auction.pk, (None, None))
    if course is None or kept_taken != taken:
        course = course_of(auction, tender)
        if len(_COURSES) >= MOST_COURSES:
            _COURSES.clear()
        _COURSES[auction.pk] = (taken, course)
    return course


def _entering(entry: str, auction) -> bool:
    """Does `entry` (a participationUrl's bid id and token) let its bid into `auction`?"""
    bid_id, _sep, token = entry.partition(":")
    return bid_id in auction.sealed and is_participation_token(auction.pk, bid_id, token)


def _bidder(user, bids: dict, auction, entry: str) -> Actor | None:
    """Who bids from this page: the bidder entering by its participationUrl (`entry`: the
    bid's id and token), else a member of a bid's organization, else nobody."""
    bid_id = entry.partition(":")[0]
    if bid_id in bids and _entering(entry, auction):
        return Actor(Role.BID_OWNER, subject=bids[bid_id])
    actor = portal_actor(user, *((Role.BID_OWNER, bid) for bid in bids.values()))
    return actor if actor.role is Role.BID_OWNER else None


def _offer(form, auction, bidder: Actor) -> bool:
    if not form.is_valid():
        return False
    amount = None if form.cleaned_data["take_back"] else form.cleaned_data["amount"]
    if amount is None and not form.cleaned_data["take_back"]:
        form.add_error("amount", _("Bid amount is required"))
        return False
    try:
        AuctionBid.objects.offer(
            auction_id=auction.pk, by=bidder, amount=amount,
            confirmed=form.cleaned_data["confirmed"],
        )  # fmt: skip
    except DomainError as error:
        add_domain_error(form, error)
        if error.code == "auction_price_in_doubt":
            form.in_doubt = amount
        return False
    return True


def _state(course, tender, auction, bidder: Actor | None, now) -> dict:
    """What the page shows now: the stage, whose turn, the time left, every bidder's price
    (under neutral names until the bids are public), the rounds so far; before the start,
    nothing of the sealed prices (nor the order they make)."""
    over = auction.ended is not None or now >= course.ends
    planned = not over and now < auction.start
    named = tender.bids_are_public
    names = {
        bid_id: course.bids[bid_id].tenderer_name
        if named
        else _("Bidder %(number)s") % {"number": number}
        for bid_id, number in course.numbers.items()
    }
    mine = bidder.subject.pk if bidder is not None else None
    turn = None if over else course.turn_at(now)
    my_turn = turn is not None and turn.bid_id == mine
    next_round = None if over or planned or turn else course.next_round_at(now)
    if planned:
        standing, rounds = [], []
    else:
        standing = [
            {"name": names[result.bid_id], "result": result, "mine": result.bid_id == mine}
            for result in course.results()
        ]
        rounds = [
            [
                {"name": names[t.bid_id], "starts": t.starts, "now": t.holds(now),
                 "offered": _offered(course, t, now)}
                for t in turns
            ]
            for turns in course.rounds
        ]  # fmt: skip
    return {
        "over": over,
        "planned": planned,
        "turn": turn,
        "turn_name": names[turn.bid_id] if turn else "",
        "seconds_left": int((turn.ends - now).total_seconds()) if turn else None,
        "my_turn": my_turn,
        # The round that starts next, between rounds (and before the first), and in how long.
        "next_round": next_round[0] if next_round else None,
        "seconds_to_round": int((next_round[1] - now).total_seconds()) if next_round else None,
        "step": course.step,
        "highest": course.highest_offer(turn) if my_turn else None,
        "mine": names.get(mine, ""),
        "standing": standing,
        "rounds": rounds,
        "protocol": _protocol_documents(tender, auction) if over else [],
    }


def _protocol_documents(tender, auction) -> list:
    """The protocol's files once stored (a job stores them after the auction's end)."""
    return [
        version
        for version in latest_versions(tender.documents.all())
        if version.is_auction_protocol_of(auction.lot_id or "")
    ]


def _offered(course, turn, now):
    if turn.starts > now:
        return None
    counted = course.counted_in(turn)
    return None if counted is None or counted.amount is None else counted.amount
