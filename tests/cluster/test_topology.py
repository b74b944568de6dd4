"""What each machine of `make cluster` is given (cluster/topology.py): the secrets one side
holds are not handed to the other."""

from pathlib import Path

from cluster import processes
from cluster.postgres import Pair
from cluster.topology import Cluster


def environments():
    cluster = Cluster(folder=Path("/nonexistent"))
    cluster.pair = Pair(Path("/nonexistent"), 26432)  # (never started: its URLs are enough)
    return cluster, cluster.shared(), cluster.docservice_environment()


def test_the_document_service_holds_its_own_seed_and_the_registry_only_the_verify_key():
    cluster, registry, docservice = environments()
    registry_seed, registry_verify = cluster.registry_key
    docservice_seed, docservice_verify = cluster.docservice_key

    assert registry_seed not in docservice.values() and registry_verify in docservice.values()
    assert docservice_seed not in registry.values() and docservice_verify in registry.values()
    assert docservice["SECRET_KEY"] != registry["SECRET_KEY"]


def test_only_the_document_service_reaches_the_s3_store():
    _, registry, docservice = environments()

    assert processes.S3_SECRET_KEY in docservice.values()
    assert processes.S3_SECRET_KEY not in registry.values()
    assert "REPLICA_URLS" not in docservice  # (it reads and writes the primary)
