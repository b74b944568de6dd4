"""Object ids: 32 lowercase hex digits, made here. A path segment of any other shape names no
object, and is answered 404 without asking the database (a NUL byte, which PostgreSQL refuses
in text, never reaches it)."""

import re
import uuid

_ID = re.compile(r"[0-9a-f]{32}")


def new_id() -> str:
    return uuid.uuid4().hex


def is_id(value) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None
