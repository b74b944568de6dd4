"""The owner's tender page costs the same number of queries however many awards it shows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import portal_world

pytestmark = pytest.mark.django_db


def queries_of(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_owners_tender_page_costs_the_same_with_more_awards(brokers, clock, client):
    world = portal_world(brokers, clock, decision="unsuccessful")
    client.force_login(world.buyer)
    url = reverse("tender", args=[world.tender.pk])
    queries_of(client, url)  # warm: the session, the user's organization
    with_two = queries_of(client, url)

    second = world.refresh().tender.awards.get(status="pending")
    second.tender = world.tender
    second.disqualify(by=world.owner())
    assert world.refresh().tender.awards.count() == 3

    assert queries_of(client, url) == with_two
