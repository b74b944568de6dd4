"""Portal forms of the tender owner's decisions: their shape only; the models decide."""

from django import forms

from portal.forms import OnceForm
from tenders.models import Award


class AwardDecisionForm(OnceForm):
    action = forms.ChoiceField(choices=[(action, action) for action in Award.TRANSITIONS])


class ContractSignForm(OnceForm):
    pass
