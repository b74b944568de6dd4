"""The tender-side status machines cell by cell: every status × action × actor, against what
2.3 (and our additions) allow, written out here by hand rather than read from the tables. Each
object reaches its status through the transitions; allowed cells are then performed through the
model's own method and leave exactly the status and the audit event the table says."""

from datetime import timedelta
from itertools import pairwise

import pytest

from belowthreshold.table import LIFECYCLE
from belowthreshold.table import TRANSITIONS as TENDER_TRANSITIONS
from contracting.models import ContractChange, SignedContract
from core.actors import Actor, Role
from core.errors import NotAllowed, PermissionDenied, Refused, RoleNotAllowed
from core.schema import iso
from tenders.models import (
    AuditEvent,
    Award,
    Bid,
    Cancellation,
    Contract,
    Tender,
)
from tests.factories import decided_award, file_claim
from tests.helpers import FIRST, SECOND, bid_data, tender_data, two_lots

pytestmark = pytest.mark.django_db

ALLOWED = "allowed"


def outcome(subject, action: str, by: Actor, now) -> str:
    try:
        subject.guard(action, by, now)
    except Refused as refusal:
        return type(refusal).__name__
    return ALLOWED


def refusal_for(who: str, owner_role: str, row_role: Role) -> str | None:
    """The refusal every machine gives before looking at statuses: no part in the object, or
    the wrong part for this action."""
    if who in ("stranger", "anonymous"):
        return PermissionDenied.__name__
    held = Role.SYSTEM if who == "system" else owner_role
    if held is not row_role:
        return RoleNotAllowed.__name__
    return None


# --- Tender ---------------------------------------------------------------------------------

TENDER_STATUSES = [
    "draft", "active.enquiries", "active.tendering", "active.auction", "active.qualification",
    "active.awarded", "complete", "unsuccessful", "cancelled",
]  # fmt: skip
PERFORMERS = {Role.SYSTEM: "system", Role.AUCTION: "auction"}
LIVE = {s for s in TENDER_STATUSES if s not in ("complete", "unsuccessful", "cancelled")}
# action -> the statuses it is allowed in, and who performs it (2.3's lifecycle, with drafts).
TENDER_ALLOWED = {
    # Its creation ("": not saved yet), public at once or as a draft.
    "register": ({""}, "owner"),
    "register_draft": ({""}, "owner"),
    "publish": ({"draft"}, "owner"),
    "edit": (LIVE - {"draft"}, "owner"),
    "rewrite_draft": ({"draft"}, "owner"),  # (the portal's "edit the draft")
    "amend": ({"active.enquiries"}, "owner"),  # (the portal's "amend the tender")
    "add_document": ({"draft", "active.enquiries"}, "owner"),
    "update_document": ({"draft", "active.enquiries"}, "owner"),
    # The auction module's protocol.
    "auction_add_document": ({"active.auction", "active.qualification"}, "auction"),
    "auction_update_document": ({"active.auction", "active.qualification"}, "auction"),
    "add_lot": ({"draft", "active.enquiries"}, "owner"),
    "update_lot": ({"draft", "active.enquiries"}, "owner"),
    "delete_lot": ({"draft", "active.enquiries"}, "owner"),
    # Answers are given until tendering starts (questions are asked by anyone known).
    "update_question": ({"active.enquiries"}, "owner"),
    "cancel": (LIVE, "owner"),
    "start_tendering": ({"active.enquiries"}, "system"),
    "close_tendering": ({"active.tendering"}, "system"),
    "auctions_over": ({"active.auction"}, "system"),
    "awarded": ({"active.qualification"}, "system"),
    "reopen_qualification": ({"active.awarded"}, "system"),
    # (from qualification too: the last lot to end may end while another's award is pending)
    "fail": ({"active.qualification", "active.awarded"}, "system"),
    "complete": ({"active.qualification", "active.awarded"}, "system"),
}
ACTORS = ["owner", "stranger", "anonymous", "system"]


