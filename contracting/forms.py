"""Portal forms of contracting (contracting/views.py): their shape only; the models decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm, check_size
from tenders.forms.new_tender import DATETIME_INPUT, amount_field
from tenders.forms.owner import SignedNowFirst

# 2.3's reasons for a change, in words.
RATIONALE_TYPES = [
    ("volumeCuts", _("The volume of the purchase is cut")),
    ("itemPriceVariation", _("The unit price changes with the market (at most 10%)")),
    ("qualityImprovement", _("Better quality for the same price")),
    ("thirdParty", _("Circumstances beyond the parties' control")),
    ("durationExtension", _("The term is extended for documented reasons")),
    ("priceReduction", _("The price is agreed lower")),
    ("taxRate", _("A tax rate changed")),
    ("fiscalYearExtension", _("The contract extends into the next budget year")),
]


class ChangeForm(SignedNowFirst, OnceForm):
    """A change of a signed contract, made and signed at once: why, what it changes, and its
    signed copy."""

    rationale_types = forms.MultipleChoiceField(
        label=_("Why the contract changes"),
        choices=RATIONALE_TYPES,
        widget=forms.CheckboxSelectMultiple,
    )
    rationale = forms.CharField(
        label=_("The reason, in words"),
        help_text=_("Published with the change."),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
    )
    contract_number = forms.CharField(
        label=_("The change's number"), max_length=255, required=False
    )
    amount = amount_field(
        _("The contract's new price"), _("The contract's price is above zero."), required=False,
        help_text=_("Leave empty if the price stays. Never above the awarded price."),
    )  # fmt: skip
    end_date = forms.DateTimeField(
        label=_("The contract's new end"),
        help_text=_("Leave empty if the term stays."),
        required=False,
        widget=DATETIME_INPUT,
    )
    date_signed = forms.DateTimeField(
        label=_("Signed on"),
        widget=DATETIME_INPUT,
    )
    document = forms.FileField(
        label=_("The signed change"), required=False, validators=[check_size],
        help_text=_("Optional. Published with the contract."),
    )  # fmt: skip
    # The API's names of what the model may refuse, for its words to stand by the field.
    api_fields = {
        "rationaleTypes": "rationale_types", "rationale": "rationale",
        "contractNumber": "contract_number", "dateSigned": "date_signed", "value": "amount",
        "period": "end_date",
    }  # fmt: skip


class ChangeSignForm(SignedNowFirst, OnceForm):
    """The signature of a change left pending: when, and its signed copy."""

    date_signed = forms.DateTimeField(label=_("Signed on"), widget=DATETIME_INPUT)
    document = forms.FileField(
        label=_("The signed change"), required=False, validators=[check_size],
        help_text=_("Optional. Published with the contract."),
    )  # fmt: skip
    api_fields = {"dateSigned": "date_signed"}


class TerminateForm(OnceForm):
    amount_paid = forms.DecimalField(
        label=_("The amount paid under the contract"),
        max_digits=20, decimal_places=2, min_value=0,
    )  # fmt: skip
    # Asked (shown) only when the amount paid is above the contract's price: add_error.
    more_paid = forms.BooleanField(
        label=_("More than the price was paid"), required=False, widget=forms.HiddenInput
    )
    details = forms.CharField(
        label=_("If the contract was not fulfilled: how it ended"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
        required=False,
    )
    api_fields = {"amountPaid": "amount_paid", "terminationDetails": "details"}

    def add_error(self, field, error):
        if field == "more_paid":  # (the model asks: the question is shown with its box)
            self.fields[field].widget = forms.CheckboxInput()
        super().add_error(field, error)


class ContractSearchForm(forms.Form):
    supplier = forms.CharField(
        label=_("Supplier"), help_text=_("Its code (ЄДРПОУ) or a part of its name."),
        max_length=200, required=False,
    )  # fmt: skip
    buyer = forms.CharField(
        label=_("Buyer"), help_text=_("Its code (ЄДРПОУ) or a part of its name."),
        max_length=200, required=False,
    )  # fmt: skip
    status = forms.ChoiceField(
        label=_("Status"),
        choices=[("", _("any")), ("active", _("in force")), ("terminated", _("terminated"))],
        required=False,
    )
