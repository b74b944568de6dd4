"""The shared cache (core/cache.py) sends its own operations through one redis-py client and
stores values as Django's Redis backend does, so that the operations left to Django read what
it wrote and it reads what they wrote."""

import uuid

import pytest

from core.cache import SharedRedisCache


@pytest.fixture
def shared(redis):
    return SharedRedisCache(redis, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})


def test_what_it_writes_django_reads_and_the_other_way_round(shared):
    shared.set("count", 5)
    assert shared.incr("count") == 6  # Django's own incr, on the value written here
    assert shared.get("count") == 6
    shared.set("page", {"text": "Тендер", "n": 1})
    assert shared.get_many(["page"]) == {"page": {"text": "Тендер", "n": 1}}  # Django's
    assert shared.add("new", "додано")  # Django's add
    assert shared.get("new") == "додано"
    assert shared.get("absent", "нема") == "нема"


def test_a_value_lives_as_long_as_it_is_set_to(shared):
    shared.set("briefly", "x", 30)
    ttl = shared.shared.ttl(shared.make_and_validate_key("briefly"))
    assert 0 < ttl <= 30
    shared.set("always", "x", None)
    assert shared.shared.ttl(shared.make_and_validate_key("always")) == -1
    shared.set("always", "x", 0)  # as Django: a timeout of 0 removes it
    assert shared.get("always") is None


def test_one_client_serves_every_operation(shared):
    client = shared.shared
    shared.set("a", 1)
    shared.get("a")
    shared.count("knocks", 10)
    assert shared.shared is client
    assert shared.count("knocks", 10) == 2
