"""Validators of OCDS release and record packages against the official 1.1.5 schemas with the
declared extensions applied, from the project's copies alone (the network is closed while they
are built and run)."""

import socket

import pytest
from jsonschema import Draft4Validator, FormatChecker
from referencing import Registry, Resource

from opendata.schema import STANDARD, read, release_schema


class Validators:
    def __init__(self):
        Draft4Validator.check_schema(release_schema())
        registry = Registry().with_resources(
            [
                (f"{STANDARD}release-schema.json", Resource.from_contents(release_schema())),
                (
                    f"{STANDARD}versioned-release-validation-schema.json",
                    Resource.from_contents(read("schema/versioned-release-validation-schema.json")),
                ),
            ]
        )
        formats = FormatChecker()
        self.release_package = Draft4Validator(
            read("schema/release-package-schema.json"), registry=registry, format_checker=formats
        )
        self.record_package = Draft4Validator(
            read("schema/record-package-schema.json"), registry=registry, format_checker=formats
        )

    @staticmethod
    def errors(validator, package) -> list[str]:
        return [
            f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in validator.iter_errors(package)
        ]


@pytest.fixture(scope="session")
def ocds():
    return Validators()


@pytest.fixture
def offline(monkeypatch):
    """No connection leaves the process (the document service and the database are local)."""
    connect = socket.socket.connect

    def local_only(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and host not in ("127.0.0.1", "localhost", "::1")
            and "/" not in host
        ):
            raise OSError(f"the tests read nothing from the network: {address}")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", local_only)
