"""The Ukrainian catalog is complete, and the compiled catalog the site loads is the same one."""

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from complaints.models import OUTCOMES, RESOLUTION_MEANING, ComplaintStatus, ResolutionType
from core.errors import (
    EmailNotConfirmed,
    NoOrganization,
    OrganizationNotVerified,
    PermissionDenied,
    RoleNotAllowed,
)
from core.forms import AlreadySent
from core.refusals import PATTERNS, WORDS, in_words, said
from tests.layers import PACKAGES

CATALOG = Path(settings.BASE_DIR) / "locale" / "uk" / "LC_MESSAGES" / "django.po"


def unescape(text: str) -> str:
    return text.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def entries():
    """(msgid, msgstr) of each singular entry, the header left out."""
    text = CATALOG.read_text(encoding="utf-8")
    for block in text.split("\n\n"):
        if "msgid_plural" in block or block.lstrip().startswith("#~"):
            continue
        match = re.search(r'^msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', block, re.MULTILINE)
        if match:
            msgid, msgstr = ("".join(re.findall(r'"(.*)"', part)) for part in match.groups())
            if msgid:
                yield unescape(msgid), unescape(msgstr)


def test_every_message_is_translated_and_none_is_fuzzy():
    text = CATALOG.read_text(encoding="utf-8")

    assert "#, fuzzy" not in text
    assert [msgid for msgid, msgstr in entries() if not msgstr] == []


def test_the_compiled_catalog_matches_the_source():
    stale = []
    with translation.override("uk"):
        for msgid, msgstr in entries():
            if "%" not in msgid and msgstr != msgid and translation.gettext(msgid) == msgid:
                stale.append(msgid)

    assert stale == []  # run: cd locale/uk/LC_MESSAGES && msgfmt -o django.mo django.po


def test_every_claim_outcome_and_answer_type_is_said_in_ukrainian_and_english():
    texts = [outcome.label for outcome in OUTCOMES.values()] + list(RESOLUTION_MEANING.values())
    for text in texts:
        with translation.override("en"):
            english = str(text)
        with translation.override("uk"):
            ukrainian = str(text)
        assert english and ukrainian and english != ukrainian, english
    # (and a cancelled claim closed with the decision it contested: "voided")
    assert {status for status, _satisfied in OUTCOMES} == {*ComplaintStatus.values, "voided"}
    assert set(RESOLUTION_MEANING) == set(ResolutionType.values)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)s", text))


def test_every_refusal_code_has_words_in_ukrainian_and_english():
    """The portal says a model's refusal by its code (core/refusals.py): every code the
    models refuse with has words, in both languages, naming the same values."""
    for code, words in WORDS.items():
        with translation.override("en"):
            english = str(words)
        with translation.override("uk"):
            ukrainian = str(words)
        assert english and ukrainian and english != ukrainian, code
        assert placeholders(english) == placeholders(ukrainian), code
    sources = [
        *Path(settings.BASE_DIR, "tenders", "models").glob("*.py"),
        *Path(settings.BASE_DIR, "complaints", "models").glob("*.py"),
        Path(settings.BASE_DIR, "core", "errors.py"),
    ]
    raised = {
        code
        for source in sources
        for code in re.findall(r'(?:\bcode=|\.code = )"(\w+)"', source.read_text(encoding="utf-8"))
    }
    assert raised and raised <= set(WORDS), raised - set(WORDS)


def test_the_refusals_without_a_code_of_their_own_are_written_for_people_in_both_languages():
    """Refusals of the portal's own (the account's standing, a form sent twice...) carry
    words written for people, translated like any other."""
    refusals = [PermissionDenied(), RoleNotAllowed(), EmailNotConfirmed(), NoOrganization()]
    refusals += [OrganizationNotVerified(), AlreadySent()]
    for refusal in refusals:
        with translation.override("en"):
            english = in_words(refusal)
        with translation.override("uk"):
            ukrainian = in_words(refusal)
        assert english != ukrainian, refusal.code


# --- every message the models and schemas refuse with has its Ukrainian words --------------

SOURCES = PACKAGES
# The refusals that carry their message (their description or a field's).
REFUSING = ("InvalidData", "InvalidData.field", "ValidationError", "NotAllowed", "Refused",
            "DocumentRefused", "NotFound", "Conflict")  # fmt: skip


