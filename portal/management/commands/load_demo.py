"""Demo data for `make run`: brokers, portal users, and tenders in different stages.

Tenders reach their stages through the real transitions, with the clock set back (time-machine)
so that enquiries, tendering and complaint periods have really passed. Running it again changes
nothing and prints the credentials again.
"""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.test.utils import override_settings

from core import tokens
from core.models import Broker
from portal.demo import DemoStory
from portal.models import Organization, User
from tenders.models import Tender

BROKERS = {"broker": "broker", "broker2": "broker2"}
PASSWORD = "demo-password"
QUIET = {"default": {"BACKEND": "django.core.mail.backends.dummy.EmailBackend"}}
# (the e-mail is sent by a task: queued in the database, it would go out when the worker starts)
UNQUEUED = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
# user name, (first, last name), organization, its identifier, its kind
USERS = [
    ("buyer", ("Олег", "Мельник"), "Київська міська клінічна лікарня №3", "01993913",
     Organization.Kind.PROCURING),
    ("bidder", ("Ірина", "Бондар"), "ТОВ «Медтехсервіс»", "38012345", Organization.Kind.BIDDER),
    ("bidder2", ("Олена", "Коваленко"), "ФОП Коваленко Олена Петрівна", "2894512345",
     Organization.Kind.BIDDER),
]  # fmt: skip


class Command(BaseCommand):
    help = "Load demo brokers, users and tenders (once) and print how to use them."

    def add_arguments(self, parser):
        parser.add_argument(
            "--migrate",
            action="store_true",
            help="bring the database's tables up to date first (make run: one process fewer)",
        )

    def handle(self, *args, migrate=False, **options):
        if migrate:
            call_command("migrate", interactive=False, verbosity=0)
        brokers = self._brokers()
        # The demo's past needs no e-mail about it.
        with override_settings(MAILERS=QUIET, TASKS=UNQUEUED):
            users = self._users()
            kept = Tender.objects.count()
            if not kept:
                self._tenders(brokers, users)
        self._print(kept)

    def _brokers(self) -> dict[str, Broker]:
        brokers = {}
        self.new_keys = {}
        for name, demo_key in BROKERS.items():
            broker = Broker.objects.filter(name=name).first()
            if broker is None:
                # The short keys are for a developer's machine; anywhere else keys are real.
                key = demo_key if settings.DEBUG else tokens.new_token()
                broker = Broker(name=name)
                broker.set_key(key, short_allowed=settings.DEBUG)
                broker.save()
                self.new_keys[name] = key
            brokers[name] = broker
        return brokers

    def _users(self) -> dict[str, User]:
        """Each demo user signs up naming its organization and confirms its e-mail; the
        operator (admin) verifies the organizations, as for anyone else."""
        operator = User.objects.filter(username="admin").first()
        if operator is None:
            operator = User.objects.create_superuser("admin", password=PASSWORD)
        users = {}
        for username, (first, last), name, identifier, kind in USERS:
            user = User.objects.filter(username=username).first()
            if user is None:
                user = User.objects.create_user(
                    username,
                    password=PASSWORD,
                    email=f"{username}@example.org",
                    first_name=first,
                    last_name=last,
                )
                user.pending_organization = {"name": name, "identifier": identifier, "kind": kind}
                user.save()
                User.confirm_email(user.confirmation_token())
                user = User.objects.get(pk=user.pk)
            if user.organization is not None and not user.organization.is_verified:
                user.organization.verify(user=operator)
            users[username] = user
        return users

    @transaction.atomic
    def _tenders(self, brokers, users) -> None:
        """The buyer's tenders, made in the portal, one in each stage of the lifecycle."""
        story = DemoStory(brokers, users)
        for stage in (
            story.enquiries, story.tendering, story.auction_soon, story.qualification,
            story.awarded, story.complete, story.unsuccessful, story.signable,
        ):  # fmt: skip
            stage()

    def _keys_text(self) -> str:
        if settings.DEBUG:
            return (
                f"  API brokers (Basic auth, key as user name): {', '.join(BROKERS.values())}\n"
                "    curl -u broker: http://127.0.0.1:8000/api/2.3/tenders\n"
            )
        if not self.new_keys:
            return "  API brokers: their keys were printed once; `add_broker NAME` sets new ones\n"
        keys = "".join(f"    {name}: {key}\n" for name, key in self.new_keys.items())
        return f"  API brokers' keys (shown once; Basic auth, key as user name):\n{keys}"

    def _print(self, kept: int = 0) -> None:
        if kept:
            done = (
                f"\nThe database holds {kept} tender(s) already: no demo tender is added, and what"
                "\nis there is kept (the demo users and brokers are there too). For the demo"
                "\nafresh, delete db.sqlite3 and run make run again.\n"
            )
        else:
            done = "\nDemo data is loaded.\n"
        self.stdout.write(
            done + f"{self._keys_text()}"
            f"  Portal users (password {PASSWORD}): "
            f"{', '.join(username for username, *_ in USERS)}; admin for /admin/\n"
            "  Portal: http://127.0.0.1:8000/ (the buyer owns the demo tenders: a question and\n"
            "  a claim await its answers, one contract is ready to sign, one signed has a change;\n"
            "  bids on «Марля медична» close 15 minutes after the demo was loaded, and bidder and\n"
            "  bidder2 meet in its electronic auction: see each one's dashboard)\n"
            "  A new account's e-mail confirmation link is printed here (the console e-mail).\n"
            "  New organizations wait for an operator: sign in to\n"
            "    http://127.0.0.1:8000/admin/portal/organization/?verification__exact=pending\n"
            '  as admin, tick the organization and choose "Підтвердити вибрані організації"\n'
            '  ("Verify the selected organizations" in English).\n'
        )
