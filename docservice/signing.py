"""Ed25519 URL signatures and the keyring.

Two parties sign: the document service (the URLs it hands out to uploaders) and the registry
(the URLs it shows in documents). A key is named by its KeyID, the first 8 hex digits of its
verify key. Each party signs with the first of its keys; every key of both, and every
DOCSERVICE_TRUSTED_KEYS verify key, verifies, so old URLs keep working while keys rotate.

Messages (each kind distinct, so one URL's signature never opens another's door):
    "<id>\\0<md5 hex>"      a permanent download URL, bound to the registered content
    "<id>\\0<expires>"      a temporary download URL (expires: Unix seconds)
    "upload\\0<id>"         the URL to upload a registered document's content
"""

import base64
import binascii
from functools import cache

from django.conf import settings
from nacl.encoding import HexEncoder
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

DOCSERVICE = "docservice"
REGISTRY = "registry"


class SignatureError(Exception):
    """What is wrong with a presented signature: 'key' (unknown KeyID), 'encoding', 'mismatch'."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def key_id(verify_key: VerifyKey) -> str:
    return verify_key.encode(HexEncoder)[:8].decode()


class Keyring:
    def __init__(self, signers: dict[str, list[str]], trusted: list[str] = ()):
        if not all(signers.values()):
            raise ValueError("every signing party needs at least one key")
        self.signers = {
            party: SigningKey(seeds[0], encoder=HexEncoder) for party, seeds in signers.items()
        }
        verify_keys = [
            SigningKey(seed, encoder=HexEncoder).verify_key
            for seeds in signers.values()
            for seed in seeds
        ]
        verify_keys += [VerifyKey(hex_key, encoder=HexEncoder) for hex_key in trusted]
        self.verify_keys = {key_id(key): key for key in verify_keys}

    def sign(self, message: str, party: str) -> tuple[str, str]:
        """(KeyID, Signature) for `message`; the signature is base64."""
        signer = self.signers[party]
        signature = signer.sign(message.encode()).signature
        return key_id(signer.verify_key), base64.b64encode(signature).decode()

    def verify(self, key: str, signature: str, message: str) -> None:
        verify_key = self.verify_keys.get(key)
        if verify_key is None:
            raise SignatureError("key")
        try:
            raw = base64.b64decode(signature, validate=True)
        except (binascii.Error, ValueError):
            raise SignatureError("encoding") from None
        try:
            verify_key.verify(message.encode(), raw)
        except (BadSignatureError, ValueError):
            raise SignatureError("mismatch") from None


@cache
def _keyring(docservice: tuple[str, ...], registry: tuple[str, ...], trusted: tuple[str, ...]):
    return Keyring({DOCSERVICE: list(docservice), REGISTRY: list(registry)}, list(trusted))


def keyring() -> Keyring:
    return _keyring(
        tuple(settings.DOCSERVICE_SIGNING_KEYS),
        tuple(settings.REGISTRY_SIGNING_KEYS),
        tuple(settings.DOCSERVICE_TRUSTED_KEYS),
    )


def permanent_message(doc_id: str, md5: str) -> str:
    return f"{doc_id}\0{md5}"


def temporary_message(doc_id: str, expires: int) -> str:
    return f"{doc_id}\0{expires}"


def upload_message(doc_id: str) -> str:
    return f"upload\0{doc_id}"
