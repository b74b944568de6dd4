"""The OCDS 1.1.5 release schema with the extensions this registry declares applied, read once
from data/ocds (their sources: data/ocds/SOURCES.md), and the merger that compiles a record's
releases by its rules (ocdsmerge, given the schema: it reads nothing from the network)."""

import copy
import json
from functools import cache
from pathlib import Path

from django.conf import settings

DATA = Path(__file__).parent / "data" / "ocds"
VERSION = "1.1"
# Where the standard's files say they live (the packages' schemas name the release schema so).
STANDARD = "https://standard.open-contracting.org/schema/1__1__5/"
RAW = "https://raw.githubusercontent.com/"
# Each declared extension: its folder here, and the URL of its extension.json at that version.
EXTENSIONS = {
    "bids": f"{RAW}open-contracting-extensions/ocds_bid_extension/v1.1.5/extension.json",
    "lots": f"{RAW}open-contracting-extensions/ocds_lots_extension/v1.1.5/extension.json",
    "enquiries": f"{RAW}open-contracting-extensions/ocds_enquiry_extension/v1.1.5/extension.json",
    "contract_suppliers": (
        f"{RAW}open-contracting-extensions/ocds_contract_suppliers_extension/"
        "213ff47826ef6d9de62b1b7efb9bf490abd8388d/extension.json"
    ),
    "complaint_openprocurement": (
        f"{RAW}openprocurement/ocds_complaint_extension/"
        "6491488ba45ac68dce6f513cdf61d0b1e2c5f23d/extension.json"
    ),
    "auction_openprocurement": (
        f"{RAW}openprocurement/ocds_auction_extension/"
        "7393ead2064665324e75360b92c43bac0ab572c0/extension.json"
    ),
    # Ours (no registered extension carries them), served by the registry (opendata/api.py).
    "features": "/api/2.3/ocds/extensions/features/extension.json",
}
OWN_EXTENSIONS = {"features"}


def declared_extensions() -> list[str]:
    """The URLs a package declares: ours on this registry's address (SITE_URL)."""
    return [url if url.startswith("http") else f"{settings.SITE_URL}{url}"
            for url in EXTENSIONS.values()]  # fmt: skip


def read(path: str) -> dict:
    with open(DATA / path, encoding="utf-8") as file:
        return json.load(file)


def merge_patch(target, patch):
    """RFC 7386: `patch` applied to `target` (a null in the patch removes the member)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


@cache
def release_schema() -> dict:
    """The release schema with every declared extension applied."""
    schema = read("schema/release-schema.json")
    for name in EXTENSIONS:
        schema = merge_patch(schema, read(f"extensions/{name}/release-schema.json"))
    return schema


@cache
def merger():
    """Compiles releases into a record's compiled release (built once: its rules come from the
    schema)."""
    import ocdsmerge

    return ocdsmerge.Merger(schema=copy.deepcopy(release_schema()))
