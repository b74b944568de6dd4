"""Organizations, who belongs to them, and who vouches for them.

A person never becomes a member by naming an organization: a new organization's first member
is its administrator, and anyone else is admitted by an administrator (a request to join, or
an invitation by e-mail). An organization acts in public (publishes tenders, bids, files and
answers claims, decides awards) only once an operator has verified it.

    verification: pending --verify--> verified --refuse--> refused --verify--> verified
                  pending --refuse--> refused

Every change locks the organization's row (so two administrators cannot remove each other and
leave none) and is written to its audit trail (OrganizationEvent).
"""

from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from portal.core import limits, notices, tokens
from portal.core.errors import DomainError, InvalidData, NotAllowed, NotFound, PermissionDenied


class Refused(NotAllowed):
    """A membership or verification change the rules refuse (shown next to the form)."""

    code = "membership"


class NotAnAdministrator(DomainError):
    code = "not_administrator"

    def __init__(self):
        super().__init__(gettext_noop("Only the organization's administrators can do this."))


class LastAdministrator(Refused):
    code = "last_administrator"

    def __init__(self):
        super().__init__(
            gettext_noop(
                "The organization's last administrator cannot leave or be removed: make another "
                "member an administrator first."
            )
        )


class AlreadyMember(Refused):
    code = "already_member"

    def __init__(self):
        super().__init__(gettext_noop("This account already belongs to an organization."))


class InvitationUnusable(Refused):
    code = "invitation"


def check_not_a_member(user) -> None:
    """One organization per account: AlreadyMember if `user` belongs to one (read afresh)."""
    if Membership.objects.filter(user=user).exists():
        raise AlreadyMember()


class OrganizationQuerySet(models.QuerySet):
    def awaiting_verification(self):
        return self.filter(verification=Organization.Verification.PENDING)

    def join_or_register(self, *, user, name: str, identifier: str, kind: str):
        """The account joins the organization with this identifier: a new organization is
        registered with the account as its administrator (and awaits verification); an
        organization registered already gets a request to join, which its administrators
        decide. Returns the organization or the request."""
        with transaction.atomic():
            user.check_may_join()
            limits.hit(
                "join-requests",
                f"user:{user.pk}",
                limits.Rate.setting("JOIN_REQUEST_RATE"),
                gettext_noop("You have asked to join too often. Try again later."),
            )
            organization, created = self.get_or_create(
                identifier_scheme="UA-EDR",
                identifier=identifier,
                defaults={"name": name, "kind": kind},
            )
            if created:
                Membership.objects.create(
                    user=user, organization=organization, role=Membership.Role.ADMIN
                )
                organization.record("register", by=user, to_status=organization.verification)
                return organization
            organization.lock()
            request = JoinRequest.objects.create(user=user, organization=organization)
            organization.record("request", by=user, member=user)
            notices.send_after_commit(
                "portal/email/join_requested.txt",
                {"request": request, "organization": organization, "link": notices.link("members")},
                organization.emails(admins=True),
            )
            return request


