"""Secrets handed to clients: broker API keys and owner access tokens.

Only a SHA-256 digest is stored; a secret is shown once, when it is issued. These are random
128-bit values, not passwords, so a fast digest is enough and lookups stay cheap per request.
"""

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_hex(16)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def matches(secret: str | None, stored_digest: str) -> bool:
    if not secret or not stored_digest:
        return False
    return hmac.compare_digest(digest(secret), stored_digest)
