from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from core import tokens
from core.models import Broker


class Command(BaseCommand):
    help = (
        "Create a broker or change its API key. Without --key a key is generated and printed once."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="the broker's name, shown as `owner` on what it creates")
        parser.add_argument(
            "--key",
            help=f"the API key to set, at least {Broker.MIN_KEY_LENGTH} characters "
            "(default: a new random key)",
        )
        parser.add_argument(
            "--role",
            choices=["broker", "auction"],
            default="broker",
            help="broker (the default): acts for its clients; auction: the auction module, "
            "which only reports auctions' links and results (/tenders/{id}/auction)",
        )

    def handle(self, *args, name, key=None, role="broker", **options):
        generated = key is None
        key = tokens.new_token() if key is None else key
        broker = Broker.objects.filter(name=name).first() or Broker(name=name)
        created = broker.pk is None
        try:
            broker.set_key(key)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        broker.is_active = True
        broker.role = role
        try:
            broker.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        broker.save()
        self.stdout.write(f"{'Created' if created else 'Updated'} {role} {name}.")
        if generated:
            self.stdout.write(f"API key (shown once): {key}")
