"""The tender's 2.3 representation kept with it, so that a read by id is one row.

The public's rendering is kept in `Tender.public_text` by the first read after a change, and
every change empties it (`Tender.stamp_change`, which every change of a tender or of its parts
calls, in the change's transaction). A read whose reader sees what the public sees gets the kept
text as it is; a reader shown more than the public (a claimant reading its draft claim, the
buyer reading an answer not yet sent) is rendered as before. Rendering on the first read rather than
inside each write keeps writes to the rows they change: a write would otherwise load the whole
tender to render it.

A change to what the representation shows (its code, not a tender) makes every kept text wrong:
it comes with a migration that empties them (tenders 0011 is one).

The kept text names the document service by a placeholder, replaced by the reader's base
(DOCSERVICE_URL, or /ds of the host asked): JSON text never holds a raw control character, so
the placeholder cannot be confused with content.
"""

import json

from django.utils import timezone

from core.actors import Viewer
from core.api.auth import api_context, viewer_for
from core.api.envelope import JSONRenderer, Rendered
from core.errors import NotFound
from docservice import links
from tenders.models import Tender

from .serializers import TenderOut

PLACEHOLDER = "\x01"


def reads_as_the_public(viewer: Viewer) -> bool:
    return viewer.broker is None and viewer.organization is None and not viewer.token


def represent_and_keep(request, tender) -> dict:
    """TenderOut for this request; the public's rendering is kept for the readers after it
    (unless the tender changed meanwhile)."""
    context = api_context(request)
    data = TenderOut(tender, context=context).data
    hides = tender.differs_by_reader()
    public = data
    if hides and not reads_as_the_public(context["viewer"]):
        public = TenderOut(tender, context={**context, "viewer": Viewer()}).data
    text = JSONRenderer().render(public).decode()
    text = text.replace(f"{links.base_url(request)}/get/", f"{PLACEHOLDER}/get/")
    unchanged = {"date_modified": tender.date_modified, "next_check": tender.next_check}
    Tender.objects.filter(pk=tender.pk, **unchanged).update(public_text=text, others_see_more=hides)
    return data


def read(request, tender_id) -> dict | Rendered:
    """GET /tenders/{id}: the kept text when it is current and this reader sees what the public
    sees; else the tender rendered for this reader (and kept, when no current text is)."""
    viewer = viewer_for(request)
    row = Tender.objects.kept_representation(tender_id)
    if row is None or not row.shown_to(viewer):
        raise NotFound("tender_id")
    current = bool(row.public_text) and not row.is_due(timezone.now())
    if current and (not row.others_see_more or reads_as_the_public(viewer)):
        return Rendered(row.public_text.replace(PLACEHOLDER, links.base_url(request)))
    tender = Tender.objects.current(tender_id, viewer=viewer)
    if current:
        # Kept already: this reader is shown more than the public (its draft, its answer).
        return TenderOut(tender, context=api_context(request)).data
    return represent_and_keep(request, tender)


def read_as_the_public(request, tender_id) -> dict:
    """The tender as the public reads it (its kept text when current), whoever asks: what open
    data publishes."""
    row = Tender.objects.kept_representation(tender_id)
    if row is None or not row.shown_to(Viewer()):
        raise NotFound("tender_id")
    if row.public_text and not row.is_due(timezone.now()):
        return json.loads(row.public_text.replace(PLACEHOLDER, links.base_url(request)))
    tender = Tender.objects.current(tender_id, viewer=Viewer())
    public = TenderOut(tender, context={"request": request, "viewer": Viewer()}).data
    return json.loads(JSONRenderer().render(public))
