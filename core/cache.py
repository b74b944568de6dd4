"""The shared cache on Redis: Django's backend, with the operations asked on every request
(a kept page's get and set, a rate limit's count, a place taken and given back) sent through a
redis-py client of its own, made once per process from the backend's LOCATION and OPTIONS.

Django's backend makes a new redis-py client for every operation (about 0.2 ms of Python each);
a client is safe to share between threads, so one is enough. Values are stored as Django's
backend stores them (an int as its digits, anything else pickled), so that the operations left
to Django (add, incr, delete, touch...) read and write the same values."""

import pickle
import re
import time
import uuid

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache


def _dumped(value) -> bytes | int:
    return value if type(value) is int else pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


def _loaded(data: bytes):
    try:
        return int(data)
    except ValueError:
        return pickle.loads(data)


# KEYS[1]: the places; ARGV: taken before this are free, how many, now, the place, the lease.
_TAKE_PLACE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


class SharedRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        servers = re.split("[;,]", server) if isinstance(server, str) else list(server)
        self.url, self.options = servers[0], dict(params.get("OPTIONS") or {})
        self._shared = None

    @property
    def shared(self) -> redis.Redis:
        """The process's client (made on first use, after a worker is forked)."""
        if self._shared is None:
            self._shared = redis.Redis.from_url(self.url, **self.options)
        return self._shared

    def get(self, key, default=None, version=None):
        data = self.shared.get(self.make_and_validate_key(key, version=version))
        return default if data is None else _loaded(data)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        name = self.make_and_validate_key(key, version=version)
        seconds = self.get_backend_timeout(timeout)
        if seconds == 0:
            self.shared.delete(name)
        else:
            self.shared.set(name, _dumped(value), ex=seconds)

    def count(self, key: str, seconds: int) -> int:
        """Add one to the counter `key`, made to live `seconds` if it does not exist yet; its
        new value. One round trip (Django's incr first asks whether the key exists)."""
        name = self.make_and_validate_key(key)
        with self.shared.pipeline() as together:
            together.set(name, 0, ex=seconds, nx=True)
            together.incr(name)
            return together.execute()[1]

    def take_place(self, key: str, most: int, lease_seconds: int) -> str | None:
        """Take one of `most` places under `key`: its name, to give back with `give_place`, or
        None when all are taken. A place not given back (its holder died) is free again
        `lease_seconds` after it was taken. One round trip; Redis runs the script whole, so two
        callers never both take the last place."""
        name = self.make_and_validate_key(key)
        place, now = uuid.uuid4().hex, time.time()
        taken = self.shared.eval(
            _TAKE_PLACE, 1, name, now - lease_seconds, most, now, place, lease_seconds
        )
        return place if taken else None

    def give_place(self, key: str, place: str) -> None:
        name = self.make_and_validate_key(key)
        self.shared.zrem(name, place)
