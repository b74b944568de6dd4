from datetime import UTC, datetime

import pytest


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A real S3-compatible server (SeaweedFS, as `make cluster` runs it) on loopback, for the
    object-storage runs: on free ports below the ephemeral range, checked to be the one
    answering (cluster/ports.py)."""
    from cluster import ports, processes

    def start(first: int):
        port = first + 3  # (SeaweedFS listens on the three ports before it, four after)
        return port, processes.seaweedfs(tmp_path_factory.mktemp("s3"), port).start()

    port, server = ports.start_on_free_ports(start, count=8)
    try:
        processes.make_bucket(port, "documents")
        yield {
            "endpoint": f"http://127.0.0.1:{port}",
            "aws_access_key_id": processes.S3_ACCESS_KEY,
            "aws_secret_access_key": processes.S3_SECRET_KEY,
        }
    finally:
        server.stop()


@pytest.fixture(params=["filesystem", "s3"])
def store(request, settings, monkeypatch):
    """Run the test against the filesystem store, then against S3 on loopback."""
    if request.param == "s3":
        server = request.getfixturevalue("s3_server")
        signed_at_the_real_time(monkeypatch)
        settings.STORAGES = {
            **settings.STORAGES,
            "documents": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    **settings.DOCUMENTS_S3_OPTIONS,
                    "bucket_name": "documents",
                    "endpoint_url": server["endpoint"],
                    "region_name": "us-east-1",
                    "access_key": server["aws_access_key_id"],
                    "secret_key": server["aws_secret_access_key"],
                    "location": request.node.name.replace("[", "-").replace("]", ""),
                },
            },
        }
    return request.param


@pytest.fixture
def ds(client, brokers):
    """The document service as a broker sees it (registration, upload, signed downloads)."""
    from tests.docservice.helpers import DocService

    return DocService(client)


def signed_at_the_real_time(monkeypatch):
    """S3 refuses a request signed at a moment far from its own clock: a test that moves the
    clock still signs its requests to the real server at the real time."""
    import botocore
    import time_machine

    def real_now(remove_tzinfo=True):
        travelling = time_machine.escape_hatch.is_travelling()
        now = (time_machine.escape_hatch.datetime.datetime if travelling else datetime).now(UTC)
        return now.replace(tzinfo=None) if remove_tzinfo else now

    for module in ("compat", "auth", "endpoint", "signers", "utils"):
        monkeypatch.setattr(getattr(botocore, module), "get_current_datetime", real_now)
