"""A claim's page in the portal: read it, and act on it. Each POST calls one model method with
the signed-in user's organization as the actor; the model decides, and its refusal is shown next
to the form in the words the API uses."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from complaints.forms import (
    AnswerForm,
    CancelForm,
    DecisionForm,
    DraftForm,
)
from complaints.models import OUTCOMES, Complaint
from core.actors import Actor, Role, Viewer, portal_actor
from core.forms import DocumentsForm, change_from_form
from core.fragments import fragment_key, kept_fragment
from core.htmx import changed, render_page_or_partial
from core.ids import is_id
from core.reviews import Review, not_now, render_review
from docservice import client
from tenders.models.lots import lot_of
from tenders.views import current_tender, download_version

CLAIM_TEMPLATE = "complaints/claim_detail.html"
PANEL = "claim-panel"


def _claim(complaint_id, user) -> Complaint:
    """The claim, its tender brought up to date first (time may have moved the claim on); a
    draft only for its author's organization."""
    if not is_id(complaint_id):
        raise Http404
    tender_id = (
        Complaint.objects.filter(pk=complaint_id).values_list("tender_id", flat=True).first()
    )
    if tender_id is None:
        raise Http404
    tender = current_tender(tender_id, user)
    complaint = (
        Complaint.objects.select_related("award").prefetch_related("documents").get(pk=complaint_id)
    )
    complaint.tender = tender
    if complaint.award is not None:
        complaint.award.tender = tender
    if not complaint.shown_to(Viewer.of_user(user)):
        raise Http404
    return complaint


def claim_actor(user, complaint) -> Actor:
    return portal_actor(
        user, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, complaint.tender)
    )


def attach_stored(complaint, actor, stored) -> None:
    """Register the files `stored` (already in the document service) as the claim's documents."""
    for item in stored:
        complaint.add_document(by=actor, **item.fields())


# --- reading -----------------------------------------------------------------------------


def _forms_for(complaint, actor, bound: dict) -> dict:
    """A form for each thing `actor` may do now (the model says what), or the bound one that
    just failed."""
    actions = set(complaint.available_actions(actor))
    forms = {}
    if actions & {"edit", "submit"}:
        forms["draft"] = DraftForm(
            initial={"title": complaint.title, "description": complaint.description}
        )
    if actions & {"prepare_answer", "answer"}:
        forms["answer"] = AnswerForm(
            initial={
                "resolution_type": complaint.resolution_type,
                "resolution": complaint.resolution,
                "tenderer_action": complaint.tenderer_action,
            }
        )
    # The tender owner's documents go with the answer; the claimant attaches them on their own.
    if "answer" not in forms and complaint.can_add_documents(actor):
        forms["documents"] = DocumentsForm()
    if "resolve" in actions:
        forms["decision"] = DecisionForm()
    if "cancel" in actions:
        forms["cancel"] = CancelForm()
    forms.update(bound)
    return forms


def _claim_context(complaint, actor, bound=None) -> dict:
    return {
        "complaint": complaint,
        "tender": complaint.tender,
        "award": complaint.award,
        # (a claim about a lot's conditions names its lot)
        "lot": lot_of(complaint.tender.data, complaint.related_lot)
        if complaint.related_lot and complaint.award_id is None
        else None,
        "role": actor.role if actor.subject is not None else None,
        "author_shown": complaint.author_shown_to(Viewer.of_user(actor.user)),
        "forms": _forms_for(complaint, actor, bound or {}),
    }


def _render_claim(request, complaint, actor, *, bound=None, status=200):
    context = _claim_context(complaint, actor, bound)
    return render_page_or_partial(request, CLAIM_TEMPLATE, context, partials={PANEL}, status=status)


@require_GET
def claim_detail(request, complaint_id):
    if request.user.is_authenticated or request.htmx:
        complaint = _claim(complaint_id, request.user)
        return _render_claim(request, complaint, claim_actor(request.user, complaint))
    return _public_claim_page(request, complaint_id)


