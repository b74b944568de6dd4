"""Open data's own record: each published change of a tender, as the OCDS release it is."""

from django.db import models


class Release(models.Model):
    """What one committed change of a published tender left public, as an OCDS release, kept
    as it was then (a release is never changed once published: the record of a tender is all
    of them). Written when open data is told of the change (tenders.extensions.TENDER_CHANGED):
    by the background soon after it commits, or by the tender's next change, once it holds the
    tender's lock, before it changes anything; so no published state is skipped, and a state
    inside a transaction, which nobody saw, is never one. A change the public cannot see (a
    sealed bid) writes none. The text names the document service by a placeholder, as the kept
    2.3 representation does (tenders/api/stored.py)."""

    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+")
    # The tender's dateModified that change stamped (the release's id and date).
    tender_modified = models.DateTimeField()
    # When the release was written, the last step of its transaction: what the bulk feed pages
    # by, with the tenders' feed's watermark (core/api/feed.py).
    date_modified = models.DateTimeField()
    text = models.TextField()
    # The release's content apart from its id, date and tags: equal, the change showed nothing.
    digest = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tender", "tender_modified"], name="one_release_a_stamp"
            )
        ]
        indexes = [models.Index(fields=["date_modified", "id"], name="releases_feed")]

    def __str__(self) -> str:
        return f"{self.tender_id} at {self.tender_modified.isoformat()}"
