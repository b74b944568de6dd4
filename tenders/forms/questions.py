"""Portal forms of questions to the buyer and its answers (tenders/views/questions.py)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm, no_direction_marks

from .party import party_of


class QuestionForm(OnceForm):
    """A question to the buyer: about the tender, one of its lots or one of its items (2.3's
    questionOf and relatedItem, chosen in one list)."""

    about = forms.ChoiceField(label=_("About"), required=False)
    title = forms.CharField(label=_("Question"), max_length=500, validators=[no_direction_marks])
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