def _public_claim_page(request, complaint_id):
    """The page a visitor who is not signed in reads, its body kept rendered until the tender
    changes (every change of a claim stamps its tender): read again, it is one small query."""
    stamp = Complaint.objects.stamp(complaint_id)
    if stamp is None or not stamp.shown_to(Viewer()):
        raise Http404
    tender, loaded = stamp.tender, None
    if tender.is_due(timezone.now()):
        stamp = loaded = _claim(complaint_id, request.user)
        tender = loaded.tender

    def render_body():
        complaint = loaded or _claim(complaint_id, request.user)
        context = _claim_context(complaint, claim_actor(request.user, complaint))
        return render_to_string(f"{CLAIM_TEMPLATE}#body", context, request)

    key = fragment_key("claim", stamp.pk, tender.date_modified, tender.next_check)
    context = {"complaint": stamp, "public_body": kept_fragment(key, render_body)}
    response = TemplateResponse(request, CLAIM_TEMPLATE, context)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


@require_GET
def claim_document_download(request, complaint_id, document_id, key):
    return download_version(request, _claim(complaint_id, request.user), document_id, key)


# --- acting ------------------------------------------------------------------------------


def _act_on_claim(
    request, complaint_id, form_class, key: str, change, *, review=None, initial=None
):
    """The frame of every action on a claim: bind the form, make the change (with the form's
    token spent in the same transaction), answer 422 with the errors in place, or the fresh
    claim (htmx, plus a `claim-changed` event) or a redirect to it.

    An act that can't be undone has a `review(complaint, actor, form)`
    (core/reviews.py): its address read (GET) is the review, its form made with
    `initial`; a refusal comes back to it."""
    complaint = _claim(complaint_id, request.user)
    actor = claim_actor(request.user, complaint)
    if request.method == "GET":
        return render_review(request, review(complaint, actor, form_class(initial=initial or {})))
    form = form_class(request.POST, request.FILES)
    notice = form.is_valid() and change_from_form(
        form, request.user, lambda: change(complaint, actor, form)
    )
    if notice:

        def fresh():
            complaint = _claim(complaint_id, request.user)
            return _render_claim(request, complaint, claim_actor(request.user, complaint))

        return changed(
            request,
            notice,
            url=reverse("claim", args=[complaint.pk]),
            fresh=fresh,
            event="claim-changed",
        )
    if review is not None:
        return render_review(request, review(complaint, actor, form), status=422)
    return _render_claim(request, complaint, actor, bound={key: form}, status=422)


@require_POST
@login_required
def claim_draft(request, complaint_id):
    """Save the draft's edits, or submit it."""

    def change(complaint, actor, form):
        data = {k: form.cleaned_data[k] for k in ("title", "description")}
        if "submit" in request.POST:
            complaint.submit(by=actor, **data)
            return _("Your claim has been submitted.")
        complaint.edit(by=actor, **data)
        return _("The draft is saved.")

    return _act_on_claim(request, complaint_id, DraftForm, "draft", change)


@require_POST
@login_required
def claim_documents(request, complaint_id):
    def change(complaint, actor, form):
        documents = form.cleaned_data["documents"]
        client.attach_uploads(complaint, actor, documents)
        return _("The documents are attached.")

    return _act_on_claim(request, complaint_id, DocumentsForm, "documents", change)


@require_POST
@login_required
def claim_answer(request, complaint_id):
    """Save the answer being written, or send it (with its documents, attached first)."""

    def change(complaint, actor, form):
        data = {
            k: form.cleaned_data[k] for k in ("resolution_type", "resolution", "tenderer_action")
        }
        final = "answer" in request.POST
        documents = form.cleaned_data["documents"]
        if documents:
            complaint.check_document_change(actor, "add")
        stored = client.store_files(documents, actor)

        def answer():
            attach_stored(complaint, actor, stored)
            if final:
                complaint.answer(by=actor, **data)
            else:
                complaint.prepare_answer(by=actor, **data)

        with client.discarded_on_refusal(stored):
            answer()
        return _("Your answer has been sent.") if final else _("Your answer is saved as a draft.")

    return _act_on_claim(request, complaint_id, AnswerForm, "answer", change)


