"""The tender's own documents: the owner's conditions, and the auction module's protocol."""

import logging
from datetime import timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from django.tasks import task
from django.utils import timezone

from core import jobs
from core.actors import Actor, Role
from core.transactions import atomic_change
from docservice import client
from tenders.documents import HasDocuments
from tenders.schema import MAX_DOCUMENTS

logger = logging.getLogger(__name__)


class TenderDocuments(HasDocuments):
    """Mixed into Tender."""

    @property
    def document_tender(self):
        return self

    def check_document_change(self, by: Actor, verb: str, document_id: str | None = None) -> str:
        """The owner's documents, added and replaced while the tender is a draft or in
        enquiries (once bids come in, the conditions they answer are fixed); the auction
        module's (its protocol) while the auction is held and the bids decided. Each replaces
        only its own."""
        author = Role.AUCTION if by.role is Role.AUCTION else Role.TENDER_OWNER
        prefix = "auction_" if author is Role.AUCTION else ""
        self.guard(f"{prefix}{verb}_document", by, timezone.now())
        if document_id:
            self.check_document_author(author, document_id)
        return author

    def _documents_changed(self, version, action: str, by: Actor, now) -> None:
        self.stamp_change(now)
        self.record_event(
            self, action, by, now, document_id=version.document_id, version=version.version
        )

    def publish_protocol(self, auction, made: list[tuple[str, bytes]]) -> None:
        """Our module's record of `auction`, just ended (`made`: its files' names and contents),
        to be public documents of the tender (of its lot), the auction's: each stored once the
        change ending it commits, by a job the worker tries until it is (store_protocol). So
        the document service, slow or down, holds up no auction's end, and a change rolled back
        leaves no file behind."""
        for name, content in made:
            jobs.after_the_change(store_protocol, self.pk, auction.lot_id, name, content.decode())

    def has_protocol(self, name: str) -> bool:
        return any(
            version.author == Role.AUCTION and version.title == name
            for version in self.all_document_versions()
        )

    def add_protocol(self, lot_id: str, stored) -> None:
        """The protocol stored (`stored`, from the document service) as the auction's document,
        once (a job begun twice adds it once: the second is discarded); a change of its own,
        the system's, whatever the tender's status has come to since."""
        with atomic_change():
            now = self.lock_for_change()
            if self.has_protocol(stored.title):
                stored.discard()
                return
            if self.documents.count() >= MAX_DOCUMENTS:
                logger.warning("no room for the auction's protocol on tender %s", self.pk)
                stored.discard()
                return
            lot = {"documentOf": "lot", "relatedItem": lot_id} if lot_id else {}
            fields = stored.fields()
            version = self.store_document_version(now, None, Role.AUCTION, lot, {
                name: fields[name] for name in ("key", "md5", "title", "format")
            })  # fmt: skip
            self._documents_changed(version, "add_document", Actor(Role.AUCTION), now)


# How long the worker waits before it tries again to store a protocol the document service did
# not take; then as long as the last, for as long as it takes (a protocol is never given up).
PROTOCOL_RETRY_AFTER = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
)


@task()
def store_protocol(tender_id: str, lot_id: str, name: str, content: str, attempt: int = 1):
    """The job TenderDocuments.publish_protocol queues: the protocol stored in the document
    service, then added to its tender."""
    from .tender import Tender

    tender = Tender.objects.filter(pk=tender_id).first()
    if tender is None or tender.has_protocol(name):
        return
    kind = "text/html" if name.endswith(".html") else "application/json"
    upload = SimpleUploadedFile(name, content.encode(), content_type=kind)
    try:
        stored = client.store_file(upload, Actor(Role.AUCTION))
    except Exception:
        logger.exception("the auction's protocol %s of tender %s was not stored", name, tender_id)
        after = PROTOCOL_RETRY_AFTER[min(attempt, len(PROTOCOL_RETRY_AFTER)) - 1]
        jobs.again_later(store_protocol, after, tender_id, lot_id, name, content, attempt + 1)
        return
    try:
        tender.add_protocol(lot_id, stored)
    except Exception:
        stored.discard()
        raise
