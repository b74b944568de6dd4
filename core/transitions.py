"""The frame every status machine uses: Tender, its lots, Bid, Award, Contract, Cancellation,
Complaint, and the portal's Organization (its verification), JoinRequest and Invitation.

A model lists its transitions in one table, `TRANSITIONS`: action -> (statuses it starts from,
the statuses it leads to, the role that performs it). One guard (`guard`) reads the table; the
portal's buttons (`available_actions`), `can` and the API's dispatch (`transition_to`) are
derived from it; one method per transition on the model calls `begin` (lock, then guard) and
`apply` (set, stamp, save the changed columns, record). Time-driven changes pass the same guard
with the system actor. A status column is written by `apply` alone (a test reads every model
for writes elsewhere); a new object starts in its column's default.

An object comes into being by a transition too, from NEW (its creation: `register`,
`place`, `file`...), so that its first status is the table's as well.

A transition leads to one status; or to one of several, picked by a method of the model the
table names (`picked_by`: e.g. closing tendering leads to qualification when there are bids,
else to unsuccessful); or to none (`UNCHANGED`: an edit that leaves the status as it is).

The model answers the hooks declared below (`role_of`, `status_refusal`, `lock_for_change` and
`record_change` always; the others when it has something to say).

Every rule, in the frame or beside it, speaks one vocabulary: `check_*` raises a `Refused`
(carrying the 2.3 description); `can(...)` and `can_*` are the booleans derived from a check
by `worth_offering`; `refusal(...)` and `refusal_of(check, ...)` say why, or None (`refused(...)`
and `error_of(check, ...)`: the refusal itself, for the portal's words). `check_party(by)`
is the guard's first step alone: who `by` is here, or 403.
"""

from typing import ClassVar, NamedTuple

from django.utils import timezone

from core import transactions
from core.actors import Actor, Role
from core.errors import (
    PermissionDenied,
    Refused,
    RoleNotAllowed,
    error_of,
    refusal_of,
    worth_offering,
)
from core.writes import WrittenWithTheChange


class Transition(NamedTuple):
    sources: frozenset
    # The statuses it may lead to: one; several, of which the model's method named `picked_by`
    # picks one; or none (UNCHANGED: the status stays as it is).
    targets: frozenset
    role: Role
    picked_by: str | None = None


# The target of a change that leaves the status as it is (an edit, a document added).
UNCHANGED = frozenset()
# The source of a creation: the status of an object not saved yet (its column is empty).
NEW = ""


def transition(sources, targets, role: Role, *, picked_by: str | None = None) -> Transition:
    """A row of a table. `targets`: a status, a set of statuses (then `picked_by` names the
    model's method that picks one, from what the change set), or UNCHANGED."""
    targets = frozenset({targets} if isinstance(targets, str) else targets)
    if (len(targets) > 1) != (picked_by is not None):
        raise ValueError("several targets need the method that picks one, and only they")
    return Transition(frozenset(sources), targets, role, picked_by)


