"""The site's own forms (search); the pieces every app's forms share are in portal.core.forms."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tenders.models import TenderStatus


class SearchForm(forms.Form):
    q = forms.CharField(label=_("Keywords"), required=False, max_length=200)
    tender_id = forms.CharField(label=_("Tender ID"), required=False, max_length=40)
    cpv = forms.RegexField(
        label=_("CPV code"),
        required=False,
        regex=r"^\d{8}(-\d)?$",
        error_messages={"invalid": _("A CPV code looks like 30197630-1.")},
    )
    buyer = forms.CharField(label=_("Procuring entity identifier"), required=False, max_length=64)
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[("", _("any"))]
        + [(value, label) for value, label in TenderStatus.choices if value != "draft"],
    )
    published_from = forms.DateField(
        label=_("Published from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    published_to = forms.DateField(
        label=_("Published to"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("published_from"), cleaned.get("published_to")
        if start and end and start > end:
            self.add_error("published_to", _("The end of the range is before its start."))
        return cleaned
