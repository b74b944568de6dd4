from .accounts import Broker, FormSubmission, User
from .organizations import (
    Invitation,
    JoinRequest,
    Membership,
    Organization,
    OrganizationEvent,
)

__all__ = [
    "Broker",
    "FormSubmission",
    "Invitation",
    "JoinRequest",
    "Membership",
    "Organization",
    "OrganizationEvent",
    "User",
]
