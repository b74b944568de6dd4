"""The layer contracts of `make lint` (pyproject.toml) cover the project package whole."""

import pkgutil
import re
import tomllib
from pathlib import Path

import portal

ROOT = Path(__file__).resolve().parent.parent


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_every_module_of_the_project_package_but_the_kernel_is_above_the_apps():
    modules = {f"portal.{info.name}" for info in pkgutil.iter_modules(portal.__path__)}

    project = set(contracts()["project"]["forbidden_modules"])

    assert project == modules - {"portal.core"}


def test_the_kernel_may_import_neither_the_apps_nor_the_project_package():
    kernel = contracts()["kernel"]
    apps = contracts()["apps"]["layers"]

    assert kernel["source_modules"] == ["portal.core"]
    assert set(kernel["forbidden_modules"]) == set(apps) | set(
        contracts()["project"]["forbidden_modules"]
    )
    assert set(contracts()["project"]["source_modules"]) == set(apps)


def test_no_test_module_imports_another():
    """Shared builders live in helper modules (tests/helpers.py, tests/factories.py,
    tests/portal/forms.py, tests/browser/pages.py...), never in a test module."""
    importing = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in (ROOT / "tests").rglob("*.py")
        for line in path.read_text().splitlines()
        if re.match(r"\s*from tests(\.\w+)*\.test_\w+ import", line)
    ]
    assert importing == []
