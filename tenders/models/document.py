from django.db import models

from tenders.documents import DocumentVersion


class TenderDocument(DocumentVersion):
    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["tender", "document_id", "version"], name="tender_document_version_unique"
            )
        ]


class AwardDocument(DocumentVersion):
    """The decision's papers (its protocol, the evaluation report), the tender owner's."""

    award = models.ForeignKey(
        "tenders.Award", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["award", "document_id", "version"], name="award_document_version_unique"
            )
        ]


class ContractDocument(DocumentVersion):
    """The contract's papers (the signed contract, its annexes), the tender owner's."""

    contract = models.ForeignKey(
        "tenders.Contract", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["contract", "document_id", "version"],
                name="contract_document_version_unique",
            )
        ]


class CancellationDocument(DocumentVersion):
    """The cancellation's papers (its protocol), the tender owner's."""

    cancellation = models.ForeignKey(
        "tenders.Cancellation", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["cancellation", "document_id", "version"],
                name="cancellation_document_version_unique",
            )
        ]


class BidDocument(DocumentVersion):
    """A bid's papers (licences, certificates, the priced offer): sealed with the bid."""

    bid = models.ForeignKey(
        "tenders.Bid", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["bid", "document_id", "version"], name="bid_document_version_unique"
            )
        ]
