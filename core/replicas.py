"""Reads that may be a little stale go to a PostgreSQL streaming replica; everything else to the
primary.

What may be stale is said by the view (`may_read_a_replica`: public pages, search, the feeds,
open data, exports). Even there a read goes to the primary when
- it is inside a transaction (a write, and the reads inside it), or after a write or a lock
  in the same request (a read that brought a tender up to date reads the result);
- its caller wrote within the last PINNED_SECONDS (a broker's key, a portal session: `Pins`,
  kept in the shared cache), so that a broker always reads what it has just written;
- no replica is within REPLICA_MAX_LAG_SECONDS of the primary, or none answers.

A request reads one replica (its first read picks it), so that its reads agree. A replica's lag
is asked at most once a LAG_CHECK_SECONDS per process: the primary's write position, then how
far the replica has replayed (caught up: no lag; else the age of the last change it replayed).

The feeds page by a watermark (core/api/feed.py): a page shows what was stamped up to
`visible_until() - FEED_WATERMARK_SECONDS`, where visible_until is now on the primary, and on a
replica the moment up to which it has certainly replayed every commit, as its last lag check
found (the primary's clock then, when it had caught up with the primary's position; else the
commit time of the last transaction it replayed): a page sends the primary nothing. A change
committed within the watermark of its stamp is then visible wherever a page that could show it
is read, so a page read from a replica hands out no offset past a change the replica has not
replayed.
"""

import hashlib
import logging
import random
import time
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from datetime import timedelta
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, InterfaceError, OperationalError, connections, transaction
from django.utils import timezone

from core.databases import REPLICA_PREFIX

logger = logging.getLogger(__name__)

LAG_CHECK_SECONDS = 1.0
# After a write, its caller reads the primary this long (longer than a replica may lag).
PINNED_SECONDS = 10

# admin_shutdown, crash_shutdown, cannot_connect_now
SHUTDOWN_STATES = {"57P01", "57P02", "57P03"}

_may_be_stale: ContextVar[bool] = ContextVar("may_read_a_replica", default=False)
_chosen: ContextVar[str | None] = ContextVar("replica_chosen", default=None)
# alias -> (when asked, what _measure found: the replica's lag in seconds and the moment up to
# which it had replayed every commit, or (None, None) when it did not answer)
_lags: dict[str, tuple[float, tuple]] = {}


def reads_may_be_stale(model) -> bool:
    """Whether the rows of `model` may be read a little stale: its app says so itself
    (`reads_may_be_stale` on its AppConfig: the procurement's apps). Accounts, sessions,
    brokers' keys and everything else a sign-in or a permission rests on are read from the
    primary always (a session just made must be found at once)."""
    return getattr(model._meta.app_config, "reads_may_be_stale", False)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith(REPLICA_PREFIX)]


class ReplicaRouter:
    """Django's database router (settings.DATABASE_ROUTERS)."""

    def db_for_read(self, model, **hints):
        if not reads_may_be_stale(model):
            return "default"
        return chosen_alias()

    def db_for_write(self, model, **hints):
        # (the rest of a request that writes, or locks, reads what it wrote: the primary)
        if _may_be_stale.get():
            _chosen.set("default")
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"


def chosen_alias() -> str:
    """The database this read goes to: the request's replica, once picked, while reading it
    may be stale; else the primary."""
    if not _may_be_stale.get() or not transaction.get_autocommit("default"):
        return "default"
    alias = _chosen.get()
    if alias is None:
        alias = _pick()
        _chosen.set(alias)
    return alias


def _pick() -> str:
    fresh = [alias for alias in replica_aliases() if _is_fresh(alias)]
    random.shuffle(fresh)
    return next((alias for alias in fresh if _answers(alias)), "default")


def _answers(alias: str) -> bool:
    """Whether the replica takes a connection now (its lag was asked up to a second ago: it
    may have died since); one that does not is skipped until its lag is asked again."""
    connection = connections[alias]
    try:
        connection.close_if_health_check_failed()
        connection.ensure_connection()
    except DatabaseError:
        logger.warning("replica %s does not answer; reads go elsewhere", alias)
        _lags[alias] = (time.monotonic(), (None, None))
        return False
    return True


def _is_fresh(alias: str) -> bool:
    lag = lag_of(alias)
    return lag is not None and lag <= settings.REPLICA_MAX_LAG_SECONDS


def lag_of(alias: str) -> float | None:
    """How far the replica is behind the primary, in seconds; None when either did not
    answer."""
    return _measured(alias)[0]


