"""Open data's own record: each published change of a tender, as the OCDS release it is."""

from django.db import models


class Release(models.Model):
    """What one change of a published tender left public, as an OCDS release, kept as it was
    then (a release is never changed once published: the record of a tender is all of them).
    Written in the change's own transaction (opendata/releases.py), so the bulk feed pages them
    by `date_modified` (the tender's, stamped by that change) as the tenders' feed pages
    tenders: every release once. A change the public cannot see (a sealed bid) leaves the
    release as it was: no new one. The text names the document service by a placeholder, as
    the kept 2.3 representation does (tenders/api/stored.py)."""

    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+")
    date_modified = models.DateTimeField()
    text = models.TextField()
    # The release's content apart from its id, date and tags: equal, the change showed nothing.
    digest = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tender", "date_modified"], name="one_release_a_stamp")
        ]
        indexes = [models.Index(fields=["date_modified", "id"], name="releases_feed")]

    def __str__(self) -> str:
        return f"{self.tender_id} at {self.date_modified.isoformat()}"
