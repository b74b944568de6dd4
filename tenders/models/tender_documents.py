"""The tender's own documents: the owner's conditions, and the auction module's protocol."""

import logging

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from core.actors import Actor, Role
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
            self._check_author(author, document_id)
        return author

    def _documents_changed(self, version, action: str, by: Actor, now) -> None:
        self.stamp_change(now)
        self.record_event(
            self, action, by, now, document_id=version.document_id, version=version.version
        )

    def publish_protocol(self, auction, at, made: tuple[str, bytes] | None) -> None:
        """Our module's record of `auction`, just ended at `at` (`made`: its file name and
        content), as a public document of the tender (of its lot), the auction's (what a
        time-driven change does: no lock taken again, no guard, as the end it follows)."""
        if made is None:
            return
        if self.documents.count() >= MAX_DOCUMENTS:
            logger.warning("auction %s: no room for its protocol on %s", auction.pk, self.pk)
            return
        name, content = made
        upload = SimpleUploadedFile(name, content, content_type="application/json")
        stored = client.store_file(upload, Actor(Role.AUCTION))
        lot = {"documentOf": "lot", "relatedItem": auction.lot_id} if auction.lot_id else {}
        fields = stored.fields()
        version = self._store_version(at, None, Role.AUCTION, lot, {
            name: fields[name] for name in ("key", "md5", "title", "format")
        })  # fmt: skip
        self.record_event(
            self, "add_document", Actor(Role.AUCTION), at, document_id=version.document_id,
            version=version.version,
        )  # fmt: skip
