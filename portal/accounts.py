"""Accounts: sign up, confirm the e-mail address, join by invitation. The rules are the models'
(User, Organization, Invitation); a refusal is shown next to the form in their words."""

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from core import limits
from core.errors import DomainError, NotFound
from core.forms import add_domain_error, posted
from core.refusals import in_words
from portal.account_forms import InvitedSignUpForm, SignUpForm
from portal.models import Invitation, User
from portal.models.accounts import BadConfirmationLink

BACKEND = "django.contrib.auth.backends.ModelBackend"


def locked_out(request, response=None, credentials=None):
    """The sign-in page while an account name or an address is locked out (django-axes calls
    this instead of checking the password): 429, and when to try again."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "lockout": _(
            "Too many failed attempts to sign in to this account or from your address. "
            "Try again in %(minutes)s minutes."
        )
        % {"minutes": math.ceil(seconds / 60)},
    }
    answer = render(request, "registration/login.html", context, status=429)
    answer["Retry-After"] = str(seconds)
    return answer


@require_http_methods(["GET", "POST"])
def signup(request):
    """A new account. The answer is the same whether the organization it names is registered
    here or not: that is settled once the address is confirmed."""
    form = SignUpForm(posted(request)[0])
    if request.method == "POST":
        if form.is_valid() and _may_sign_up(request, form):
            user = form.save()
            login(request, user, backend=BACKEND)
            messages.success(
                request,
                _(
                    "Your account is created. We sent a link to %(email)s: follow it to "
                    "confirm the address. Then you join your organization: one registered here "
                    "already admits you when its administrators accept your request; a new one "
                    "is registered with you as its administrator and acts in public once an "
                    "operator has verified it."
                )
                % {"email": user.email},
            )
            return redirect("dashboard")
        return render(request, "registration/signup.html", {"form": form}, status=422)
    return render(request, "registration/signup.html", {"form": form})


def _may_sign_up(request, form) -> bool:
    """New accounts from one address are limited (SIGNUP_RATE): accounts are cheap to make and
    each sends an e-mail."""
    try:
        limits.hit(
            "signups",
            f"address:{limits.client_address(request)}",
            limits.Rate.setting("SIGNUP_RATE"),
            gettext_noop("Too many new accounts from your address. Try again later."),
        )
    except limits.RateLimited as error:
        add_domain_error(form, error)
        return False
    return True


@require_http_methods(["GET"])
def confirm_email(request, token):
    """The link from the confirmation e-mail. It does not sign anyone in: the link may have
    been forwarded."""
    try:
        User.confirm_email(token)
    except BadConfirmationLink as error:
        context = {"refusal": in_words(error)}
        return render(request, "registration/confirm_email.html", context, status=400)
    messages.success(request, _("Your e-mail address is confirmed."))
    return redirect("dashboard")


@require_POST
@login_required
def resend_confirmation(request):
    user = request.user
    if user.email_confirmed_at is None:
        try:
            user.resend_confirmation()
        except limits.RateLimited as error:
            messages.error(request, in_words(error))
        else:
            messages.success(request, _("We sent a new link to %(email)s.") % {"email": user.email})
    return redirect("dashboard")


@require_http_methods(["GET", "POST"])
def invitation(request, token):
    """An invitation link: a signed-in person joins with its account (the invitation's address),
    anyone else creates an account here, already a member."""
    try:
        invitation = Invitation.objects.by_token(token)
    except NotFound:
        raise Http404 from None
    refusal = None
    try:
        invitation.check_usable()
    except DomainError as error:
        refusal = error
    form = None
    if not request.user.is_authenticated:
        form = InvitedSignUpForm(posted(request)[0], email=invitation.email)
    if request.method == "POST" and refusal is None:
        if form is None:
            try:
                invitation.accept(user=request.user)
            except DomainError as error:
                refusal = error
            else:
                return _joined(request, invitation)
        elif form.is_valid():
            try:
                with transaction.atomic():
                    user = form.save()
                    invitation.accept(user=user)
            except DomainError as error:
                add_domain_error(form, error)
            else:
                login(request, user, backend=BACKEND)
                return _joined(request, invitation)
    context = {
        "invitation": invitation,
        "token": token,
        "form": form,
        "refusal": in_words(refusal) if refusal else None,
    }
    status = 422 if request.method == "POST" else 200
    return render(request, "registration/invitation.html", context, status=status)


def _joined(request, invitation):
    messages.success(
        request,
        _("Welcome to %(organization)s.") % {"organization": invitation.organization.name},
    )
    return redirect("dashboard")
