"""The application served as deployed, for tests that need several processes: gunicorn on
loopback over the test's own PostgreSQL database (a test using it is marked
`django_db(transaction=True)`, so that what it writes is committed and the workers see it)."""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from django.conf import settings
from django.db import connection

from cluster import ports

ROOT = Path(__file__).resolve().parents[1]
SECRET = "a-test-secret-key-long-enough-to-be-a-real-one-0123456789"


def database_url() -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    return (
        f"postgres://{user}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


@cache
def collected_static() -> Path:
    """The static files and their manifest, collected once for the session's servers: served as
    deployed, a page names its CSS by the manifest, which a fresh checkout does not have."""
    folder = Path(tempfile.mkdtemp(prefix="static-"))
    atexit.register(shutil.rmtree, folder, True)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT, env={**os.environ, "SECRET_KEY": SECRET, "STATIC_ROOT": str(folder)},
        check=True,
    )  # fmt: skip
    return folder


@contextmanager
def gunicorn(folder: Path, *, workers: int, redis: str | None = None, **environment):
    """gunicorn serving this test's database with `workers` processes (and the settings in
    `environment`), on a free port below the ephemeral range, checked to be the one answering
    (cluster/ports.py); yields its base URL. Its logs are `folder`/access.log and error.log."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(collected_static()),
        **({"REDIS_URL": redis, "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}"} if redis else {}),
        **environment,
    }
    env.pop("DEBUG", None)
    error_log = folder / "error.log"

    def start(port: int):
        server = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "portal.wsgi",
                "--workers", str(workers), "--bind", f"127.0.0.1:{port}",
                "--access-logfile", str(folder / "access.log"), "--error-logfile", str(error_log),
            ],
            cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            ports.wait_until_ours(
                port, lambda: server.pid, 30, alive=lambda: server.poll() is None,
                log=lambda: error_log.read_text() if error_log.exists() else "",
            )  # fmt: skip
        except RuntimeError:
            stop(server)
            raise
        return port, server

    try:
        port, server = ports.start_on_free_ports(start)
    except RuntimeError as failed:
        pytest.fail(f"gunicorn did not start: {failed}")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(server)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)


def call(url: str, *, method: str = "GET", body: bytes | None = None, **headers):
    """(status, headers, body) of one request; an error status is an answer, not a failure."""
    request = Request(url, data=body, method=method, headers=headers)
    try:
        with urlopen(request, timeout=60) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def waiting_for_locks(count: int, what: str = "requests") -> None:
    """Until `count` other sessions of this database wait for a lock (one the test holds). The
    statistics are read afresh each time: inside a transaction PostgreSQL shows one snapshot."""
    deadline = time.monotonic() + 30
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] >= count:
                return
            time.sleep(0.02)
    pytest.fail(f"{count} {what} did not reach the lock the test holds")
