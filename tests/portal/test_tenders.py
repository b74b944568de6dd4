"""The tender owner's tender in the portal: create it as a draft (or publish at once), publish,
cancel, add documents and replace them with new versions. The model decides; the forms keep
what was typed and show its refusals next to the fields."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.actors import Actor, Role
from docservice.models import StoredFile
from portal.models import User
from tenders.models import AuditEvent, Tender, TenderDocument
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import kyiv, tender_form

pytestmark = pytest.mark.django_db

HTMX_DOCUMENTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "documents"}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня №3", "01993913", "procuring")


@pytest.fixture
def bidder(db):
    return make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder")


def create(client, clock, **fields):
    return client.post(reverse("tender-new"), tender_form(clock, **fields))


def draft_of(user, clock) -> Tender:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=user), data=tender_data(clock.now(), status="draft")
    )
    return tender


def upload(name="умови.pdf", content=b"%PDF-1.4 tender conditions"):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def downloaded(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 302
    return b"".join(client.get(response["Location"]).streaming_content)


# --- creating --------------------------------------------------------------------------


def test_buyer_saves_a_draft_its_organization_alone_sees(client, buyer, clock):
    client.force_login(buyer)
    form = tender_form(clock)

    response = client.post(reverse("tender-new"), form)

    tender = Tender.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("tender", args=[tender.pk])
    assert tender.status == "draft"
    assert tender.organization == buyer.organization
    entity = tender.data["procuringEntity"]
    assert (entity["name"], entity["identifier"]["id"]) == ("Лікарня №3", "01993913")
    assert entity["contactPoint"] == {"name": "Ірина Бондар", "email": "iryna@example.org"}
    assert kyiv(tender.enquiry_end) == form["enquiry_end"]
    assert kyiv(tender.tender_end) == form["tender_end"]
    assert tender.tender_start == tender.enquiry_end
    [item] = tender.data["items"]  # the empty row is skipped
    assert item["classification"]["id"] == "30197630-1"
    assert item["unit"] == {"code": "H87", "name": "штука", "name_en": "piece"}
    assert tender.data["value"] == {
        "amount": 48000.0, "currency": "UAH", "valueAddedTaxIncluded": True
    }  # fmt: skip
    assert AuditEvent.objects.filter(action="register_draft", subject_id=tender.pk).count() == 1
    colleague = make_user("colleague", "Лікарня №3", "01993913", "procuring")
    client.force_login(colleague)
    assert client.get(response["Location"]).status_code == 200
    client.logout()
    assert client.get(response["Location"]).status_code == 404


def test_buyer_publishes_at_once_and_the_api_shows_the_same_tender(client, buyer, clock):
    client.force_login(buyer)

    response = create(client, clock, publish="1")

    tender = Tender.objects.get()
    assert response.status_code == 302
    assert tender.status == "active.enquiries"
    data = client.get(f"/api/2.3/tenders/{tender.pk}").json()["data"]
    assert data["title"] == "Папір офісний А4"
    assert data["procuringEntity"]["identifier"]["id"] == "01993913"


def test_the_form_is_filled_with_what_the_organization_wrote_last(client, buyer, clock):
    client.force_login(buyer)
    create(client, clock, contact_telephone="+380441112233")

    initial = client.get(reverse("tender-new")).context["form"].initial

    assert initial["street_address"] == "вул. Саксаганського, 10"
    assert initial["contact_telephone"] == "+380441112233"


def test_add_an_item_keeps_what_was_typed_and_judges_nothing_yet(client, buyer, clock):
    client.force_login(buyer)
    form = tender_form(clock, add_item="1", title="", amount="не число")

    response = client.post(reverse("tender-new"), form)

    page = response.content.decode()
    assert response.status_code == 200
    assert len(response.context["items"].forms) == 3
    assert 'value="Папір А4, 500 аркушів"' in page and 'value="не число"' in page
    assert "has-error" not in page and 'role="alert"' not in page
    assert not Tender.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"minimal_step": "50000"}, "minimal_step", "value should be less than value of tender"),
        ({"enquiry_end": "2020-01-01T10:00"}, "enquiry_end", "should end in the future"),
        ({"tender_end": "2020-01-01T10:00"}, "tender_end", "period should begin before its end"),
        ({"title": ""}, "title", "This field is required."),
        ({"items-0-cpv": "3019"}, None, "Choose a code from the list, or type one as 30197630-1."),
        ({"items-0-cpv": "11111111-1"}, None, "There is no code 11111111-1 in ДК 021."),
        # (2.3 takes 0; the portal publishes no purchase of nothing: README "The portal")
        ({"amount": "0"}, "amount", "The expected value is above zero"),
        ({"minimal_step": "0.00"}, "minimal_step", "The minimal step is above zero"),
        ({"items-0-quantity": "0"}, None, "The quantity is above zero."),
        ({"title": "Папір \u202eexe.txt"}, "title", "Remove the invisible direction marks"),
    ],
)
def test_refusals_stand_next_to_their_fields_and_keep_the_input(
    client, buyer, clock, change, field, message
):
    client.force_login(buyer)

    response = create(client, clock, description="<script>alert(1)</script>", **change)

    page = response.content.decode()
    assert response.status_code == 422
    if field:
        assert any(message in error for error in response.context["form"].errors[field])
    else:
        assert message in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert not Tender.objects.exists()


def test_an_empty_form_is_refused_in_the_reader_s_language(client, buyer, clock):
    client.force_login(buyer)
    client.cookies["django_language"] = "uk"
    empty = {"items-TOTAL_FORMS": "1", "items-INITIAL_FORMS": "0", "items-0-unit": "H87"}

    response = client.post(reverse("tender-new"), empty)

    page = response.content.decode()
    assert response.status_code == 422
    assert "Вкажіть, що купується: хоча б одну позицію, її код і кількість." in page
    assert "Please submit" not in page
    assert not Tender.objects.exists()


def test_items_of_different_cpv_groups_are_refused(client, buyer, clock):
    client.force_login(buyer)
    row = {"description": "Ремонт", "cpv": "45261000-4",
           "quantity": "1", "unit": "E48"}  # fmt: skip

    response = create(client, clock, rows=[row])

    assert response.status_code == 422
    assert "CPV group of items be identical" in response.content.decode()
    assert not Tender.objects.exists()


def test_a_code_chosen_from_the_list_is_stored_with_the_catalogue_s_names(client, buyer, clock):
    client.force_login(buyer)

    response = create(client, clock, **{"items-0-cpv": "30197630-1 Папір для друку"})

    assert response.status_code == 302
    [item] = Tender.objects.get().data["items"]
    assert item["classification"] == {
        "scheme": "ДК021",
        "id": "30197630-1",
        "description": "Папір для друку",
        "description_en": "Printing paper",
    }


def test_a_tender_needs_one_item(client, buyer, clock):
    client.force_login(buyer)
    empty = {f"items-0-{name}": "" for name in ("description", "cpv")}

    response = create(client, clock, **empty, **{"items-0-quantity": ""})

    assert response.status_code == 422
    assert "Say what is bought: at least one item, its code and quantity." in (
        response.content.decode()
    )
    assert not Tender.objects.exists()


def test_a_tender_has_at_most_fifty_items(client, buyer, clock):
    client.force_login(buyer)
    row = {"description": "Папір", "cpv": "30197630-1",
           "quantity": "1", "unit": "H87"}  # fmt: skip

    response = create(client, clock, rows=[row] * 50)

    assert response.status_code == 422
    assert "A tender has at most 50 items." in response.content.decode()
    assert not Tender.objects.exists()


def test_a_form_sent_without_its_token_says_so(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)

    response = client.post(reverse("tender-publish", args=[tender.pk]), {})

    tender.refresh_from_db()
    assert response.status_code == 422
    assert "This form arrived incomplete" in response.content.decode()
    assert tender.status == "draft"


def test_the_same_form_sent_twice_makes_one_tender_and_leads_to_it(client, buyer, clock):
    client.force_login(buyer)
    create(client, clock)
    tender = Tender.objects.get()

    again = create(client, clock)  # (Back, then send: the same form, its token spent)
    shown = client.get(again["Location"]).content.decode()

    assert again.status_code == 302
    assert again["Location"] == reverse("tender", args=[tender.pk])
    assert "This form was sent before: here is the tender it made." in shown
    assert Tender.objects.count() == 1
    # Another user sending that form's token makes nothing and is led nowhere.
    client.force_login(make_user("colleague", "Інша лікарня", "02993913", "procuring"))
    stranger = create(client, clock)
    assert stranger.status_code == 422 and "already been sent" in stranger.content.decode()
    assert Tender.objects.count() == 1


def test_htmx_goes_to_the_new_tender(client, buyer, clock):
    client.force_login(buyer)

    response = client.post(
        reverse("tender-new"),
        tender_form(clock),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="tender-form",
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("tender", args=[Tender.objects.get().pk])


@pytest.mark.parametrize("who", ["bidder", "nobody"])
def test_only_a_procuring_entity_creates_tenders(client, bidder, clock, who):
    user = bidder if who == "bidder" else User.objects.create_user("nobody")
    client.force_login(user)

    page = client.get(reverse("tender-new"))
    response = create(client, clock)
    htmx = client.post(
        reverse("tender-new"),
        tender_form(clock, once="h" * 32),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="tender-form",
    )

    assert "Only users of a procuring entity can publish tenders" in page.content.decode()
    assert 'name="title"' not in page.content.decode()
    assert response.status_code == htmx.status_code == 422
    assert "Only users of a procuring entity" in htmx.content.decode()
    assert "<html" not in htmx.content.decode()
    assert not Tender.objects.exists()


def test_dashboard_offers_a_new_tender_to_a_procuring_entity_only(client, buyer, bidder):
    client.force_login(buyer)
    assert reverse("tender-new") in client.get(reverse("dashboard")).content.decode()
    client.force_login(bidder)
    assert reverse("tender-new") not in client.get(reverse("dashboard")).content.decode()


# --- publishing and cancelling ----------------------------------------------------------


def test_owner_publishes_the_draft(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()

    response = client.post(reverse("tender-publish", args=[tender.pk]), {"once": "p" * 32})

    tender.refresh_from_db()
    assert reverse("tender-publish", args=[tender.pk]) in page
    assert response.status_code == 302
    assert tender.status == "active.enquiries"
    after = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert reverse("tender-publish", args=[tender.pk]) not in after


def test_a_published_tender_is_not_published_again(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    client.post(reverse("tender-publish", args=[tender.pk]), {"once": "p" * 32})

    response = client.post(reverse("tender-publish", args=[tender.pk]), {"once": "q" * 32})

    assert response.status_code == 422
    assert "Not in its present state: «enquiries»." in response.content.decode()


def test_a_draft_whose_questions_ended_is_not_published(client, buyer, clock):
    tender = draft_of(buyer, clock)
    clock.move_to(tender.enquiry_end + timedelta(minutes=1))
    client.force_login(buyer)
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()

    response = client.post(reverse("tender-publish", args=[tender.pk]), {"once": "p" * 32})

    tender.refresh_from_db()
    assert reverse("tender-publish", args=[tender.pk]) not in page
    assert "This draft can no longer be published" in page
    assert response.status_code == 422
    assert "enquiryPeriod should end in the future" in response.content.decode()
    assert tender.status == "draft"


def test_nobody_else_sees_or_publishes_a_draft(client, buyer, bidder, clock):
    tender = draft_of(buyer, clock)
    client.force_login(bidder)

    response = client.post(reverse("tender-publish", args=[tender.pk]), {"once": "p" * 32})

    tender.refresh_from_db()
    assert response.status_code == 404
    assert tender.status == "draft"


def test_owner_cancels_with_a_reason_everyone_reads(client, buyer, clock):
    tender = draft_of(buyer, clock)
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))
    client.force_login(buyer)

    response = client.post(
        reverse("tender-cancel", args=[tender.pk]),
        {"once": "c" * 32, "ground": "noDemand", "reason": "Потреба відпала <b>зовсім</b>"},
    )

    tender.refresh_from_db()
    assert response.status_code == 302
    assert tender.status == "cancelled"
    client.logout()
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert "Потреба відпала &lt;b&gt;зовсім&lt;/b&gt;" in page
    assert reverse("tender-cancel", args=[tender.pk]) not in page


def test_an_item_s_classification_is_named_in_the_reader_s_language(client, buyer, clock):
    tender = draft_of(buyer, clock)
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))

    english = client.get(reverse("tender", args=[tender.pk])).content.decode()
    client.cookies["django_language"] = "uk"
    ukrainian = client.get(reverse("tender", args=[tender.pk])).content.decode()

    assert '<span class="muted">Cartons</span>' in english
    assert '<span class="muted">Картонні коробки</span>' in ukrainian


def test_a_cancellation_names_the_law_s_ground_in_both_languages(client, buyer, clock):
    tender = draft_of(buyer, clock)
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))
    client.force_login(buyer)
    url = reverse("tender-cancel", args=[tender.pk])

    unknown = client.post(url, {"once": "u" * 32, "ground": "boredom", "reason": "Так"})
    client.post(url, {"once": "c" * 32, "ground": "expensesCut", "reason": "Рішення ради №12."})

    assert unknown.context["review"].form.errors["ground"]
    cancellation = tender.cancellations.get()
    assert cancellation.reason == "Скорочено видатки на закупівлю. Рішення ради №12."
    assert (
        cancellation.data["reason_en"] == "The funds for the purchase were cut. Рішення ради №12."
    )
    english = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert "The funds for the purchase were cut." in english
    client.cookies["django_language"] = "uk"
    assert "Скорочено видатки" in client.get(reverse("tender", args=[tender.pk])).content.decode()


def test_a_cancellation_needs_a_reason_and_the_owner(client, buyer, bidder, clock):
    tender = draft_of(buyer, clock)
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))
    url = reverse("tender-cancel", args=[tender.pk])
    client.force_login(buyer)
    without_reason = client.post(url, {"once": "c" * 32, "ground": "noDemand", "reason": ""})
    client.force_login(bidder)
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    forged = client.post(url, {"once": "d" * 32, "ground": "noDemand", "reason": "Не подобається"})

    tender.refresh_from_db()
    assert without_reason.status_code == 422
    assert without_reason.context["review"].form.errors["reason"]
    assert url not in page
    assert forged.status_code == 422
    assert "You may not do this" in forged.content.decode()
    assert tender.status == "active.enquiries"
    assert not tender.cancellations.exists()


def test_a_cancelled_tender_is_not_cancelled_again(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    url = reverse("tender-cancel", args=[tender.pk])
    client.post(url, {"once": "c" * 32, "ground": "noDemand", "reason": "Помилка"})

    response = client.post(url, {"once": "e" * 32, "ground": "noDemand", "reason": "Ще раз"})

    assert response.status_code == 422
    assert "Not at this stage of the tender: «cancelled»." in response.content.decode()
    assert Tender.objects.get().cancellations.count() == 1


# --- documents --------------------------------------------------------------------------


def test_owner_adds_documents_anyone_downloads(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)

    response = client.post(
        reverse("tender-documents", args=[tender.pk]),
        {"once": "a" * 32, "documents": [upload(), upload("кошторис.txt", b"1;2;3")]},
    )

    versions = list(TenderDocument.objects.order_by("title"))
    assert response.status_code == 302
    assert [(v.title, v.version, v.author) for v in versions] == [
        ("кошторис.txt", 1, "tender_owner"),
        ("умови.pdf", 1, "tender_owner"),
    ]
    link = reverse(
        "tender-document-download", args=[tender.pk, versions[1].document_id, versions[1].key]
    )
    assert downloaded(client, link) == b"%PDF-1.4 tender conditions"
    client.logout()
    assert client.get(link).status_code == 404  # the draft's documents are its owner's
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert link in page
    # (its format as people say it, and its size)
    assert "PDF, 26\xa0байтів · " in page and "application/pdf" not in page
    assert downloaded(client, link) == b"%PDF-1.4 tender conditions"


def test_a_new_version_keeps_the_earlier_one_in_the_history(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    client.post(
        reverse("tender-documents", args=[tender.pk]), {"once": "a" * 32, "documents": [upload()]}
    )
    first = TenderDocument.objects.get()
    url = reverse("tender-document-version", args=[tender.pk, first.document_id])

    response = client.post(
        url,
        {
            f"version-{first.document_id}-once": "v" * 32,
            f"version-{first.document_id}-document": upload("умови-2.pdf", b"%PDF-1.4 v2"),
        },
        **HTMX_DOCUMENTS,
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="documents"' in page and "<html" not in page
    assert "tender-changed" in response["HX-Trigger"]
    versions = list(TenderDocument.objects.order_by("version"))
    assert [(v.document_id, v.version, v.title) for v in versions] == [
        (first.document_id, 1, "умови.pdf"),
        (first.document_id, 2, "умови-2.pdf"),
    ]
    assert "Earlier versions" in page


@pytest.mark.parametrize(
    "content", [b"", b"x" * 11], ids=["empty", "larger than DOCUMENT_MAX_BYTES"]
)
def test_empty_and_oversized_files_are_refused_and_nothing_kept(
    client, buyer, clock, settings, content
):
    settings.DOCUMENT_MAX_BYTES = 10
    tender = draft_of(buyer, clock)
    client.force_login(buyer)

    response = client.post(
        reverse("tender-documents", args=[tender.pk]),
        {"once": "a" * 32, "documents": [upload(content=content)]},
        **HTMX_DOCUMENTS,
    )

    assert response.status_code == 422
    assert response.context["documents_form"].errors["documents"]
    assert not TenderDocument.objects.exists()
    assert not StoredFile.objects.exists()


def test_documents_are_fixed_once_bidding_opens(client, buyer, clock):
    tender = draft_of(buyer, clock)
    owner = Actor(Role.TENDER_OWNER, user=buyer, subject=tender)
    tender.publish(by=owner)
    client.force_login(buyer)
    client.post(
        reverse("tender-documents", args=[tender.pk]), {"once": "a" * 32, "documents": [upload()]}
    )
    first = TenderDocument.objects.get()
    clock.move_to(tender.tender_start + timedelta(minutes=1))

    added = client.post(
        reverse("tender-documents", args=[tender.pk]), {"once": "b" * 32, "documents": [upload()]}
    )
    replaced = client.post(
        reverse("tender-document-version", args=[tender.pk, first.document_id]),
        {
            f"version-{first.document_id}-once": "v" * 32,
            f"version-{first.document_id}-document": upload(),
        },
    )

    assert added.status_code == replaced.status_code == 422
    assert "Not at this stage of the tender: «tendering»." in added.content.decode()
    assert "Not at this stage of the tender: «tendering»." in replaced.content.decode()
    assert "add_document" not in added.context["actions"]
    assert TenderDocument.objects.count() == 1
    assert StoredFile.objects.count() == 1


def test_others_cannot_add_documents(client, buyer, bidder, clock):
    tender = draft_of(buyer, clock)
    tender.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender))
    client.force_login(bidder)
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()

    response = client.post(
        reverse("tender-documents", args=[tender.pk]), {"once": "a" * 32, "documents": [upload()]}
    )

    assert reverse("tender-documents", args=[tender.pk]) not in page
    assert response.status_code == 422
    assert "You may not do this" in response.content.decode()
    assert not StoredFile.objects.exists()


def test_owner_page_costs_the_same_with_more_documents(client, buyer, clock, query_count):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    url = reverse("tender", args=[tender.pk])

    def add(once):
        client.post(
            reverse("tender-documents", args=[tender.pk]),
            {"once": once * 32, "documents": [upload()]},
        )

    add("a")
    with query_count() as one:
        client.get(url)
    for once in "bcdef":
        add(once)
    with query_count() as six:
        client.get(url)

    assert len(six) == len(one)


def test_a_new_version_of_an_unknown_document_is_a_404(client, buyer, clock):
    tender = draft_of(buyer, clock)
    client.force_login(buyer)
    unknown = "0" * 32

    response = client.post(
        reverse("tender-document-version", args=[tender.pk, unknown]),
        {f"version-{unknown}-once": "v" * 32, f"version-{unknown}-document": upload()},
    )

    assert response.status_code == 404
    assert not StoredFile.objects.exists()


# --- a tender in lots ------------------------------------------------------------------------

LOTS = {
    "lots-TOTAL_FORMS": "2",
    "lots-INITIAL_FORMS": "0",
    "lots-0-title": "Папір",
    "lots-0-amount": "30000",
    "lots-0-minimal_step": "300",
    "lots-1-title": "Конверти",
    "lots-1-amount": "18000",
    "lots-1-minimal_step": "200",
}


def test_the_buyer_writes_a_tender_in_lots_with_their_items(client, buyer, clock):
    client.force_login(buyer)
    second_item = {
        "items-1-description": "Конверти С4",
        "items-1-cpv": "30199230-1",
        "items-1-quantity": "1000",
        "items-1-lot": "2",
    }

    response = create(
        client, clock, amount="", minimal_step="", **LOTS, **{"items-0-lot": "1"}, **second_item
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    tender = Tender.objects.get()
    first, second = tender.lots
    assert (first["title"], second["title"]) == ("Папір", "Конверти")
    assert [item["relatedLot"] for item in tender.data["items"]] == [first["id"], second["id"]]
    assert tender.data["value"]["amount"] == 48000
    assert tender.data["minimalStep"]["amount"] == 200
    assert second["value"] == {"amount": 18000, "currency": "UAH", "valueAddedTaxIncluded": True}


def test_a_lot_is_added_and_taken_away_keeping_what_was_typed(client, buyer, clock):
    client.force_login(buyer)

    added = create(client, clock, add_lot="1")

    assert added.status_code == 200
    assert added.context["lots"].total_form_count() == 1
    assert "Lot 1" in added.content.decode() and not Tender.objects.exists()
    assert added.context["form"]["title"].value() == "Папір офісний А4"
    removed = create(client, clock, remove_lot="1", **{"lots-TOTAL_FORMS": "1"})
    assert removed.context["lots"].total_form_count() == 0


def test_the_value_typed_before_the_first_lot_becomes_the_lot_s_and_comes_back(
    client, buyer, clock
):
    client.force_login(buyer)

    added = create(client, clock, add_lot="1", amount="48000", minimal_step="480")

    lot = added.context["lots"].forms[0]
    assert (lot["amount"].value(), lot["minimal_step"].value()) == ("48000", "480")
    removed = create(
        client, clock, remove_lot="1", amount="", minimal_step="",
        **{"lots-TOTAL_FORMS": "1", "lots-0-amount": "52000", "lots-0-minimal_step": "520"},
    )  # fmt: skip
    form = removed.context["form"]
    assert (form["amount"].value(), form["minimal_step"].value()) == ("52000", "520")


def test_a_lot_left_blank_is_refused_next_to_its_fields(client, buyer, clock):
    client.force_login(buyer)
    blank = {"lots-TOTAL_FORMS": "1", "lots-INITIAL_FORMS": "0"}

    response = create(client, clock, amount="", minimal_step="", **blank)

    assert response.status_code == 422
    assert response.context["lots"].forms[0].errors["title"]
    assert not Tender.objects.exists()


def test_a_lot_s_step_over_its_value_is_the_model_s_refusal(client, buyer, clock):
    client.force_login(buyer)
    # (an untouched item row still sends its selects)
    steep = {**LOTS, "lots-1-minimal_step": "20000", "items-0-lot": "1", "items-1-lot": "1"}

    response = create(client, clock, amount="", minimal_step="", **steep)

    assert response.status_code == 422
    assert "value should be less than value of lot" in response.content.decode()
    assert not Tender.objects.exists()


def test_django_s_own_words_are_said_right_in_ukrainian(client, buyer, clock):
    client.force_login(buyer)
    client.cookies["django_language"] = "uk"

    response = create(client, clock, entity_kind="alien")

    assert response.status_code == 422
    page = response.content.decode()
    assert "Виберіть варіант зі списку: alien серед них немає." in page
    assert "Зробить" not in page