def tender_in(status: str, brokers, clock) -> tuple[Tender, Actor]:
    """A tender brought to `status` by the transitions (and the clock)."""
    broker = brokers["broker"]
    if status in ("active.qualification", "active.awarded", "complete"):
        world = decided_award(
            brokers, clock, decision="" if status == "active.qualification" else "active"
        )
        tender = world.tender
        if status == "complete":
            contract = tender.contracts.get()
            clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
            contract.tender = Tender.objects.current(tender.pk, viewer=None)
            contract.sign(by=world.owner)
        tender = Tender.objects.current(tender.pk, viewer=None)
        return tender, Actor(Role.TENDER_OWNER, broker=broker, subject=tender)
    data = tender_data(clock.now(), **({"status": "draft"} if status == "draft" else {}))
    tender, _ = Tender.objects.register(by=Actor(Role.AUTHENTICATED, broker=broker), data=data)
    owner = Actor(Role.TENDER_OWNER, broker=broker, subject=tender)
    if status == "active.tendering":
        clock.move_to(tender.tender_start + timedelta(minutes=1))
    elif status == "active.auction":
        clock.move_to(tender.tender_start + timedelta(minutes=1))
        for amount, identifier in ((400, "00000001"), (450, "00000002")):
            tender.place_bid(
                by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]),
                data=bid_data(amount, identifier=identifier),
            )
        clock.move_to(tender.tender_end + timedelta(minutes=1))
    elif status == "unsuccessful":
        clock.move_to(tender.tender_end + timedelta(minutes=1))
    elif status == "cancelled":
        tender.cancel(by=owner, reason="Потреба відпала")
    tender = Tender.objects.current(tender.pk, viewer=None)
    return tender, Actor(Role.TENDER_OWNER, broker=broker, subject=tender)


def actors(owner: Actor, brokers) -> dict[str, Actor]:
    return {
        "owner": owner,
        "stranger": Actor(Role.AUTHENTICATED, broker=brokers["broker2"]),
        "anonymous": Actor.anonymous(),
        "system": Actor.system(),
    }


@pytest.mark.parametrize("status", TENDER_STATUSES)
def test_tender_cells(status, brokers, clock):
    tender, owner = tender_in(status, brokers, clock)
    assert tender.status == status
    # (the auction module holds the auction role on every tender)
    people = {**actors(owner, brokers), "auction": Actor(Role.AUCTION, broker=brokers["broker"])}
    now = clock.now()
    for action, (statuses, performer) in TENDER_ALLOWED.items():
        row = TENDER_TRANSITIONS[action]
        for who, by in people.items():
            if who == "auction":
                expected = None if row.role is Role.AUCTION else RoleNotAllowed.__name__
            else:
                expected = refusal_for(who, Role.TENDER_OWNER, row.role)
            if expected is None:
                expected = ALLOWED if status in statuses else NotAllowed.__name__
            assert performer == PERFORMERS.get(row.role, "owner"), action
            assert outcome(tender, action, by, now) == expected, (status, action, who)


def test_tender_table_is_the_lifecycle():
    assert {
        action: (set(row.sources), PERFORMERS.get(row.role, "owner"))
        for action, row in TENDER_TRANSITIONS.items()
    } == TENDER_ALLOWED


def test_owner_actions_offered_are_the_allowed_cells(brokers, clock):
    for status in ("draft", "active.enquiries", "active.tendering", "cancelled"):
        tender, owner = tender_in(status, brokers, clock)
        expected = [
            action
            for action, (statuses, who) in TENDER_ALLOWED.items()
            if who == "owner" and status in statuses
        ]
        assert tender.available_actions(owner) == expected, status
        assert tender.available_actions(Actor.system()) == []


def test_publishing_and_cancelling_are_recorded_once(brokers, clock):
    tender, owner = tender_in("draft", brokers, clock)
    tender.publish(by=owner)
    tender.cancel(by=owner, reason="Потреба відпала")

    events = [
        (e.action, e.from_status, e.to_status) for e in tender.events.filter(subject_type="tender")
    ]
    assert events == [
        ("register_draft", "", "draft"),
        ("publish", "draft", "active.enquiries"),
        ("cancel", "active.enquiries", "cancelled"),
    ]
    assert Tender.objects.get(pk=tender.pk).status == "cancelled"


