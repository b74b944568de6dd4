from .accounts import User
from .organizations import (
    Invitation,
    JoinRequest,
    Membership,
    Organization,
    OrganizationEvent,
)

__all__ = [
    "Invitation",
    "JoinRequest",
    "Membership",
    "Organization",
    "OrganizationEvent",
    "User",
]
