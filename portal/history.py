"""A tender's history in the open (`/tenders/<id>/history/`): each published change, newest
first, with when, who (the buyer, a claimant, the registry itself, the auction; through which
broker) and what, read from the tender's audit trail. What is told is what followers are
told (portal.models.follows.told_as): a bid, a draft claim or an answer not yet sent is never in
it; a draft tender's history is its organization's alone."""

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from complaints.models import Complaint
from core.actors import Role
from core.models import Broker
from core.replicas import may_read_a_replica
from portal.models.follows import told_as
from portal.watch import DOCUMENT_MODELS, described
from tenders.views import current_tender

# Changes shown on a page; older ones follow the page's link.
SHOWN = 50
# Events read at a time while a page is gathered (most of a tender's events are told).
READ = 500
# (the publication itself is the oldest page's last line)
PUBLISHING = ("register", "publish")


@require_GET
@may_read_a_replica
def tender_history(request, tender_id):
    tender = current_tender(tender_id, request.user)
    before = request.GET.get("before", "")
    told, older = told_before(
        tender, int(before) if before.isascii() and before.isdigit() else None
    )
    lines = described(tender, told)
    whose = who_did(tender, [event for event, _kind in told])
    versions = versions_told(tender, told)
    changes = [
        # (the mail's links are absolute; on the site, its own)
        {**line, "link": line["link"].removeprefix(settings.SITE_URL), "who": whose[event.pk],
         "version": versions.get(event.pk)}
        for line, (event, _kind) in zip(lines, told, strict=True)
    ]  # fmt: skip
    if older is None and tender.published:  # (the oldest page ends where it began)
        changes.append(
            {
                "at": tender.published,
                "text": _("The tender is published."),
                "link": reverse("tender", args=[tender.pk]),
                "who": tender.data.get("procuringEntity", {}).get("name", ""),
                "version": None,
            }
        )
    return render(
        request,
        "portal/tender_history.html",
        {"tender": tender, "changes": changes, "older": older},
    )


def told_before(tender, before: int | None) -> tuple[list, int | None]:
    """Up to SHOWN changes told of `tender`, newest first, older than the event `before`;
    and the id to read on from, when there are more."""
    events = tender.events.order_by("-pk").exclude(action__in=PUBLISHING)
    if tender.published:  # (its changes while a draft were its organization's alone)
        events = events.filter(at__gte=tender.published)
    if before is not None:
        events = events.filter(pk__lt=before)
    told = []
    for event in events.iterator(chunk_size=READ):
        kind = told_as(event)
        if not kind:
            continue
        if len(told) == SHOWN:
            return told, told[-1][0].pk
        told.append((event, kind))
    return told, None


# Where a version of each kind of part's document is downloaded (its route and the URL's part).
DOWNLOADS = {
    "tender": ("tender-document-download", None),
    "award": ("award-document-download", None),
    "cancellation": ("part-document-download", "cancellations"),
    "contract": ("part-document-download", "contracts"),
}


def versions_told(tender, told) -> dict:
    """Each document change's version as it was then: event id -> its number and the link
    that downloads that version (one query per kind of part)."""
    wanted = {}
    for event, kind in told:
        if kind == "document" and event.payload.get("version"):
            wanted.setdefault(event.subject_type, []).append(event)
    found = {}
    for subject, events in wanted.items():
        model, parent = DOCUMENT_MODELS[subject]
        keys = {
            (getattr(version, parent), version.document_id, version.version): version.key
            for version in model.objects.filter(
                **{f"{parent}__in": {event.subject_id for event in events}},
                document_id__in={event.payload["document_id"] for event in events},
            ).only(parent, "document_id", "version", "key")
        }
        route, part = DOWNLOADS[subject]
        for event in events:
            number = event.payload["version"]
            key = keys.get((event.subject_id, event.payload["document_id"], number))
            if key is None:
                continue
            ids = [event.payload["document_id"], key]
            if subject != "tender":
                ids = [*([part] if part else []), event.subject_id, *ids]
            found[event.pk] = {"number": number, "link": reverse(route, args=[tender.pk, *ids])}
    return found


def who_did(tender, events) -> dict:
    """Each event's doer as the public may know it, and the broker it came through."""
    brokers = set(
        Broker.objects.filter(name__in={event.actor_name for event in events}).values_list(
            "name", flat=True
        )
    )
    claims = {
        claim.pk: claim
        for claim in Complaint.objects.filter(
            pk__in={e.subject_id for e in events if e.subject_type == "complaint"}
        )
    }
    buyer = tender.data.get("procuringEntity", {}).get("name", "")
    whose = {}
    for event in events:
        role = event.actor_role
        if role in (Role.TENDER_OWNER, Role.CONTRACT_OWNER):
            name = buyer
        elif role == Role.COMPLAINT_OWNER and event.subject_id in claims:
            claim = claims[event.subject_id]
            if not claim.author_shown:  # (nor the broker it came through: 2.3 hides both)
                whose[event.pk] = _("the claimant")
                continue
            name = claim.author.get("name", "")
        elif role == Role.SYSTEM:
            name = _("the registry")
        elif role == Role.AUCTION:
            name = _("the auction")
        else:
            name = ""
        if event.actor_name in brokers:
            name = _("%(name)s, through %(broker)s") % {"name": name, "broker": event.actor_name}
        whose[event.pk] = name
    return whose
