"""The portal holds the tenders its users publish to the law's shortest periods for a
simplified procurement: questions for 3 working days from publication, then bids for 2 working
days more (weekends do not count). The API keeps 2.3's rules."""

from datetime import datetime

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from core.schema import KYIV, iso
from tenders.models import Tender
from tests.factories import make_user
from tests.helpers import create_tender, tender_data
from tests.portal.forms import tender_form

pytestmark = pytest.mark.django_db

FRIDAY = datetime(2026, 11, 27, 10, 0, tzinfo=KYIV)


@pytest.fixture(autouse=True)
def _friday_in_english(client, clock):
    client.cookies["django_language"] = "en"
    clock.move_to(FRIDAY)


@pytest.fixture
def buyer(client, db):
    user = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    client.force_login(user)
    return user


def kyiv_time(day: int, hour: int = 10) -> str:
    return f"2026-{12 if day < 27 else 11}-{day:02d}T{hour:02d}:00"


def test_questions_for_fewer_than_three_working_days_are_refused_next_to_their_field(
    client, buyer, clock
):
    # Friday to Tuesday is four days, two of them working days.
    form = tender_form(clock, enquiry_end=kyiv_time(1), tender_end=kyiv_time(10), publish="1")

    response = client.post(reverse("tender-new"), form)

    assert response.status_code == 422
    assert response.context["form"].errors["enquiry_end"] == [
        "The law gives at least 3 working days for questions from publication: let them end "
        "at 02.12.2026 10:00 or later."
    ]
    assert not Tender.objects.exists()


def test_bids_for_fewer_than_two_working_days_after_questions_are_refused(client, buyer, clock):
    form = tender_form(clock, enquiry_end=kyiv_time(2), tender_end=kyiv_time(3, 18), publish="1")

    response = client.post(reverse("tender-new"), form)

    assert response.status_code == 422
    assert response.context["form"].errors["tender_end"] == [
        "The law gives at least 2 working days for bids after the questions end: let bids end "
        "at 04.12.2026 10:00 or later."
    ]
    assert not Tender.objects.exists()


def test_the_shortest_lawful_periods_are_published(client, buyer, clock):
    form = tender_form(clock, enquiry_end=kyiv_time(2), tender_end=kyiv_time(4), publish="1")

    response = client.post(reverse("tender-new"), form)

    assert response.status_code == 302
    tender = Tender.objects.get()
    assert tender.status == "active.enquiries" and tender.tender_end == datetime(
        2026, 12, 4, 10, tzinfo=KYIV
    )


def test_the_new_tender_form_starts_with_the_shortest_lawful_periods(client, buyer):
    page = client.get(reverse("tender-new")).content.decode()

    assert 'name="enquiry_end" value="2026-12-02T10:00"' in page
    assert 'name="tender_end" value="2026-12-04T10:00"' in page


def test_a_draft_whose_periods_grew_too_short_is_not_published_and_says_why(client, buyer, clock):
    data = tender_data(clock.now(), status="draft")
    data["enquiryPeriod"]["endDate"] = iso(datetime(2026, 12, 2, 10, tzinfo=KYIV))
    data["tenderPeriod"]["endDate"] = iso(datetime(2026, 12, 4, 10, tzinfo=KYIV))
    draft, _token = Tender.objects.register(by=Actor(Role.AUTHENTICATED, user=buyer), data=data)
    clock.move_to(datetime(2026, 11, 30, 9, 0, tzinfo=KYIV))  # Monday: two working days left
    publishing = reverse("tender-publish", args=[draft.pk])

    review = client.get(publishing).content.decode()
    response = client.post(publishing, {"once": "p" * 32})

    words = "at least 3 working days for questions from publication: let them end at 03.12.2026"
    assert words in review and words in response.content.decode()
    draft.refresh_from_db()
    assert draft.is_draft


def test_a_draft_is_saved_only_with_periods_that_could_be_published(client, buyer, clock):
    form = tender_form(clock, enquiry_end=kyiv_time(30), tender_end=kyiv_time(10))

    response = client.post(reverse("tender-new"), form)

    assert response.status_code == 422
    assert "at least 3 working days" in response.context["form"].errors["enquiry_end"][0]
    assert not Tender.objects.exists()


def test_a_broker_keeps_the_rules_of_2_3(api, clock):
    tender = create_tender(
        api,
        enquiryPeriod={"endDate": iso(datetime(2026, 11, 28, 10, tzinfo=KYIV))},
        tenderPeriod={"endDate": iso(datetime(2026, 11, 29, 10, tzinfo=KYIV))},
    )

    assert Tender.objects.get(pk=tender.id).enquiry_end == datetime(2026, 11, 28, 10, tzinfo=KYIV)
