"""Portal forms for claims: the shape of the input only. Field names are the keyword arguments
of the model methods they feed; every rule about the values stays in the model."""

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from complaints.models import MIN_RESOLUTION_LENGTH, ResolutionType
from portal.forms import MultipleFileField, OnceForm


class AttachmentsField(MultipleFileField):
    def __init__(self, **kwargs):
        super().__init__(
            label=_("Attachments"),
            required=False,
            help_text=_("Any number of files, up to %(size)s MB each.")
            % {"size": settings.DOCUMENT_MAX_BYTES // (1024 * 1024)},
            **kwargs,
        )

    def validate(self, value):
        super().validate(value)
        if value and value.size > settings.DOCUMENT_MAX_BYTES:
            raise forms.ValidationError(
                _("%(name)s is larger than %(size)s MB.")
                % {"name": value.name, "size": settings.DOCUMENT_MAX_BYTES // (1024 * 1024)}
            )


class DraftForm(OnceForm):
    title = forms.CharField(label=_("Subject of the claim"), max_length=500)
    description = forms.CharField(
        label=_("What is wrong with the decision, and what you ask for"),
        widget=forms.Textarea(attrs={"rows": 8}),
        max_length=20000,
    )


class ClaimForm(DraftForm):
    """A new claim: saved as a draft, or submitted at once (its attachments first)."""

    documents = AttachmentsField()


class DocumentsForm(OnceForm):
    documents = AttachmentsField()

    def clean_documents(self):
        documents = self.cleaned_data["documents"]
        if not documents:
            raise forms.ValidationError(_("Choose at least one file."))
        return documents


class AnswerForm(OnceForm):
    resolution_type = forms.ChoiceField(
        label=_("Decision"), choices=[("", "—"), *ResolutionType.choices], required=False
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
    satisfied = forms.TypedChoiceField(
        label=_("Your verdict on the answer"),
        choices=[("true", _("I accept the answer")), ("false", _("I reject the answer"))],
        coerce=lambda value: value == "true",
        widget=forms.RadioSelect,
    )


class CancelForm(OnceForm):
    reason = forms.CharField(
        label=_("Why you withdraw the claim"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
    )
