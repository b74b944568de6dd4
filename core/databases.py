"""The databases the settings name: the primary (DATABASE_URL) and its read replicas
(REPLICA_URLS, comma-separated: `replica_0`, `replica_1`...), which core/replicas.py routes to.

On PostgreSQL a statement that runs longer than STATEMENT_TIMEOUT_SECONDS is cancelled (the
request answers 503 in the envelope, nothing changed): added to any options a URL gives (a
pooler in transaction mode, which refuses startup options, wants the timeout set on its
database or role instead). SQLite's writers take the lock up front (no deadlocking lock
upgrades) and wait for each other; WAL lets the chronograph and the web server read while the
other writes. In tests a replica is a mirror of the primary: it reads the primary's test
database, on its own server, as streaming replication copies it there."""

from pathlib import Path

import dj_database_url

REPLICA_PREFIX = "replica_"
# A replica that has not let a connection in within this long is skipped (the primary is read):
# one whose machine is gone rather than refusing would hold the request until the system gives up.
# On a connection already open, what is sent and not acknowledged for as long fails it too.
REPLICA_CONNECT_SECONDS = 2


def databases(primary_url: str, replica_urls: list[str], statement_timeout: float) -> dict:
    found = {"default": _database(primary_url, statement_timeout)}
    for number, url in enumerate(replica_urls):
        replica = _database(url, statement_timeout)
        replica["TEST"] = {"MIRROR": "default"}
        if replica["ENGINE"] == "django.db.backends.postgresql":
            replica.setdefault("OPTIONS", {}).update(
                connect_timeout=REPLICA_CONNECT_SECONDS,
                tcp_user_timeout=REPLICA_CONNECT_SECONDS * 1000,
            )
        found[f"{REPLICA_PREFIX}{number}"] = replica
    return found


def _database(url: str, statement_timeout: float) -> dict:
    database = dj_database_url.parse(url, conn_max_age=600, conn_health_checks=True)
    if database["ENGINE"] == "django.db.backends.postgresql" and statement_timeout:
        options = database.setdefault("OPTIONS", {})
        timeout = f"-c statement_timeout={int(statement_timeout * 1000)}"
        options["options"] = f"{options.get('options', '')} {timeout}".strip()
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # The tests' database is a file beside it, not Django's shared in-memory one: the
        # live server's threads (the browser tests) then wait for each other's writes as
        # `make run`'s do, where the in-memory one refuses them ("database table is locked").
        name = Path(database["NAME"])
        database["TEST"] = {"NAME": str(name.with_name(f"test_{name.name}"))}
    return database


def plan_prepared_statements_generically(sender, connection, **kwargs) -> None:
    """(PostgreSQL, as each connection opens) A statement prepared once per connection
    (core.reads.Prepared: one of many subqueries, whose planning costs more than its running)
    is planned once, not again on each run: PostgreSQL otherwise plans each run again when it
    guesses that pays. Only statements prepared so are concerned (Django prepares none)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET plan_cache_mode = force_generic_plan")
