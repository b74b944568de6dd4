from .accounts import User
from .membership import Invitation, JoinRequest, Membership
from .organizations import Organization, OrganizationEvent

__all__ = [
    "Invitation",
    "JoinRequest",
    "Membership",
    "Organization",
    "OrganizationEvent",
    "User",
]
