"""The demo's tenders (`manage.py load_demo`): one in each stage of the lifecycle, reached
through the real transitions with the clock set back (time-machine), so that enquiries,
tendering, auctions and complaint periods have really passed; bids from the portal and through a
broker."""

from datetime import timedelta

import time_machine
from django.utils import timezone

from complaints.models import Complaint
from contracting.models import SignedContract
from core import tokens
from core.actors import Actor, Role
from core.models import Broker
from core.schema import iso
from tenders.classifiers import cpv_name
from tenders.models import Question, Tender
from tenders.models.auction import builtin

# Suppliers bidding from the portal (their users'), the others bid through a broker.
PORTAL_BIDDERS = {0: "bidder", 1: "bidder2"}
# (AUCTION_MODULE=external: the name of the key the demo's past auctions were reported with)
DEMO_AUCTION_MODULE = "demo-auction-module"

PROCURING_ENTITY = {
    "name": "Київська міська клінічна лікарня №3",
    "kind": "general",
    "identifier": {"scheme": "UA-EDR", "id": "01993913", "legalName": "КНП «КМКЛ №3»"},
    "address": {
        "countryName": "Україна",
        "postalCode": "02125",
        "region": "м. Київ",
        "locality": "м. Київ",
        "streetAddress": "вул. Петра Запорожця, 26",
    },
    "contactPoint": {
        "name": "Олег Мельник",
        "telephone": "+380445550101",
        "email": "zakupivli@example.org",
    },
}

SUPPLIERS = [
    {
        "name": "ТОВ «Медтехсервіс»",
        "identifier": {"scheme": "UA-EDR", "id": "38012345"},
        "address": {
            "countryName": "Україна",
            "locality": "м. Київ",
            "streetAddress": "вул. Саксаганського, 10",
        },
        "contactPoint": {"name": "Ірина Бондар", "telephone": "+380441112233"},
    },
    {
        "name": "ФОП Коваленко Олена Петрівна",
        "identifier": {"scheme": "UA-EDR", "id": "2894512345"},
        "address": {"countryName": "Україна", "locality": "м. Біла Церква"},
        "contactPoint": {"name": "Олена Коваленко", "email": "kovalenko@example.org"},
    },
    {
        "name": "ПП «Чисто»",
        "identifier": {"scheme": "UA-EDR", "id": "40111222"},
        "address": {"countryName": "Україна", "locality": "м. Бровари"},
        "contactPoint": {"name": "Андрій Ткач", "telephone": "+380671234567"},
    },
]

# title, CPV code, expected value
SUBJECTS = [
    ("Папір офісний А4", "30197630-1", 48_000),
    ("Ремонт покрівлі корпусу №2", "45261000-4", 920_000),
    ("Комп'ютери для реєстратури", "30213000-5", 310_000),
    ("Послуги з прибирання приміщень", "90910000-9", 640_000),
    ("Рукавички медичні оглядові", "33141420-0", 125_000),
    ("Миючі засоби", "39830000-9", 36_000),
    ("Бахіли одноразові", "33199000-1", 54_000),
    ("Марля медична", "33141110-4", 72_000),
]


def tender_data(number: int, enquiry_end, tender_end) -> dict:
    title, cpv, amount = SUBJECTS[number]
    return {
        "title": title,
        "description": f"{title}: закупівля для потреб лікарні у {enquiry_end.year} році.",
        "procuringEntity": PROCURING_ENTITY,
        "value": {"amount": amount, "currency": "UAH", "valueAddedTaxIncluded": True},
        "minimalStep": {"amount": round(amount * 0.01), "currency": "UAH"},
        "enquiryPeriod": {"endDate": iso(enquiry_end)},
        "tenderPeriod": {"endDate": iso(tender_end)},
        "items": [
            {
                "description": title,
                "classification": {
                    "scheme": "ДК021",
                    "id": cpv,
                    "description": cpv_name(cpv, "uk"),
                    "description_en": cpv_name(cpv, "en"),
                },
                "unit": {"code": "H87", "name": "штука"},
                "quantity": 10,
                "deliveryAddress": PROCURING_ENTITY["address"],
            }
        ],
    }


