"""Alerts of saved searches: the tenders newly published that a person's saved search finds,
told by e-mail at once or once a day (SavedSearch.Frequency). `manage.py alerts` looks for
them on every pass; several may run at once (each search is taken by one of them)."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.http import QueryDict
from django.urls import reverse

from core import notices
from portal.forms import SearchForm
from portal.models import SavedSearch
from tenders.models import Tender, TenderStatus

log = logging.getLogger(__name__)

# Tenders listed in one alert; the mail links the search for the rest.
LISTED = 20


def settled(now):
    """Tenders published up to this moment are all committed: a change stamped earlier may
    still commit within FEED_WATERMARK_SECONDS of its stamp (the feed's own bound)."""
    return now - timedelta(seconds=settings.FEED_WATERMARK_SECONDS)


def send_due(now) -> int:
    """Look for every alert due at `now`; returns how many mails were queued."""
    sent = 0
    for pk in SavedSearch.objects.due(now).values_list("pk", flat=True):
        with transaction.atomic():
            search = (
                SavedSearch.objects.due(now)
                .select_for_update(skip_locked=True, of=("self",))
                .select_related("user")
                .filter(pk=pk)
                .first()
            )
            if search is None:
                continue
            try:
                with transaction.atomic():
                    sent += look(search, now)
            except Exception:  # one search's failure is logged; the others are looked at
                log.exception("the alert of saved search %s failed", pk)
    return sent


def look(search: SavedSearch, now) -> bool:
    """Tell `search`'s person of the tenders it finds published since it last looked; True if
    a mail is queued. A search its form no longer takes (a region renamed) finds nothing."""
    until = settled(now)
    form = SearchForm(QueryDict(search.query))
    found = []
    if form.is_valid():
        # A tender is told as it is published, whatever the search says of the stages it
        # passes then (it takes questions first, bids later); one asking for a later stage
        # finds no tender as it is published.
        asked = {**form.cleaned_data, "open_for_bids": False, "sort": "newest"}
        if asked["status"] in (TenderStatus.ENQUIRIES, TenderStatus.TENDERING):
            asked["status"] = ""
        matching = Tender.objects.public().matching(**asked)
        new = matching.filter(published__gt=search.seen_until, published__lte=until)
        found = list(new.listed()[: LISTED + 1])
    if found:
        query = f"?{search.query}" if search.query else ""
        notices.send(
            "portal/email/saved_search.txt",
            {
                "search": search,
                "tenders": [
                    {"tender": tender, "link": notices.link("tender", tender.pk)}
                    for tender in found[:LISTED]
                ],
                "more": len(found) > LISTED,
                "search_link": settings.SITE_URL + reverse("home") + query,
                "manage_link": notices.link("searches"),
            },
            [search.user.email],
        )
    search.looked(now, until=until, sent=bool(found))
    return bool(found)
