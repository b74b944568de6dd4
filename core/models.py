"""The kernel's own rows: the API's callers (brokers and their keys) and the portal forms'
one-time tokens. Their tables keep the names they were created with (portal_*)."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from core import tokens
from core.reads import Read


class Broker(models.Model):
    """A platform that talks to the API with its key. Its name is the `owner` of what it creates."""

    name = models.CharField(
        _("name"),
        max_length=64,
        unique=True,
        validators=[RegexValidator(r"^[A-Za-z0-9_.-]+$", _("Letters, digits, _ . - only."))],
    )
    key_digest = models.CharField(max_length=64, unique=True, editable=False)
    # A broker acts for its clients; the auction module only reports auctions (core.actors).
    role = models.CharField(
        _("role"),
        max_length=16,
        choices=[("broker", _("broker")), ("auction", _("auction module"))],
        default="broker",
    )
    is_active = models.BooleanField(_("active"), default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "portal_broker"
        verbose_name, verbose_name_plural = _("broker"), _("brokers")

    def __str__(self) -> str:
        return self.name

    @property
    def is_auction_module(self) -> bool:
        return self.role == "auction"

    # A key is a password that machines type: long enough that guessing is hopeless.
    MIN_KEY_LENGTH = 32

    def set_key(self, key: str, *, short_allowed: bool = False) -> None:
        """Set the API key (only its digest is kept). Short keys only where the caller says
        they may be (the demo under DEBUG, the tests)."""
        if not key or not key.strip() or ":" in key:
            raise ValueError("The key must be non-empty and may not contain ':'.")
        if len(key) < self.MIN_KEY_LENGTH and not short_allowed:
            raise ValueError(f"The key must be at least {self.MIN_KEY_LENGTH} characters long.")
        self.key_digest = tokens.digest(key)

    @classmethod
    def authenticate(cls, key: str) -> "Broker | None":
        if not key:
            return None
        return _ACTIVE_BY_DIGEST.first(tokens.digest(key))


# Asked on every request that presents a key: written in SQL once (core.reads).
_ACTIVE_BY_DIGEST = Read("core.Broker", where=["key_digest"], equal={"is_active": True}, limit=1)


class FormSubmission(models.Model):
    """A portal form's one-time token, spent by the change it made: the same form sent twice
    (a double click, a resend) changes nothing the second time."""

    token = models.CharField(primary_key=True, max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    # The page of what the change made, where a form sent again (Back, then send) leads.
    made = models.CharField(max_length=200, blank=True)

    class Meta:
        db_table = "portal_formsubmission"

    def __str__(self) -> str:
        return self.token


class WorkerBeat(models.Model):
    """When a background worker (manage.py worker) last said it was alive: a task claimed by
    one that has been silent too long is ready again for the others (core.jobs)."""

    worker_id = models.CharField(primary_key=True, max_length=64)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.worker_id} at {self.at.isoformat()}"
