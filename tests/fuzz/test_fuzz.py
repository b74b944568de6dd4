"""Property-based fuzzing of the API and the document service over their OpenAPI description
(schemathesis, in-process against the WSGI application, on the suite's database).

Every operation is called with generated valid and invalid data, and a stateful run follows the
description's links (create a tender, then use its id and owner token). A run fails on any 5xx,
on an answer whose status, content type or body the description does not give, and on any error
body outside the 2.3 envelope.

Bounded for `make test` (FUZZ_EXAMPLES per operation and mode, 8 by default); the longer run
in the README sets FUZZ_EXAMPLES=300.
"""

import os
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
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

from portal.core.models import Broker
from tests.helpers import basic

SENT: Counter[int] = Counter()
STATEFUL: Counter[int] = Counter()
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


@pytest.fixture(scope="module", autouse=True)
def report():
    """What the run sent and how it was answered: build/fuzz-report.txt (the README quotes
    the long run's). Meanwhile requests keep the test's connection, as Django's test client
    does: at the end of a request Django would close it, and the test's transaction with it."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
    if SENT:
        REPORT.parent.mkdir(exist_ok=True)
        statuses = ", ".join(f"{status}: {count}" for status, count in sorted(SENT.items()))
        server_errors = sum(count for status, count in SENT.items() if status >= 500)
        REPORT.write_text(
            f"FUZZ_EXAMPLES={EXAMPLES}: {SENT.total()} requests; {statuses}; "
            f"5xx: {server_errors}; of them by the stateful run: {STATEFUL.total()}, "
            f"created: {STATEFUL[201]}\n"
        )


@pytest.fixture
def fuzzing(settings, db):
    """The broker the fuzzer presents, limits that a fuzzer does not reach, and the Host the
    in-process client sends."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]
    for name in ("READS", "WRITES"):
        for caller in ("ANONYMOUS", "BROKER"):
            setattr(settings, f"API_RATE_{caller}_{name}", "1000000/minute")
    broker = Broker(name="fuzzer")
    broker.set_key(KEY)
    broker.save()


@pytest.mark.django_db
@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
def test_every_operation_answers_as_described(case, fuzzing):
    response = case.call()
    SENT[response.status_code] += 1
    case.validate_response(response, checks=CHECKS)


class Workflow(schema.as_state_machine()):
    def after_call(self, response, case):
        SENT[response.status_code] += 1
        STATEFUL[response.status_code] += 1

    def validate_response(self, response, case, **kwargs):
        case.validate_response(response, checks=CHECKS)


TestStatefulWorkflow = pytest.mark.usefixtures("fuzzing")(pytest.mark.django_db(Workflow.TestCase))
TestStatefulWorkflow.settings = settings(
    TestStatefulWorkflow.settings,
    max_examples=STATEFUL_EXAMPLES,
    stateful_step_count=6,
    derandomize=True,
    deadline=None,
)