@require_http_methods(["GET", "POST"])
@login_required
def claim_decision(request, complaint_id):
    """The claimant's verdict on the answer: read (GET ?satisfied=true or false), its review;
    sent, the verdict."""
    verdict = request.GET.get("satisfied")
    if request.method == "GET" and verdict not in ("true", "false"):
        raise Http404

    def change(complaint, actor, form):
        satisfied = form.cleaned_data["satisfied"]
        complaint.resolve(by=actor, satisfied=satisfied)
        return _("You accepted the answer.") if satisfied else _("You rejected the answer.")

    return _act_on_claim(
        request,
        complaint_id,
        DecisionForm,
        "decision",
        change,
        review=_verdict_review,
        initial={"satisfied": verdict},
    )


def _verdict_review(complaint, actor, form) -> Review:
    accepts = (form.data if form.is_bound else form.initial).get("satisfied") == "true"
    if accepts:
        title = _("Accept the answer to your claim?")
        happens = [
            _("Your claim closes as settled: «%(outcome)s».")
            % {"outcome": OUTCOMES[("resolved", True)].label},
            _("This is final: the claim can't be reopened."),
        ]
        confirm = _("Accept the answer")
    else:
        title = _("Reject the answer to your claim?")
        happens = [
            _("Your claim closes, marked «%(outcome)s».")
            % {"outcome": OUTCOMES[("resolved", False)].label},
            _("This is final: the claim can't be reopened."),
            _(
                "You may then complain to the review body, the Antimonopoly Committee of "
                "Ukraine (amcu.gov.ua), where the law allows a complaint about this "
                "procedure, or go to court."
            ),
        ]
        confirm = _("Reject the answer")
    return Review(
        title=title,
        about=_claim_about(complaint),
        happens=happens,
        seen_by=_("Everyone who reads the tender."),
        form=form,
        url=reverse("claim-decision", args=[complaint.pk]),
        confirm=confirm,
        back=reverse("claim", args=[complaint.pk]),
        danger=not accepts,
        refusal=not_now(form, lambda: complaint.refused("resolve", actor, timezone.now())),
    )


def _claim_about(complaint) -> str:
    return _("Claim %(id)s «%(title)s»") % {
        "id": complaint.complaint_id,
        "title": complaint.title,
    }


@require_http_methods(["GET", "POST"])
@login_required
def claim_cancel(request, complaint_id):
    """The claimant withdraws the claim: read, the review; sent, the withdrawal."""

    def change(complaint, actor, form):
        reason = form.cleaned_data["reason"]
        complaint.cancel(by=actor, reason=reason)
        return _("The claim is withdrawn.")

    return _act_on_claim(
        request, complaint_id, CancelForm, "cancel", change, review=_withdrawal_review
    )


def _withdrawal_review(complaint, actor, form) -> Review:
    return Review(
        title=_("Withdraw your claim?"),
        about=_claim_about(complaint),
        happens=[
            _("The draft is withdrawn for good, with the reason you give.")
            if complaint.is_draft
            else _(
                "The claim is withdrawn for good, with the reason you give; the procuring "
                "entity no longer answers it."
            ),
        ],
        seen_by=_("Your organization alone: it is a draft.")
        if complaint.is_draft
        else _("Everyone who reads the tender: the claim stays listed, marked as withdrawn."),
        form=form,
        url=reverse("claim-cancel", args=[complaint.pk]),
        confirm=_("Withdraw the claim"),
        back=reverse("claim", args=[complaint.pk]),
        danger=True,
        refusal=not_now(form, lambda: complaint.refused("cancel", actor, timezone.now())),
    )