class Organization(models.Model):
    """A procuring entity or a bidder, as portal users belong to it."""

    class Kind(models.TextChoices):
        PROCURING = "procuring", _("procuring entity")
        BIDDER = "bidder", _("bidder")

    class Verification(models.TextChoices):
        PENDING = "pending", _("awaiting verification")
        VERIFIED = "verified", _("verified")
        REFUSED = "refused", _("verification refused")

    # action: (statuses it starts from, the status it leads to). Operators perform both.
    VERIFICATIONS = {
        "verify": ({Verification.PENDING, Verification.REFUSED}, Verification.VERIFIED),
        "refuse": ({Verification.PENDING, Verification.VERIFIED}, Verification.REFUSED),
    }

    name = models.CharField(_("name"), max_length=255)
    identifier_scheme = models.CharField(_("identifier scheme"), max_length=32, default="UA-EDR")
    identifier = models.CharField(_("identifier"), max_length=64)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind)
    verification = models.CharField(
        _("verification"),
        max_length=16,
        choices=Verification,
        default=Verification.PENDING,
        editable=False,
    )
    verification_date = models.DateTimeField(
        _("verification decided"), null=True, blank=True, editable=False
    )
    refusal_reason = models.TextField(_("reason of the refusal"), blank=True, editable=False)
    created = models.DateTimeField(_("registered"), default=timezone.now, editable=False)

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        permissions = [("verify_organization", "Can verify organizations or refuse them")]
        constraints = [
            models.UniqueConstraint(
                fields=["identifier_scheme", "identifier"], name="organization_identifier_unique"
            ),
            models.CheckConstraint(
                condition=~Q(verification="refused") | Q(refusal_reason__gt=""),
                name="organization_refusal_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.identifier_scheme} {self.identifier})"

    @property
    def identifier_data(self) -> dict:
        """Its identifier in the 2.3 form (what a tenderer's or buyer's `identifier` holds)."""
        return {"scheme": self.identifier_scheme, "id": self.identifier}

    @property
    def publishes_tenders(self) -> bool:
        return self.kind == self.Kind.PROCURING

    @property
    def is_verified(self) -> bool:
        return self.verification == self.Verification.VERIFIED

    # --- reading --------------------------------------------------------------------------

    def emails(self, *, admins: bool = False) -> list[str]:
        members = self.memberships.filter(user__is_active=True).exclude(user__email="")
        if admins:
            members = members.filter(role=Membership.Role.ADMIN)
        return list(members.values_list("user__email", flat=True))

    def is_administered_by(self, user) -> bool:
        membership = getattr(user, "organization_membership", None)
        return (
            membership is not None
            and membership.organization_id == self.pk
            and membership.role == Membership.Role.ADMIN
        )

    def pending_requests(self):
        return self.join_requests.filter(status=JoinRequest.Status.PENDING).select_related("user")

    def pending_invitations(self):
        now = timezone.now()
        return self.invitations.filter(
            accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        )

    # --- the frame of every change --------------------------------------------------------

    def lock(self) -> None:
        """Lock this organization's row for the rest of the transaction and reload it."""
        self.refresh_from_db(from_queryset=Organization.objects.select_for_update())

    def record(self, action: str, *, by, member=None, from_status="", to_status="", **payload):
        OrganizationEvent.objects.create(
            organization=self,
            action=action,
            actor=by,
            actor_name=by.get_username() if by is not None else "",
            member=member,
            member_name=member.get_username() if member is not None else "",
            from_status=from_status,
            to_status=to_status,
            at=timezone.now(),
            payload=payload,
        )

    def check_admin(self, user) -> None:
        """An administrator of this organization, with its e-mail confirmed (read under the
        organization's lock, so that a removed administrator acts no more)."""
        membership = Membership.objects.filter(user=user, organization=self).first()
        if membership is None or membership.role != Membership.Role.ADMIN:
            raise NotAnAdministrator()
        user.check_standing(in_public=False)

    def _membership_of(self, member) -> "Membership":
        membership = self.memberships.filter(user=member).first()
        if membership is None:
            raise NotFound("member")
        return membership

    def _check_not_last_admin(self, membership: "Membership") -> None:
        if membership.role == Membership.Role.ADMIN:
            admins = self.memberships.filter(role=Membership.Role.ADMIN).count()
            if admins <= 1:
                raise LastAdministrator()

    # --- verification (operators) ---------------------------------------------------------

    def available_verifications(self) -> list[str]:
        return [
            action
            for action, (sources, _target) in self.VERIFICATIONS.items()
            if self.verification in sources
        ]

    def _decide_verification(self, action: str, by, reason: str = "") -> None:
        if not by.has_perm("portal.verify_organization"):
            raise PermissionDenied()
        with transaction.atomic():
            self.lock()
            sources, target = self.VERIFICATIONS[action]
            if self.verification not in sources:
                raise Refused(
                    f"Can't {action} an organization in current ({self.verification}) status"
                )
            before = self.verification
            self.verification = target
            self.verification_date = timezone.now()
            self.refusal_reason = reason
            self.save(update_fields=["verification", "verification_date", "refusal_reason"])
            self.record(action, by=by, from_status=before, to_status=target, reason=reason)
            notices.send_after_commit(
                f"portal/email/organization_{target}.txt",
                {"organization": self, "link": notices.link("dashboard")},
                self.emails(),
            )

    def verify(self, *, by) -> None:
        """An operator vouches for the organization: from now on it acts in public."""
        self._decide_verification("verify", by)

    def refuse(self, *, by, reason: str) -> None:
        """An operator refuses (or withdraws) the verification, saying why."""
        reason = (reason or "").strip()
        if not reason:
            raise InvalidData.field("reason", gettext_noop("Say why the verification is refused."))
        self._decide_verification("refuse", by, reason)

    # --- members (administrators) ---------------------------------------------------------

    def invite(self, *, by, email: str) -> tuple["Invitation", str]:
        """Invite a person by e-mail: a one-time link that expires. An earlier invitation to
        the same address stops working. Returns the invitation and the link's token."""
        email = email.strip()
        with transaction.atomic():
            self.lock()
            self.check_admin(by)
            limits.hit(
                "invitations",
                f"organization:{self.pk}",
                limits.Rate.setting("INVITATION_RATE"),
                gettext_noop("Your organization has sent too many invitations. Try again later."),
                field="email",
            )
            if self.memberships.filter(user__email__iexact=email).exists():
                raise Refused(
                    gettext_noop("This person already belongs to the organization."), field="email"
                )
            now = timezone.now()
            self.pending_invitations().filter(email__iexact=email).update(revoked_at=now)
            token = tokens.new_token()
            invitation = self.invitations.create(
                email=email,
                token_digest=tokens.digest(token),
                invited_by=by,
                created=now,
                expires_at=now + timedelta(days=settings.INVITATION_DAYS),
            )
            self.record("invite", by=by, email=email)
            notices.send_after_commit(
                "portal/email/invitation.txt",
                {
                    "invitation": invitation,
                    "organization": self,
                    "inviter": by,
                    "link": notices.link("invitation", token),
                },
                [email],
            )
        return invitation, token

    def remove(self, *, by, member) -> None:
        """An administrator removes a member (the last administrator stays)."""
        with transaction.atomic():
            self.lock()
            self.check_admin(by)
            membership = self._membership_of(member)
            self._check_not_last_admin(membership)
            membership.delete()
            self.record("remove", by=by, member=member)

    def leave(self, *, user) -> None:
        """A member leaves (the last administrator cannot)."""
        with transaction.atomic():
            self.lock()
            membership = self._membership_of(user)
            self._check_not_last_admin(membership)
            membership.delete()
            self.record("leave", by=user, member=user)

    def set_role(self, *, by, member, admin: bool) -> None:
        """Make a member an administrator, or an administrator a member again (not the last)."""
        role = Membership.Role.ADMIN if admin else Membership.Role.MEMBER
        with transaction.atomic():
            self.lock()
            self.check_admin(by)
            membership = self._membership_of(member)
            if membership.role == role:
                return
            if not admin:
                self._check_not_last_admin(membership)
            membership.role = role
            membership.save(update_fields=["role"])
            self.record("make_admin" if admin else "revoke_admin", by=by, member=member)


class Membership(models.Model):
    """A person's place in an organization (one organization per account)."""

    class Role(models.TextChoices):
        ADMIN = "admin", _("administrator")
        MEMBER = "member", _("member")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organization_membership"
    )
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=16, choices=Role, default=Role.MEMBER)
    since = models.DateTimeField(_("member since"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["since", "id"]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.role})"


