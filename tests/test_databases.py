"""The databases the settings name (core/databases.py)."""

import socket
import threading
from pathlib import Path

import psycopg

from core.databases import REPLICA_CONNECT_SECONDS, databases


def test_a_replica_that_lets_no_connection_in_is_given_up_on_within_seconds():
    """A machine gone silent (it takes the connection and never speaks) holds a read no longer
    than REPLICA_CONNECT_SECONDS: the router then reads the primary."""
    outcome = []
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        replica = databases(
            "postgres://postgres@127.0.0.1:5432/postgres",
            [f"postgres://postgres@127.0.0.1:{port}/postgres"],
            statement_timeout=0,
        )["replica_0"]

        def connect():
            try:
                psycopg.connect(
                    host=replica["HOST"], port=replica["PORT"], user=replica["USER"],
                    dbname=replica["NAME"], **replica.get("OPTIONS", {}),
                )  # fmt: skip
            except psycopg.OperationalError as refused:
                outcome.append(refused)

        attempt = threading.Thread(target=connect, daemon=True)
        attempt.start()
        attempt.join(REPLICA_CONNECT_SECONDS + 3)

    assert len(outcome) == 1  # (given up on, not still waiting)


def test_each_app_says_whether_its_rows_may_be_read_stale():
    """The procurement's rows may come from a replica a little behind; accounts, sessions and
    brokers' keys never (a sign-in rests on them). No app is named in core/replicas.py."""
    from django.apps import apps

    from core.replicas import reads_may_be_stale

    stale = {model._meta.app_label for model in apps.get_models() if reads_may_be_stale(model)}
    assert stale == {"tenders", "complaints", "auctions", "contracting", "opendata"}
    source = (Path(__file__).resolve().parent.parent / "core" / "replicas.py").read_text()
    assert not any(f'"{label}"' in source for label in stale)