def _measured(alias: str) -> tuple:
    """_measure's answer, asked at most once a LAG_CHECK_SECONDS. (A moment up to which the
    replica had replayed every commit stays one: an answer a second old is only more
    cautious.)"""
    asked, found = _lags.get(alias, (0.0, (None, None)))
    if time.monotonic() - asked < LAG_CHECK_SECONDS:
        return found
    found = _measure(alias)
    _lags[alias] = (time.monotonic(), found)
    return found


def _measure(alias: str):
    """(the lag in seconds, the moment up to which the replica has replayed every commit), or
    (None, None) when either database did not answer."""
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn(), now()")
            position, asked_at = cursor.fetchone()
        with connections[alias].cursor() as cursor:
            cursor.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn, pg_last_xact_replay_timestamp()",
                [position],
            )
            caught_up, replayed_at = cursor.fetchone()
    except DatabaseError:
        logger.warning("replica %s: its lag could not be read; reads go elsewhere", alias)
        return None, None
    if caught_up:
        return 0.0, asked_at
    if replayed_at is None:
        return None, None
    return max((asked_at - replayed_at).total_seconds(), 0.0), replayed_at


def visible_until():
    """Up to when every commit is visible to this request's reads (see the module's
    description): what a feed's watermark counts back from."""
    alias = chosen_alias()
    if alias == "default":
        return timezone.now()
    replayed_until = _measured(alias)[1]
    if replayed_until is None:  # (it stopped answering: nothing is shown as settled)
        return timezone.now() - timedelta(days=3650)
    return min(timezone.now(), replayed_until)


@contextmanager
def reading_a_replica(allowed: bool = True):
    """Reads inside may be stale (unless `allowed` is false): they go to one replica."""
    stale, chosen = _may_be_stale.set(allowed), _chosen.set(None)
    try:
        yield
    finally:
        _chosen.reset(chosen)
        _may_be_stale.reset(stale)


def may_read_a_replica(view):
    """A view whose reads may be a little stale (unless its caller has just written). When the
    replica it reads dies under it, it reads again from the primary (a GET changes nothing it
    would not change again), and the replica is skipped until its lag is asked again."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        allowed = request.method in ("GET", "HEAD") and not Pins.holds(request)
        if not allowed or not replica_aliases():
            with reading_a_replica(False):
                return view(request, *args, **kwargs)
        with reading_a_replica(), failures_of_replicas() as failed:
            try:
                response = view(request, *args, **kwargs)
            except DatabaseError:
                if not failed:
                    raise
        if not failed:
            return response
        logger.warning(
            "replica %s stopped answering during a read; read again from the primary", failed[0]
        )
        _lags[failed[0]] = (time.monotonic(), (None, None))
        with reading_a_replica(False):
            return view(request, *args, **kwargs)

    return wrapper


def connection_lost(error: DatabaseError) -> bool:
    """Whether the error is the server gone (no SQLSTATE, a connection exception, or a
    shutdown), not a statement that failed (cancelled past its timeout, say)."""
    state = getattr(error.__cause__, "sqlstate", None)
    return state is None or state.startswith("08") or state in SHUTDOWN_STATES


@contextmanager
def failures_of_replicas():
    """The replicas whose connection failed inside (a list, filled as they fail)."""
    failed: list[str] = []

    def noticing(alias):
        def execute(run, sql, params, many, context):
            try:
                return run(sql, params, many, context)
            except (OperationalError, InterfaceError) as error:
                if connection_lost(error):
                    failed.append(alias)
                raise

        return execute

    with ExitStack() as stack:
        for alias in replica_aliases():
            stack.enter_context(connections[alias].execute_wrapper(noticing(alias)))
        yield failed


class Pins:
    """Who wrote within the last PINNED_SECONDS (their reads go to the primary): a caller is
    its API key or its portal session, kept in the shared cache by a digest."""

    @staticmethod
    def _key(request) -> str | None:
        who = request.META.get("HTTP_AUTHORIZATION") or request.COOKIES.get(
            settings.SESSION_COOKIE_NAME
        )
        if not who:
            return None
        return "pinned:" + hashlib.sha256(who.encode()).hexdigest()

    @classmethod
    def wrote(cls, request) -> None:
        key = cls._key(request)
        if key is not None and replica_aliases():
            cache.set(key, 1, PINNED_SECONDS)

    @classmethod
    def holds(cls, request) -> bool:
        key = cls._key(request)
        return bool(key and replica_aliases() and cache.get(key))
