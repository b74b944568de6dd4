"""Portal forms of the tender owner's decisions: their shape only; the models decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.forms import OnceForm
from tenders.models import Award


class AwardDecisionForm(OnceForm):
    action = forms.ChoiceField(choices=[(action, action) for action in Award.TRANSITIONS])


class ContractSignForm(OnceForm):
    pass


class BidForm(OnceForm):
    """A bid from the signed-in user's organization; the model checks the value and the
    period. The fields become the 2.3 bid's `value` and `tenderers[0].contactPoint`."""

    amount = forms.DecimalField(
        label=_("Price offered"), min_value=0, max_digits=15, decimal_places=2
    )
    contact_name = forms.CharField(label=_("Contact person"), max_length=200)
    email = forms.EmailField(label=_("Contact e-mail"))
    telephone = forms.CharField(label=_("Telephone (optional)"), max_length=50, required=False)
    locality = forms.CharField(label=_("Town or city"), max_length=200)
