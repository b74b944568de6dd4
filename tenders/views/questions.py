"""Questions to the buyer from the tender page: anyone signed in for an organization asks while
the enquiry period runs; the buyer answers until tendering starts (Question.objects.ask,
Question.objects.answer decide)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from core.actors import portal_actor
from core.errors import PermissionDenied
from tenders.forms.questions import QuestionAnswerForm, QuestionForm
from tenders.models import Question

from .page import act_on_tender


@require_POST
@login_required
def question_ask(request, tender_id):
    def change(tender, _owner, form):
        if request.user.organization is None:
            raise PermissionDenied()  # who asks is an organization
        Question.objects.ask(
            tender=tender, by=portal_actor(request.user), data=form.as_question(request.user)
        )
        return _("Your question is published. The answer will appear under it.")

    return act_on_tender(
        request, tender_id, QuestionForm, change, at="question", form_kwargs=lambda t: {"tender": t}
    )


def question_of(tender, question_id: str):
    """One of the tender's questions (from what is prefetched), or a 404 page."""
    question = next((q for q in tender.questions.all() if q.pk == question_id), None)
    if question is None:
        raise Http404
    return question


@require_POST
@login_required
def question_answer(request, tender_id, question_id):
    def change(tender, owner, form):
        Question.objects.answer(
            tender=tender,
            by=owner,
            question_id=question_id,
            data={"answer": form.cleaned_data["answer"]},
        )
        return _("Your answer is published.")

    return act_on_tender(
        request,
        tender_id,
        QuestionAnswerForm,
        change,
        at=f"answer:{question_id}",
        find=lambda tender: question_of(tender, question_id),
    )
