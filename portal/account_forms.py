"""Forms of accounts and organizations. They translate input; the models decide."""

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from portal.models import Organization, User


class OrganizationFields(forms.Form):
    """The organization a person works for, named by its identifier."""

    organization_name = forms.CharField(label=_("Organization name"), max_length=255)
    organization_identifier = forms.RegexField(
        label=_("EDRPOU or tax number"),
        regex=r"^\d{8,10}$",
        error_messages={"invalid": _("8 digits (EDRPOU) or 10 digits (tax number).")},
    )
    organization_kind = forms.ChoiceField(
        label=_("My organization"),
        choices=[
            (Organization.Kind.PROCURING, _("procures (publishes tenders, answers claims)")),
            (Organization.Kind.BIDDER, _("bids (takes part in tenders, files claims)")),
        ],
        widget=forms.RadioSelect,
        help_text=_(
            "An organization registered here already admits you once its administrators accept "
            "your request; a new one is verified by an operator before it acts in public."
        ),
    )

    def application(self) -> dict:
        data = self.cleaned_data
        return {
            "name": data["organization_name"],
            "identifier": data["organization_identifier"],
            "kind": data["organization_kind"],
        }


class SignUpForm(UserCreationForm, OrganizationFields):
    """A new account. It names its organization, which is joined (or registered) once the
    e-mail address is confirmed: whether the organization is known here is never told here."""

    field_order = [
        "username", "first_name", "last_name", "email", "password1", "password2",
        "organization_name", "organization_identifier", "organization_kind",
    ]  # fmt: skip

    first_name = forms.CharField(label=_("First name"), max_length=150)
    last_name = forms.CharField(label=_("Last name"), max_length=150)
    email = forms.EmailField(
        label=_("E-mail"), help_text=_("We send a link here to confirm the address.")
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ["username", "first_name", "last_name", "email"]

    @transaction.atomic
    def save(self, commit=True):
        user = super().save(commit=False)
        user.pending_organization = self.application()
        user.save()
        user.send_confirmation()
        return user


class InvitedSignUpForm(UserCreationForm):
    """A new account made from an invitation: its e-mail is the invitation's."""

    first_name = forms.CharField(label=_("First name"), max_length=150)
    last_name = forms.CharField(label=_("Last name"), max_length=150)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ["username", "first_name", "last_name"]

    def __init__(self, *args, email: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.email = email


class JoinForm(OrganizationFields):
    """An account without an organization names one to join or register."""


class InviteForm(forms.Form):
    email = forms.EmailField(label=_("E-mail of the person to invite"))


class MemberForm(forms.Form):
    """What an administrator does to a member."""

    action = forms.ChoiceField(
        choices=[("remove", "remove"), ("make_admin", "make_admin"), ("revoke_admin", "revoke")]
    )


class DecisionForm(forms.Form):
    """An administrator's answer to a request to join."""

    accept = forms.TypedChoiceField(
        choices=[("1", "accept"), ("0", "refuse")], coerce=lambda value: value == "1"
    )


class RefusalForm(forms.Form):
    """An operator's reason for refusing an organization's verification."""

    reason = forms.CharField(label=_("Reason of the refusal"), widget=forms.Textarea)
