"""Property-based fuzzing of the API and the document service over their OpenAPI description
(schemathesis, in-process against the WSGI application, on the suite's database).

Every operation is called with generated valid and invalid data in a world of real tenders in
every status (tests/fuzz/world.py), most cases aimed at its objects with their tokens
(tests/fuzz/aim.py) so that they reach the rules; a stateful run follows the description's links
(create a tender, then use its id and owner token). A run fails on any 5xx, on an answer whose
status, content type or body the description does not give, and on any error body outside the
2.3 envelope; and unless most operations were answered 2xx at least once.

Bounded for `make test` (FUZZ_EXAMPLES per operation and mode, 8 by default); the longer run
in the README (`make fuzz`) sets FUZZ_EXAMPLES=150.
"""

import os
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import schemathesis
import time_machine
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.test import Client, override_settings
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from complaints.models import Complaint
from core.models import Broker
from tenders.models import Tender
from tests.fuzz.aim import Aim
from tests.fuzz.world import Builder, World
from tests.helpers import Clock, basic, settings_for_tests

SENT: Counter[int] = Counter()
STATEFUL: Counter[int] = Counter()
BY_OPERATION: defaultdict[str, Counter[str]] = defaultdict(Counter)  # "2xx", "4xx"...
REFUSALS: defaultdict[str, Counter[str]] = defaultdict(Counter)  # by their first error
REPORT = Path(__file__).resolve().parents[2] / "build" / "fuzz-report.txt"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
STATEFUL_EXAMPLES = int(os.environ.get("FUZZ_STATEFUL_EXAMPLES", str(max(EXAMPLES // 2, 3))))
KEY = "fuzzing-broker-key-0123456789abcdef"


@schemathesis.check
def errors_are_the_envelope(ctx, response, case):
    """Every error, whatever its status, is `{"status": "error", "errors": [...]}`."""
    if response.status_code < 400:
        return None
    headers = {name.lower(): value for name, value in response.headers.items()}
    content_type = headers.get("content-type", "")
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    assert content_type.startswith("application/json"), "an error answered without JSON"
    body = response.json()
    assert body.get("status") == "error", "an error body without status: error"
    entries = body.get("errors")
    assert isinstance(entries, list) and entries, "an error body without errors"
    for entry in entries:
        assert set(entry) == {"location", "name", "description"}, f"an odd entry: {entry}"
    return None


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    errors_are_the_envelope,
]

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = get_wsgi_application()
schema.config.update(headers={"Authorization": basic(KEY)})
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    deterministic=True,
)
schema.config.phases.stateful.inference.algorithms = []


# Limits a fuzzer does not reach, and the Host the in-process client sends.
FUZZING_SETTINGS = {
    "ALLOWED_HOSTS": ["testserver", "localhost"],
    **{
        f"API_RATE_{caller}_{name}": "1000000/minute"
        for caller in ("ANONYMOUS", "BROKER")
        for name in ("READS", "WRITES")
    },
}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The world, built once in a transaction each test nests in (and rolls back to), on the
    settings every test has; undone at the end of the module."""
    documents = tmp_path_factory.mktemp("fuzz-documents")
    with (
        django_db_blocker.unblock(),
        override_settings(**settings_for_tests(documents), **FUZZING_SETTINGS),
    ):
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            broker = Broker(name="fuzzer")
            broker.set_key(KEY)
            broker.save()
            traveller = time_machine.travel(timezone.now(), tick=False)
            built = Builder(Client(), KEY, Clock(traveller.start())).build()
            traveller.stop()
            yield built, documents
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture(scope="module", autouse=True)
def report():
    """What the run sent and how it was answered: build/fuzz-report.txt (the README quotes
    the long run's)."""
    yield
    if SENT:
        REPORT.parent.mkdir(exist_ok=True)
        statuses = ", ".join(f"{status}: {count}" for status, count in sorted(SENT.items()))
        server_errors = sum(count for status, count in SENT.items() if status >= 500)
        lines = [
            f"FUZZ_EXAMPLES={EXAMPLES}: {SENT.total()} requests; {statuses}; "
            f"5xx: {server_errors}; of them by the stateful run: {STATEFUL.total()}, "
            f"created: {STATEFUL[201]}",
            f"past the lookup (answered other than 404): {SENT.total() - SENT[404]}; "
            f"operations reached with a 2xx: {len(reached())} of {len(OPERATIONS)}",
            "",
            f"{'operation':<90} {'2xx':>5} {'4xx':>5} {'5xx':>5}  most frequent refusals",
        ]
        for operation in OPERATIONS:
            counts = BY_OPERATION[operation]
            refusal = "; ".join(
                f"{text} ({times})"
                for text, times in REFUSALS[operation].most_common(
                    int(os.environ.get("FUZZ_REFUSALS", "1"))
                )
            )
            lines.append(
                f"{operation:<90} {counts['2xx']:>5} {counts['4xx']:>5} {counts['5xx']:>5}"
                f"  {refusal}"
            )
        REPORT.write_text("\n".join(lines) + "\n")


OPERATIONS = [
    f"{operation.method.upper()} {operation.path}"
    for operation in (result.ok() for result in schema.get_all_operations())
]


def reached() -> list[str]:
    return [operation for operation in OPERATIONS if BY_OPERATION[operation]["2xx"]]


def count(case, response, world: World | None) -> None:
    """Counts the answer (a refusal by its first error), and tells the world (the stateful
    run's, which keeps what it made for its next steps) what a 2xx made."""
    operation = f"{case.method.upper()} {case.path}"
    SENT[response.status_code] += 1
    BY_OPERATION[operation][f"{response.status_code // 100}xx"] += 1
    try:
        body = response.json()
    except ValueError:
        return
    if response.status_code >= 400 and isinstance(body, dict) and body.get("errors"):
        first = body["errors"][0]
        REFUSALS[operation][f"{response.status_code} {first['name']}: {first['description']}"] += 1
    if (
        world
        and 200 <= response.status_code < 300
        and case.method.upper() in ("POST", "PATCH", "PUT")
    ):
        world.note(case.formatted_path, response.status_code, body)


@pytest.fixture
def aim(world, settings, db):
    """Aims cases at a fresh copy of the world (the database is back to it for each test).
    Meanwhile requests keep the test's connection, as Django's test client does: at the end of
    a request Django would close it, and the test's transaction with it."""
    built, documents = world
    for name, value in FUZZING_SETTINGS.items():
        setattr(settings, name, value)
    settings.STORAGES = {
        **settings.STORAGES,
        "documents": {**settings.STORAGES["documents"], "OPTIONS": {"location": str(documents)}},
    }
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield Aim(built.copy())
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
def test_every_operation_answers_as_described(case, aim):
    """Each case meets the world as built: what it changed is rolled back after it, so a case
    Hypothesis replays is answered as it was."""
    with transaction.atomic():
        aim(case)
        response = case.call()
        count(case, response, world=None)
        transaction.set_rollback(True)
    case.validate_response(response, checks=CHECKS)


class Workflow(schema.as_state_machine()):
    """Each scenario starts from the world as built (and its changes are rolled back after
    it), so a scenario Hypothesis replays is answered as it was."""

    world: World

    def setup(self):
        self.aim = Aim(self.world.copy())
        self.scenario = transaction.atomic()
        self.scenario.__enter__()

    def teardown(self):
        transaction.set_rollback(True)
        self.scenario.__exit__(None, None, None)

    def before_call(self, case):
        self.aim(case)

    def after_call(self, response, case):
        count(case, response, self.aim.world)
        STATEFUL[response.status_code] += 1

    def validate_response(self, response, case, **kwargs):
        case.validate_response(response, checks=CHECKS)


@pytest.fixture
def aimed_workflow(aim):
    Workflow.world = aim.world


TestStatefulWorkflow = pytest.mark.usefixtures("aimed_workflow")(
    pytest.mark.django_db(Workflow.TestCase)
)
TestStatefulWorkflow.settings = settings(
    TestStatefulWorkflow.settings,
    max_examples=STATEFUL_EXAMPLES,
    stateful_step_count=6,
    derandomize=True,
    deadline=None,
)


@pytest.mark.django_db
def test_the_world_holds_the_newest_steps(aim):
    """What the fuzzer meets: a tender in its auction, a contract with its terms written, a claim
    granted and accepted (the buyer then takes its decision back), beside the rest."""
    things = aim.world.things.values()
    assert any(thing.tender_status == "active.auction" for thing in things)
    tenders = Tender.objects.all()
    assert any(c.data.get("contractNumber") for t in tenders for c in t.contracts.all())
    assert Complaint.objects.filter(status="resolved", satisfied=True).count() == 2


def test_most_operations_are_reached_with_a_2xx():
    """Run after the others (pytest keeps the module's order); said only of a whole run."""
    if len({operation for operation in BY_OPERATION if BY_OPERATION[operation].total()}) < len(
        OPERATIONS
    ):
        pytest.skip("not every operation was fuzzed in this run")
    missed = sorted(set(OPERATIONS) - set(reached()))
    assert len(reached()) >= 0.8 * len(OPERATIONS), missed
