"""The Ukrainian catalog is complete, and the compiled catalog the site loads is the same one."""

import re
from pathlib import Path

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
from core.refusals import WORDS, in_words

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
    assert {status for status, _satisfied in OUTCOMES} == set(ComplaintStatus.values)
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