def test_time_driven_changes_are_recorded_as_the_system(brokers, clock):
    tender, _owner = tender_in("unsuccessful", brokers, clock)
    events = tender.events.filter(subject_type="tender").exclude(action="register")
    assert [(e.action, e.from_status, e.to_status, e.actor_role) for e in events] == [
        ("start_tendering", "active.enquiries", "active.tendering", "system"),
        ("close_tendering", "active.tendering", "unsuccessful", "system"),
    ]


# --- Award ----------------------------------------------------------------------------------

AWARD_ALLOWED = {
    "pending": {"edit", "activate", "disqualify"},
    "active": {"cancel"},
    "unsuccessful": set(),  # reopened only to remedy a claim (below)
    "cancelled": set(),
}
# What the system does to an award: it draws one up (from nothing: never to one that exists),
# and cancels the later awards of a line whose disqualification is reconsidered.
AWARD_ALLOWED_TO_THE_SYSTEM = {
    "pending": {"fall_with_earlier"},
    "active": {"fall_with_earlier"},
    "unsuccessful": {"fall_with_earlier"},
    "cancelled": set(),
}


def award_in(status: str, brokers, clock):
    world = decided_award(
        brokers,
        clock,
        decision={"active": "active", "unsuccessful": "unsuccessful"}.get(
            status, "active" if status == "cancelled" else ""
        ),
    )
    award = world.award
    if status == "cancelled":
        award.cancel(by=world.owner)
        world.refresh()
        award = Award.objects.get(pk=award.pk)
        award.tender = world.tender
    return world, award


def award_actors(world) -> dict[str, Actor]:
    return {
        "owner": world.owner,
        "bidder": world.bidders[0],
        "stranger": world.stranger,
        "anonymous": Actor.anonymous(),
    }


@pytest.mark.parametrize("status", list(AWARD_ALLOWED))
def test_award_cells(status, brokers, clock):
    world, award = award_in(status, brokers, clock)
    assert award.status == status
    now = clock.now()
    people = {**award_actors(world), "system": Actor.system()}
    for action, row in Award.TRANSITIONS.items():
        for who, by in people.items():
            allowed = AWARD_ALLOWED_TO_THE_SYSTEM if who == "system" else AWARD_ALLOWED
            if who not in ("owner", "system"):
                expected = PermissionDenied.__name__
            elif (who == "system") != (row.role is Role.SYSTEM):
                expected = RoleNotAllowed.__name__
            else:
                expected = ALLOWED if action in allowed[status] else NotAllowed.__name__
            assert outcome(award, action, by, now) == expected, (status, action, who)


@pytest.mark.parametrize(
    ("action", "target"), [("activate", "active"), ("disqualify", "unsuccessful")]
)
def test_award_decisions_leave_their_status_and_one_event(action, target, brokers, clock):
    world, award = award_in("pending", brokers, clock)
    clock.advance(seconds=5)
    before = AuditEvent.objects.filter(subject_type="award", subject_id=award.pk).count()

    getattr(award, action)(by=world.owner)

    stored = Award.objects.get(pk=award.pk)
    assert (stored.status, stored.date) == (target, clock.now())
    events = AuditEvent.objects.filter(subject_type="award", subject_id=award.pk)
    assert events.count() == before + 1
    assert (events.last().action, events.last().from_status, events.last().to_status) == (
        action,
        "pending",
        target,
    )


def test_a_disqualification_is_reopened_only_to_remedy_a_claim(brokers, clock):
    world, award = award_in("unsuccessful", brokers, clock)
    assert outcome(award, "cancel", world.owner, clock.now()) == NotAllowed.__name__
    file_claim(world, submit=True)
    world.refresh()
    assert outcome(world.award, "cancel", world.owner, clock.now()) == ALLOWED


def test_cancelling_an_award_voids_its_contract_and_claims_as_the_system(brokers, clock):
    world, award = award_in("active", brokers, clock)
    claim = file_claim(world, submit=True)
    award.cancel(by=world.owner)

    contract = Contract.objects.get(award=award)
    assert contract.status == "cancelled"
    voided = AuditEvent.objects.filter(action="void").order_by("subject_type")
    assert [(e.subject_type, e.subject_id, e.actor_role) for e in voided] == [
        ("complaint", claim.pk, "system"),
        ("contract", contract.pk, "system"),
    ]