class DemoStory:
    """Tenders reaching each stage through the transitions, at moments before now; bids from
    the portal and through a broker."""

    def __init__(self, brokers, users):
        self.brokers, self.users = brokers, users
        self.buyer = users["buyer"]
        self.now = timezone.now().replace(microsecond=0)
        self.day = timedelta(days=1)

    def register(self, number, start, enquiry_days, tender_days):
        day = self.day
        with time_machine.travel(start, tick=False):
            data = tender_data(number, start + enquiry_days * day, start + tender_days * day)
            tender, _ = Tender.objects.register(
                by=Actor(Role.AUTHENTICATED, user=self.buyer), data=data
            )
        return tender

    def bid(self, tender, at, supplier, amount):
        with time_machine.travel(at, tick=False):
            if supplier in PORTAL_BIDDERS:
                by = Actor(Role.AUTHENTICATED, user=self.users[PORTAL_BIDDERS[supplier]])
            else:
                by = Actor(Role.AUTHENTICATED, broker=self.brokers["broker2"])
            placed, _ = tender.place_bid(
                by=by, data={"tenderers": [SUPPLIERS[supplier]], "value": {"amount": amount}}
            )
        return Actor(Role.BID_OWNER, broker=by.broker, user=by.user, subject=placed)

    def claim(self, award, bidder, at, supplier, title, description):
        with time_machine.travel(at, tick=False):
            complaint, _ = Complaint.objects.file(
                award=award,
                by=bidder,
                title=title,
                description=description,
                author=SUPPLIERS[supplier],
                submit=True,
            )
        return complaint, Actor(
            Role.COMPLAINT_OWNER, broker=bidder.broker, user=bidder.user, subject=complaint
        )

    def owner(self, tender):
        return Actor(Role.TENDER_OWNER, user=self.buyer, subject=tender)

    def first_award(self, tender, at):
        """The tender, its first award and when it was made: at `at`, or when its auction ended
        if that was later (auctions are held on working days from 11:00 to 16:00 in Kyiv, so
        how long after tendering one comes depends on the day and hour the demo is loaded)."""
        tender = self.past_the_auction(tender)
        with time_machine.travel(at, tick=False):
            tender = Tender.objects.current(tender.pk, viewer=None)
        if not tender.awards.all() and tender.next_check is not None:
            at = max(at, tender.next_check)
            with time_machine.travel(at, tick=False):
                tender = Tender.objects.current(tender.pk, viewer=None)
        return tender, tender.awards.all()[0], at

    def past_the_auction(self, tender):
        """The tender as its tendering ended; where an external module holds the auctions, as
        it reported the auction's results."""
        with time_machine.travel(tender.tender_end + timedelta(seconds=1), tick=False):
            tender = Tender.objects.current(tender.pk, viewer=None)
        if tender.open_auctions() and not builtin():
            tender = self.held_elsewhere(tender)
        return tender

    def held_elsewhere(self, tender):
        """(AUCTION_MODULE=external) The auction an external module held in the demo's past:
        its results as the module reports them, nobody having bid lower than the sealed
        prices; the tender then."""
        [auction] = tender.auctions.all()
        at = auction.start + timedelta(minutes=20)
        module = Actor(Role.AUCTION, broker=self.auction_module())
        with time_machine.travel(at, tick=False):
            tender.record_auction_results(
                by=module,
                data={"bids": [
                    {"id": bid.pk, "value": {"amount": bid.value["amount"]}}
                    for bid in tender.active_bids()
                ]},
            )  # fmt: skip
            return Tender.objects.current(tender.pk, viewer=None)

    def auction_module(self) -> Broker:
        """The key the demo's past auctions were reported with: an auction key nobody holds
        (`add_broker NAME --role auction` gives the real module its own)."""
        module = Broker.objects.filter(name=DEMO_AUCTION_MODULE).first()
        if module is None:
            module = Broker(name=DEMO_AUCTION_MODULE, role="auction", is_active=False)
            module.set_key(tokens.new_token())
            module.save()
        return module

    def enquiries(self):
        """Questions may be asked, bids not yet; bidder2 asked one the buyer has to answer."""
        now, day = self.now, self.day
        tender = self.register(0, now - 1 * day, 6, 12)
        with time_machine.travel(now - 2 * timedelta(hours=1), tick=False):
            Question.objects.ask(
                tender=tender,
                by=Actor(Role.AUTHENTICATED, user=self.users["bidder2"]),
                data={
                    "title": "Щільність паперу",
                    "description": "Чи підійде папір щільністю 75 г/м² замість 80?",
                    "author": SUPPLIERS[1],
                },
            )

    def auction_soon(self):
        """Bids close a quarter of an hour after the demo is loaded; bidder and bidder2 bid, so
        an electronic auction follows (in `make run`'s sandbox mode at once, being "quick")."""
        now, day = self.now, self.day
        start = now - 10 * day
        with time_machine.travel(start, tick=False):
            data = tender_data(7, start + 5 * day, now + timedelta(minutes=15))
            data["submissionMethodDetails"] = "quick"
            tender, _ = Tender.objects.register(
                by=Actor(Role.AUTHENTICATED, user=self.buyer), data=data
            )
        self.bid(tender, now - 3 * day, 0, 70_500)
        self.bid(tender, now - 2 * day, 1, 71_200)
        self.bid(tender, now - 1 * day, 2, 69_900)

    def tendering(self):
        """Bids are coming in, sealed (from bidder and through a broker)."""
        now, day = self.now, self.day
        tender = self.register(1, now - 8 * day, 5, 12)
        self.bid(tender, now - 2 * day, 0, 870_000)
        self.bid(tender, now - 1 * day, 2, 905_500)  # bidder2 may still bid here in the portal

    def qualification(self):
        """Tendering closed five days ago, its auction is over (whatever the day and hour), the
        lowest bid awaits the owner's decision."""
        now, day = self.now, self.day
        tender = self.register(2, now - 19 * day, 7, 14)
        self.bid(tender, now - 9 * day, 0, 298_000)
        self.bid(tender, now - 8 * day, 1, 289_900)
        self.bid(tender, now - 7 * day, 2, 305_000)
        self.past_the_auction(tender)
        Tender.objects.current(tender.pk, viewer=None)

    def awarded(self):
        """The winner was chosen an hour ago; its complaint period is open. A claim against it
        awaits the owner's answer."""
        now, day = self.now, self.day
        tender = self.register(3, now - 20 * day, 7, 14)
        self.bid(tender, now - 10 * day, 2, 611_000)
        runner_up = self.bid(tender, now - 9 * day, 0, 633_500)
        tender, award, _decided = self.first_award(tender, now - 2 * day)
        with time_machine.travel(now - 3 * timedelta(hours=1), tick=False):
            award.activate(by=self.owner(tender))
        self.claim(
            award,
            runner_up,
            now - timedelta(hours=1),
            0,
            "Переможець не підтвердив досвід аналогічних послуг",
            "Учасник-переможець не надав жодного договору про прибирання медичних закладів, "
            "чого вимагає пункт 4.2 тендерної документації.",
        )

    def complete(self):
        """Decided and the contract signed; a claim was answered and its author disagreed
        before the contract was signed."""
        now, day = self.now, self.day
        tender = self.register(4, now - 40 * day, 7, 14)
        self.bid(tender, now - 30 * day, 1, 118_400)
        runner_up = self.bid(tender, now - 29 * day, 0, 121_000)
        tender, award, decided = self.first_award(tender, now - 25 * day)
        with time_machine.travel(decided, tick=False):
            award.activate(by=self.owner(tender))
        complaint, claimant = self.claim(
            award,
            runner_up,
            decided + day,
            0,
            "Ціна переможця занижена",
            "Запропонована ціна нижча за собівартість рукавичок такої якості.",
        )
        with time_machine.travel(decided + 2 * day, tick=False):
            complaint.answer(
                by=self.owner(tender),
                resolution="Ціну перевірено: учасник надав калькуляцію і гарантійний лист "
                "виробника.",
                resolution_type="declined",
            )
        with time_machine.travel(decided + 3 * day, tick=False):
            complaint.resolve(by=claimant, satisfied=False)
        with time_machine.travel(decided + 5 * day, tick=False):
            contract = tender.contracts.get()
            contract.sign(by=self.owner(tender))
        # In contracting since: its price lowered by a signed change; its term runs on.
        with time_machine.travel(decided + 15 * day, tick=False):
            contract = SignedContract.objects.get(pk=contract.pk)
            contract.record_signed_change(
                by=Actor(Role.CONTRACT_OWNER, user=self.buyer, subject=contract),
                change={
                    "rationale": "Постачальник знизив ціну за одиницю: виробник знизив свою.",
                    "rationaleTypes": ["itemPriceVariation"],
                    "contractNumber": "1",
                    "dateSigned": iso(decided + 15 * day),
                },
                terms={
                    "value": {"amount": 115_000},
                    "period": {"startDate": iso(decided + 5 * day), "endDate": iso(now + 60 * day)},
                },
            )

    def signable(self):
        """Decided ten days ago, nobody claimed: the contract may be signed now."""
        now, day = self.now, self.day
        tender = self.register(6, now - 30 * day, 7, 14)
        self.bid(tender, now - 20 * day, 1, 51_200)
        self.bid(tender, now - 19 * day, 2, 52_900)
        tender, award, _decided = self.first_award(tender, now - 12 * day)
        with time_machine.travel(now - 10 * day, tick=False):
            award.activate(by=self.owner(tender))

    def unsuccessful(self):
        """Nobody bid."""
        now, day = self.now, self.day
        tender = self.register(5, now - 30 * day, 7, 14)
        Tender.objects.current(tender.pk, viewer=None)
