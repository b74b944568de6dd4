"""The statements of every request `make bench` measures, counted as bench/queries.py counts
them, on a registry bench/build.py builds: with open data told of every change (as the
background leaves a registry), and with every tender changed a moment before (open data not told
of it yet). A change that multiplies a request's statements fails here, not at the next bench."""

import random

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from bench.build import BIDDER_BROKER_KEY, BROKER_KEY, broker, build_one, tender_body
from bench.queries import count
from bench.run import UNTOLD_ANSWER, Registry, basic, endpoints
from tenders.models import Tender
from tests.helpers import tell_every_change

pytestmark = pytest.mark.django_db

# A search nobody asked before: the page, one row past it, and (PostgreSQL) the planner's guess
# of the total.
NOT_KEPT = {"postgresql": 3, "sqlite": 2}
READS = {
    "floor in the project": 1,
    "GET /api/2.3/tenders/{id}": 1,
    "GET …/complaints/{cid}": 1,
    "feed limit=100": 1,
    "feed limit=100 descending": 1,
    "feed limit=100&opt_fields=status,tenderID": 1,
    "portal home /": 1,
    "portal search /?q=папір": 1,
    "portal /tenders/{id}/": 1,
    "portal /claims/{id}/": 1,
}
# A write on PostgreSQL: the key, the tender locked, its claims, their awards, the change written
# in one statement, the claim's documents (a new tender: the key, the day's counter, the tender,
# its words for the search, the audit event, its document read back). On SQLite the unit of work
# writes each row apart. A change that finds its tender's last state untold keeps it: one more.
WRITES = {
    "postgresql": {
        "told": {"claim PATCH answer": 6, "claim PATCH draft edit": 6, "POST /tenders": 6,
                 UNTOLD_ANSWER: 7},
        # (every tender changed a moment before: each change keeps the state it finds)
        "untold": {"claim PATCH answer": 7, "claim PATCH draft edit": 7, "POST /tenders": 6,
                   UNTOLD_ANSWER: 7},
    },
    "sqlite": {
        "told": {"claim PATCH answer": 8, "claim PATCH draft edit": 8, "POST /tenders": 6,
                 UNTOLD_ANSWER: 9},
        "untold": {"claim PATCH answer": 9, "claim PATCH draft edit": 9, "POST /tenders": 6,
                   UNTOLD_ANSWER: 9},
    },
}  # fmt: skip


@pytest.fixture
def registry(time_machine, settings, django_capture_on_commit_callbacks):
    settings.ROOT_URLCONF = "bench.urls"
    settings.SEARCH_RESULTS_SECONDS = 60  # (kept, as deployed)
    real_now = timezone.now().replace(microsecond=0)
    brokers = (broker("bench", BROKER_KEY), broker("bench-bidder", BIDDER_BROKER_KEY))
    with django_capture_on_commit_callbacks(execute=True):  # (the auctions' protocols)
        built = [build_one(n, brokers, real_now, time_machine) for n in range(8)]
    time_machine.move_to(real_now)
    return Registry({"keys": [BROKER_KEY, BIDDER_BROKER_KEY], "tenders": built}, 8, counting=True)


def changed_a_moment_ago(client, registry) -> None:
    """Every tender changed (its draft claim edited), open data not told of it yet."""
    for t in registry.tenders:
        path = (
            f"/api/2.3/tenders/{t['tender']}/awards/{t['award']}/complaints/"
            f"{t['claims']['draft']['id']}?acc_token={t['claims']['draft']['token']}"
        )
        edited = client.patch(
            path, '{"data": {"description": "Уточнено"}}', content_type="application/json",
            HTTP_AUTHORIZATION=basic(BIDDER_BROKER_KEY),
        )  # fmt: skip
        assert edited.status_code == 200, edited.content
    assert not Tender.objects.filter(untold=False).exists()


@pytest.mark.parametrize("state", ["told", "untold"])
def test_every_request_the_bench_measures_costs_its_statements(registry, state):
    client = Client()
    offsets = [
        moment.isoformat().replace("+", "%2B")
        for moment in Tender.objects.values_list("date_modified", flat=True)
    ]
    requests = endpoints(registry, offsets, tender_body(0, timezone.now()))
    # (the bench's picks are the random module's: seeded here for the same picks each run, and
    # given back after, so that nothing later in the run draws what every run draws)
    state_before = random.getstate()
    random.seed(0)

    def in_the_state() -> None:
        if state == "told":
            tell_every_change()
        else:
            changed_a_moment_ago(client, registry)

    counted = {}
    try:
        for name, make in requests.items():
            in_the_state()
            count(client, make)  # (the first requests of a process fill its caches)
            in_the_state()
            counted[name] = count(client, make, warmed="not kept" not in name)
    finally:
        random.setstate(state_before)

    vendor = connection.vendor
    assert counted == {
        **READS,
        "portal search, not kept": NOT_KEPT[vendor],
        **WRITES[vendor][state],
    }
