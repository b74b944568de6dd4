"""Model-level factories: every object reaches its status through the real transitions, with the
clock moved; nothing here writes a status by hand. The API-level builders (a tender made
through the API, claims through the API) are in tests/helpers.py."""

from dataclasses import dataclass, field
from datetime import timedelta

from complaints.models import Complaint
from core.actors import Actor, Role
from portal.models import Organization, User
from tenders.models import Tender, TenderStatus
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


def tendering_closed(by: Actor, brokers, clock, **tender_overrides):
    """A tender registered by `by` now, with two bids placed through broker2 (400 then 450,
    a minute apart), whose tendering has closed and whose auction has just ended. Returns the tender (current), its token,
    the bidders and their bid tokens."""
    bidder_broker = brokers["broker2"]
    tender, tender_token = Tender.objects.register(
        by=by, data=tender_data(clock.now(), **tender_overrides)
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
    tender = through_the_auction(tender.pk, clock)
    return tender, tender_token, bidders, bid_tokens


def in_auction(brokers, clock, amounts=(450, 420, 400), parameters=(), **tender_overrides):
    """A tender whose tendering closed with one bid per amount (through broker2, a minute
    apart; each naming its `parameters`, if given, for the tender's features) and whose auction
    is planned, not begun: the tender (current), the bidders (in the order of `amounts`) and
    the auction."""
    tender, _token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]),
        data=tender_data(clock.now(), **tender_overrides),
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    bidders = []
    for number, amount in enumerate(amounts):
        data = bid_data(amount, name=f"Учасник {number + 1}", identifier=f"{number + 1:08d}")
        if parameters:
            data["parameters"] = parameters[number]
        bid, _bid_token = tender.place_bid(
            by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]), data=data
        )
        bidders.append(Actor(Role.BID_OWNER, broker=brokers["broker2"], subject=bid))
        clock.advance(minutes=1)
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    [auction] = tender.auctions.all()
    return tender, bidders, auction


def portal_auction(brokers, clock, scale: int = 1):
    """An auction planned, not begun, of three bids: two of portal bidders (450, 420, users
    "first" and "second") and one through broker2 (400), the expected value 500 and the step 35
    (every amount times `scale`). The tender (current), its auction, the two users, and the
    broker's bid with its token."""
    money = {"value": {"amount": 500 * scale, "currency": "UAH"},
             "minimalStep": {"amount": 35 * scale, "currency": "UAH"}}  # fmt: skip
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]),
        data=tender_data(clock.now(), **money),
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    users = []
    for username, name, code, amount in (
        ("first", "ТОВ «Перший»", "30000001", 450), ("second", "ТОВ «Другий»", "30000002", 420),
    ):  # fmt: skip
        user = make_user(username, name, code, Organization.Kind.BIDDER)
        data = bid_data(amount * scale, name, code)
        tender.place_bid(by=Actor(Role.AUTHENTICATED, user=user), data=data)
        users.append(user)
        clock.advance(minutes=1)
    bid, token = tender.place_bid(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]),
        data=bid_data(400 * scale, "ПП «Третій»", "30000003"),
    )
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    return tender, tender.auctions.get(), users, (bid, token)


def through_the_auction(pk: str, clock) -> Tender:
    """The tender (current) once the clock is past its auctions (our module's, in which nobody
    bids lower)."""
    tender = Tender.objects.current(pk, viewer=None)
    while tender.status == TenderStatus.AUCTION:
        clock.move_to(tender.next_check)
        tender = Tender.objects.current(pk, viewer=None)
    return tender


def decided_award(brokers, clock, decision: str = "active", **tender_overrides) -> World:
    broker, bidder_broker = brokers["broker"], brokers["broker2"]
    tender, tender_token, bidders, bid_tokens = tendering_closed(
        Actor(Role.AUTHENTICATED, broker=broker), brokers, clock, **tender_overrides
    )
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


# --- portal people and a tender made in the portal ---------------------------------------

PASSWORD = "correct-horse-battery"


@dataclass
class PortalWorld:
    tender: Tender
    award: object
    buyer: User
    bidder: User
    other_bidder: User
    stranger: User

    def owner(self) -> Actor:
        return Actor(Role.TENDER_OWNER, user=self.buyer, subject=self.tender)

    def claim(
        self, title: str = "Переможця визначено неправильно", *, named_as_in_its_bid=False
    ) -> Complaint:
        """The portal bidder's claim against the award, submitted through the model (its author
        as its bid names the bidder, when asked)."""
        bid = self.tender.bids.get(organization=self.bidder.organization)
        complaint, _token = Complaint.objects.file(
            award=self.award,
            by=Actor(Role.BID_OWNER, user=self.bidder, subject=bid),
            title=title,
            author=bid.tenderers[0] if named_as_in_its_bid else organization(),
            submit=True,
        )
        return complaint

    def refresh(self) -> "PortalWorld":
        self.tender = Tender.objects.current(self.tender.pk, viewer=None)
        self.award = self.tender.awards.get(pk=self.award.pk)
        self.award.tender = self.tender
        return self


def operator() -> User:
    """An operator who verifies organizations."""
    found = User.objects.filter(username="operator").first()
    return found or User.objects.create_superuser("operator", password=PASSWORD)


def sign_up(username: str, *, name="", identifier="", kind="", email=None) -> User:
    """An account as sign-up makes it (naming its organization, if any), with the e-mail
    confirmed by following the link: the organization is joined or registered then."""
    user = User.objects.create_user(
        username, email=email or f"{username}@example.org", password=PASSWORD
    )
    if identifier:
        user.pending_organization = {"name": name, "identifier": identifier, "kind": kind}
        user.save()
    User.confirm_email(user.confirmation_token())
    return User.objects.get(pk=user.pk)


def make_user(username: str, name: str, identifier: str, kind: str, *, verified=True) -> User:
    """A member of the organization with this identifier: a new one is registered with the user
    as its administrator (and verified by an operator), a known one admits the user."""
    user = sign_up(username, name=name, identifier=identifier, kind=kind)
    if user.organization is None:
        request = user.pending_join_request()
        admin = request.organization.memberships.filter(role="admin").first().user
        request.accept(user=admin)
        user = User.objects.get(pk=user.pk)
    elif verified and not user.organization.is_verified:
        user.organization.verify(user=operator())
    return user


def portal_world(brokers, clock, *, decision: str = "active") -> PortalWorld:
    buyer = make_user("buyer", "Лікарня №3", "01993913", Organization.Kind.PROCURING)
    bidder = make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", Organization.Kind.BIDDER)
    other = make_user("bidder2", "ФОП Коваленко", "2894512345", Organization.Kind.BIDDER)
    stranger = make_user("stranger", "ПП «Сторонній»", "40111222", Organization.Kind.BIDDER)
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    # The lowest bid comes through a broker; the portal bidders lose to it.
    tender.place_bid(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]),
        data=bid_data(400, name="ПП «Чисто»", identifier="40999888"),
    )
    for user, amount in ((bidder, 450), (other, 470)):
        clock.advance(minutes=1)
        tender.place_bid(
            by=Actor(Role.AUTHENTICATED, user=user),
            data=bid_data(
                amount, name=user.organization.name, identifier=user.organization.identifier
            ),
        )
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    tender = through_the_auction(tender.pk, clock)
    award = tender.awards.get()
    owner = Actor(Role.TENDER_OWNER, user=buyer, subject=tender)
    if decision == "active":
        award.activate(by=owner)
    elif decision == "unsuccessful":
        award.disqualify(by=owner)
    return PortalWorld(tender, award, buyer, bidder, other, stranger).refresh()
