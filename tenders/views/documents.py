"""The tender's documents and those of its parts, downloaded by whoever may see them: a redirect
to a freshly signed address of the document service; and finding a document or an award named
in a URL (or a 404 page)."""

from django.http import Http404, HttpResponseRedirect
from django.views.decorators.http import require_GET

from core.actors import Role, portal_actor
from core.errors import DomainError, NotFound
from docservice import links

from .page import current_tender


def document_of(tender, document_id: str):
    """The latest version of one of the tender's documents, or a 404 page."""
    try:
        return tender.latest_document(document_id)
    except NotFound:
        raise Http404 from None


def award_of(tender, award_id: str):
    """One of the tender's awards (from what is prefetched), or a 404 page."""
    award = next((a for a in tender.awards.all() if a.pk == award_id), None)
    if award is None:
        raise Http404
    award.tender = tender
    return award


@require_GET
def tender_document_download(request, tender_id, document_id, key):
    """One version of a tender's document, for whoever may see the tender: a redirect to a
    freshly signed address of the document service."""
    return download_version(request, current_tender(tender_id, request.user), document_id, key)


@require_GET
def part_document_download(request, tender_id, part, part_id, document_id, key):
    """One version of a document of a bid, a contract or a cancellation, for whoever may see
    that part (a bid's: its bidder, and everyone once bids are opened)."""
    tender = current_tender(tender_id, request.user)
    # (`part` is one of the three, by the URL's pattern)
    found = next((each for each in getattr(tender, part).all() if each.pk == part_id), None)
    if found is None:
        raise Http404
    found.tender = tender
    if part == "bids":
        try:
            found.check_visible(portal_actor(request.user, (Role.BID_OWNER, found)))
        except DomainError:
            raise Http404 from None
    return download_version(request, found, document_id, key)


@require_GET
def award_document_download(request, tender_id, award_id, document_id, key):
    """One version of an award's document (the decision's protocol), for whoever may see the
    tender."""
    award = award_of(current_tender(tender_id, request.user), award_id)
    return download_version(request, award, document_id, key)


def download_version(request, container, document_id: str, key: str):
    try:
        versions = container.document_versions(document_id)
    except NotFound:
        raise Http404 from None
    if key not in {version.key for version in versions}:
        raise Http404
    return HttpResponseRedirect(links.registry_download_url(request, key))