class JoinRequest(models.Model):
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
        Organization, on_delete=models.CASCADE, related_name="join_requests"
    )
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

    def _decide(self, action: str, status: str, *, by, admin: bool = True) -> None:
        organization = self.organization
        organization.lock()
        self.refresh_from_db()
        if admin:
            organization.check_admin(by)
        elif by.pk != self.user_id:
            raise NotFound("request")
        if self.status != self.Status.PENDING:
            raise Refused(gettext_noop("This request has already been answered."))
        self.status = status
        self.decided_at = timezone.now()
        self.decided_by = by
        self.save(update_fields=["status", "decided_at", "decided_by"])
        organization.record(action, by=by, member=self.user)

    def accept(self, *, by) -> None:
        with transaction.atomic():
            self._decide("accept_request", self.Status.ACCEPTED, by=by)
            check_not_a_member(self.user)
            Membership.objects.create(user=self.user, organization=self.organization)
            self._tell_the_person()

    def refuse(self, *, by) -> None:
        with transaction.atomic():
            self._decide("refuse_request", self.Status.REFUSED, by=by)
            self._tell_the_person()

    def withdraw(self, *, by) -> None:
        """The person who asked takes the request back."""
        with transaction.atomic():
            self._decide("withdraw_request", self.Status.WITHDRAWN, by=by, admin=False)

    def _tell_the_person(self) -> None:
        notices.send_after_commit(
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


class Invitation(models.Model):
    """An administrator's invitation of a person, by e-mail: a one-time link that expires."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField(_("e-mail"))
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
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

    def check_usable(self, now=None) -> None:
        """Raises why this link no longer works: used, withdrawn or expired."""
        if self.accepted_at is not None:
            raise InvitationUnusable(gettext_noop("This invitation has already been used."))
        if self.revoked_at is not None:
            raise InvitationUnusable(
                gettext_noop(
                    "This invitation was withdrawn: ask the organization's administrators for a "
                    "new one."
                )
            )
        if (now or timezone.now()) >= self.expires_at:
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

    def accept(self, *, user) -> None:
        """The invited person joins. Following the link proves the address, so the account's
        e-mail counts as confirmed; a pending request to join elsewhere is withdrawn."""
        organization = self.organization
        with transaction.atomic():
            organization.lock()
            self.refresh_from_db()
            self.check_usable()
            self.check_addressed_to(user)
            check_not_a_member(user)
            now = timezone.now()
            user.join_requests.filter(status=JoinRequest.Status.PENDING).update(
                status=JoinRequest.Status.WITHDRAWN, decided_at=now, decided_by=user
            )
            Membership.objects.create(user=user, organization=organization)
            self.accepted_at, self.accepted_by = now, user
            self.save(update_fields=["accepted_at", "accepted_by"])
            if user.email_confirmed_at is None:
                user.email_confirmed_at = now
                user.save(update_fields=["email_confirmed_at"])
            organization.record("accept_invitation", by=user, member=user, email=self.email)

    def revoke(self, *, by) -> None:
        organization = self.organization
        with transaction.atomic():
            organization.lock()
            organization.check_admin(by)
            self.refresh_from_db()
            self.check_usable()
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])
            organization.record("revoke_invitation", by=by, email=self.email)


class OrganizationEvent(models.Model):
    """The audit trail of an organization: who did what, to whom, when."""

    class Action(models.TextChoices):
        REGISTER = "register", _("registered the organization")
        VERIFY = "verify", _("verified the organization")
        REFUSE = "refuse", _("refused the verification")
        REQUEST = "request", _("asked to join")
        ACCEPT_REQUEST = "accept_request", _("accepted a request to join")
        REFUSE_REQUEST = "refuse_request", _("refused a request to join")
        WITHDRAW_REQUEST = "withdraw_request", _("withdrew a request to join")
        INVITE = "invite", _("sent an invitation")
        REVOKE_INVITATION = "revoke_invitation", _("withdrew an invitation")
        ACCEPT_INVITATION = "accept_invitation", _("joined by invitation")
        REMOVE = "remove", _("removed a member")
        LEAVE = "leave", _("left the organization")
        MAKE_ADMIN = "make_admin", _("made a member an administrator")
        REVOKE_ADMIN = "revoke_admin", _("made an administrator a member")

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="events", editable=False
    )
    action = models.CharField(max_length=32, choices=Action)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    member_name = models.CharField(max_length=150, blank=True)
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16, blank=True)
    at = models.DateTimeField()
    payload = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action}"
