"""Portal forms of the tender owner's decisions (tenders/views/owner.py): their shape only; the
models decide."""

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm, check_size
from tenders.forms.new_tender import DATETIME_INPUT, amount_field
from tenders.models import Award, Cancellation


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


class SignedNowFirst:
    """A form whose `date_signed` is offered as now (to the minute) until it is sent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial.setdefault("date_signed", timezone.localtime().replace(second=0))


class ContractSignForm(SignedNowFirst, OnceForm):
    """The signature, with what 2.3's contract holds: its number, when it was signed, its term
    and its price (empty: the awarded price)."""

    contract_number = forms.CharField(label=_("The contract's number"), max_length=255)
    date_signed = forms.DateTimeField(label=_("Signed on"), widget=DATETIME_INPUT)
    start_date = forms.DateTimeField(
        label=_("The contract's term begins"), required=False, widget=DATETIME_INPUT,
        help_text=_("Leave empty if it begins when it is signed."),
    )  # fmt: skip
    end_date = forms.DateTimeField(label=_("The contract's term ends"), widget=DATETIME_INPUT)
    amount = amount_field(
        _("The contract's price, UAH"), _("The contract's price is above zero."), required=False,
        help_text=_("Leave empty if it is the awarded price. Never above it."),
    )  # fmt: skip
    contract = protocol_field(_("The signed contract"))
    api_fields = {
        "contractNumber": "contract_number", "dateSigned": "date_signed", "period": "end_date",
        "value": "amount",
    }  # fmt: skip


class PublishForm(OnceForm):
    pass


class TenderCancelForm(OnceForm):
    ground = forms.ChoiceField(
        label=_("Ground for cancelling"),
        help_text=_("The grounds the law gives a buyer for cancelling."),
        choices=[("", "—"), *Cancellation.GROUNDS.items()],
    )
    reason = forms.CharField(
        label=_("Why the tender is cancelled"),
        help_text=_(
            "The facts behind the ground, published with it. A cancelled tender cannot be reopened."
        ),
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
            self.order_fields(["what", "ground", "reason", "protocol"])

    def cancellation(self) -> dict:
        """The 2.3 cancellation: of the whole tender, or of the lot chosen; its reason opens
        with the ground (Cancellation.on_ground)."""
        data = {
            **Cancellation.on_ground(self.cleaned_data["ground"], self.cleaned_data["reason"]),
            "status": "active",
        }
        if self.cleaned_data.get("what"):
            data.update(cancellationOf="lot", relatedLot=self.cleaned_data["what"])
        return data


class NewVersionForm(OnceForm):
    """A new version of one document; each document's form has its own field names."""

    document = forms.FileField(label=_("New version"), validators=[check_size])

    def __init__(self, *args, document_id: str, **kwargs):
        super().__init__(*args, prefix=f"version-{document_id}", **kwargs)
