"""The transactions changes run in.

A change (one model method) is atomic on its own; called inside a caller's transaction, it is a
savepoint, so that the caller may catch its refusal and go on. A request's write runs in
`all_or_nothing`: whatever fails inside fails the whole, which its caller answers with nothing
changed, so the changes inside skip their savepoints (two round trips each).

Each of these transactions (or savepoints) is remembered while it is open (`current` and
`is_open`), so that what was locked inside one is known to be still locked (the lock goes with
the transaction, or with the savepoint rolled back) without asking the database again.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection, transaction

from core.writes import unit_of_work

# The transactions and savepoints of changes now open, innermost last; and whether the
# outermost is all or nothing.
_open: ContextVar[tuple] = ContextVar("open_changes", default=())
_whole: ContextVar[bool] = ContextVar("all_or_nothing", default=False)


class Block:
    """One open transaction or savepoint of a change (what `current` returns)."""


@contextmanager
def _remembered(atomic, *, whole: bool = False):
    with atomic, unit_of_work():
        block = Block()
        opened = _open.set((*_open.get(), block))
        wholly = _whole.set(True) if whole else None
        try:
            yield block
        finally:
            if wholly is not None:
                _whole.reset(wholly)
            _open.reset(opened)


def all_or_nothing():
    """A transaction that nothing inside it recovers from: a failure anywhere ends it whole."""
    return _remembered(transaction.atomic(), whole=True)


def atomic_change():
    """The transaction of one change: a savepoint inside a caller's transaction, unless the
    caller's is `all_or_nothing` (then nothing would be rolled back to it)."""
    return _remembered(transaction.atomic(savepoint=not _whole.get()))


def recoverable():
    """A transaction (a savepoint inside another, even all or nothing) that its caller may
    recover from: what failed inside is rolled back, and the caller goes on."""
    return _remembered(transaction.atomic())


def current() -> Block | None:
    """The innermost transaction (or savepoint) of a change now open, or None."""
    blocks = _open.get()
    return blocks[-1] if blocks else None


def is_open(block: Block | None) -> bool:
    return block is not None and any(open_ is block for open_ in _open.get())


def one_at_a_time(kind: int, key: int) -> None:
    """Until the transaction ends, no other transaction passes this call with the same `kind`
    and `key` (a PostgreSQL advisory lock: for what no row stands for, such as a day's slots;
    elsewhere a single writer is all there is)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [kind, key])
