"""The step before an act that cannot be undone: a page of its own that says what will happen
and who will see it, with the form that does it and a way back that changes nothing.

The page is the act's own address read with GET, so it works the same with and without
JavaScript, and what the act needs (a reason, a protocol to upload) is asked on it: nothing has
to be carried from one request to the next. A refused act comes back to it, with the model's
words by the fields."""

from dataclasses import dataclass

from django.forms import Form
from django.template.response import TemplateResponse

from .refusals import in_words


@dataclass
class Review:
    title: str
    # What it is about (the tender, its lot), under the title.
    about: str
    # What the act does, one consequence per line, in the words of the people it reaches.
    happens: list[str]
    # Who will see it once done.
    seen_by: str
    # The act's form: its token, and what the act asks for; None when it can't be done.
    form: Form | None
    # Where the form is sent: the act's address.
    url: str
    # The words of the button that acts.
    confirm: str
    # Where "back" leads: the page the act was offered on.
    back: str
    danger: bool = False
    # Why the act can't be done now (then only this is said).
    refusal: str = ""


def render_review(request, review: Review, *, status: int = 200) -> TemplateResponse:
    return TemplateResponse(request, "forms/review.html", {"review": review}, status=status)


def not_now(form: Form, refused) -> str:
    """Why an act offered for review can't be done: `refused()`, the model's refusal (None: it
    can), in the portal's words. Asked before the form is sent: a sent one shows its own
    errors."""
    if form.is_bound:
        return ""
    refusal = refused()
    return in_words(refusal) if refusal else ""
