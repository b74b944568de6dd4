"""A PostgreSQL primary and its streaming replica of our own, made with the standard tools
(initdb, pg_basebackup, pg_ctl) on loopback, in their own folders and on their own ports: what
the replication tests and `make cluster` run against.

    python -m cluster.postgres run [--port PORT] -- COMMAND...

starts the pair in a temporary folder (on PORT and the next; by default two free ports below
the kernel's ephemeral range, others tried if a server finds its port taken: cluster/ports.py),
runs COMMAND with DATABASE_URL naming the primary and REPLICA_URLS the replica, stops the pair
and removes the folder, and exits with COMMAND's status. Run as root (as on CI's machine), the
servers run as the `postgres` user, since PostgreSQL refuses to run as root. The binaries are
the newest under /usr/lib/postgresql (or PG_BIN)."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cluster import ports


def binaries() -> Path:
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not versions:
        raise SystemExit("no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN)")
    return versions[-1]


class Server:
    """One PostgreSQL server: its folder, its port."""

    def __init__(self, folder: Path, port: int):
        self.folder, self.port = folder, port

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def log(self) -> Path:
        return Path(f"{self.folder}.log")

    def start(self) -> None:
        """Start it and wait until it listens on its port itself (another process answering
        there is PortTaken; a server that could not start, RuntimeError with its log)."""
        options = f"-p {self.port} -k {self.folder.parent} -c listen_addresses=127.0.0.1"
        try:
            as_postgres(
                [binaries() / "pg_ctl", "-D", self.folder, "-o", options, "-l", self.log, "-w",
                 "start"]
            )  # fmt: skip
        except subprocess.CalledProcessError:
            raise RuntimeError(f"PostgreSQL did not start on {self.port}:\n{self._log()}") from None
        ports.wait_until_ours(
            self.port, self.pid, 30, alive=lambda: self.pid() is not None, log=self._log
        )

    def pid(self) -> int | None:
        """The postmaster's pid (its postmaster.pid's first line), while it runs."""
        try:
            return int((self.folder / "postmaster.pid").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            return None

    def _log(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def stop(self, mode: str = "fast") -> None:
        """Stop it (a server already stopped is left so)."""
        if (self.folder / "postmaster.pid").exists():
            as_postgres([binaries() / "pg_ctl", "-D", self.folder, "-m", mode, "-w", "stop"])

    def sql(self, statement: str) -> str:
        """One statement through psql; its output (unaligned, without headers)."""
        done = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-Atc",
             statement],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return done.stdout.strip()


class Pair:
    """A primary and its streaming replica, in `folder` (made here), on `port` and the next;
    `durable`, each commit is flushed to disk before it is acknowledged (else, for a test's
    database, which is thrown away, it is not)."""

    def __init__(self, folder: Path, port: int, durable: bool = False):
        self.durable = durable
        self.primary = Server(folder / "primary", port)
        self.replica = Server(folder / "replica", port + 1)

    def start(self) -> None:
        primary = self.primary.folder
        as_postgres([binaries() / "initdb", "-D", primary, "-A", "trust", "-U", "postgres"])
        with open(primary / "pg_hba.conf", "a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        with open(primary / "postgresql.conf", "a") as conf:
            conf.write("wal_level = replica\nmax_connections = 200\n")
            if not self.durable:
                conf.write("fsync = off\nsynchronous_commit = off\n")
        self.primary.start()
        as_postgres(
            [binaries() / "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port),
             "-U", "postgres", "-D", self.replica.folder, "-R", "-X", "stream"]
        )  # fmt: skip
        self.replica.start()

    def stop(self) -> None:
        try:
            self.replica.stop()
        finally:
            self.primary.stop()


def as_postgres(command: list) -> None:
    command = [str(part) for part in command]
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def started_pair(port: int) -> tuple[Pair, Path]:
    """A pair started in a new temporary folder on `port` and the next (removed if it fails)."""
    folder = Path(tempfile.mkdtemp(prefix="registry-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    pair = Pair(folder, port)
    try:
        pair.start()
    except BaseException:
        pair.stop()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return pair, folder


def run(port: int | None, command: list[str]) -> int:
    if port:
        pair, folder = started_pair(port)
    else:
        pair, folder = ports.start_on_free_ports(started_pair, count=2)
        port = pair.primary.port
    try:
        environment = {
            **os.environ,
            "DATABASE_URL": pair.primary.url,
            "REPLICA_URLS": pair.replica.url,
            "PG_PAIR_FOLDER": str(folder),
            "PG_PAIR_PORT": str(port),
        }
        return subprocess.run(command, env=environment).returncode
    finally:
        pair.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["run"])
    parser.add_argument("--port", type=int, default=0, help="default: two free ports")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    sys.exit(run(arguments.port, command))
