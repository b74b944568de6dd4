from .accounts import User
from .alerts import CannotSaveSearch, Reminder, SavedSearch
from .follows import CannotFollow, Follow
from .membership import Invitation, JoinRequest, Membership
from .organizations import Organization, OrganizationEvent

__all__ = [
    "CannotFollow",
    "CannotSaveSearch",
    "Follow",
    "Invitation",
    "JoinRequest",
    "Membership",
    "Organization",
    "OrganizationEvent",
    "Reminder",
    "SavedSearch",
    "User",
]
