"""Following tenders: the box on the tender page (follow, stop; with or without htmx), and the
list of the tenders a person follows, with how often each is told (portal/watch.py sends)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from core.forms import OnceForm, change_from_form
from portal.models import Follow
from tenders.views import current_tender

BOX = "portal/follow_box.html"


class FollowForm(OnceForm):
    frequency = forms.ChoiceField(
        label=gettext_lazy("E-mail me its changes"),
        choices=Follow.Frequency.choices,
        initial=Follow.Frequency.AT_ONCE,
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "follow-%s")  # (unique on the tender page)
        super().__init__(*args, **kwargs)


def box(request, tender, *, refused=()) -> dict:
    """What the follow box shows `request`'s visitor about `tender`, with fresh forms (and the
    words of a form just refused; nothing on a draft but those)."""
    if tender.is_draft and not refused:
        return {"shown": False}
    page = reverse("tender", args=[tender.pk])
    user = request.user
    if not user.is_authenticated:
        return {"shown": True, "tender": tender, "sign_in": f"{reverse('login')}?next={page}"}
    follow = Follow.objects.filter(user=user, tender=tender).first()
    if follow is None and not refused:
        refusal = Follow.refusal(user, tender)
        if refusal is not None:  # (said instead of a form that would be refused)
            return {"shown": True, "tender": tender, "refused": [str(refusal.description)]}
    form = OnceForm() if follow else FollowForm()
    return {"shown": True, "tender": tender, "follow": follow, "form": form, "refused": refused}


def said_by(form) -> list[str]:
    """Every error of a refused form, as the person reads them."""
    return [str(error) for errors in form.errors.values() for error in errors]


def _answer(request, tender, notice, form):
    """A plain form goes back to the tender page with the notice (or the refusal); htmx gets
    the box, announcing the notice (or showing the refusal, 422)."""
    if not request.htmx:
        if notice:
            messages.success(request, notice)
        else:
            messages.error(request, " ".join(said_by(form)))
        return redirect(reverse("tender", args=[tender.pk]) + "#follow")
    refused = () if notice else said_by(form)
    fragment = render_to_string(BOX, {"box": box(request, tender, refused=refused)}, request)
    if notice:
        return trigger_client_event(HttpResponse(fragment), "follow-changed", {"notice": notice})
    return HttpResponse(fragment, status=422)


@require_POST
@login_required
def follow(request, tender_id):
    tender = current_tender(tender_id, request.user)
    form = FollowForm(request.POST)

    def start():
        Follow.start(
            request.user,
            tender,
            frequency=form.cleaned_data["frequency"],
            language=get_language(),
            now=timezone.now(),
        )
        return _("You follow the tender: its changes will be e-mailed to you.")

    notice = form.is_valid() and change_from_form(form, request.user, start)
    return _answer(request, tender, notice, form)


@require_POST
@login_required
def unfollow(request, tender_id):
    tender = current_tender(tender_id, request.user)
    following = Follow.objects.filter(user=request.user, tender=tender).first()
    form = OnceForm(request.POST)

    def stop():
        if following is not None:
            following.stop()
        return _("You no longer follow the tender.")

    notice = form.is_valid() and change_from_form(form, request.user, stop)
    return _answer(request, tender, notice, form)


@require_GET
@login_required
def follows(request):
    followed = [
        {
            "follow": following,
            "form": FollowForm(
                initial={"frequency": following.frequency}, prefix=f"f{following.pk}"
            ),
            "stop_form": OnceForm(),
        }
        for following in request.user.follows.select_related("tender")
    ]
    context = {"follows": followed, "most": Follow.MAX_PER_PERSON}
    return render(request, "portal/follows.html", context)


def _own(request, follow_id) -> Follow:
    found = request.user.follows.filter(pk=follow_id).first()
    if found is None:
        raise Http404
    return found


@require_POST
@login_required
def follow_change(request, follow_id):
    following = _own(request, follow_id)
    form = FollowForm(request.POST, prefix=f"f{following.pk}")

    def change():
        following.change(frequency=form.cleaned_data["frequency"], language=get_language())
        return True

    if form.is_valid() and change_from_form(form, request.user, change):
        messages.success(
            request,
            _("Saved: the tender's changes are e-mailed to you %(how)s.")
            % {"how": following.get_frequency_display()},
        )
    else:
        messages.error(request, " ".join(said_by(form)))
    return redirect("follows")


@require_POST
@login_required
def follow_delete(request, follow_id):
    following = _own(request, follow_id)
    form = OnceForm(request.POST)
    if form.is_valid() and change_from_form(form, request.user, lambda: following.stop() or True):
        messages.success(request, _("You no longer follow the tender."))
    else:
        messages.error(request, " ".join(said_by(form)))
    return redirect("follows")
