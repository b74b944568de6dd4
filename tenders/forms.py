"""Portal forms of the tender owner's decisions: their shape only; the models decide."""

import re
from decimal import Decimal

from django import forms
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm, check_size
from core.ids import new_id
from core.schema import KYIV, iso
from core.words import money
from tenders.classifiers import UNITS, cpv_name, find_cpv, is_cpv, regions
from tenders.models import Award
from tenders.models.lots import exact_sum
from tenders.search import CPV_CODE

# A code at the start of what was typed or chosen ("30197630-1 Папір для друку").
CHOSEN_CODE = re.compile(rf"\s*({CPV_CODE.pattern})(?!\d)")
# The first digits of codes: a division (2) to a whole code without its check digit (8).
BRANCH = re.compile(r"\d{2,8}")


def protocol_field(label):
    return forms.FileField(
        label=label,
        required=False,
        validators=[check_size],
        help_text=_("Optional. Published with the decision, for anyone to read."),
    )


class AwardDecisionForm(OnceForm):
    """A decision on an award; disqualifying says why (shown with the award, what a claim
    argues against), and any decision may carry its protocol."""

    action = forms.ChoiceField(
        choices=[(action, action) for action in Award.DECISIONS], widget=forms.HiddenInput
    )
    reason = forms.CharField(
        label=_("Why the bid is disqualified"),
        help_text=_("Published with the decision; the bidder may file a claim against it."),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
        required=False,
    )
    protocol = protocol_field(_("The decision's protocol"))

    def __init__(self, *args, action: str = "", **kwargs):
        """`action`: the decision the form makes; it asks only what that one needs."""
        super().__init__(*args, **kwargs)
        self.initial.setdefault("action", action)
        if action != "disqualify":
            del self.fields["reason"]
        if action == "cancel":
            del self.fields["protocol"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("action") == "disqualify" and not cleaned.get("reason", "").strip():
            self.add_error("reason", _("Say why the bid is disqualified."))
        return cleaned


class ContractSignForm(OnceForm):
    contract = protocol_field(_("The signed contract"))


# A price under this share of its expected value is asked about before it is sent: 2.3 takes
# it, but it is most often a slip (1.00 typed for 920 000).
LOW_PRICE_SHARE = Decimal("0.3")


class PricesChecked(forms.Form):
    """The prices of a bid form, each checked against the expected value of what it is
    offered for: one far below it is sent only once the bidder says it is right."""

    price_is_right = forms.BooleanField(label=_("The price is right"), required=False)

    # Shown with the price it is about only: set by clean().
    price_in_doubt = False

    def expected_values(self) -> dict:
        """The expected value of each price field's line (the tender's, or its lot's)."""
        tender = self.tender
        if not tender.lots:
            return {"amount": tender.expected_value(None)}
        return {f"lot_{lot['id']}": tender.expected_value(lot["id"]) for lot in tender.lots}

    def clean(self):
        cleaned = super().clean()
        self.price_in_doubt = bool(cleaned.get("price_is_right"))
        if self.price_in_doubt:
            return cleaned
        for name, expected in self.expected_values().items():
            price, amount = cleaned.get(name), expected.get("amount")
            if price is None or not amount or price >= Decimal(str(amount)) * LOW_PRICE_SHARE:
                continue
            self.price_in_doubt = True
            self.add_error(
                name,
                _(
                    "This is less than %(share)s%% of the expected value, %(expected)s. If the "
                    "price is right, tick «The price is right» and send it again."
                )
                % {
                    "share": int(LOW_PRICE_SHARE * 100),
                    "expected": money(expected),
                },
            )
        return cleaned


class BidForm(PricesChecked, OnceForm):
    """A bid from the signed-in user's organization; the model checks the value and the
    period. The fields become the 2.3 bid's `value` (with lots: a price per lot, `lotValues`),
    its `parameters` (a choice per feature of the tender) and `tenderers[0].contactPoint`."""

    amount = forms.DecimalField(
        label=_("Price offered"), min_value=0, max_digits=15, decimal_places=2
    )
    contact_name = forms.CharField(label=_("Contact person"), max_length=200)
    email = forms.EmailField(label=_("Contact e-mail"))
    telephone = forms.CharField(label=_("Telephone (optional)"), max_length=50, required=False)
    locality = forms.CharField(label=_("Town or city"), max_length=200)

    def __init__(self, *args, tender, **kwargs):
        super().__init__(*args, **kwargs)
        self.tender = tender
        # A price per lot open for bids, named by the lot's id (a page read before a lot was
        # cancelled still names the lots it meant).
        self.lots = tender.open_lots()
        if tender.lots:
            del self.fields["amount"]
        prices = {
            f"lot_{lot['id']}": forms.DecimalField(
                label=_("Price for lot «%(title)s» (leave empty not to bid for it)")
                % {"title": lot["title"]},
                min_value=0,
                max_digits=15,
                decimal_places=2,
                required=False,
            )
            for lot in self.lots
        }
        # A choice per feature a bid may be weighed by (named by its place in the tender's
        # list, fixed once bids are taken): the tenderer's always; a lot's (or its items')
        # only when that lot is priced (clean).
        open_codes = tender.weighed_by(tender.lines())
        titles = {lot["id"]: lot["title"] for lot in tender.lots}
        self.features = {
            f"feature_{n}": feature
            for n, feature in enumerate(tender.data.get("features", []))
            if feature["code"] in open_codes
        }
        choices = {}
        for name, feature in self.features.items():
            label = feature["title"]
            if feature["featureOf"] == "lot":
                label = _("%(title)s (lot «%(lot)s»)") % {
                    "title": label,
                    "lot": titles.get(feature.get("relatedItem"), ""),
                }
            choices[name] = forms.TypedChoiceField(
                label=label,
                help_text=feature.get("description", ""),
                choices=[(str(v["value"]), v["title"]) for v in feature["enum"]],
                coerce=float,
                empty_value=None,
                required=not tender.lots or feature["featureOf"] == "tenderer",
            )
        self.fields = {**prices, **self.fields, **choices}

    def priced_lots(self) -> list[str]:
        return [
            lot["id"] for lot in self.lots if self.cleaned_data.get(f"lot_{lot['id']}") is not None
        ]

    def clean(self):
        cleaned = super().clean()
        titles = {f"lot_{lot['id']}": lot["title"] for lot in self.tender.lots}
        for name, value in self.data.items():
            if name in titles and name not in self.fields and value:
                raise forms.ValidationError(
                    _("Lot «%(title)s» is no longer open for bids: reload the page.")
                    % {"title": titles[name]}
                )
        if not self.lots:
            return cleaned
        priced = self.priced_lots()
        if not priced:
            raise forms.ValidationError(_("Offer a price for at least one lot."))
        needed = self.tender.weighed_by(priced)
        for name, feature in self.features.items():
            if feature["code"] in needed and cleaned.get(name) is None and name not in self.errors:
                self.add_error(name, _("Choose one for the lots you bid for."))
        return cleaned

    def as_bid(self, organization) -> dict:
        """The 2.3 bid: prices in the tender's currency and VAT terms, a value for each feature
        the bid is weighed by, the organization as the tenderer."""
        data = self.cleaned_data
        terms = self.tender.data.get("value", {})

        def price(amount) -> dict:
            return {
                "amount": float(amount),
                "currency": terms.get("currency", "UAH"),
                "valueAddedTaxIncluded": terms.get("valueAddedTaxIncluded", True),
            }

        contact = {"name": data["contact_name"], "email": data["email"]}
        if data["telephone"]:
            contact["telephone"] = data["telephone"]
        bid = {
            "tenderers": [
                {
                    "name": organization.name,
                    "identifier": organization.identifier_data,
                    "address": {"countryName": "Україна", "locality": data["locality"]},
                    "contactPoint": contact,
                }
            ]
        }
        if self.tender.lots:
            lines = self.priced_lots()
            bid["lotValues"] = [
                {"relatedLot": lot_id, "value": price(data[f"lot_{lot_id}"])} for lot_id in lines
            ]
        else:
            bid["value"] = price(data["amount"])
            lines = [None]
        weighed_by = self.tender.weighed_by(lines)
        parameters = [
            {"code": feature["code"], "value": data[name]}
            for name, feature in self.features.items()
            if feature["code"] in weighed_by
        ]
        if parameters:
            bid["parameters"] = parameters
        return bid


ENTITY_KINDS = [
    ("general", _("a public authority, local government or their body")),
    ("special", _("a utility (energy, water, transport, post)")),
    ("defense", _("a defence purchaser")),
    ("other", _("a state or municipal enterprise, or another legal person")),
]

DATETIME_INPUT = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class LotForm(forms.Form):
    """A part of the tender bid for, decided and contracted on its own."""

    title = forms.CharField(label=_("Lot title"), max_length=500)
    amount = forms.DecimalField(
        label=_("Expected value of the lot, UAH"), min_value=0, max_digits=15, decimal_places=2
    )
    minimal_step = forms.DecimalField(
        label=_("Minimal step, UAH"), min_value=0, max_digits=15, decimal_places=2
    )


class LotRows(forms.BaseFormSet):
    """A tender's lots: every row added is a lot (there is a button to take the last away)."""

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        form.empty_permitted = False
        return form

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
    quantity = forms.DecimalField(label=_("Quantity"), min_value=0, max_digits=15, decimal_places=3)
    # The first unit is the initial one: a row whose select alone was sent is an empty row.
    unit = forms.ChoiceField(
        label=_("Unit"), choices=[(unit.code, unit.label) for unit in UNITS.values()], initial="H87"
    )

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
        unit = UNITS[data["unit"]]
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
            "unit": {"code": unit.code, "name": unit.name, "name_en": unit.english()},
        }


