from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core import signing
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core import limits, notices
from core.errors import (
    DomainError,
    EmailNotConfirmed,
    NoOrganization,
    NotAllowed,
    OrganizationNotVerified,
)

from .membership import JoinRequest, check_not_a_member
from .organizations import Organization

CONFIRMATION_SALT = "portal.confirm-email"


class BadConfirmationLink(DomainError):
    http_status = 400
    code = "confirmation_link"

    def __init__(self):
        super().__init__(
            gettext_noop(
                "This confirmation link is not valid or has expired: sign in and ask for a new one."
            )
        )


class User(AbstractUser):
    """A person signed in to the portal. It acts for the organization it belongs to (one at
    most, through its membership) once its e-mail address is confirmed."""

    email_confirmed_at = models.DateTimeField(
        _("e-mail confirmed"), null=True, blank=True, editable=False
    )
    # The organization named at sign-up, joined (or registered) when the e-mail is confirmed:
    # {"name", "identifier", "kind"}.
    pending_organization = models.JSONField(null=True, blank=True, editable=False)

    @property
    def organization(self):
        membership = getattr(self, "organization_membership", None)
        return membership.organization if membership is not None else None

    @property
    def is_organization_admin(self) -> bool:
        organization = self.organization
        return organization is not None and organization.is_administered_by(self)

    def pending_join_request(self):
        return self.join_requests.filter(status=JoinRequest.Status.PENDING).first()

    def check_standing(self, *, in_public: bool = True) -> None:
        """See Actor.check_standing: a confirmed e-mail, an organization, and for public acts
        a verified one."""
        if self.email_confirmed_at is None:
            raise EmailNotConfirmed()
        organization = self.organization
        if organization is None:
            raise NoOrganization()
        if in_public and not organization.is_verified:
            raise OrganizationNotVerified()

    def check_may_join(self) -> None:
        if self.email_confirmed_at is None:
            raise EmailNotConfirmed()
        check_not_a_member(self)
        if self.pending_join_request() is not None:
            raise NotAllowed(
                gettext_noop(
                    "You have asked to join an organization already: wait for the answer, or "
                    "withdraw the request first."
                )
            )

    def forget_membership(self) -> None:
        """Drop what this instance remembers of its membership (after it changed)."""
        self._state.fields_cache.pop("organization_membership", None)

    # --- e-mail confirmation --------------------------------------------------------------

    def confirmation_token(self) -> str:
        return signing.dumps({"user": self.pk, "email": self.email}, salt=CONFIRMATION_SALT)

    def resend_confirmation(self) -> None:
        """Another confirmation link, on request: a few an hour (CONFIRMATION_RESEND_RATE)."""
        limits.hit(
            "confirmation-emails",
            f"user:{self.pk}",
            limits.Rate.setting("CONFIRMATION_RESEND_RATE"),
            gettext_noop("We have sent you several links already. Try again later."),
        )
        self.send_confirmation()

    def send_confirmation(self) -> None:
        notices.send(
            "portal/email/confirm_email.txt",
            {"user": self, "link": notices.link("confirm-email", self.confirmation_token())},
            [self.email],
        )

    @classmethod
    def confirm_email(cls, token: str) -> "User":
        """Follow a confirmation link: the address is confirmed (once; a second visit changes
        nothing), and the organization named at sign-up is joined or registered."""
        max_age = timedelta(days=settings.EMAIL_CONFIRMATION_DAYS)
        try:
            claim = signing.loads(token, salt=CONFIRMATION_SALT, max_age=max_age)
        except signing.BadSignature:
            raise BadConfirmationLink() from None
        with transaction.atomic():
            user = cls.objects.select_for_update().filter(pk=claim.get("user")).first()
            if user is None or user.email != claim.get("email"):
                raise BadConfirmationLink()
            if user.email_confirmed_at is not None:
                return user
            user.email_confirmed_at = timezone.now()
            application, user.pending_organization = user.pending_organization, None
            user.save(update_fields=["email_confirmed_at", "pending_organization"])
            if application and user.organization is None:
                Organization.objects.join_or_register(user=user, **application)
        return user