def _shape(node) -> str | None:
    """A message as written: a literal as it is; an f-string with {} where it names something
    (compared with the catalog's %(name)s)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
    return None


def _messages_in(node) -> list:
    """The messages written in `node` (an f-string whole, not its pieces)."""
    if _shape(node) is not None:
        return [node]
    return [found for child in ast.iter_child_nodes(node) for found in _messages_in(child)]


def refusal_messages() -> dict[str, str]:
    """message -> where, for each message a refusal is raised with in the site's code (its
    code's WORDS say those with a code of their own), and each schema field's error."""
    found = {}
    root = Path(settings.BASE_DIR)
    for package in SOURCES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                candidates = []
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(REFUSING):
                    codes = [k.value for k in node.keywords if k.arg == "code"]
                    if codes and isinstance(codes[0], ast.Constant) and codes[0].value in WORDS:
                        continue
                    for argument in node.args[-1:]:
                        candidates += _messages_in(argument)
                elif isinstance(node, ast.FunctionDef) and node.name.endswith("refusal"):
                    # (a message made by a function, raised by its callers)
                    returned = [n.value for n in ast.walk(node) if isinstance(n, ast.Return)]
                    candidates = [value for value in returned if value and _shape(value)]
                elif isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Subscript) and ast.unparse(target).startswith("errors[")
                    for target in node.targets
                ):
                    candidates = _messages_in(node.value)
                elif (
                    isinstance(node, ast.Assign)
                    and any(
                        ast.unparse(target).endswith("error_messages") for target in node.targets
                    )
                    and isinstance(node.value, ast.Dict)
                ):
                    candidates = list(node.value.values)
                for candidate in candidates:
                    message = _shape(candidate)
                    if message and " " in message.strip():
                        found.setdefault(message, f"{path.relative_to(root)}:{node.lineno}")
    return found


def said_in_ukrainian(message: str) -> bool:
    """Whether the portal says `message` in Ukrainian: a literal by the catalog, a message that
    names something (its {}s) by a pattern of the same shape (core.refusals.PATTERNS)."""
    with translation.override("uk"):
        if "{" not in message:
            return translation.gettext(message) != message
        shape = re.sub(r"\{\w*\}", "{}", message)
        return any(
            re.sub(r"%\(\w+\)s", "{}", pattern) == shape and translation.gettext(pattern) != pattern
            for pattern in PATTERNS
        )


def test_every_message_the_models_and_schemas_refuse_with_has_ukrainian_words():
    messages = refusal_messages()
    assert len(messages) > 50  # (they were found)
    untranslated = {m: where for m, where in messages.items() if not said_in_ukrainian(m)}
    assert untranslated == {}


def test_a_message_that_names_something_is_said_with_it():
    with translation.override("uk"):
        said_there = said("Please provide no more than 100 items.")
    assert said_there != "Please provide no more than 100 items." and "100" in said_there


@pytest.mark.django_db
def test_the_admin_names_the_registry_s_models_in_ukrainian(client, django_user_model):
    admin = django_user_model.objects.create_superuser("operator", password="x" * 12)
    client.force_login(admin)
    client.cookies["django_language"] = "uk"
    for path, name in (("/admin/portal/organization/", "організація"),
                       ("/admin/tenders/tender/", "закупівля"),
                       ("/admin/complaints/complaint/", "вимога"),
                       ("/admin/core/broker/", "брокер")):  # fmt: skip
        page = client.get(path).content.decode()
        heading = page[page.index("<h1>") : page.index("</h1>")]
        assert name in heading and not re.search(r"[a-z]{4,}", heading), (path, heading)


def test_an_answer_s_type_has_one_set_of_words_in_both_languages():
    """The answer form's options and the meanings said under them (and on the claim's page)
    use the same words: «відхилено» … «Відхилено: …»."""
    for language in ("en", "uk"):
        with translation.override(language):
            for kind in ResolutionType:
                label, meaning = str(kind.label), str(RESOLUTION_MEANING[kind])
                assert meaning.lower().startswith(label.lower() + ":"), (language, label, meaning)


def test_a_document_s_format_is_said_as_people_call_it():
    from tenders.templatetags.tender_tags import file_kind

    assert file_kind("application/pdf") == "PDF"
    assert (
        file_kind("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        == "Word"
    )
    assert file_kind("image/svg+xml") == "SVG"
    assert file_kind("text/csv") == "CSV"
