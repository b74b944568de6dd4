"""The shared cache on Redis: Django's backend, with its client made once per connection pool
and a counter that takes one round trip."""

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
