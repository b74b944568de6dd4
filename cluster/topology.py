"""`make cluster`: the registry as several machines run it, on this one, on loopback.

    balancer :26400 ──► app node 1 :26401 (gunicorn) ─┐        PostgreSQL primary :26432
                    └─► app node 2 :26402 (gunicorn) ─┼──────► └─► streaming replica :26433
    document service :26410 (gunicorn) ──► SeaweedFS S3 :26493     Redis :26479
    chronograph ×2, mail worker (worker) ×2, alerts ×2 ─────► mailbox (SMTP) :26425

Every port counts from CLUSTER_PORT (26400). The primary and its replica are made with initdb
and pg_basebackup (cluster/postgres.py) in a temporary folder; the logs, the S3 store's data and
the mail are kept under build/cluster/ (cleared at each start). Ctrl-C stops everything.

    python -m cluster.topology
"""

import os
import secrets
import shutil
import signal
import tempfile
import time
from pathlib import Path

from nacl.encoding import HexEncoder
from nacl.signing import SigningKey

from cluster import processes
from cluster.postgres import Pair
from cluster.processes import BIN, PYTHON, ROOT, Process

BASE_PORT = int(os.environ.get("CLUSTER_PORT", "26400"))
FOLDER = ROOT / "build" / "cluster"
APP_NODES, CHRONOGRAPHS, MAIL_WORKERS, ALERT_RUNNERS = 2, 2, 2, 2
GUNICORN_WORKERS = 2
BROKERS = [f"broker{n}" for n in (1, 2, 3)]
BUCKET = "documents"


def keypair() -> tuple[str, str]:
    """An Ed25519 seed (secret) and its verify key, in hex."""
    key = SigningKey.generate()
    return key.encode(HexEncoder).decode(), key.verify_key.encode(HexEncoder).decode()


