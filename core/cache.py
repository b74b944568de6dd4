"""The shared cache on Redis: Django's backend, with its client made once per connection pool,
a counter that takes one round trip, and places of which a caller may hold a few at once."""

import time
import uuid

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _ClientPerPool(RedisCacheClient):
    """Django makes a new redis-py client for every operation (about 0.2 ms of Python each, on
    every request's rate limit); a client is safe to share between threads, so one per pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))  # a pool is kept as long as this client
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


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
        self._class = _ClientPerPool

    def count(self, key: str, seconds: int) -> int:
        """Add one to the counter `key`, made to live `seconds` if it does not exist yet; its
        new value. One round trip (Django's incr first asks whether the key exists)."""
        name = self.make_and_validate_key(key)
        with self._cache.get_client(name, write=True).pipeline() as together:
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
        client = self._cache.get_client(name, write=True)
        taken = client.eval(
            _TAKE_PLACE, 1, name, now - lease_seconds, most, now, place, lease_seconds
        )
        return place if taken else None

    def give_place(self, key: str, place: str) -> None:
        name = self.make_and_validate_key(key)
        self._cache.get_client(name, write=True).zrem(name, place)
