"""Who belongs to an organization, and how a person comes in: a request to join that the
administrators decide, or an administrator's invitation by e-mail."""

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core import notices, tokens
from core.actors import Actor, Role, portal_actor
from core.errors import NotFound
from core.transitions import StatusMachine, transition

from .organization_errors import AlreadyMember, InvitationUnusable, NotAnAdministrator, Refused


def check_not_a_member(user) -> None:
    """One organization per account: AlreadyMember if `user` belongs to one (read afresh)."""
    if Membership.objects.filter(user=user).exists():
        raise AlreadyMember()


class Membership(models.Model):
    """A person's place in an organization (one organization per account)."""

    class Role(models.TextChoices):
        ADMIN = "admin", _("administrator")
        MEMBER = "member", _("member")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organization_membership"
    )
    organization = models.ForeignKey(
        "portal.Organization", on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=16, choices=Role, default=Role.MEMBER)
    since = models.DateTimeField(_("member since"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["since", "id"]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.role})"


class JoinRequest(StatusMachine, models.Model):
    """A person asks to join an organization; its administrators accept or refuse."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for an answer")
        ACCEPTED = "accepted", _("accepted")
        REFUSED = "refused", _("refused")
        WITHDRAWN = "withdrawn", _("withdrawn")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="join_requests"
    )
    organization = models.ForeignKey(
        "portal.Organization", on_delete=models.CASCADE, related_name="join_requests"
    )
    STAMP_FIELD = "decided_at"
    TRANSITIONS = {
        "accept": transition({Status.PENDING}, Status.ACCEPTED, Role.ORGANIZATION_ADMIN),
        "refuse": transition({Status.PENDING}, Status.REFUSED, Role.ORGANIZATION_ADMIN),
        "withdraw": transition({Status.PENDING}, Status.WITHDRAWN, Role.APPLICANT),
    }

    status = models.CharField(max_length=16, choices=Status, default=Status.PENDING)
    created = models.DateTimeField(default=timezone.now, editable=False)
    decided_at = models.DateTimeField(null=True, blank=True, editable=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="pending"), name="one_pending_join_request"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} asks to join {self.organization} ({self.status})"

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        user = by.user
        if user is None:
            return None
        if user.pk == self.user_id:
            return Role.APPLICANT
        return Role.ORGANIZATION_ADMIN if self.organization.has_admin(user) else None

    def party_refusal(self) -> Refused:
        return NotAnAdministrator()

    def status_refusal(self, action: str) -> Refused:
        return Refused(gettext_noop("This request has already been answered."))

    def check_rules(self, action: str, by: Actor, now) -> None:
        if self.TRANSITIONS[action].role is Role.ORGANIZATION_ADMIN:
            by.user.check_standing(in_public=False)

    def lock_for_change(self):
        self.organization.lock()
        self.refresh_from_db()
        return timezone.now()

    def record_change(self, action: str, by: Actor, now, before, fields) -> None:
        self.organization.record(f"{action}_request", user=by.user, member=self.user)

    # --- the transitions ------------------------------------------------------------------

    def _decide(self, action: str, user) -> None:
        by = portal_actor(user)
        now = self.begin(action, by)
        self.apply(action, by, now, decided_by=user)

    def accept(self, *, user) -> None:
        with transaction.atomic():
            self._decide("accept", user)
            check_not_a_member(self.user)
            Membership.objects.create(user=self.user, organization=self.organization)
            self._tell_the_person()

    def refuse(self, *, user) -> None:
        with transaction.atomic():
            self._decide("refuse", user)
            self._tell_the_person()

    def withdraw(self, *, user) -> None:
        """The person who asked takes the request back."""
        with transaction.atomic():
            self._decide("withdraw", user)

    def _tell_the_person(self) -> None:
        notices.send(
            f"portal/email/join_{self.status}.txt",
            {"request": self, "organization": self.organization, "link": notices.link("dashboard")},
            [self.user.email],
        )


class InvitationQuerySet(models.QuerySet):
    def by_token(self, token: str) -> "Invitation":
        invitation = (
            self.select_related("organization").filter(token_digest=tokens.digest(token)).first()
        )
        if invitation is None:
            raise NotFound("invitation")
        return invitation


class Invitation(StatusMachine, models.Model):
    """An administrator's invitation of a person, by e-mail: a one-time link that expires."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting to be accepted")
        ACCEPTED = "accepted", _("accepted")
        REVOKED = "revoked", _("withdrawn")

    STAMP_FIELD = None
    TRANSITIONS = {
        # The person holding the link joins.
        "accept": transition({Status.PENDING}, Status.ACCEPTED, Role.INVITEE),
        "revoke": transition({Status.PENDING}, Status.REVOKED, Role.ORGANIZATION_ADMIN),
        # A new invitation to the same address takes its place.
        "replace": transition({Status.PENDING}, Status.REVOKED, Role.ORGANIZATION_ADMIN),
    }

    organization = models.ForeignKey(
        "portal.Organization", on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField(_("e-mail"))
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status, default=Status.PENDING, editable=False)
    created = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(editable=False)
    accepted_at = models.DateTimeField(null=True, blank=True, editable=False)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.email} to {self.organization}"

    def is_expired(self, now=None) -> bool:
        return (now or timezone.now()) >= self.expires_at

    def check_usable(self, now=None) -> None:
        """Raises why this link no longer works: used, withdrawn or expired."""
        if self.status != self.Status.PENDING:
            raise self.status_refusal("accept")
        if self.is_expired(now):
            raise InvitationUnusable(
                gettext_noop(
                    "This invitation has expired: ask the organization's administrators for a "
                    "new one."
                )
            )

    def check_addressed_to(self, user) -> None:
        if user.email.strip().casefold() != self.email.strip().casefold():
            raise InvitationUnusable(
                gettext_noop(
                    "This invitation was sent to another e-mail address: sign in with the account "
                    "of that address, or create a new account from the invitation."
                )
            )

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        if by.acts_as(Role.INVITEE, self):
            return Role.INVITEE
        if by.user is not None and self.organization.has_admin(by.user):
            return Role.ORGANIZATION_ADMIN
        return None

    def party_refusal(self) -> Refused:
        return NotAnAdministrator()

    def status_refusal(self, action: str) -> Refused:
        if self.status == self.Status.ACCEPTED:
            return InvitationUnusable(gettext_noop("This invitation has already been used."))
        return InvitationUnusable(
            gettext_noop(
                "This invitation was withdrawn: ask the organization's administrators for a "
                "new one."
            )
        )

    def check_rules(self, action: str, by: Actor, now) -> None:
        if action != "replace":
            self.check_usable(now)
        if action == "accept":
            self.check_addressed_to(by.user)
            check_not_a_member(by.user)

    def lock_for_change(self):
        self.organization.lock()
        self.refresh_from_db()
        return timezone.now()

    def record_change(self, action: str, by: Actor, now, before, fields) -> None:
        member = {"member": by.user} if action == "accept" else {}
        self.organization.record(f"{action}_invitation", user=by.user, email=self.email, **member)

    # --- the transitions ------------------------------------------------------------------

    def accept(self, *, user) -> None:
        """The invited person joins. Following the link proves the address, so the account's
        e-mail counts as confirmed; a pending request to join elsewhere is withdrawn."""
        with transaction.atomic():
            by = Actor(Role.INVITEE, user=user, subject=self)
            now = self.begin("accept", by)
            for request in user.join_requests.filter(status=JoinRequest.Status.PENDING):
                request.withdraw(user=user)
            Membership.objects.create(user=user, organization=self.organization)
            self.apply("accept", by, now, accepted_at=now, accepted_by=user)
            if user.email_confirmed_at is None:
                user.email_confirmed_at = now
                user.save(update_fields=["email_confirmed_at"])

    def revoke(self, *, user) -> None:
        with transaction.atomic():
            admin = portal_actor(user)
            now = self.begin("revoke", admin)
            self.apply("revoke", admin, now, revoked_at=now)

    def replace(self, *, user, now) -> None:
        """A new invitation to the same address takes this one's place (in its change, under
        its organization's lock)."""
        admin = portal_actor(user)
        self.perform("replace", admin, now, revoked_at=now)
