from django.db import models

from tenders.documents import DocumentVersion


class ComplaintDocument(DocumentVersion):
    complaint = models.ForeignKey(
        "Complaint", on_delete=models.CASCADE, related_name="documents", editable=False
    )

    class Meta(DocumentVersion.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["complaint", "document_id", "version"],
                name="complaint_document_version_unique",
            )
        ]
