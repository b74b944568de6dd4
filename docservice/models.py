from django.db import models, transaction
from django.utils import timezone

from core.errors import DomainError
from core.ids import new_id

from . import storage


class ContentRefused(DomainError):
    code = "content_refused"

    def __init__(self, description: str):
        super().__init__(description, name="file")


class UploadOvertaken(ContentRefused):
    """Another upload of the same document (a client's retry of an upload still in flight)
    stored its content first: this one changed nothing."""

    http_status = 409
    code = "upload_overtaken"

    def __init__(self):
        super().__init__("Content already uploaded")


class StoredFile(models.Model):
    """A document's content: registered with its MD5 (then uploaded once), or uploaded
    straight away. Stored under its id, never under a name a client chose."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    md5 = models.CharField(max_length=32)
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    title = models.CharField(max_length=255, blank=True)
    content_type = models.CharField(max_length=255, blank=True)
    storage_name = models.CharField(max_length=255, blank=True)
    uploaded_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    broker = models.ForeignKey(
        "core.Broker", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.id} {self.title or '(not uploaded)'}"

    @property
    def uploaded(self) -> bool:
        return self.uploaded_at is not None

    @classmethod
    def sizes(cls, keys) -> dict[str, int]:
        """The sizes in bytes of the contents uploaded under `keys` (one query; a content kept
        by a document service elsewhere, or not uploaded yet, has none here)."""
        rows = cls.objects.filter(pk__in=set(keys), size__isnull=False)
        return dict(rows.values_list("pk", "size"))

    @classmethod
    def register(cls, *, broker, md5: str) -> "StoredFile":
        return cls.objects.create(broker=broker, md5=md5)

    @classmethod
    def store_new(cls, *, broker, upload, title: str, content_type: str) -> "StoredFile":
        """Upload without registration: the content's own MD5 is what the URL binds."""
        stored = cls(broker=broker, md5=upload.md5)
        stored._write(upload, title, content_type)
        return stored

    def accept(self, *, upload, title: str, content_type: str) -> None:
        """The content of a registered document: once, and only with the registered MD5."""
        if self.uploaded:
            raise ContentRefused("Content already uploaded")
        if upload.md5 != self.md5:
            raise ContentRefused("Invalid checksum")
        self._write(upload, title, content_type)

    def _write(self, upload, title: str, content_type: str) -> None:
        """Store the content under a name of this attempt's own, then claim the row for it: of
        two uploads racing to one document, one claims it and the other removes only its own
        copy (a shared name would let the loser replace, then delete, the winner's file)."""
        name = storage.save(storage.name_for_attempt(self.id), upload)
        try:
            with transaction.atomic():
                if self._state.adding:
                    self.save(force_insert=True)
                claimed = StoredFile.objects.filter(pk=self.pk, uploaded_at__isnull=True).update(
                    sha256=upload.sha256,
                    size=upload.size,
                    title=title,
                    content_type=content_type,
                    storage_name=name,
                    uploaded_at=timezone.now(),
                )
                if not claimed:
                    raise UploadOvertaken()
        except BaseException:
            storage.delete(name)
            raise
        self.refresh_from_db()

    def discard(self) -> None:
        """Forget content that turned out not to be wanted (its attachment was refused): the
        row first, so that no row is left pointing at a file that is gone. (The row was made by
        the same request, in its transaction or before it: never one another request reads.)"""
        name = self.storage_name
        self.delete()
        if name:
            storage.delete(name)
