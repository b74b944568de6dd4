"""Saved searches: a search a person keeps, and how often it tells them by e-mail of the
tenders newly published that it finds (portal/alerts.py sends them)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError


class CannotSaveSearch(DomainError):
    http_status = 409
    code = "cannot_save_search"


def looked_at_when_due(now) -> Q:
    """What is told by e-mail at once (looked at on every pass) or daily (a day after its last
    look) is due at `now`, for a confirmed, active account (the mail goes to the address):
    saved searches and followed tenders alike."""
    return Q(
        Q(frequency="at_once") | Q(frequency="daily", last_looked__lte=now - timedelta(days=1)),
        user__is_active=True,
        user__email_confirmed_at__isnull=False,
    )


class SavedSearchQuerySet(models.QuerySet):
    def due(self, now):
        """The searches whose alert is due at `now`."""
        return self.filter(looked_at_when_due(now))


class SavedSearch(models.Model):
    class Frequency(models.TextChoices):
        AT_ONCE = "at_once", _("at once, as they are published")
        DAILY = "daily", _("once a day")

    # Searches one person may keep: each is looked at on every pass of the alerts.
    MAX_PER_PERSON = 20

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches"
    )
    name = models.CharField(_("name"), max_length=200)
    # The search's parameters, URL-encoded in one order (portal.views._asked): the search page's
    # address and its feed's.
    query = models.CharField(max_length=2000)
    frequency = models.CharField(
        _("e-mail"), max_length=10, choices=Frequency.choices, default=Frequency.DAILY
    )
    created = models.DateTimeField(editable=False)
    # When its alert was last looked for, and when one was last sent.
    last_looked = models.DateTimeField(editable=False)
    last_sent = models.DateTimeField(null=True, blank=True, editable=False)
    # Tenders published up to this moment were looked at: the next alert tells of later ones.
    seen_until = models.DateTimeField(editable=False)

    objects = SavedSearchQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "query"], name="one_saved_search_per_query")
        ]
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def keep(cls, user, *, query: str, name: str, frequency: str, now) -> "SavedSearch":
        """Keep `user`'s search (the same search kept again takes the new name and
        frequency); new tenders are those published from `now`. Refused for an address not
        confirmed (the alerts go to it) and beyond MAX_PER_PERSON."""
        if user.email_confirmed_at is None:
            raise CannotSaveSearch(_("Confirm your e-mail address first: the alerts go to it."))
        with transaction.atomic():
            # (the person's row, locked: two saves at once count one another)
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()
            kept = cls.objects.filter(user=user, query=query).first()
            if kept is not None:
                kept.name, kept.frequency = name, frequency
                kept.save(update_fields=["name", "frequency"])
                return kept
            if cls.objects.filter(user=user).count() >= cls.MAX_PER_PERSON:
                raise CannotSaveSearch(
                    _("You keep %(count)s searches already: delete one first.")
                    % {"count": cls.MAX_PER_PERSON}
                )
            return cls.objects.create(
                user=user,
                query=query,
                name=name,
                frequency=frequency,
                created=now,
                last_looked=now,
                seen_until=now,
            )

    def looked(self, now, *, until, sent: bool) -> None:
        """Its alert was looked for at `now`, for tenders published up to `until`; `sent`:
        one went out."""
        # (only forward: a look that began earlier than the last one tells nothing again)
        self.last_looked, self.seen_until = now, max(self.seen_until, until)
        if sent:
            self.last_sent = now
        self.save(update_fields=["last_looked", "seen_until", "last_sent"])


class Reminder(models.Model):
    """A reminder sent: one per thing to do and its deadline (portal/reminders.py), so that
    every pass of the alerts tells it once."""

    key = models.CharField(max_length=300, unique=True)
    sent_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.key

    @classmethod
    def first_time(cls, key: str, now) -> bool:
        """Record that `key` is told now; False if it was told before."""
        _reminder, created = cls.objects.get_or_create(key=key, defaults={"sent_at": now})
        return created
