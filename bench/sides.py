"""What `make bench` and `make load` run: the databases (template registries built by each
side's own code, copied for each run), the sides (this code, or an earlier commit's checked out
under build/), and gunicorn serving them (and the bare floor, bench/floor)."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from base64 import b64encode
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

from cluster import ports

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# Tenders built through the model methods; larger sizes are copies of them.
BUILT = int(os.environ.get("BENCH_BUILT", "1000"))
SERVER_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
# The cache every worker shares, as deployed (rate limits, rendered page fragments); the run's
# keys have a prefix of their own.
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
RUN = f"bench-{os.getpid()}-{int(time.time())}"
UNLIMITED = "1000000/minute"
SECRET_KEY = "bench-" + "k" * 60


def database_url(name: str) -> str:
    parts = urlsplit(SERVER_URL)
    return parts._replace(path=f"/{name}").geturl()


def admin(sql: str) -> None:
    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(sql)


def exists(name: str) -> bool:
    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        row = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    return row is not None


def environment(database: str, **extra) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url(database),
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "SECRET_KEY": SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ROOT_URLCONF": "bench.urls",
        "REDIS_URL": REDIS_URL,
        "CACHE_KEY_PREFIX": f"{RUN}-{database}",
        "LOG_LEVEL": "WARNING",
        "API_RATE_ANONYMOUS_READS": UNLIMITED,
        "API_RATE_BROKER_READS": UNLIMITED,
        "API_RATE_ANONYMOUS_WRITES": UNLIMITED,
        "API_RATE_BROKER_WRITES": UNLIMITED,
        **extra,
    }


class Side:
    """One version of the code: where it is checked out, and its own databases (built by its
    own builder, so that each is measured on the registry its code makes)."""

    def __init__(self, name: str, root: Path):
        self.name, self.root = name, root

    @classmethod
    def before(cls, revision: str) -> "Side":
        """The code of `revision`, checked out in a worktree of its own under build/."""
        commit = subprocess.run(
            ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=ROOT, check=True,
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        tree = ROOT / "build" / f"bench-{commit[:10]}"
        if not (tree / "manage.py").exists():
            subprocess.run(
                ["git", "worktree", "add", "--force", "--detach", str(tree), commit], cwd=ROOT,
                check=True, capture_output=True,
            )  # fmt: skip
        return cls(f"at {commit[:7]}", tree)

    def run(self, args: list[str], database: str, **extra) -> str:
        done = subprocess.run(
            [PYTHON, *args], cwd=self.root, env=environment(database, **extra),
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"{self.name}: {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def fingerprint(self, size: int) -> str:
        """What a template depends on: every migration, the builder, and the copier if it
        copies."""
        digest = hashlib.sha256()
        files = sorted(self.root.glob("*/migrations/*.py"))
        files += sorted(self.root.glob("*/*/migrations/*.py"))
        files.append(self.root / "bench" / "build.py")
        if size != BUILT:
            files.append(self.root / "bench" / "multiply.py")
        for file in files:
            digest.update(file.read_bytes())
        return digest.hexdigest()[:10]

    def template(self, size: int) -> str:
        """The template database of `size` tenders (built when missing)."""
        name = f"bench_t{size}_{self.fingerprint(size)}"
        if exists(name):
            return name
        if size == BUILT:
            print(f"{self.name}: building {size} tenders through the model methods (once)...")
            admin(f"DROP DATABASE IF EXISTS {name}_wip WITH (FORCE)")
            admin(f"CREATE DATABASE {name}_wip")
            self.run(["manage.py", "migrate", "--noinput", "-v0"], f"{name}_wip")
            self.run(["-m", "bench.build", str(size)], f"{name}_wip")
        else:
            source = self.template(BUILT)
            print(f"{self.name}: copying {BUILT} tenders to {size} in SQL (once)...")
            admin(f"DROP DATABASE IF EXISTS {name}_wip WITH (FORCE)")
            admin(f"CREATE DATABASE {name}_wip TEMPLATE {source}")
            self.run(["-m", "bench.multiply", str(size // BUILT)], f"{name}_wip")
        admin(f"ALTER DATABASE {name}_wip RENAME TO {name}")
        return name

    def working_copy(self, size: int) -> str:
        name = f"bench_{size}_{self.fingerprint(size)}_{'now' if self.root == ROOT else 'then'}"
        source = self.template(size)
        admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin(f"CREATE DATABASE {name} TEMPLATE {source}")
        return name

    def server(self, database: str, *, workers: int = 1, **settings) -> "Server":
        return Server(self.root, "portal.wsgi", environment(database, **settings), workers)


def registry_keys(database: str) -> dict:
    with psycopg.connect(database_url(database)) as connection:
        return json.loads(connection.execute("SELECT body FROM bench_keys").fetchone()[0])


# --- the server --------------------------------------------------------------------------


class Server:
    """gunicorn serving `application` from `root`: one sync worker on CPU 0 (the benchmark), or
    `workers` of them on every CPU (make load)."""

    def __init__(self, root: Path, application: str, env: dict, workers: int = 1, config=()):
        def start(port: int):
            command = [
                PYTHON, "-m", "gunicorn", application, "--workers", str(workers),
                "--worker-class", "sync", "--bind", f"127.0.0.1:{port}", "--log-level",
                "warning", *config,
            ]  # fmt: skip
            if workers == 1:
                command = ["taskset", "-c", "0", *command]  # (taskset execs it: the same pid)
            process = subprocess.Popen(command, cwd=root, env=env)
            try:
                ports.wait_until_ours(
                    port, lambda: process.pid, 60, alive=lambda: process.poll() is None
                )
            except RuntimeError:
                process.kill()
                process.wait(30)
                raise
            return port, process

        self.port, self.process = ports.start_on_free_ports(start)

    @classmethod
    def floor(cls, database: str) -> "Server":
        """The bare floor (bench/floor), reading and writing `database`."""
        env = {
            **os.environ, "DATABASE_URL": database_url(database), "SECRET_KEY": SECRET_KEY,
            "DJANGO_SETTINGS_MODULE": "bench.floor.settings",
        }  # fmt: skip
        return cls(ROOT, "bench.floor.wsgi", env, config=["--config", "python:bench.floor.served"])

    def worker_memory_mb(self) -> tuple[float, float]:
        """The worker's resident memory, and the part of it the worker alone holds (the rest it
        shares with the master it was forked from, and with the other workers)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        worker = children.read_text().split()[0]
        found = {}
        for line in Path(f"/proc/{worker}/smaps_rollup").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("Rss", "Private_Clean", "Private_Dirty"):
                found[name] = int(value.split()[0]) / 1024
        return found["Rss"], found["Private_Clean"] + found["Private_Dirty"]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


def basic(key: str) -> str:
    return "Basic " + b64encode(f"{key}:".encode()).decode()
