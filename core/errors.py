"""Domain errors: what went wrong, in the 2.3 vocabulary, with no transport code.

Each face translates them once: the API's exception handler renders the 2.3 error envelope
(`{"status": "error", "errors": [{location, name, description}]}`), the portal shows
`description` next to the form field named by `name`.
"""

from django.db import InterfaceError, OperationalError
from django.utils.translation import gettext_noop


class DomainError(Exception):
    http_status = 403
    location = "body"
    name = "data"
    code = "forbidden"
    # The model method's keyword argument (= the portal form's field) the error is about.
    field = None

    def __init__(
        self,
        description="Forbidden",
        *,
        code=None,
        location=None,
        name=None,
        field=None,
        params=None,
    ):
        super().__init__(description)
        self.description = description
        # What the portal's words for `code` name (core/refusals.py): a status in words,
        # a moment; the API sends the 2.3 description alone.
        self.params = params or {}
        if code is not None:
            self.code = code
        if location is not None:
            self.location = location
        if name is not None:
            self.name = name
        if field is not None:
            self.field = field

    def entries(self) -> list[dict]:
        return [{"location": self.location, "name": self.name, "description": self.description}]

    def headers(self) -> dict[str, str]:
        """HTTP headers the answer carries beside the status (Retry-After for 429)."""
        return {}


class Refused(DomainError):
    """What a guard raises: the actor may not make this change now. Every guard's refusal is
    one of these, so a predicate (`worth_offering`) catches this type alone."""


class NotAllowed(Refused):
    """A business rule refuses the change: 403 with a "Can't ..." description."""

    code = "not_allowed"


def in_tender_status(doing: str, tender) -> NotAllowed:
    """2.3's refusal of `doing` ("update award") while the tender is in its status."""
    return NotAllowed(
        f"Can't {doing} in current ({tender.status}) tender status",
        code="tender_status",
        params={"status": tender.get_status_display()},
    )


def in_own_status(doing: str, subject) -> NotAllowed:
    """2.3's refusal of `doing` ("update award") while `subject` is in its status."""
    return NotAllowed(
        f"Can't {doing} in current ({subject.status}) status",
        code="own_status",
        params={"status": subject.get_status_display()},
    )


class PermissionDenied(Refused):
    """No credentials for this object (wrong or missing token, no key)."""

    code = "permission"
    location = "url"
    name = "permission"

    def __init__(self):
        super().__init__("Forbidden")


class RoleNotAllowed(Refused):
    """Valid credentials, but this role may not make this change in the current state."""

    code = "role"
    location = "url"
    name = "role"

    def __init__(self):
        super().__init__("Forbidden")


class NotFound(DomainError):
    http_status = 404
    code = "not_found"
    location = "url"

    def __init__(self, name: str, *, location: str = "url", description: str = "Not Found"):
        super().__init__(description, name=name, location=location)


class Conflict(DomainError):
    http_status = 409
    code = "conflict"

    def __init__(self, description="Conflict while updating document. Please, retry"):
        super().__init__(description)


class InvalidData(DomainError):
    """Field errors: `errors` maps a field name to its 2.3 description (a list or a dict)."""

    http_status = 422
    code = "invalid"

    def __init__(self, errors: dict, *, location: str = "body"):
        super().__init__("Invalid data", location=location)
        self.errors = errors

    def entries(self) -> list[dict]:
        return [
            {"location": self.location, "name": name, "description": description}
            for name, description in self.errors.items()
        ]

    @classmethod
    def field(cls, name: str, message: str) -> "InvalidData":
        return cls({name: [message]})


class NotInGoodStanding(Refused):
    """The portal account may not act (yet): its e-mail is unconfirmed, it belongs to no
    organization, or its organization is not verified. Brokers are accredited when their key
    is issued, so the API never meets this."""

    code = "standing"
    location = "body"
    name = "standing"


class EmailNotConfirmed(NotInGoodStanding):
    code = "email_not_confirmed"

    def __init__(self):
        super().__init__(
            gettext_noop("Confirm your e-mail address first: follow the link we sent to it.")
        )


class NoOrganization(NotInGoodStanding):
    code = "no_organization"

    def __init__(self):
        super().__init__(gettext_noop("Your account does not belong to an organization yet."))


class OrganizationNotVerified(NotInGoodStanding):
    code = "not_verified"

    def __init__(self):
        super().__init__(
            gettext_noop(
                "Your organization is not verified yet: it may write drafts, but it publishes "
                "tenders, bids, files and answers claims and decides awards only once an "
                "operator has verified it."
            )
        )


def worth_offering(check, *args) -> bool:
    """Does an action pass its guard (`check(*args)`)? One refused only for the actor's
    standing is still offered: trying it says what the account must do first."""
    try:
        check(*args)
    except NotInGoodStanding:
        return True
    except Refused:
        return False
    return True


def error_of(check, *args) -> Refused | None:
    """The refusal `check(*args)` raises, or None if it passes."""
    try:
        check(*args)
    except Refused as refused:
        return refused
    return None


def refusal_of(check, *args) -> str | None:
    """Why `check(*args)` refuses (the 2.3 description), or None if it passes."""
    try:
        check(*args)
    except Refused as refused:
        return refused.description
    return None


class Unavailable(DomainError):
    """A part the service depends on (the database, the document store) cannot be reached or
    refuses writes: nothing was changed, and the same request may succeed a little later."""

    http_status = 503
    code = "unavailable"
    location = "request"
    retry_after_seconds = 30

    def __init__(self, part: str):
        super().__init__("Service Unavailable", name=part)

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_seconds)}


def infrastructure_failure(exc: BaseException) -> Unavailable | None:
    """The 503 that `exc` means when it is the database being out of reach (a lost or refused
    connection, a server shutting down), else None. Errors of the query itself are bugs."""
    if isinstance(exc, Unavailable):
        return exc
    if isinstance(exc, InterfaceError):
        return Unavailable("database")
    if isinstance(exc, OperationalError) and not is_retryable(exc):
        return Unavailable("database")
    return None


RETRYABLE_SQLSTATES = frozenset({"40001", "40P01", "55P03"})


def is_retryable(exc: BaseException) -> bool:
    """A lock timeout, a deadlock or a serialization failure (a "database is locked" on
    SQLite): the transaction lost a race and the same request may simply be sent again."""
    if getattr(exc.__cause__, "sqlstate", None) in RETRYABLE_SQLSTATES:
        return True
    return isinstance(exc, OperationalError) and "database is locked" in str(exc)
