"""The project's packages as `make lint`'s layer contract lists them (pyproject.toml), lowest
first: the one list every guard test reads, so that a package added to the layers is guarded
the moment it is added."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layer_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(contract for contract in config["contracts"] if contract["id"] == "layers")


PACKAGES = list(reversed(layer_contract()["layers"]))
