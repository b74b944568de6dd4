from django.db import models


class TenderRow(models.Model):
    """The project's tender table, read only: the two columns the floor answers."""

    id = models.CharField(primary_key=True, max_length=32)
    date_modified = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "tenders_tender"

    def __str__(self) -> str:
        return self.id
