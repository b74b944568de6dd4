"""Who is acting. Every write is done by an Actor; model methods check its role themselves.

The API resolves an actor from the broker key and an access token, the portal from the signed-in
user's organization. The role is always relative to one object (`subject`): a tender owner's actor
is the owner of *that* tender, and a model method checks both.
"""

from dataclasses import dataclass, field
from enum import StrEnum

from core import tokens


class Role(StrEnum):
    TENDER_OWNER = "tender_owner"
    BID_OWNER = "bid_owner"
    COMPLAINT_OWNER = "complaint_owner"
    # Whoever holds a signed contract's own token (contracting's credentials), or in the portal
    # the organization that owns its tender.
    CONTRACT_OWNER = "contract_owner"
    # The portal's own machines: an operator vouching for organizations, an administrator of
    # an organization, a person asking to join one or invited to.
    OPERATOR = "operator"
    ORGANIZATION_ADMIN = "organization_admin"
    APPLICANT = "applicant"
    # Whoever holds an invitation's link (its token).
    INVITEE = "invitee"
    # Known, but owning nothing relevant: a broker key without a matching token, or a signed-in
    # portal user whose organization owns none of the objects at hand.
    AUTHENTICATED = "authenticated"
    ANONYMOUS = "anonymous"
    # The auction module: a key with the auction role (manage.py add_broker --role auction)
    # reports auctions' urls and results, and acts as nothing else.
    AUCTION = "auction"
    # Changes nobody asks for: caused by time (the chronograph, or a read that finds a deadline
    # passed) or by another change (a cancelled award voids its contract and claims).
    SYSTEM = "system"


@dataclass(frozen=True)
class Actor:
    role: Role
    broker: object = None
    user: object = None
    subject: object = None
    # The access token the role was granted for (the API's), where the subject's token can be
    # replaced: its model checks it again on the row its change locks.
    token: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def anonymous(cls) -> "Actor":
        return cls(Role.ANONYMOUS)

    @classmethod
    def system(cls) -> "Actor":
        return cls(Role.SYSTEM)

    @property
    def organization(self):
        """The portal user's organization (what the objects it creates belong to)."""
        return getattr(self.user, "organization", None)

    @property
    def is_authenticated(self) -> bool:
        """A known caller, who may act on its own account (ask, file, register, bid): anyone
        but an anonymous one and the auction module, whose key reports auctions only."""
        return self.role not in (Role.ANONYMOUS, Role.AUCTION)

    def acts_as(self, role: Role, subject) -> bool:
        """True when this actor holds `role` for exactly `subject` (same model, same pk)."""
        if self.role is not role:
            return False
        if role in (Role.AUTHENTICATED, Role.ANONYMOUS, Role.SYSTEM):
            return True
        return (
            self.subject is not None
            and type(self.subject) is type(subject)
            and self.subject.pk == subject.pk
        )

    def owning(self, subject, role: Role) -> "Actor":
        """This caller as the owner (holding `role`) of `subject`, which it is creating."""
        return Actor(role, broker=self.broker, user=self.user, subject=subject)

    def check_standing(self, *, in_public: bool = True) -> None:
        """May this actor act at all (`in_public`: in a way others see: publishing, bidding,
        filing, answering, deciding)? Brokers are accredited when their key is issued; a portal
        user acts once its e-mail is confirmed, and in public only for a verified organization.
        Guards ask this after their other checks, so that an action the actor's role and the
        object's status allow is refused for its standing alone."""
        if self.user is not None:
            self.user.check_standing(in_public=in_public)

    @property
    def name(self) -> str:
        """Who to record in the audit trail."""
        if self.broker is not None:
            return str(self.broker)
        if self.user is not None:
            return self.user.get_username()
        return str(self.role)


def portal_actor(user, *candidates) -> Actor:
    """The actor behind a signed-in portal user: the first (role, object) its organization owns,
    else an authenticated account owning nothing here, else anonymous."""
    if user is None or not user.is_authenticated:
        return Actor.anonymous()
    organization = user.organization
    for role, subject in candidates:
        if subject is not None and subject.is_owned_by_organization(organization):
            return Actor(role, user=user, subject=subject)
    return Actor(Role.AUTHENTICATED, user=user)


@dataclass(frozen=True)
class Viewer:
    """Who is reading. Drafts (and an answer saved but not sent) are shown to their owner alone:
    in the API the broker that made the object (its key on the request) or whoever presents the
    object's own token; in the portal the members of the organization that owns it."""

    broker: object = None
    organization: object = None
    token: str | None = None

    @classmethod
    def of_user(cls, user) -> "Viewer":
        if user is None or not user.is_authenticated:
            return cls()
        return cls(organization=user.organization)

    def owns(self, obj) -> bool:
        if self.broker is not None and obj.broker_id == self.broker.pk:
            return True
        if self.organization is not None and obj.organization_id == self.organization.pk:
            return True
        return tokens.matches(self.token, obj.token_digest)
