"""Domain errors: what went wrong, in the 2.3 vocabulary, with no transport code.

Each face translates them once: the API's exception handler renders the 2.3 error envelope
(`{"status": "error", "errors": [{location, name, description}]}`), the portal shows
`description` next to the form field named by `name`.
"""


class DomainError(Exception):
    http_status = 403
    location = "body"
    name = "data"
    code = "forbidden"
    # The model method's keyword argument (= the portal form's field) the error is about.
    field = None

    def __init__(self, description="Forbidden", *, code=None, location=None, name=None, field=None):
        super().__init__(description)
        self.description = description
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


class NotAllowed(DomainError):
    """A business rule refuses the change: 403 with a "Can't ..." description."""

    code = "not_allowed"


class PermissionDenied(DomainError):
    """No credentials for this object (wrong or missing token, no key)."""

    code = "permission"
    location = "url"
    name = "permission"

    def __init__(self):
        super().__init__("Forbidden")


class RoleNotAllowed(DomainError):
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
