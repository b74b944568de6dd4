from django.contrib.auth.models import AbstractUser
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from portal import tokens


class Organization(models.Model):
    """A procuring entity or a bidder, as portal users belong to it."""

    class Kind(models.TextChoices):
        PROCURING = "procuring", _("procuring entity")
        BIDDER = "bidder", _("bidder")

    name = models.CharField(_("name"), max_length=255)
    identifier_scheme = models.CharField(_("identifier scheme"), max_length=32, default="UA-EDR")
    identifier = models.CharField(_("identifier"), max_length=64)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["identifier_scheme", "identifier"], name="organization_identifier_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.identifier_scheme} {self.identifier})"

    @property
    def publishes_tenders(self) -> bool:
        return self.kind == self.Kind.PROCURING


class User(AbstractUser):
    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.PROTECT, related_name="users"
    )


class Broker(models.Model):
    """A platform that talks to the API with its key. Its name is the `owner` of what it creates."""

    name = models.CharField(
        _("name"),
        max_length=64,
        unique=True,
        validators=[RegexValidator(r"^[A-Za-z0-9_.-]+$", _("Letters, digits, _ . - only."))],
    )
    key_digest = models.CharField(max_length=64, unique=True, editable=False)
    is_active = models.BooleanField(_("active"), default=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name

    def set_key(self, key: str) -> None:
        self.key_digest = tokens.digest(key)

    @classmethod
    def authenticate(cls, key: str) -> "Broker | None":
        if not key:
            return None
        return cls.objects.filter(key_digest=tokens.digest(key), is_active=True).first()


class FormSubmission(models.Model):
    """A portal form's one-time token, spent by the change it made: the same form sent twice
    (a double click, a resend) changes nothing the second time."""

    token = models.CharField(primary_key=True, max_length=32)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.token
