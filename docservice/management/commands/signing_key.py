from django.core.management.base import BaseCommand
from nacl.encoding import HexEncoder
from nacl.signing import SigningKey

from docservice.signing import key_id


class Command(BaseCommand):
    help = (
        "Make a new Ed25519 key for DOCSERVICE_SIGNING_KEYS or REGISTRY_SIGNING_KEYS (put it "
        "first; keep the old ones after it). Prints the seed (secret) and the verify key the "
        "other party puts in DOCSERVICE_TRUSTED_KEYS."
    )

    def handle(self, *args, **options):
        key = SigningKey.generate()
        self.stdout.write(f"seed (secret):      {key.encode(HexEncoder).decode()}")
        self.stdout.write(f"verify key:         {key.verify_key.encode(HexEncoder).decode()}")
        self.stdout.write(f"KeyID:              {key_id(key.verify_key)}")
