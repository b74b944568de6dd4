"""The bench's builder leaves its registry as the background leaves it, or fails saying why."""

import pytest

from bench.build import as_the_background_leaves_it
from tenders.models import Tender
from tests.helpers import create_tender

# (the builder runs the database's queue, whose worker closes its connection between jobs)
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def database_queue(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def test_a_registry_open_data_was_not_told_of_fails_the_build(api, monkeypatch):
    create_tender(api)  # (its change untold)
    monkeypatch.setattr(Tender.objects, "tell_untold", lambda **kwargs: 0)

    with pytest.raises(SystemExit, match="could not be told of 1 tenders"):
        as_the_background_leaves_it()
    monkeypatch.undo()  # (the tests' own teardown tells every change)


def test_a_registry_is_left_told(api):
    create_tender(api)

    as_the_background_leaves_it()

    assert not Tender.objects.filter(untold=True).exists()
