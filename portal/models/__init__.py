from .accounts import User
from .alerts import CannotSaveSearch, Reminder, SavedSearch
from .membership import Invitation, JoinRequest, Membership
from .organizations import Organization, OrganizationEvent

__all__ = [
    "CannotSaveSearch",
    "Invitation",
    "JoinRequest",
    "Membership",
    "Organization",
    "OrganizationEvent",
    "Reminder",
    "SavedSearch",
    "User",
]
