import socket

import pytest


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-compatible server (moto's) on loopback, for the object-storage runs."""
    import boto3
    from moto.server import ThreadedMotoServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    credentials = {
        "aws_access_key_id": "registry-test",
        "aws_secret_access_key": "registry-test-secret",
    }
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **credentials).create_bucket(
        Bucket="documents"
    )
    yield {"endpoint": endpoint, **credentials}
    server.stop()


@pytest.fixture(params=["filesystem", "s3"])
def store(request, settings):
    """Run the test against the filesystem store, then against S3 on loopback."""
    if request.param == "s3":
        server = request.getfixturevalue("s3_server")
        settings.STORAGES = {
            **settings.STORAGES,
            "documents": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": "documents",
                    "endpoint_url": server["endpoint"],
                    "region_name": "us-east-1",
                    "access_key": server["aws_access_key_id"],
                    "secret_key": server["aws_secret_access_key"],
                    "location": request.node.name.replace("[", "-").replace("]", ""),
                    "file_overwrite": False,
                    "querystring_auth": True,
                    "querystring_expire": 60,
                },
            },
        }
    return request.param


@pytest.fixture
def ds(client, brokers):
    """The document service as a broker sees it (registration, upload, signed downloads)."""
    from tests.docservice.helpers import DocService

    return DocService(client)