# --- Contract -------------------------------------------------------------------------------


def contract_in(status: str, brokers, clock):
    world = decided_award(brokers, clock)
    contract = SignedContract.objects.get(award=world.award)
    if status in ("active", "terminated"):
        clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
        world.refresh()
        contract.tender, contract.award = world.tender, world.award
        contract.sign(by=world.owner)
    elif status == "cancelled":
        world.award.cancel(by=world.owner)
    elif status == "pending (signable)":
        clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    if status == "terminated":
        contract.patch_signed(
            by=contract_owner(world, contract),
            data={"amountPaid": {"amount": 400}, "status": "terminated"},
        )
    world.refresh()
    contract = SignedContract.objects.get(pk=contract.pk)
    contract.tender = world.tender
    contract.award = Award.objects.get(pk=contract.award_id)
    return world, contract


def contract_owner(world, contract) -> Actor:
    """Whoever holds the contract's own token (as the API's actor_for makes it)."""
    return Actor(Role.CONTRACT_OWNER, broker=world.owner.broker, subject=contract)


# The tender's transitions of a contract (before its signature), and contracting's.
BEFORE_SIGNING = {
    "create": NotAllowed.__name__, "edit": ALLOWED, "sign": NotAllowed.__name__, "void": ALLOWED,
}  # fmt: skip
NONE_IN_CONTRACTING = dict.fromkeys(
    ("credentials", "change_terms", "add_change", "terminate"), NotAllowed.__name__
)
CONTRACT_CELLS = {
    # status: {action: outcome} for the one actor the row names; every other actor is
    # refused before the status is looked at.
    # (a contract is drawn up from nothing: never again once it exists)
    "pending": {**BEFORE_SIGNING, **NONE_IN_CONTRACTING},
    "pending (signable)": {**BEFORE_SIGNING, "sign": ALLOWED, **NONE_IN_CONTRACTING},
    # (signed: its tender complete, the tender's transitions are refused before the table)
    "active": dict.fromkeys(("credentials", "change_terms", "add_change", "terminate"), ALLOWED),
    "cancelled": {
        **dict.fromkeys(("create", "edit", "sign", "void"), NotAllowed.__name__),
        **NONE_IN_CONTRACTING,
    },
    "terminated": NONE_IN_CONTRACTING,
}


@pytest.mark.parametrize("status", list(CONTRACT_CELLS))
def test_contract_cells(status, brokers, clock):
    world, contract = contract_in(status, brokers, clock)
    assert contract.status == status.split()[0]
    people = {
        **award_actors(world),
        "contract owner": contract_owner(world, contract),
        "system": Actor.system(),
    }
    for action, row in SignedContract.TRANSITIONS.items():
        in_contracting = action in CONTRACT_CELLS["active"]
        for who, by in people.items():
            if who in ("bidder", "stranger", "anonymous"):
                expected = PermissionDenied.__name__
            elif who != "system" and not in_contracting and status in ("active", "terminated"):
                # The tender is complete: refused before the table is read.
                expected = NotAllowed.__name__
            elif by.role is not row.role:
                expected = RoleNotAllowed.__name__
            else:
                expected = CONTRACT_CELLS[status].get(action, NotAllowed.__name__)
            assert outcome(contract, action, by, clock.now()) == expected, (status, action, who)


def test_the_tenders_contract_has_the_rows_before_signing_and_contracting_the_rest():
    assert set(Contract.TRANSITIONS) == set(BEFORE_SIGNING)
    assert set(SignedContract.TRANSITIONS) == set(BEFORE_SIGNING) | set(NONE_IN_CONTRACTING)


CHANGE_ALLOWED = {
    # a change's status (and its contract's) -> what its contract's owner may do to it
    "pending": {"edit", "activate"},
    "active": set(),
}


