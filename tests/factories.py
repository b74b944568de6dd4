"""Model-level factories: every object reaches its status through the real transitions, with the
clock moved; nothing here writes a status by hand."""

from dataclasses import dataclass, field
from datetime import timedelta

from complaints.models import Complaint
from portal.core.actors import Actor, Role
from tenders.models import Tender
from tests.helpers import bid_data, organization, tender_data

RESOLUTION = "Умови тендерної документації виправлено"  # more than 20 characters


@dataclass
class World:
    """A tender with two bids whose lowest has been decided, and the people involved."""

    tender: Tender
    award: object
    owner: Actor
    bidders: list[Actor]
    stranger: Actor
    clock: object
    tender_token: str = ""
    bid_tokens: list[str] = field(default_factory=list)
    complaint_tokens: dict = field(default_factory=dict)

    def refresh(self) -> "World":
        self.tender = Tender.objects.current(self.tender.pk, viewer=None)
        self.award = self.tender.awards.get(pk=self.award.pk)
        self.award.tender = self.tender
        return self

    def claimant(self, complaint: Complaint) -> Actor:
        return Actor(Role.COMPLAINT_OWNER, broker=complaint.broker, subject=complaint)

    def reload(self, complaint: Complaint) -> Complaint:
        complaint = Complaint.objects.get(pk=complaint.pk)
        complaint.tender = Tender.objects.get(pk=complaint.tender_id)
        return complaint


def decided_award(brokers, clock, decision: str = "active", **tender_overrides) -> World:
    broker, bidder_broker = brokers["broker"], brokers["broker2"]
    tender, tender_token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=broker),
        data=tender_data(clock.now(), **tender_overrides),
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    bidders, bid_tokens = [], []
    for number, amount in enumerate((400, 450)):
        bid, bid_token = tender.place_bid(
            by=Actor(Role.AUTHENTICATED, broker=bidder_broker),
            data=bid_data(amount, identifier=f"{number + 1:08d}"),
        )
        bidders.append(Actor(Role.BID_OWNER, broker=bidder_broker, subject=bid))
        bid_tokens.append(bid_token)
        clock.advance(minutes=1)
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    owner = Actor(Role.TENDER_OWNER, broker=broker, subject=tender)
    award = tender.awards.get()
    if decision == "active":
        award.activate(by=owner)
    elif decision == "unsuccessful":
        award.disqualify(by=owner)
    stranger = Actor(Role.AUTHENTICATED, broker=bidder_broker)
    return World(tender, award, owner, bidders, stranger, clock, tender_token, bid_tokens).refresh()


def file_claim(world: World, *, submit: bool = False, bidder: int = 0) -> Complaint:
    complaint, token = Complaint.objects.file(
        award=world.award,
        by=world.bidders[bidder],
        title="Переможця визначено неправильно",
        description="Пропозиція переможця не відповідає вимогам.",
        author=organization(),
        submit=submit,
    )
    world.complaint_tokens[complaint.pk] = token
    return complaint


def make_complaint(world: World, status: str, *, resolution_type: str = "resolved") -> Complaint:
    """A claim in `status`, reached through the transitions a person (or time) would take."""
    if status == "draft":
        return file_claim(world)
    if status == "cancelled":
        complaint = file_claim(world)
        complaint.cancel(by=world.claimant(complaint), reason="Подано помилково")
        return world.reload(complaint)
    complaint = file_claim(world, submit=True)
    if status == "claim":
        return complaint
    if status == "ignored":
        world.tender.add_cancellation(
            by=world.owner, data={"reason": "Потреба відпала", "status": "active"}
        )
        return world.reload(complaint)
    if status in ("invalid", "declined"):
        resolution_type = status  # what an answered claim nobody closes turns into
    complaint.answer(by=world.owner, resolution=RESOLUTION, resolution_type=resolution_type)
    if status == "answered":
        return world.reload(complaint)
    if status == "resolved":
        complaint.resolve(by=world.claimant(complaint), satisfied=True)
        return world.reload(complaint)
    if status in ("invalid", "declined"):
        complaint = world.reload(complaint)
        world.clock.move_to(complaint.closes_at + timedelta(seconds=1))
        world.refresh()
        return world.reload(complaint)
    raise ValueError(status)
