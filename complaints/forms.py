"""Portal forms for claims: the shape of the input only. Field names are the keyword arguments
of the model methods they feed; every rule about the values stays in the model."""

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from complaints.models import MIN_RESOLUTION_LENGTH, RESOLUTION_MEANING, ResolutionType
from core.forms import AttachmentsField, OnceForm, no_direction_marks


class DraftForm(OnceForm):
    title = forms.CharField(
        label=_("Subject of the claim"), max_length=500, validators=[no_direction_marks]
    )
    description = forms.CharField(
        label=_("What is wrong with the decision, and what you ask for"),
        widget=forms.Textarea(attrs={"rows": 8}),
        max_length=20000,
    )


class ClaimForm(DraftForm):
    """A new claim: saved as a draft, or submitted at once (its attachments first)."""

    documents = AttachmentsField()


class TenderClaimForm(ClaimForm):
    """A new claim against the tender's conditions; on a tender in lots, against one lot's or
    the whole tender's."""

    description = forms.CharField(
        label=_("What is wrong with the conditions, and what you ask for"),
        widget=forms.Textarea(attrs={"rows": 8}),
        max_length=20000,
    )
    lot = forms.ChoiceField(label=_("The conditions of"), required=False)
    field_order = ["lot", "title", "description", "documents"]

    def __init__(self, *args, tender, **kwargs):
        super().__init__(*args, **kwargs)
        lots = tender.open_lots()
        self.fields["lot"].choices = [("", _("the whole tender"))] + [
            (lot["id"], _("lot «%(title)s»") % {"title": lot["title"]}) for lot in lots
        ]
        if not lots:
            del self.fields["lot"]


class AnswerForm(OnceForm):
    resolution_type = forms.ChoiceField(
        label=_("Decision"),
        choices=[("", "—"), *ResolutionType.choices],
        required=False,
        help_text=format_lazy("{} {} {}", *(RESOLUTION_MEANING[kind] for kind in ResolutionType)),
    )
    resolution = forms.CharField(
        label=_("Answer to the claimant"),
        help_text=_("At least %(count)s characters.") % {"count": MIN_RESOLUTION_LENGTH},
        widget=forms.Textarea(attrs={"rows": 6, "minlength": MIN_RESOLUTION_LENGTH}),
        required=False,
        max_length=20000,
    )
    tenderer_action = forms.CharField(
        label=_("Action taken (optional)"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=20000,
    )
    documents = AttachmentsField()


class DecisionForm(OnceForm):
    """The claimant's verdict on the answer, chosen before its review (which says what
    follows each)."""

    satisfied = forms.TypedChoiceField(
        choices=[("true", _("I accept the answer")), ("false", _("I reject the answer"))],
        coerce=lambda value: value == "true",
        widget=forms.HiddenInput,
    )


class CancelForm(OnceForm):
    reason = forms.CharField(
        label=_("Why you withdraw the claim"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
    )
