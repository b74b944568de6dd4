"""Organizations, who belongs to them, and who vouches for them.

A person never becomes a member by naming an organization: a new organization's first member
is its administrator, and anyone else is admitted by an administrator (a request to join, or
an invitation by e-mail). An organization acts in public (publishes tenders, bids, files and
answers claims, decides awards) only once an operator has verified it.

    verification: pending --verify--> verified --refuse--> refused --verify--> verified
                  pending --refuse--> refused

Every change locks the organization's row (so two administrators cannot remove each other and
leave none) and is written to its audit trail (OrganizationEvent). The verification and a
request to join are status machines of the common frame (core.transitions).
"""

from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core import limits, notices, tokens
from core.actors import Actor, Role, portal_actor
from core.errors import InvalidData, NotFound
from core.transitions import StatusMachine, transition

from .membership import Invitation, JoinRequest, Membership
from .organization_errors import LastAdministrator, NotAnAdministrator, Refused


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
                organization.record("register", user=user, to_status=organization.verification)
                return organization
            organization.lock()
            request = JoinRequest.objects.create(user=user, organization=organization)
            organization.record("request", user=user, member=user)
            notices.send(
                "portal/email/join_requested.txt",
                {"request": request, "organization": organization, "link": notices.link("members")},
                organization.emails(admins=True),
            )
            return request


class Organization(StatusMachine, models.Model):
    """A procuring entity or a bidder, as portal users belong to it."""

    class Kind(models.TextChoices):
        PROCURING = "procuring", _("procuring entity")
        BIDDER = "bidder", _("bidder")

    class Verification(models.TextChoices):
        PENDING = "pending", _("awaiting verification")
        VERIFIED = "verified", _("verified")
        REFUSED = "refused", _("verification refused")

    # The verification machine: operators vouch for an organization or refuse it.
    STATUS_FIELD = "verification"
    STAMP_FIELD = "verification_date"
    TRANSITIONS = {
        "verify": transition(
            {Verification.PENDING, Verification.REFUSED}, Verification.VERIFIED, Role.OPERATOR
        ),
        "refuse": transition(
            {Verification.PENDING, Verification.VERIFIED}, Verification.REFUSED, Role.OPERATOR
        ),
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
        verbose_name, verbose_name_plural = _("organization"), _("organizations")
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
    def awaits_verification(self) -> bool:
        return self.verification == self.Verification.PENDING

    @property
    def verification_refused(self) -> bool:
        return self.verification == self.Verification.REFUSED

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
        return self.invitations.filter(status=Invitation.Status.PENDING, expires_at__gt=now)

    # --- the frame of every change --------------------------------------------------------

    def lock(self) -> None:
        """Lock this organization's row for the rest of the transaction and reload it."""
        self.refresh_from_db(from_queryset=Organization.objects.select_for_update())

    def record(self, action: str, *, user, member=None, from_status="", to_status="", **payload):
        """The event on its trail: `user` did `action` (to `member`)."""
        OrganizationEvent.objects.create(
            organization=self,
            action=action,
            actor=user,
            actor_name=user.get_username() if user is not None else "",
            member=member,
            member_name=member.get_username() if member is not None else "",
            from_status=from_status,
            to_status=to_status,
            at=timezone.now(),
            payload=payload,
        )

    def has_admin(self, user) -> bool:
        """Is `user` an administrator of it now? Read afresh (under the organization's lock, a
        removed administrator acts no more)."""
        admins = Membership.objects.filter(organization=self, role=Membership.Role.ADMIN)
        return admins.filter(user=user).exists()

    def check_admin(self, user) -> None:
        """An administrator of this organization, with its e-mail confirmed."""
        if not self.has_admin(user):
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

    def role_of(self, by: Actor) -> Role | None:
        user = by.user
        return Role.OPERATOR if user and user.has_perm("portal.verify_organization") else None

    def status_refusal(self, action: str) -> Refused:
        return Refused(f"Can't {action} an organization in current ({self.verification}) status")

    def lock_for_change(self):
        self.lock()
        return timezone.now()

    def record_change(self, action: str, by: Actor, now, before, fields) -> None:
        self.record(
            action, user=by.user, from_status=before, to_status=self.verification,
            reason=self.refusal_reason,
        )  # fmt: skip

    def _decide_verification(self, action: str, user, reason: str = "") -> None:
        by = portal_actor(user)
        with transaction.atomic():
            now = self.begin(action, by)
            self.apply(action, by, now, refusal_reason=reason)
            notices.send(
                f"portal/email/organization_{self.verification}.txt",
                {"organization": self, "link": notices.link("dashboard")},
                self.emails(),
            )

    def verify(self, *, user) -> None:
        """An operator vouches for the organization: from now on it acts in public."""
        self._decide_verification("verify", user)

    def refuse(self, *, user, reason: str) -> None:
        """An operator refuses (or withdraws) the verification, saying why."""
        reason = (reason or "").strip()
        if not reason:
            raise InvalidData.field("reason", gettext_noop("Say why the verification is refused."))
        self._decide_verification("refuse", user, reason)

    # --- members (administrators) ---------------------------------------------------------

    def invite(self, *, user, email: str) -> tuple["Invitation", str]:
        """Invite a person by e-mail: a one-time link that expires. An earlier invitation to
        the same address stops working. Returns the invitation and the link's token."""
        email = email.strip()
        with transaction.atomic():
            self.lock()
            self.check_admin(user)
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
            for earlier in self.pending_invitations().filter(email__iexact=email):
                earlier.replace(user=user, now=now)
            token = tokens.new_token()
            invitation = self.invitations.create(
                email=email,
                token_digest=tokens.digest(token),
                invited_by=user,
                created=now,
                expires_at=now + timedelta(days=settings.INVITATION_DAYS),
            )
            self.record("invite", user=user, email=email)
            notices.send(
                "portal/email/invitation.txt",
                {
                    "invitation": invitation,
                    "organization": self,
                    "inviter": user,
                    "link": notices.link("invitation", token),
                },
                [email],
            )
        return invitation, token

    def remove(self, *, user, member) -> None:
        """An administrator removes a member (the last administrator stays)."""
        with transaction.atomic():
            self.lock()
            self.check_admin(user)
            membership = self._membership_of(member)
            self._check_not_last_admin(membership)
            membership.delete()
            self.record("remove", user=user, member=member)

    def leave(self, *, user) -> None:
        """A member leaves (the last administrator cannot)."""
        with transaction.atomic():
            self.lock()
            membership = self._membership_of(user)
            self._check_not_last_admin(membership)
            membership.delete()
            self.record("leave", user=user, member=user)

    def set_role(self, *, user, member, admin: bool) -> None:
        """Make a member an administrator, or an administrator a member again (not the last)."""
        role = Membership.Role.ADMIN if admin else Membership.Role.MEMBER
        with transaction.atomic():
            self.lock()
            self.check_admin(user)
            membership = self._membership_of(member)
            if membership.role == role:
                return
            if not admin:
                self._check_not_last_admin(membership)
            membership.role = role
            membership.save(update_fields=["role"])
            self.record("make_admin" if admin else "revoke_admin", user=user, member=member)


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
        REPLACE_INVITATION = "replace_invitation", _("replaced an invitation by a new one")
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