def change_in(status: str, brokers, clock):
    world, contract = contract_in("active", brokers, clock)
    owner = contract_owner(world, contract)
    change = contract.add_change(
        by=owner, data={"rationale": "Зниження ціни", "rationaleTypes": ["priceReduction"]}
    )
    if status == "active":
        contract.patch_change(
            change, by=owner, data={"status": "active", "dateSigned": iso(contract.date_signed)}
        )
    change.refresh_from_db()
    change.contract = SignedContract.objects.get(pk=contract.pk)
    change.contract.tender = world.tender
    return world, change, owner


@pytest.mark.parametrize("status", list(CHANGE_ALLOWED))
def test_contract_change_cells(status, brokers, clock):
    world, change, owner = change_in(status, brokers, clock)
    assert change.status == status
    people = {**award_actors(world), "contract owner": owner}
    for action in ContractChange.TRANSITIONS:
        for who, by in people.items():
            if who != "contract owner":
                expected = PermissionDenied.__name__
            elif action in CHANGE_ALLOWED[status]:
                expected = ALLOWED
            else:
                expected = NotAllowed.__name__
            assert outcome(change, action, by, clock.now()) == expected, (status, action, who)


def test_signing_refusals_say_why(brokers, clock):
    _world, contract = contract_in("pending", brokers, clock)
    end = contract.award.complaint_period_end
    assert contract.refusal("sign", _world.owner, clock.now()).startswith(
        "Can't sign contract before stand-still period end"
    )
    assert contract.refusal("sign", _world.bidders[0], clock.now()) == "Forbidden"
    assert contract.refusal("sign", _world.owner, end + timedelta(seconds=1)) is None


# --- Bid ------------------------------------------------------------------------------------


def bid_in(status: str, brokers, clock):
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    data = {**bid_data(400), "status": "draft"} if status == "draft" else bid_data(400)
    bid, _ = tender.place_bid(by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]), data=data)
    owner = Actor(Role.BID_OWNER, broker=brokers["broker2"], subject=bid)
    if status == "deleted":
        bid.withdraw(by=owner)
    if status == "after tendering":
        clock.move_to(tender.tender_end + timedelta(minutes=1))
        Tender.objects.current(tender.pk, viewer=None)
    bid = Bid.objects.get(pk=bid.pk)
    bid.tender = Tender.objects.get(pk=tender.pk)
    return bid, owner, Actor(Role.TENDER_OWNER, broker=brokers["broker"], subject=bid.tender)


# What a bidder may do to its bid while tendering is open (placing it is done from nothing).
BID_ALLOWED = {
    "draft": {"edit", "activate", "withdraw"},
    "active": {"edit", "back_to_draft", "withdraw"},
    "deleted": set(),
    "after tendering": set(),
}


@pytest.mark.parametrize("status", list(BID_ALLOWED))
def test_bid_cells(status, brokers, clock):
    bid, owner, tender_owner = bid_in(status, brokers, clock)
    people = {
        "bidder": owner,
        "tender_owner": tender_owner,
        "stranger": Actor(Role.AUTHENTICATED, broker=brokers["broker"]),
        "anonymous": Actor.anonymous(),
    }
    for action in Bid.TRANSITIONS:
        for who, by in people.items():
            if who != "bidder":
                expected = PermissionDenied.__name__
            else:
                expected = ALLOWED if action in BID_ALLOWED[status] else NotAllowed.__name__
            assert outcome(bid, action, by, clock.now()) == expected, (status, action, who)


def test_withdrawing_a_bid_keeps_its_date_and_records_one_event(brokers, clock):
    bid, owner, _ = bid_in("active", brokers, clock)
    placed = bid.date
    clock.advance(minutes=5)
    bid.withdraw(by=owner)
    stored = Bid.objects.get(pk=bid.pk)
    assert (stored.status, stored.date) == ("deleted", placed)
    event = AuditEvent.objects.filter(subject_type="bid", subject_id=bid.pk).last()
    assert (event.action, event.from_status, event.to_status, event.at) == (
        "withdraw",
        "active",
        "deleted",
        clock.now(),
    )


