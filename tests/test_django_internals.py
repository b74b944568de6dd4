"""The site uses Django's public API: no query classes, compilers or the connection's own
bookkeeping outside migrations (the next Django release may change them without a deprecation).
Reads that must not be compiled on every call are written in SQL through `Model.objects.raw`
(core/reads.py); the transactions of changes keep their own record of what is open
(core/transactions.py)."""

import ast
from pathlib import Path

from tests.layers import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
INTERNAL_MODULES = ("django.db.models.sql",)
INTERNAL_NAMES = {
    # django.db.models.sql and django.db.models.query's own helpers
    "Query", "InsertQuery", "UpdateQuery", "SQLCompiler", "get_compiler", "ModelIterable",
    "ValuesListIterable", "NamedValuesListIterable", "create_namedtuple_class",
    "get_related_populators",
    # the connection's bookkeeping of its atomic blocks
    "atomic_blocks", "savepoint_ids",
}  # fmt: skip


def internals_used(source: str, module: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(INTERNAL_MODULES):
            found.append(f"{module}:{node.lineno}: from {node.module}")
        elif isinstance(node, ast.Import):
            found += [
                f"{module}:{node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name.startswith(INTERNAL_MODULES)
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django"):
            found += [
                f"{module}:{node.lineno}: {alias.name}"
                for alias in node.names
                if alias.name in INTERNAL_NAMES
            ]
        elif isinstance(node, ast.Attribute) and node.attr in INTERNAL_NAMES:
            found.append(f"{module}:{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "query"
        ):
            found.append(f"{module}:{node.lineno}: .query.{node.attr}")
    return found


def test_no_module_uses_django_internals():
    found = [
        used
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for used in internals_used(path.read_text(), str(path.relative_to(ROOT)))
    ]

    assert found == []


def test_each_internal_use_is_seen():
    for source in (
        "from django.db.models.sql import InsertQuery",
        "import django.db.models.sql.compiler",
        "from django.db.models.query import ValuesListIterable",
        "compiler = queryset.query.get_compiler(using='default')",
        "blocks = connection.atomic_blocks",
        "mode = queryset.query.select_for_update",
    ):
        assert internals_used(source, "example.py"), source


# Django has no public way to ask whether a relation was prefetched. One place asks (a
# container's documents: as read with it, or in SQL written once), because the answer is worth
# about 7% of a claim's change (measured in process, a claim's draft edit on the 1,000-tender
# bench registry: 5.9-6.1 ms against 6.3-6.7 ms with the plain queryset); nowhere else.
PREFETCH_CACHE = "_prefetched_objects_cache"


def test_the_prefetch_cache_is_asked_in_one_place():
    asking = sorted(
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if PREFETCH_CACHE in path.read_text()
    )
    assert asking == ["tenders/documents.py"]
