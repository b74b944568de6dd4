"""The tender's own documents: the owner's conditions, and the auction module's protocol."""

from django.utils import timezone

from core.actors import Actor, Role
from tenders.documents import HasDocuments


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
