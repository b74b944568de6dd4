import re

from django import forms
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError, InvalidData
from core.ids import new_id
from core.models import FormSubmission
from core.refusals import WORDS, in_words, said

# Invisible marks that make text read in another order than it is written (U+202E turns
# "txt.exe" into what reads as "exe.txt"): a title with them spoofs the lists it is shown in.
DIRECTION_MARKS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def no_direction_marks(value: str) -> None:
    """A validator of the texts lists show (titles): none of DIRECTION_MARKS (2.3 takes them)."""
    if DIRECTION_MARKS.search(value or ""):
        raise forms.ValidationError(
            _(
                "Remove the invisible direction marks (such as U+202E) from the text: they make "
                "it read in another order than it is written."
            ),
            code="direction_marks",
        )


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Any number of files (none when not required), each checked as a FileField does."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data] if data else []
        return [super(MultipleFileField, self).clean(file, initial) for file in files]


def check_size(file) -> None:
    """A file the document service would refuse as too large is refused by the form."""
    if file and file.size > settings.DOCUMENT_MAX_BYTES:
        raise forms.ValidationError(
            _("%(name)s is larger than %(size)s MB.")
            % {"name": file.name, "size": settings.DOCUMENT_MAX_BYTES // (1024 * 1024)}
        )


def attachments_help() -> str:
    """Said in the page's language, with the bounds as they are set (the field is made once)."""
    return gettext("Files of up to %(size)s MB each, %(total)s MB together.") % {
        "size": settings.DOCUMENT_MAX_BYTES // (1024 * 1024),
        "total": settings.REQUEST_MAX_BYTES // (1024 * 1024),
    }


class AttachmentsField(MultipleFileField):
    def __init__(self, **kwargs):
        super().__init__(
            label=_("Attachments"),
            required=False,
            help_text=lazy(attachments_help, str)(),
            **kwargs,
        )

    def validate(self, value):
        super().validate(value)
        check_size(value)


class OnceForm(forms.Form):
    """A form that may change something only once: its token is spent with the change."""

    once = forms.CharField(
        widget=forms.HiddenInput,
        max_length=32,
        error_messages={
            "required": _("This form arrived incomplete: reload the page and send it again."),
            "max_length": _("This form arrived incomplete: reload the page and send it again."),
        },
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("once", new_id())
        super().__init__(*args, **kwargs)

    @property
    def top_errors(self) -> list[str]:
        """What is shown above the form: its own errors, and its hidden token's."""
        return [*self.non_field_errors(), *self.errors.get("once", [])]

    def made_already(self, user) -> str:
        """The page of what this very form (its token), sent before by `user`, made; "" if
        it made nothing yet, or nothing with a page of its own."""
        spent = FormSubmission.objects.filter(token=self.cleaned_data["once"], user=user)
        return spent.values_list("made", flat=True).first() or ""

    def remember(self, page: str) -> None:
        """Call inside the change, once what it made has a page (`page`: its path)."""
        FormSubmission.objects.filter(token=self.cleaned_data["once"]).update(made=page)

    def spend(self, user) -> None:
        """Call inside the transaction that makes the change."""
        try:
            with transaction.atomic():
                FormSubmission.objects.create(token=self.cleaned_data["once"], user=user)
        except IntegrityError:
            raise AlreadySent() from None


class DocumentsForm(OnceForm):
    documents = AttachmentsField()

    def clean_documents(self):
        documents = self.cleaned_data["documents"]
        if not documents:
            raise forms.ValidationError(_("Choose at least one file."))
        return documents


def posted(request) -> tuple:
    """The data and files a form is bound to: those of a POST, even an empty one (a form bound
    to nothing takes no error, and `request.POST or None` leaves an empty POST unbound)."""
    if request.method != "POST":
        return None, None
    return request.POST, request.FILES


class AlreadySent(DomainError):
    http_status = 409
    code = "already_sent"

    def __init__(self):
        super().__init__(_("This form has already been sent; the page shows what it did."))


def add_domain_error(form, error: DomainError) -> None:
    """Show a refusal of the model next to the field it is about (else above the form), in the
    words the API uses, translated where the portal has a translation."""
    if isinstance(error, InvalidData):
        for name, messages in error.errors.items():
            field = getattr(form, "api_fields", {}).get(name) or snake_case(name)
            field = field if field in form.fields else None
            if error.code in WORDS:  # (the portal's words for it, with what they name)
                form.add_error(field, in_words(error))
                continue
            for message in flat_messages(messages):
                form.add_error(field, said(message))
        return
    form.add_error(error.field if error.field in form.fields else None, in_words(error))


def flat_messages(messages) -> list[str]:
    """The messages of a 2.3 error, however deep ({"endDate": ["..."]}, one per item...)."""
    if isinstance(messages, dict):
        return [m for value in messages.values() for m in flat_messages(value)]
    if isinstance(messages, list):
        return [m for value in messages for m in flat_messages(value)]
    return [str(messages)]


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def change_from_form(form, user, change):
    """Make the change a valid portal form asks for: its one-time token is spent in the same
    transaction, so a form sent twice changes nothing the second time. Returns what `change()`
    returns, or None when the model refused (its words are then next to the form's field)."""
    try:
        with transaction.atomic():
            form.spend(user)
            return change()
    except DomainError as error:
        add_domain_error(form, error)
        return None


def with_ids(form, prefix: str):
    """`form` with ids of its own on a page that shows several forms of its kind (a refused one
    too: its fields read the ids as they are drawn)."""
    form.auto_id = f"{prefix}-%s"
    return form
