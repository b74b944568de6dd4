"""Refusals of membership and verification changes (shown next to the form)."""

from django.utils.translation import gettext_noop

from core import errors
from core.errors import NotAllowed


class Refused(NotAllowed):
    """A membership or verification change the rules refuse (shown next to the form)."""

    code = "membership"


class NotAnAdministrator(errors.Refused):
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