class Cluster:
    def __init__(self, base_port: int = BASE_PORT, folder: Path = FOLDER, **settings):
        self.port = {
            "balancer": base_port, "docservice": base_port + 10, "mailbox": base_port + 25,
            "postgres": base_port + 32, "redis": base_port + 79, "s3": base_port + 93,
        }  # fmt: skip
        self.folder = folder
        self.settings = settings  # (more environment for every node and worker)
        self.keys = {name: f"{name}-key-{secrets.token_hex(16)}" for name in [*BROKERS, "upload"]}
        self.secret_key = secrets.token_urlsafe(48)
        self.registry_key, self.docservice_key = keypair(), keypair()
        self.pair: Pair | None = None
        self.processes: dict[str, Process] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port['balancer']}"

    @property
    def docservice_url(self) -> str:
        return f"http://127.0.0.1:{self.port['docservice']}"

    # --- the environments: what is shared, and what is not ----------------------------------

    def shared(self) -> dict:
        """What every node and worker of the registry has, the same everywhere."""
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "portal.settings",
            "SECRET_KEY": self.secret_key,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": self.pair.primary.url,
            "REPLICA_URLS": self.pair.replica.url,
            "REDIS_URL": f"redis://127.0.0.1:{self.port['redis']}/0",
            "CACHE_KEY_PREFIX": "cluster",
            "SITE_URL": self.url,
            "PROXY_COUNT": "1",
            "STATIC_ROOT": str(self.folder / "static"),
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.port["mailbox"]),
            "EMAIL_USE_TLS": "0",  # (the mailbox is on loopback)
            "DEFAULT_FROM_EMAIL": "registry@cluster.localhost",
            "REGISTRY_SIGNING_KEYS": self.registry_key[0],
            "DOCSERVICE_TRUSTED_KEYS": self.docservice_key[1],
            "DOCSERVICE_URL": self.docservice_url,
            "DOCSERVICE_UPLOAD_KEY": self.keys["upload"],
            "SANDBOX_MODE": "1",  # (tenders that live a day in a minute: the load's auctions)
            "LOG_LEVEL": "WARNING",
            **self.settings,
        }

    def docservice_environment(self) -> dict:
        """The document service's: its own secret and signing key, the registry's verify key
        (never its seed), and the only keys to the S3 store."""
        registry_only = ("REGISTRY_SIGNING_KEYS", "REPLICA_URLS", "DOCSERVICE_UPLOAD_KEY")
        return {
            **{name: value for name, value in self.shared().items() if name not in registry_only},
            "SECRET_KEY": secrets.token_urlsafe(48),
            "ROOT_URLCONF": "docservice.standalone_urls",
            "DOCSERVICE_SIGNING_KEYS": self.docservice_key[0],
            "DOCSERVICE_TRUSTED_KEYS": self.registry_key[1],
            "DOCSERVICE_URL": "",
            "DOCUMENTS_S3_BUCKET": BUCKET,
            "DOCUMENTS_S3_ENDPOINT_URL": f"http://127.0.0.1:{self.port['s3']}",
            "DOCUMENTS_S3_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": processes.S3_ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": processes.S3_SECRET_KEY,
        }

    # --- starting and stopping ---------------------------------------------------------------

    def start(self) -> "Cluster":
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        databases = Path(tempfile.mkdtemp(prefix="registry-cluster-pg-"))
        if os.geteuid() == 0:
            shutil.chown(databases, "postgres")
        self.pair = Pair(databases, self.port["postgres"], durable=True)
        self.pair.start()
        self.launch(processes.redis(self.folder, self.port["redis"]))
        self.launch(processes.seaweedfs(self.folder, self.port["s3"]))
        processes.make_bucket(self.port["s3"], BUCKET)
        self.launch(Process(
            "mailbox", [PYTHON, "-m", "cluster.mailbox", "--port", self.port["mailbox"],
                        "--folder", self.folder / "mail"],
            self.folder, dict(os.environ), self.port["mailbox"],
        ))  # fmt: skip
        self.manage("migrate", "--noinput", "-v0")
        self.manage("collectstatic", "--noinput", "-v0")
        for name, key in self.keys.items():
            self.manage("add_broker", name, "--key", key)
        docservice = self.docservice_environment()
        self.launch(self.gunicorn("docservice", self.port["docservice"], docservice))
        nodes = [self.port["balancer"] + n for n in range(1, APP_NODES + 1)]
        for number, port in enumerate(nodes, 1):
            self.launch(self.gunicorn(f"app{number}", port, self.shared()))
        self.launch(Process(
            "balancer", [PYTHON, "-m", "cluster.balancer", "--port", self.port["balancer"],
                         "--nodes", ",".join(map(str, nodes))],
            self.folder, dict(os.environ), self.port["balancer"],
        ))  # fmt: skip
        workers = (
            [("chronograph", ["chronograph", "--interval", "1"])] * CHRONOGRAPHS
            + [("mail", ["worker", "--interval", "1"])] * MAIL_WORKERS
            + [("alerts", ["alerts", "--interval", "2"])] * ALERT_RUNNERS
        )
        counts: dict[str, int] = {}
        for kind, arguments in workers:
            counts[kind] = counts.get(kind, 0) + 1
            command = [PYTHON, "manage.py", *arguments]
            self.launch(Process(f"{kind}{counts[kind]}", command, self.folder, self.shared(), None))

    def gunicorn(self, name: str, port: int, env: dict) -> Process:
        command = [
            BIN / "gunicorn", "portal.wsgi", "--workers", GUNICORN_WORKERS, "--bind",
            f"127.0.0.1:{port}", "--log-level", "warning", "--access-logfile", "-",
        ]  # fmt: skip
        return Process(name, command, self.folder, env, port)

    def launch(self, process: Process) -> Process:
        self.processes[process.name] = process
        return process.start()

    def manage(self, *arguments: str) -> None:
        command = [PYTHON, "manage.py", *arguments]
        process = Process("setup", command, self.folder, self.shared(), None).start()
        if process.popen.wait(300):
            tail = process.log.read_text()[-3000:]
            raise RuntimeError(f"manage.py {arguments[0]} failed:\n{tail}")

    def stop(self) -> None:
        for process in reversed(list(self.processes.values())):
            process.stop()
        if self.pair is not None:
            self.pair.stop()
            shutil.rmtree(self.pair.primary.folder.parent, ignore_errors=True)

    def describe(self) -> str:
        running = ", ".join(name for name, process in self.processes.items() if process.running)
        return (
            f"The registry: {self.url} (the balancer; the API at {self.url}/api/2.3)\n"
            f"The document service: {self.docservice_url}\n"
            f"PostgreSQL: {self.pair.primary.url} (primary), {self.pair.replica.url} (replica)\n"
            f"Broker keys: {', '.join(f'{name} {self.keys[name]}' for name in BROKERS)}\n"
            f"Running: {running}\nLogs and mail: {self.folder}"
        )


def main() -> None:
    cluster = Cluster().start()
    print(cluster.describe(), flush=True)
    print("Ctrl-C stops everything.", flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    try:
        while not stopping:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
