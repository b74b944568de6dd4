"""A tender made in the portal: the buyer's organization owns it, a portal bidder and a broker's
bidder bid, and the buyer decides the lowest bid. Every status is reached through the model's
transitions with the clock moved."""

from dataclasses import dataclass
from datetime import timedelta

from portal.core.actors import Actor, Role
from portal.models import Organization, User
from tenders.models import Tender
from tests.helpers import bid_data, tender_data

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
        request.accept(by=admin)
        user = User.objects.get(pk=user.pk)
    elif verified and not user.organization.is_verified:
        user.organization.verify(by=operator())
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
    tender = Tender.objects.current(tender.pk, viewer=None)
    award = tender.awards.get()
    owner = Actor(Role.TENDER_OWNER, user=buyer, subject=tender)
    if decision == "active":
        award.activate(by=owner)
    elif decision == "unsuccessful":
        award.disqualify(by=owner)
    return PortalWorld(tender, award, buyer, bidder, other, stranger).refresh()