class StatusMachine(WrittenWithTheChange):
    """Mixin for a model with a status column and a `TRANSITIONS` table (it comes before
    `models.Model` among the model's bases: its saves are the change's, core/writes.py)."""

    TRANSITIONS: ClassVar[dict[str, Transition]] = {}
    # The column that holds the status.
    STATUS_FIELD: ClassVar[str] = "status"
    # The column stamped with the moment of every change (None: none).
    STAMP_FIELD: ClassVar[str | None] = "date"

    # --- the hooks: what the model says ---------------------------------------------------

    @property
    def transitions(self) -> dict[str, Transition]:
        """This object's table: its model's `TRANSITIONS` (a tender's is its procedure's)."""
        return self.TRANSITIONS

    def role_of(self, by: Actor) -> Role | None:
        """Which role of the table `by` holds for this object (None: none)."""
        raise NotImplementedError

    def party_refusal(self) -> Refused:
        """The refusal of an actor holding no role here (2.3's 403 by default)."""
        return PermissionDenied()

    def check_context(self, action: str, by: Actor, now) -> None:
        """The state around this object that every change needs (e.g. its tender's status),
        checked before the table, because 2.3 words those refusals first (none by default)."""

    def status_refusal(self, action: str) -> Refused:
        """The refusal when this object's status is not among the action's sources."""
        raise NotImplementedError

    def check_rules(self, action: str, by: Actor, now) -> None:
        """The transition's own rules (periods, standing...), after the table (none by
        default)."""

    def lock_for_change(self):
        """Lock what the change must hold (the object's row, or its tender's), apply the
        changes that became due, reload this object; returns `now`, the one moment the change
        is stamped with."""
        raise NotImplementedError

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]) -> None:
        """Record the change (the audit event; `before`: the status it left, `fields`: the
        columns it set besides the status and the stamp)."""
        raise NotImplementedError

    def save_change(self, fields: list[str]) -> None:
        """Save the changed columns (a new object: its row). A model whose row is saved once
        per change, later, says so here."""
        if self._state.adding:
            self.save(force_insert=True)
        else:
            self.save(update_fields=fields)

    # --- the lock a change holds ----------------------------------------------------------

    def mark_locked(self) -> None:
        """This instance was loaded with its row (or its tender's) locked by the transaction,
        or savepoint, now running: a change made before it ends needs not lock or reload it
        again."""
        self._lock_block = transactions.current()

    @property
    def holds_lock(self) -> bool:
        """Was it loaded under a lock the running transaction (or savepoint) still holds?"""
        return transactions.is_open(getattr(self, "_lock_block", None))

    @property
    def current_status(self) -> str:
        return getattr(self, self.STATUS_FIELD)

    # --- the one guard and what is derived from it ----------------------------------------

    def check_party(self, by: Actor) -> Role:
        """The role `by` holds here; PermissionDenied if none (2.3 answers 403 before it reads
        the request's body, so the API asks this first)."""
        role = Role.SYSTEM if by.role is Role.SYSTEM else self.role_of(by)
        if role is None:
            raise self.party_refusal()
        return role

    def guard(self, action: str, by: Actor, now) -> None:
        """Raise the refusal (a `Refused`) if `by` may not perform `action` now."""
        row = self.transitions[action]
        role = self.check_party(by)
        self.check_context(action, by, now)
        if role is not row.role:
            raise RoleNotAllowed()
        if self.current_status not in row.sources:
            raise self.status_refusal(action)
        self.check_rules(action, by, now)

    def can(self, action: str, by: Actor, now=None) -> bool:
        return worth_offering(self.guard, action, by, now or timezone.now())

    def refused(self, action: str, by: Actor, now) -> Refused | None:
        """The refusal `by` would meet performing `action` now, or None if it may."""
        return error_of(self.guard, action, by, now)

    def refusal(self, action: str, by: Actor, now) -> str | None:
        """Why `by` may not perform `action` now (the 2.3 description), or None if it may."""
        return refusal_of(self.guard, action, by, now)

    def available_actions(self, by: Actor, now=None) -> list[str]:
        """What `by` may do now (the system's transitions are never offered)."""
        now = now or timezone.now()
        return [
            action
            for action, row in self.transitions.items()
            if row.role is not Role.SYSTEM and self.can(action, by, now)
        ]

    def transition_to(self, requested: str, role: Role) -> str | None:
        """The transition that takes `role` from this status to `requested` (how a 2.3 PATCH
        of `status` is read), or None."""
        for action, row in self.transitions.items():
            if (
                row.role is role
                and self.current_status in row.sources
                and requested in row.targets
                and row.picked_by is None
            ):
                return action
        return None

    # --- performing a transition ----------------------------------------------------------

    def begin(self, action: str, by: Actor):
        """Lock and check; returns `now`, the one moment the change is stamped with."""
        now = self.lock_for_change()
        self.guard(action, by, now)
        return now

    def perform(self, action: str, by: Actor, now, **fields) -> None:
        """Guard, then apply: a transition made inside a change that holds the lock already
        (one caused by time or by another transition)."""
        self.guard(action, by, now)
        self.apply(action, by, now, **fields)

    def apply(self, action: str, by: Actor, now, **fields) -> None:
        """Set `fields` and the status the table leads to, stamp, save only the changed
        columns, and record the change."""
        row = self.transitions[action]
        before = self.current_status
        for name, value in fields.items():
            setattr(self, name, value)
        changed = list(fields)
        if row.targets:
            target = getattr(self, row.picked_by)() if row.picked_by else next(iter(row.targets))
            if target not in row.targets:
                raise ValueError(f"{action} leads to {sorted(row.targets)}, not to {target}")
            setattr(self, self.STATUS_FIELD, target)
            changed.append(self.STATUS_FIELD)
        if self.STAMP_FIELD:
            setattr(self, self.STAMP_FIELD, now)
            changed.append(self.STAMP_FIELD)
        self.save_change(sorted(set(changed)))
        self.record_change(action, by, now, before, sorted(fields))
