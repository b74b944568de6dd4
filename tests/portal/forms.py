"""What the portal's forms send, as a browser would: the tests' one place for form data."""

from datetime import timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from core.schema import KYIV

PASSWORD_FIELDS = {"password1": "Tr1cky-passphrase", "password2": "Tr1cky-passphrase"}


def bid_form(amount="420.50", **extra):
    return {
        "once": "b" * 32,
        "amount": amount,
        "contact_name": "Ірина Бондар",
        "email": "iryna@example.org",
        "locality": "Київ",
        **extra,
    }


def new_claim_url(world):
    return reverse("claim-new", args=[world.tender.pk, world.award.pk])


def claim_form(**extra):
    return {
        "title": "Переможець не підтвердив досвід",
        "description": "Пропозиція переможця не відповідає пункту 4.2 документації.",
        "once": extra.pop("once", "a" * 32),
        **extra,
    }


def upload(name="довідка.pdf", content=b"%PDF-1.4 claim evidence"):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def post_claim_form(client, world, *, submit=True, files=(), once="a" * 32):
    data = claim_form(once=once, documents=list(files))
    data["submit" if submit else "draft"] = "1"
    return client.post(new_claim_url(world), data)


def kyiv(moment) -> str:
    return moment.astimezone(KYIV).strftime("%Y-%m-%dT%H:%M")


def signing_form(once="s" * 32, **fields) -> dict:
    """The contract's signature as a browser sends it: its number, signed now (to the minute),
    a term of a year; the awarded price (left empty)."""
    now = timezone.now()
    return {
        "once": once,
        "contract_number": "Д-17/2026",
        "date_signed": kyiv(now),
        "end_date": kyiv(now + timedelta(days=365)),
        **fields,
    }


def tender_form(clock, *, once="n" * 32, rows=None, **fields) -> dict:
    """The new-tender form as a browser sends it: one filled item row and one left empty."""
    now = clock.now()
    data = {
        "once": once,
        "title": "Папір офісний А4",
        "description": "Для реєстратури",
        "amount": "48000",
        "vat_included": "on",
        "minimal_step": "480",
        "enquiry_end": kyiv(now + timedelta(days=7)),
        "tender_end": kyiv(now + timedelta(days=14)),
        "entity_kind": "general",
        "region": "м. Київ",
        "locality": "м. Київ",
        "street_address": "вул. Саксаганського, 10",
        "contact_name": "Ірина Бондар",
        "contact_email": "iryna@example.org",
        "items-TOTAL_FORMS": "2",
        "items-INITIAL_FORMS": "0",
        "items-MIN_NUM_FORMS": "1",
        "items-MAX_NUM_FORMS": "50",
        "items-0-description": "Папір А4, 500 аркушів",
        "items-0-cpv": "30197630-1",
        "items-0-quantity": "100",
        "items-0-unit": "H87",
        "items-1-unit": "H87",  # an untouched row still sends its select
        **fields,
    }
    for index, row in enumerate(rows or [], start=1):
        data["items-TOTAL_FORMS"] = str(index + 1)
        data.update({f"items-{index}-{name}": value for name, value in row.items()})
    return data


def signup_form(username, identifier, **extra) -> dict:
    return {
        "username": username,
        "first_name": "Олена",
        "last_name": "Коваленко",
        "email": f"{username}@example.org",
        "organization_name": "Назва",
        "organization_identifier": identifier,
        "organization_kind": "procuring",
        **PASSWORD_FIELDS,
        **extra,
    }


def found(client, **asked) -> list[str]:
    """The titles the search page shows for what is `asked`."""
    response = client.get("/", asked)
    assert response.status_code == 200
    return [t.title for t in response.context["page"].object_list]
