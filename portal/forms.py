"""The site's own forms (search); the pieces every app's forms share are in core.forms."""

from urllib.parse import urlencode

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.forms import OnceForm
from portal.models import SavedSearch
from tenders.classifiers import regions
from tenders.forms.new_tender import CpvField
from tenders.models import TenderStatus
from tenders.procedures import registered

SORTS = [
    ("newest", _("newest published first")),
    ("relevance", _("best match first")),
    ("deadline", _("bids closing soonest first")),
    ("changed", _("recently changed first")),
]


class SearchForm(forms.Form):
    """The portal's search: one box that understands a tender ID, a code of the catalogue or
    its first digits, a procuring entity's code or words (tenders.search.understand), and
    filters. The names are the arguments of Tender.objects.matching."""

    def filters_set(self) -> int:
        """How many of the filters (not the words, nor the order) the search was sent with."""
        return sum(1 for name in self.fields if name not in ("q", "sort") and self.data.get(name))

    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    cpv = CpvField(
        branch=True,
        required=False,
        help_text=_("A code or its first digits: 30 is every code of division 30."),
    )
    region = forms.ChoiceField(label=_("Region"), required=False, choices=())
    value_min = forms.DecimalField(
        label=_("Expected value from, UAH"), required=False, min_value=0, max_digits=15,
        decimal_places=2,
    )  # fmt: skip
    value_max = forms.DecimalField(
        label=_("Expected value up to, UAH"), required=False, min_value=0, max_digits=15,
        decimal_places=2,
    )  # fmt: skip
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[("", _("any"))]
        + [(value, label) for value, label in TenderStatus.choices if value != "draft"],
    )
    procedure = forms.ChoiceField(
        label=_("Procedure type"),
        required=False,
        choices=lambda: [("", _("any"))] + [(p.method_type, p.name) for p in registered()],
    )
    open_for_bids = forms.BooleanField(label=_("Open for bids now"), required=False)
    tender_id = forms.CharField(label=_("Tender ID"), required=False, max_length=40)
    buyer = forms.CharField(label=_("Procuring entity identifier"), required=False, max_length=64)
    published_from = forms.DateField(
        label=_("Published from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    published_to = forms.DateField(
        label=_("Published to"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    sort = forms.ChoiceField(label=_("Order"), required=False, choices=SORTS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        any_region = pgettext_lazy("region (область, feminine)", "any")
        self.fields["region"].choices = [("", any_region)] + [(n, n) for n in regions()]

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("published_from"), cleaned.get("published_to")
        if start and end and start > end:
            self.add_error("published_to", _("The last date is before the first."))
        low, high = cleaned.get("value_min"), cleaned.get("value_max")
        if low is not None and high is not None and low > high:
            self.add_error("value_max", _("The upper value is below the lower one."))
        cleaned["sort"] = cleaned.get("sort") or "newest"
        return cleaned


def search_query(parameters: QueryDict) -> str:
    """A search's own parameters, URL-encoded in one order, the page of results and empty
    ones left out: the same search is one address (its feed's, a saved search's)."""
    # (a parameter sent twice means its last value, as the search's form reads it)
    return urlencode(
        sorted((k, values[-1]) for k, values in parameters.lists() if k != "page" and values[-1])
    )


class SavedSearchForm(OnceForm):
    """Keep a search (its parameters, `query`) under a name, with how often to be told."""

    query = forms.CharField(widget=forms.HiddenInput, required=False)
    name = forms.CharField(label=_("Name"), max_length=200)
    frequency = forms.ChoiceField(
        label=_("E-mail me the new tenders it finds"),
        choices=SavedSearch.Frequency.choices,
        initial=SavedSearch.Frequency.DAILY,
        widget=forms.RadioSelect,
    )

    def clean_name(self):
        # (one line: it becomes the subject of the mail)
        return " ".join(self.cleaned_data["name"].split())

    def clean(self):
        cleaned = super().clean()
        # (said above the form: the query is no field of its own to the person)
        query = cleaned.get("query", "")
        if len(query) > SavedSearch._meta.get_field("query").max_length:
            raise forms.ValidationError(_("This search is too long to save: shorten it."))
        if not SearchForm(QueryDict(query)).is_valid():
            raise forms.ValidationError(_("This search has mistakes: correct it first."))
        return cleaned
