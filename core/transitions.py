"""The frame every status machine uses: Tender, Bid, Award, Contract, Cancellation, Complaint,
and the portal's Organization (its verification) and JoinRequest.

A model lists its transitions in one table, `TRANSITIONS`: action -> (statuses it starts from,
the status it leads to, the role that performs it). One guard (`guard`) reads the table; the
portal's buttons (`available_actions`), `can` and the API's dispatch (`action_for`) are derived
from it; one method per transition on the model calls `begin` (lock, then guard) and `apply`
(set, stamp, save the changed columns, record). Time-driven changes pass the same guard with
the system actor.

The model says what the table cannot:
- `role_of(by)`: which role of its table `by` holds for this object (None: none), and
  `party_refusal()`: the refusal when it holds none (403 unless said otherwise);
- `check_context(action, by, now)`: the state around it (e.g. the tender's status), checked
  before the table, because 2.3 words those refusals first;
- `status_refusal(action)`: the 2.3 refusal when the status is not a source;
- `check_rules(action, by, now)`: the transition's own rules (periods, standing...);
- `lock_for_change()`: lock what the change must hold, apply due changes, reload; returns now;
- `record_change(action, by, now, before, fields)`: the audit event and the tender's stamp;
- `save_change(fields)`, only if its row is saved otherwise (the tender's, once per change).

Every rule, in the frame or beside it, speaks one vocabulary: `check_*` raises a `Refused`
(carrying the 2.3 description); `can(...)` and `can_*` are the booleans derived from a check
by `offered`; `refusal(...)` and `refusal_of(check, ...)` say why, or None (`refused(...)`
and `error_of(check, ...)`: the refusal itself, for the portal's words). `check_party(by)`
is the guard's first step alone: who `by` is here, or 403.
"""

from typing import ClassVar, NamedTuple

from django.utils import timezone

from core.actors import Actor, Role
from core.errors import (
    PermissionDenied,
    Refused,
    RoleNotAllowed,
    error_of,
    offered,
    refusal_of,
)


class Transition(NamedTuple):
    sources: frozenset
    # None: the transition decides (e.g. an answered claim takes its resolution type).
    target: str | None
    role: Role


def transition(sources, target, role: Role) -> Transition:
    return Transition(frozenset(sources), target, role)


class StatusMachine:
    """Mixin for a model with a `status` column and a `TRANSITIONS` table."""

    TRANSITIONS: ClassVar[dict[str, Transition]] = {}
    # The column that holds the status.
    STATUS_FIELD: ClassVar[str] = "status"
    # The column stamped with the moment of every change (None: none).
    STAMP_FIELD: ClassVar[str | None] = "date"

    # --- what the model says --------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        raise NotImplementedError

    def party_refusal(self) -> Refused:
        """The refusal of an actor holding no role here (2.3's 403 by default)."""
        return PermissionDenied()

    def check_context(self, action: str, by: Actor, now) -> None:
        """The state around this object that every change needs (none by default)."""

    def status_refusal(self, action: str) -> Refused:
        raise NotImplementedError

    def check_rules(self, action: str, by: Actor, now) -> None:
        """The transition's own rules, after the table (none by default)."""

    # lock_for_change() and record_change(action, by, now, before, fields) come from the model
    # or from a mixin it shares with its kind (tenders.models.base.ChangedUnderItsTendersLock).

    def save_change(self, fields: list[str]) -> None:
        """Save the changed columns (a model that saves its row once per change, later,
        says so here)."""
        self.save(update_fields=fields)

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
        row = self.TRANSITIONS[action]
        role = self.check_party(by)
        self.check_context(action, by, now)
        if role is not row.role:
            raise RoleNotAllowed()
        if self.current_status not in row.sources:
            raise self.status_refusal(action)
        self.check_rules(action, by, now)

    def can(self, action: str, by: Actor, now=None) -> bool:
        return offered(self.guard, action, by, now or timezone.now())

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
            for action, row in self.TRANSITIONS.items()
            if row.role is not Role.SYSTEM and self.can(action, by, now)
        ]

    def transition_to(self, requested: str, role: Role) -> str | None:
        """The transition that takes `role` from this status to `requested` (how a 2.3 PATCH
        of `status` is read), or None."""
        for action, row in self.TRANSITIONS.items():
            if row.role is role and self.current_status in row.sources and row.target == requested:
                return action
        return None

    # --- performing a transition ----------------------------------------------------------

    def begin(self, action: str, by: Actor):
        """Lock and check; returns `now`, the one moment the change is stamped with."""
        now = self.lock_for_change()
        self.guard(action, by, now)
        return now

    def apply(self, action: str, by: Actor, now, *, status=None, **fields) -> None:
        """Set `fields` and the status (the table's target unless given), stamp, save only the
        changed columns, and record the change."""
        before = self.current_status
        target = status if status is not None else self.TRANSITIONS[action].target
        for name, value in fields.items():
            setattr(self, name, value)
        changed = list(fields)
        if target is not None:
            setattr(self, self.STATUS_FIELD, target)
            changed.append(self.STATUS_FIELD)
        if self.STAMP_FIELD:
            setattr(self, self.STAMP_FIELD, now)
            changed.append(self.STAMP_FIELD)
        self.save_change(sorted(set(changed)))
        self.record_change(action, by, now, before, sorted(fields))