# --- Cancellation ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["pending", "active"])
def test_cancellation_cells(status, brokers, clock):
    tender, owner = tender_in("active.enquiries", brokers, clock)
    cancellation = tender.add_cancellation(
        by=owner,
        data={"reason": "Потреба відпала", **({"status": "active"} if status == "active" else {})},
    )
    cancellation = Cancellation.objects.get(pk=cancellation.pk)
    cancellation.tender = Tender.objects.get(pk=tender.pk)
    assert cancellation.status == status
    for action in Cancellation.TRANSITIONS:
        for who, by in actors(owner, brokers).items():
            if who in ("stranger", "anonymous"):
                expected = PermissionDenied.__name__
            elif who == "system":
                expected = RoleNotAllowed.__name__ if status == "pending" else NotAllowed.__name__
            else:
                editable = status == "pending" and action != "create"  # (made from nothing)
                expected = ALLOWED if editable else NotAllowed.__name__
            assert outcome(cancellation, action, by, clock.now()) == expected, (status, action, who)


# --- Lot -------------------------------------------------------------------------------------

# action -> the statuses it is allowed in, and who performs it (every lot ends from active).
LOT_ALLOWED = {
    "fail": ({"active"}, "system"),
    "complete": ({"active"}, "system"),
    "cancel": ({"active"}, "owner"),
}


def lots_in(brokers, clock) -> tuple[dict, Actor]:
    """Lots in each status they reach by the transitions: {status: (tender, lot id)}."""
    by = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    unbid, _ = Tender.objects.register(by=by, data=tender_data(clock.now(), **two_lots()))
    clock.move_to(unbid.tender_end + timedelta(minutes=1))  # nobody bid: every lot fails
    tender, _ = Tender.objects.register(by=by, data=tender_data(clock.now(), **two_lots()))
    owner = Actor(Role.TENDER_OWNER, broker=brokers["broker"], subject=tender)
    tender.add_cancellation(
        by=owner, data={"reason": "Потреба відпала", "status": "active", "relatedLot": SECOND}
    )
    return {
        "active": (Tender.objects.current(tender.pk, viewer=None), FIRST),
        "cancelled": (Tender.objects.current(tender.pk, viewer=None), SECOND),
        "unsuccessful": (Tender.objects.current(unbid.pk, viewer=None), FIRST),
    }, owner


def test_lot_cells(brokers, clock):
    lots, owner = lots_in(brokers, clock)
    for status, (tender, lot_id) in lots.items():
        lot = tender.lot_machine(lot_id)
        assert lot.status == status
        people = actors(Actor(Role.TENDER_OWNER, broker=owner.broker, subject=tender), brokers)
        for action, (statuses, performer) in LOT_ALLOWED.items():
            row = lot.TRANSITIONS[action]
            assert performer == ("system" if row.role is Role.SYSTEM else "owner"), action
            for who, by in people.items():
                expected = refusal_for(who, Role.TENDER_OWNER, row.role)
                if expected is None:
                    expected = ALLOWED if status in statuses else NotAllowed.__name__
                assert outcome(lot, action, by, clock.now()) == expected, (status, action, who)


def test_a_lot_ends_through_its_table_with_its_audit_event(brokers, clock):
    lots, _owner = lots_in(brokers, clock)
    tender, _lot_id = lots["cancelled"]

    events = tender.events.filter(action__startswith="lot_")

    assert [(e.action, e.from_status, e.to_status, e.payload["lot_id"]) for e in events] == [
        ("lot_cancelled", "active", "cancelled", SECOND)
    ]


def test_the_lifecycle_is_a_path_through_the_table():
    lifecycle = ["draft", *LIFECYCLE]
    for before, after in pairwise(lifecycle):
        assert any(
            before in row.sources and (after in row.targets or not row.targets)
            for row in TENDER_TRANSITIONS.values()
        ), (before, after)
    assert set(LIFECYCLE) == set(TENDER_STATUSES) - {"draft", "unsuccessful", "cancelled"}


def test_a_contract_awaits_signing_by_its_owner_while_the_table_allows(brokers, clock):
    world, contract = contract_in("pending", brokers, clock)
    assert contract.awaits_signing_by(world.owner)
    assert not contract.awaits_signing_by(world.bidders[0])
    _world, signed = contract_in("active", brokers, clock)
    assert not signed.awaits_signing_by(_world.owner)
