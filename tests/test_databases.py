"""The databases the settings name (core/databases.py)."""

import socket
import threading

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
