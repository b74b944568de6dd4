"""The transactions changes run in.

A change (one model method) is atomic on its own; called inside a caller's transaction, it is a
savepoint, so that the caller may catch its refusal and go on. A request's write runs in
`all_or_nothing`: whatever fails inside fails the whole, which its caller answers with nothing
changed, so the changes inside skip their savepoints (two round trips each).
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection, transaction

_whole = ContextVar("all_or_nothing", default=None)


@contextmanager
def all_or_nothing():
    """A transaction that nothing inside it recovers from: a failure anywhere ends it whole."""
    with transaction.atomic():
        token = _whole.set(connection.atomic_blocks[-1])
        try:
            yield
        finally:
            _whole.reset(token)


def atomic_change():
    """The transaction of one change: a savepoint inside a caller's transaction, unless the
    caller's is `all_or_nothing` (then nothing would be rolled back to it)."""
    whole = _whole.get()
    inside_whole = whole is not None and any(block is whole for block in connection.atomic_blocks)
    return transaction.atomic(savepoint=not inside_whole)
