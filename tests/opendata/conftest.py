"""Validators of OCDS release and record packages against the official 1.1.5 schemas with the
declared extensions applied, from the project's copies alone (the references between the
schemas resolve in a local registry: nothing is fetched)."""

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
