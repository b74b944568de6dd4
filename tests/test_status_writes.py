"""Every status column is written by the transition frame alone (`apply` in core/transitions.py):
this test reads the source of every module of the site and fails on a status written anywhere
else, so that no change of status can miss its table, its guard and its audit event.

A status is "written" by: setting the attribute (`x.status = ...`, `setattr(x, "status", ...)`);
giving it to a model's constructor or to `create`, `update`, `get_or_create`,
`update_or_create`, `bulk_create` (a new object starts by its table's creation row, or in its
column's default); or, for lots, whose status lives in the tender's document, setting the key
(`lot["status"] = ...`) or writing the document with a status in it, outside the one function
that stores new lots as active and the lot machine's own column."""

import ast
from pathlib import Path

import pytest
from django.apps import apps

from core.transitions import StatusMachine
from tenders.models.lots import LotOfTender
from tests.layers import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
THE_FRAME = ROOT / "core" / "transitions.py"
WRITING_CALLS = {
    "create", "update", "get_or_create", "update_or_create", "bulk_create", "bulk_update",
}  # fmt: skip
# (function, module) where a lot's status key is written: a new lot is stored active, and a lot
# the owner edits keeps its status; LotOfTender's own column (its status property) writes it.
LOT_STATUS_KEPT = {("settle_lots", "tenders/models/lots.py"), ("status", "tenders/models/lots.py")}
# (function, module) writing the status of a row that is no machine of ours: django-tasks-db's
# queue, whose task a dead worker held is given back to it (core/jobs.py).
NOT_OURS = {("reclaim_abandoned", "core/jobs.py")}


def machines() -> list[type]:
    found = [model for model in apps.get_models() if issubclass(model, StatusMachine)]
    return [*found, LotOfTender]


def status_columns() -> set[str]:
    return {machine.STATUS_FIELD for machine in machines()}


def site_modules() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts and path != THE_FRAME
    ]


class StatusWrites(ast.NodeVisitor):
    def __init__(self, path: Path, columns: set[str], model_names: set[str]):
        self.path, self.columns, self.model_names = path, columns, model_names
        self.module = str(path.relative_to(ROOT))
        self.found: list[str] = []
        self.function: list[str] = []

    def where(self, node) -> str:
        return f"{self.module}:{node.lineno}"

    def visit_FunctionDef(self, node):
        self.function.append(node.name)
        self.generic_visit(node)
        self.function.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def check_target(self, target) -> None:
        if isinstance(target, ast.Attribute) and target.attr in self.columns:
            self.found.append(f"{self.where(target)}: sets .{target.attr}")
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == "status"
            and (self.function[-1] if self.function else "", self.module) not in LOT_STATUS_KEPT
            and "/models/" in f"/{self.module}"
        ):
            self.found.append(f'{self.where(target)}: sets ["status"]')
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.check_target(element)

    def visit_Assign(self, node):
        for target in node.targets:
            self.check_target(target)
            if isinstance(target, ast.Attribute) and target.attr == "data":
                self.check_document(node)
        self.generic_visit(node)

    def check_document(self, node) -> None:
        """A tender's document written anew with a lot's status in it."""
        if (self.function[-1] if self.function else "", self.module) in LOT_STATUS_KEPT:
            return
        for part in ast.walk(node.value):
            if isinstance(part, ast.Dict) and any(
                isinstance(key, ast.Constant) and key.value == "status" for key in part.keys
            ):
                self.found.append(f"{self.where(node)}: writes a lot's status in the document")
                return

    def visit_AugAssign(self, node):
        self.check_target(node.target)
        self.generic_visit(node)

    def visit_Call(self, node):
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        if name == "setattr" and len(node.args) >= 2:
            column = node.args[1]
            if isinstance(column, ast.Constant) and column.value in self.columns:
                self.found.append(f"{self.where(node)}: setattr {column.value}")
        writes = name in WRITING_CALLS or name in self.model_names or name == "model"
        if (self.function[-1] if self.function else "", self.module) in NOT_OURS:
            writes = False
        for keyword in node.keywords if writes else ():
            if keyword.arg in self.columns:
                self.found.append(f"{self.where(node)}: {name}({keyword.arg}=...)")
        self.generic_visit(node)


def writes_outside_the_frame() -> list[str]:
    columns = status_columns()
    model_names = {machine.__name__ for machine in machines()}
    found = []
    for path in site_modules():
        visitor = StatusWrites(path, columns, model_names)
        visitor.visit(ast.parse(path.read_text(), filename=str(path)))
        found += visitor.found
    return found


def test_the_machines_are_known():
    names = {machine.__name__ for machine in machines()}

    assert names >= {
        "Tender", "Bid", "Award", "Contract", "Cancellation", "Complaint", "Organization",
        "JoinRequest", "Invitation", "LotOfTender",
    }  # fmt: skip
    assert status_columns() == {"status", "verification"}


def test_no_status_is_written_outside_the_frame():
    assert writes_outside_the_frame() == []


@pytest.mark.parametrize(
    "source",
    [
        "award.status = 'cancelled'",
        "award.status, award.date = 'cancelled', now",
        "setattr(award, 'status', 'cancelled')",
        "JoinRequest.objects.filter(user=user).update(status='withdrawn')",
        "Award.objects.create(status='pending')",
        "self.awards.model(id=1, status='pending')",
        "organization.verification = 'verified'",
    ],
)
def test_each_way_of_writing_a_status_is_seen(source):
    module = ROOT / "tenders" / "models" / "example.py"  # (never written: only its name is read)
    visitor = StatusWrites(module, status_columns(), {"Award", "JoinRequest"})

    visitor.visit(ast.parse(source))

    assert len(visitor.found) == 1, source


def test_a_lots_status_key_is_seen_outside_where_lots_are_stored():
    module = ROOT / "tenders" / "models" / "tender.py"
    visitor = StatusWrites(module, status_columns(), set())

    visitor.visit(ast.parse("def end(lot):\n    lot['status'] = 'complete'\n"))
    visitor.visit(
        ast.parse("def end(self):\n    self.data = {'lots': [{**lot, 'status': 'complete'}]}\n")
    )

    assert len(visitor.found) == 2
