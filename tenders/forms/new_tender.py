"""Portal forms of a new tender and its draft (tenders/views/new_tender.py): the tender, its lots
and items, and the classifier's field."""

import re
from datetime import datetime, timedelta
from decimal import Decimal

from django import forms
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm, no_direction_marks
from core.ids import new_id
from core.schema import KYIV, iso
from tenders.classifiers import cpv_name, find_cpv, is_cpv, regions, unit_choices, unit_of_item
from tenders.models.lots import exact_sum
from tenders.procedures import WHEN_UNNAMED, procedure_named
from tenders.search import CPV_CODE

# A code at the start of what was typed or chosen ("30197630-1 Папір для друку").
CHOSEN_CODE = re.compile(rf"\s*({CPV_CODE.pattern})(?!\d)")
# The first digits of codes: a division (2) to a whole code without its check digit (8).
BRANCH = re.compile(r"\d{2,8}")


ENTITY_KINDS = [
    ("general", _("a public authority, local government or their body")),
    ("special", _("a utility (energy, water, transport, post)")),
    ("defense", _("a defence purchaser")),
    ("other", _("a state or municipal enterprise, or another legal person")),
]


def _next_hour(moment: datetime) -> datetime:
    moment = moment.astimezone(KYIV)
    whole = moment.replace(minute=0, second=0, microsecond=0)
    return whole if whole == moment else whole + timedelta(hours=1)


DATETIME_INPUT = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def above_zero(message):
    """A validator: the amount is above zero (2.3 takes 0, but a purchase of nothing, a step of
    nothing or none of an item is no record to publish)."""

    def check(value):
        if value is not None and value <= 0:
            raise forms.ValidationError(message, code="not_above_zero")

    return check


def amount_field(label, message, **kwargs) -> forms.DecimalField:
    return forms.DecimalField(
        label=label, max_digits=15, decimal_places=2, validators=[above_zero(message)], **kwargs
    )


VALUE_ABOVE_ZERO = _("The expected value is above zero: what is bought costs something.")
STEP_ABOVE_ZERO = _("The minimal step is above zero: bidders lower their prices by at least it.")


class LotForm(forms.Form):
    """A part of the tender bid for, decided and contracted on its own."""

    title = forms.CharField(label=_("Lot title"), max_length=500, validators=[no_direction_marks])
    amount = amount_field(_("Expected value of the lot, UAH"), VALUE_ABOVE_ZERO)
    minimal_step = amount_field(_("Minimal step, UAH"), STEP_ABOVE_ZERO)


class LotRows(forms.BaseFormSet):
    """A tender's lots: every row added is a lot (there is a button to take the last away)."""

    default_error_messages = {
        "too_many_forms": _("A tender has at most 20 lots: publish the rest as another tender."),
    }

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        form.empty_permitted = False
        return form

    @staticmethod
    def keeping_typed_value(data):
        """The form's data where the tender's value (and step) typed before the first lot was
        added becomes that lot's, and the only lot's becomes the tender's when it is removed:
        what was typed is never silently lost."""
        pairs = (("amount", "lots-0-amount"), ("minimal_step", "lots-0-minimal_step"))
        count = data.get("lots-TOTAL_FORMS")
        if "add_lot" in data and count == "0":
            moves = pairs
        elif "remove_lot" in data and count == "1":
            moves = tuple((lot, tender) for tender, lot in pairs)
        else:
            return data
        data = data.copy()
        for source, target in moves:
            if data.get(source) and not data.get(target):
                data[target] = data[source]
        return data

    def lots(self) -> list[dict]:
        """The lots, each with a new id (2.3's 32 hexadecimal digits)."""
        return [
            {
                "id": new_id(),
                "title": form.cleaned_data["title"],
                "value": {"amount": float(form.cleaned_data["amount"])},
                "minimalStep": {"amount": float(form.cleaned_data["minimal_step"])},
            }
            for form in self.forms
        ]