class ItemRows(forms.BaseFormSet):
    """A tender's items: rows left empty are skipped; "add an item" sends the form back with
    one more row."""

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

    title = forms.CharField(label=_("Title"), max_length=500)
    description = forms.CharField(
        label=_("Description (optional)"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=20000,
    )
    amount = forms.DecimalField(
        label=_("Expected value, UAH"), min_value=0, max_digits=15, decimal_places=2
    )
    vat_included = forms.BooleanField(
        label=_("The value includes VAT"), required=False, initial=True
    )
    minimal_step = forms.DecimalField(
        label=_("Minimal step of a price cut, UAH"),
        help_text=_("Usually 0.5 to 3 per cent of the expected value."),
        min_value=0,
        max_digits=15,
        decimal_places=2,
    )
    enquiry_end = forms.DateTimeField(
        label=_("Questions until"), help_text=_("Kyiv time."), widget=DATETIME_INPUT
    )
    tender_end = forms.DateTimeField(
        label=_("Bids until"),
        help_text=_("Kyiv time. Bids are accepted from the end of questions until then."),
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
        return {
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
            "amount": str(data.get("value", {}).get("amount", "")),
            "minimal_step": str(data.get("minimalStep", {}).get("amount", "")),
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
            form[f"lots-{n}-amount"] = str(lot["value"]["amount"])
            form[f"lots-{n}-minimal_step"] = str(lot["minimalStep"]["amount"])
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


class PublishForm(OnceForm):
    pass


class TenderCancelForm(OnceForm):
    reason = forms.CharField(
        label=_("Why the tender is cancelled"),
        help_text=_("Published with the tender. A cancelled tender cannot be reopened."),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
    )
    protocol = protocol_field(_("The protocol of the decision to cancel"))

    def __init__(self, *args, tender=None, **kwargs):
        super().__init__(*args, **kwargs)
        lots = tender.open_lots() if tender else []
        if lots:
            # Lots named by their ids: a page read before another lot was cancelled still
            # names the lot it meant (one no longer open is refused).
            self.fields["what"] = forms.ChoiceField(
                label=_("What is cancelled"),
                choices=[("", _("The whole tender"))]
                + [(lot["id"], _("Lot «%(title)s»") % {"title": lot["title"]}) for lot in lots],
                required=False,
                initial="",
                error_messages={
                    "invalid_choice": _("That lot is no longer open: reload the page.")
                },
            )
            self.fields["reason"].label = _("Why it is cancelled")
            self.order_fields(["what", "reason", "protocol"])

    def cancellation(self) -> dict:
        """The 2.3 cancellation: of the whole tender, or of the lot chosen."""
        data = {"reason": self.cleaned_data["reason"], "status": "active"}
        if self.cleaned_data.get("what"):
            data.update(cancellationOf="lot", relatedLot=self.cleaned_data["what"])
        return data


class BidPriceForm(PricesChecked, OnceForm):
    """New prices for a bid while bids are taken: its price, or its price for each lot it
    is for. The model decides whether they may change (and checks them as it did the first)."""

    def __init__(self, *args, bid, **kwargs):
        super().__init__(*args, **kwargs)
        self.bid = bid
        self.tender = tender = bid.tender
        titles = {lot["id"]: lot["title"] for lot in tender.lots}
        prices = {}
        if tender.lots:
            for offer in bid.lot_values:
                prices[f"lot_{offer['relatedLot']}"] = forms.DecimalField(
                    label=_("New price for lot «%(title)s»")
                    % {"title": titles.get(offer["relatedLot"], "")},
                    initial=offer["value"]["amount"],
                    min_value=0,
                    max_digits=15,
                    decimal_places=2,
                )
        else:
            prices["amount"] = forms.DecimalField(
                label=_("New price"),
                initial=(bid.value or {}).get("amount"),
                min_value=0,
                max_digits=15,
                decimal_places=2,
            )
        self.fields = {**prices, **self.fields}

    def as_patch(self) -> dict:
        """The 2.3 PATCH of the bid: its value, or its lot values, at the new prices."""
        data = self.cleaned_data
        if self.tender.lots:
            return {
                "lotValues": [
                    {
                        "relatedLot": offer["relatedLot"],
                        "value": {
                            **offer["value"],
                            "amount": float(data[f"lot_{offer['relatedLot']}"]),
                        },
                    }
                    for offer in self.bid.lot_values
                ]
            }
        return {"value": {**self.bid.value, "amount": float(data["amount"])}}


class NewVersionForm(OnceForm):
    """A new version of one document; each document's form has its own field names."""

    document = forms.FileField(label=_("New version"), validators=[check_size])

    def __init__(self, *args, document_id: str, **kwargs):
        super().__init__(*args, prefix=f"version-{document_id}", **kwargs)


def party_of(user) -> dict:
    """The signed-in user's organization as a 2.3 Organization (who asks, who claims), with
    the user as its contact."""
    organization = user.organization
    return {
        "name": organization.name,
        "identifier": organization.identifier_data,
        "address": {"countryName": "Україна"},
        "contactPoint": {"name": user.get_full_name() or user.username, "email": user.email},
    }


class QuestionForm(OnceForm):
    """A question to the buyer: about the tender, one of its lots or one of its items (2.3's
    questionOf and relatedItem, chosen in one list)."""

    about = forms.ChoiceField(label=_("About"), required=False)
    title = forms.CharField(label=_("Question"), max_length=500)
    description = forms.CharField(
        label=_("Details (optional)"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=20000,
    )

    def __init__(self, *args, tender, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", _("The tender as a whole"))]
        choices += [
            (f"lot:{lot['id']}", _("Lot «%(title)s»") % {"title": lot["title"]})
            for lot in tender.open_lots()
        ]
        choices += [
            (f"item:{item['id']}", _("Item «%(title)s»") % {"title": item["description"]})
            for item in tender.data.get("items", [])
        ]
        self.fields["about"].choices = choices
        if len(choices) == 1:
            self.fields["about"].widget = forms.HiddenInput()

    def as_question(self, user) -> dict:
        data = self.cleaned_data
        question = {"title": data["title"], "author": party_of(user)}
        if data["description"]:
            question["description"] = data["description"]
        if data["about"]:
            question["questionOf"], question["relatedItem"] = data["about"].split(":", 1)
        return question


class QuestionAnswerForm(OnceForm):
    answer = forms.CharField(
        label=_("Answer"), widget=forms.Textarea(attrs={"rows": 4}), max_length=20000
    )
