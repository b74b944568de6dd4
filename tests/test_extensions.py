"""The apps above plug into the tender core one way: parts plugged into the extension points
listed in tenders/extensions.py, from their AppConfig.ready; and the claim the core asks things
of answers every member of the interface the core declares."""

import ast

from complaints.models import Complaint
from tenders import extensions
from tenders.extensions import EVERY_EXTENSION_POINT, ClaimOfTheTender, ExtensionPoint
from tests.layers import PACKAGES, ROOT

# What each app plugs in, once the site is set up.
PLUGGED = {
    "PROCEDURES": ["belowThreshold"],
    "AUCTION_OUTCOME": ["outcome"],
    "AWARD_PARTS": ["complaints"],
    "TENDER_PARTS": ["complaints"],
    "OTHER_SHAPES": ["ocds"],
    "TENDER_CHANGED": ["opendata"],
}


def test_every_extension_point_is_listed_and_has_what_its_apps_plug_in():
    defined = [value for value in vars(extensions).values() if isinstance(value, ExtensionPoint)]
    assert defined == EVERY_EXTENSION_POINT
    assert {point.name: point.names() for point in EVERY_EXTENSION_POINT} == PLUGGED


def test_no_other_way_in_is_made():
    """No Django signal, and no extension point outside tenders/extensions.py."""
    other_ways = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "tenders" / "extensions.py" or "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                    "Signal",
                    "ExtensionPoint",
                ):
                    other_ways.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert other_ways == []


def test_the_claim_answers_all_the_tender_core_asks_of_it():
    members = set(ClaimOfTheTender.__annotations__) | {
        name
        for name, value in vars(ClaimOfTheTender).items()
        if callable(value) and not name.startswith("_")
    }
    assert len(members) > 15
    assert [name for name in sorted(members) if not hasattr(Complaint, name)] == []