LotFormSet = forms.formset_factory(
    LotForm, formset=LotRows, extra=0, max_num=20, validate_max=True, absolute_max=20
)


class CpvField(forms.CharField):
    """A ДК 021 code, typed or chosen from the catalogue's list (which offers "code name"):
    the code, if the catalogue has it; with `branch`, also the first digits of codes (2 to 8),
    for every code they start."""

    widget = forms.TextInput(
        attrs={
            "list": "cpv-options",
            "autocomplete": "off",
            "hx-get": reverse_lazy("cpv-options"),
            "hx-trigger": "input changed delay:300ms",
            "hx-target": "#cpv-options",
            "hx-swap": "innerHTML",
            "hx-sync": "this:replace",
            "hx-push-url": "false",
        }
    )

    def __init__(self, *, branch: bool = False, **kwargs):
        self.branch = branch
        kwargs.setdefault("label", _("CPV code (ДК 021)"))
        kwargs.setdefault(
            "help_text", _("Type the code or words of its name, and choose from the list.")
        )
        super().__init__(max_length=600, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return value
        if self.branch and BRANCH.fullmatch(value.strip()):
            digits = value.strip()
            if not find_cpv(digits, limit=1):
                raise forms.ValidationError(
                    _("No code in ДК 021 starts with %(digits)s."),
                    code="unknown",
                    params={"digits": digits},
                )
            return digits
        code = CHOSEN_CODE.match(value)
        if code is None:
            raise forms.ValidationError(
                _("Choose a code from the list, or type one as 30197630-1."), code="invalid"
            )
        if not is_cpv(code[1]):
            raise forms.ValidationError(
                _("There is no code %(code)s in ДК 021."), code="unknown", params={"code": code[1]}
            )
        return code[1]


class ItemForm(forms.Form):
    description = forms.CharField(label=_("What is bought"), max_length=500)
    cpv = CpvField()
    quantity = forms.DecimalField(
        label=_("Quantity"), max_digits=15, decimal_places=3,
        validators=[above_zero(_("The quantity is above zero."))],
    )  # fmt: skip
    # The first unit is the initial one: a row whose select alone was sent is an empty row.
    unit = forms.ChoiceField(label=_("Unit"), choices=unit_choices, initial="H87")

    def __init__(self, *args, lots: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        if lots:
            # (the first lot is the initial choice: a row whose selects alone were sent is empty)
            self.fields["lot"] = forms.TypedChoiceField(
                label=_("Lot"),
                choices=[(n, _("Lot %(number)s") % {"number": n}) for n in range(1, lots + 1)],
                coerce=int,
                initial=1,
            )

    def as_item(self, lot_ids: list[str] = ()) -> dict:
        data = self.cleaned_data
        related = {"relatedLot": lot_ids[data["lot"] - 1]} if lot_ids else {}
        return {
            **related,
            "description": data["description"],
            "classification": {
                "scheme": "ДК021",
                "id": data["cpv"],
                "description": cpv_name(data["cpv"], "uk"),
                "description_en": cpv_name(data["cpv"], "en"),
            },
            "quantity": float(data["quantity"]),
            "unit": unit_of_item(data["unit"]),
        }


class ItemRows(forms.BaseFormSet):
    """A tender's items: rows left empty are skipped; "add an item" sends the form back with
    one more row."""

    default_error_messages = {
        "too_few_forms": _("Say what is bought: at least one item, its code and quantity."),
        "too_many_forms": _("A tender has at most 50 items."),
    }

    def items(self, lot_ids: list[str] = ()) -> list[dict]:
        """The filled rows; with lots, each pointing at the lot its row chose."""
        return [form.as_item(lot_ids) for form in self.forms if form.has_changed()]


ItemFormSet = forms.formset_factory(
    ItemForm,
    formset=ItemRows,
    extra=0,
    min_num=1,
    validate_min=True,
    max_num=50,
    validate_max=True,
    absolute_max=50,
)


class TenderForm(OnceForm):
    """A new tender, as its organization's procuring entity. The fields become the 2.3
    tender's value, minimalStep, periods and procuringEntity; the model checks them."""

    # The 2.3 names of what the model may refuse, for its messages to land at these fields.
    api_fields = {
        "value": "amount",
        "minimalStep": "minimal_step",
        "enquiryPeriod": "enquiry_end",
        "tenderPeriod": "tender_end",
    }

    title = forms.CharField(label=_("Title"), max_length=500, validators=[no_direction_marks])
    description = forms.CharField(
        label=_("Description (optional)"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=20000,
    )
    amount = amount_field(_("Expected value, UAH"), VALUE_ABOVE_ZERO)
    vat_included = forms.BooleanField(
        label=_("The value includes VAT"), required=False, initial=True
    )
    minimal_step = amount_field(
        _("Minimal step of a price cut, UAH"), STEP_ABOVE_ZERO,
        help_text=_("Usually 0.5 to 3 per cent of the expected value."),
    )  # fmt: skip
    enquiry_end = forms.DateTimeField(
        label=_("Questions until"),
        help_text=_("Kyiv time. The law asks for at least 3 working days from publication."),
        widget=DATETIME_INPUT,
    )
    tender_end = forms.DateTimeField(
        label=_("Bids until"),
        help_text=_(
            "Kyiv time. Bids are accepted from the end of questions until then: the law asks "
            "for at least 2 working days."
        ),
        widget=DATETIME_INPUT,
    )
    entity_kind = forms.ChoiceField(label=_("Your organization is"), choices=ENTITY_KINDS)
    region = forms.ChoiceField(label=_("Region"), choices=())
    locality = forms.CharField(label=_("Town or city"), max_length=200)
    street_address = forms.CharField(label=_("Street address"), max_length=500)
    postal_code = forms.CharField(label=_("Postal code (optional)"), max_length=20, required=False)
    contact_name = forms.CharField(label=_("Contact person"), max_length=200)
    contact_email = forms.EmailField(label=_("Contact e-mail"))
    contact_telephone = forms.CharField(
        label=_("Telephone (optional)"), max_length=50, required=False
    )

    @classmethod
    def initial_for(cls, user, last_entity: dict | None) -> dict:
        """What the organization wrote in its last tender, or the user's own contact."""
        entity = last_entity or {}
        address, contact = entity.get("address", {}), entity.get("contactPoint", {})
        # The law's shortest periods from now, each to the next whole hour.
        procedure = procedure_named(WHEN_UNNAMED)  # (the form's)
        questions_end = _next_hour(procedure.earliest_questions_end(timezone.now()))
        return {
            "enquiry_end": questions_end,
            "tender_end": _next_hour(procedure.earliest_bids_end(questions_end)),
            "entity_kind": entity.get("kind", "general"),
            "region": address.get("region", ""),
            "locality": address.get("locality", ""),
            "street_address": address.get("streetAddress", ""),
            "postal_code": address.get("postalCode", ""),
            "contact_name": contact.get("name") or user.get_full_name() or user.username,
            "contact_email": contact.get("email") or user.email,
            "contact_telephone": contact.get("telephone", ""),
        }

    @staticmethod
    def data_of(tender) -> dict:
        """The form (with its lots' and items' rows) as a browser would send it for `tender`,
        a draft: what "edit the draft" starts from."""
        data = tender.data
        entity = data.get("procuringEntity", {})
        address, contact = entity.get("address", {}), entity.get("contactPoint", {})

        def moment(value) -> str:
            return value.astimezone(KYIV).strftime("%Y-%m-%dT%H:%M")

        form = {
            "once": new_id(),
            "title": tender.title,
            "description": tender.description,
            "amount": _typed(data.get("value", {}).get("amount")),
            "minimal_step": _typed(data.get("minimalStep", {}).get("amount")),
            "enquiry_end": moment(tender.enquiry_end),
            "tender_end": moment(tender.tender_end),
            "entity_kind": entity.get("kind", ""),
            "region": address.get("region", ""),
            "locality": address.get("locality", ""),
            "street_address": address.get("streetAddress", ""),
            "postal_code": address.get("postalCode", ""),
            "contact_name": contact.get("name", ""),
            "contact_email": contact.get("email", ""),
            "contact_telephone": contact.get("telephone", ""),
        }
        if data.get("value", {}).get("valueAddedTaxIncluded", True):
            form["vat_included"] = "on"
        lots = tender.lots
        form.update({"lots-TOTAL_FORMS": str(len(lots)), "lots-INITIAL_FORMS": "0"})
        for n, lot in enumerate(lots):
            form[f"lots-{n}-title"] = lot["title"]
            form[f"lots-{n}-amount"] = _typed(lot["value"]["amount"])
            form[f"lots-{n}-minimal_step"] = _typed(lot["minimalStep"]["amount"])
        items = data.get("items", [])
        form.update({"items-TOTAL_FORMS": str(len(items)), "items-INITIAL_FORMS": "0"})
        lot_numbers = {lot["id"]: n for n, lot in enumerate(lots, start=1)}
        for n, item in enumerate(items):
            code = item.get("classification", {}).get("id", "")
            form[f"items-{n}-description"] = item.get("description", "")
            form[f"items-{n}-cpv"] = f"{code} {cpv_name(code, 'uk') or ''}".strip()
            form[f"items-{n}-quantity"] = str(item.get("quantity", ""))
            form[f"items-{n}-unit"] = item.get("unit", {}).get("code", "H87")
            if item.get("relatedLot") in lot_numbers:
                form[f"items-{n}-lot"] = str(lot_numbers[item["relatedLot"]])
        return form

    def __init__(self, *args, with_lots: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["region"].choices = [("", "—")] + [(name, name) for name in regions()]
        if with_lots:  # the lots' values make the tender's
            self.fields["amount"].required = self.fields["minimal_step"].required = False

    def as_tender(self, organization, items: list[dict], *, draft: bool, lots=()) -> dict:
        data = self.cleaned_data
        terms = {"currency": "UAH", "valueAddedTaxIncluded": data["vat_included"]}
        if lots:
            # (the registry sums them again: 2.3's value of a tender in lots)
            amount = exact_sum(lot["value"]["amount"] for lot in lots)
            step = min(lot["minimalStep"]["amount"] for lot in lots)
        else:
            amount, step = float(data["amount"]), float(data["minimal_step"])
        value = {"amount": amount, **terms}
        address = {
            "countryName": "Україна",
            "region": data["region"],
            "locality": data["locality"],
            "streetAddress": data["street_address"],
        }
        if data["postal_code"]:
            address["postalCode"] = data["postal_code"]
        contact = {"name": data["contact_name"], "email": data["contact_email"]}
        if data["contact_telephone"]:
            contact["telephone"] = data["contact_telephone"]
        tender = {
            "title": data["title"],
            "value": value,
            "minimalStep": {**value, "amount": step},
            "enquiryPeriod": {"endDate": iso(data["enquiry_end"])},
            "tenderPeriod": {"endDate": iso(data["tender_end"])},
            "procuringEntity": {
                "name": organization.name,
                "kind": data["entity_kind"],
                "identifier": {**organization.identifier_data, "legalName": organization.name},
                "address": address,
                "contactPoint": contact,
            },
            "items": [{**item, "deliveryAddress": address} for item in items],
        }
        if lots:
            tender["lots"] = [
                {**lot, "value": {**lot["value"], **terms},
                 "minimalStep": {**lot["minimalStep"], **terms}}
                for lot in lots
            ]  # fmt: skip
        if data["description"]:
            tender["description"] = data["description"]
        if draft:
            tender["status"] = "draft"
        return tender


def _typed(amount) -> str:
    """An amount as a person types it back into the form: "500.00", not the stored 500.0."""
    return "" if amount is None else f"{Decimal(str(amount)):.2f}"
