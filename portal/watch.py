"""Mail to the followers of tenders: each follow's tender's audit trail, read past the follow's
watermark, told in one mail per look (at once: on every pass of `manage.py alerts`; daily: a
day after the last look), in the follower's language. What is told: Follow's `told_as`.

Why a watermark of event ids is safe: every change of a tender (of its parts, claims and
documents too) is written with the tender's row locked, and records its events inside that
lock; so a tender's events commit in the order of their ids, and a reader who saw the event
`n` will see no later-committing event of that tender below `n`. Several runners may run at
once: each follow is taken by one of them (SKIP LOCKED), and a runner that takes it after
another moved its watermark finds nothing new."""

import logging

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from complaints.models import Complaint
from core import notices
from portal.models import Follow
from portal.models.follows import told_as
from tenders.models import Award, Cancellation, Contract, Question, TenderStatus
from tenders.models.document import (
    AwardDocument,
    CancellationDocument,
    ContractDocument,
    TenderDocument,
)
from tenders.models.lots import lot_of

log = logging.getLogger(__name__)

# Events read in one look (the watermark moves past them; the next look reads on).
READ = 500
# Changes listed in one mail; the tender's page has the rest.
LISTED = 30

DOCUMENT_MODELS = {
    "tender": (TenderDocument, "tender_id"),
    "award": (AwardDocument, "award_id"),
    "cancellation": (CancellationDocument, "cancellation_id"),
    "contract": (ContractDocument, "contract_id"),
}
PARTS = {
    "question": Question,
    "award": Award,
    "contract": Contract,
    "cancellation": Cancellation,
    "complaint": Complaint,
}


def send_due(now) -> int:
    """Look at every follow due at `now`; returns how many mails were queued."""
    sent = 0
    for pk in Follow.objects.due(now).values_list("pk", flat=True):
        with transaction.atomic():
            follow = (
                Follow.objects.due(now)
                .select_for_update(skip_locked=True, of=("self",))
                .select_related("user", "tender")
                # (the tender's title and ids are told; its document, read only to name a
                # lot cancelled, stays unread)
                .defer("tender__data", "tender__public_text")
                .filter(pk=pk)
                .first()
            )
            if follow is None:
                continue
            try:
                with transaction.atomic():
                    sent += look(follow, now)
            except Exception:  # logged, and passed over: the others are looked at
                log.exception("the mail of follow %s failed: its changes are passed over", pk)
                follow.pass_over(now)
    return sent


def look(follow: Follow, now) -> bool:
    """Tell `follow`'s person of its tender's changes since the watermark; True if a mail is
    queued (none when nothing told has happened)."""
    events = list(follow.tender.events.filter(pk__gt=follow.told_until).order_by("pk")[:READ])
    told = once_each([(event, kind) for event, kind in ((e, told_as(e)) for e in events) if kind])
    if told:
        tender = follow.tender
        with translation.override(follow.language):
            changes = described(tender, told[:LISTED])
        notices.send(
            "portal/email/followed_tender.txt",
            {
                "tender": tender,
                "changes": changes,
                "more": max(0, len(told) - LISTED),
                "link": notices.link("tender", tender.pk),
                "manage_link": notices.link("follows"),
            },
            [follow.user.email],
            language=follow.language,
        )
    follow.looked(now, told_until=events[-1].pk if events else 0, sent=bool(told))
    return bool(told)


def once_each(told: list) -> list:
    """The changes without a cancellation proposed that came into effect in the same mail
    (its coming into effect says it)."""
    in_effect = {
        event.subject_id
        for event, kind in told
        if kind == "cancellation" and event.action == "activate"
    }
    return [
        (event, kind)
        for event, kind in told
        if not (
            kind == "cancellation" and event.action == "create" and event.subject_id in in_effect
        )
    ]


def described(tender, told: list) -> list[dict]:
    """Each change as a line in the current language, with its moment and a link."""
    parts = _parts(tender, told)
    titles = _document_titles(told)
    page = notices.link("tender", tender.pk)
    lines = []
    for event, kind in told:
        part = parts.get((event.subject_type, event.subject_id))
        if kind == "document":
            title = titles.get((event.subject_type, event.payload.get("document_id")), "")
            text, link = _document(event.action, title), page + "#documents"
        else:
            text, link = _change(kind, event, part), page
            if event.subject_type == "question":
                link = page + f"#question-{event.subject_id}"
            elif event.subject_type == "complaint":
                link = notices.link("claim", event.subject_id)
            elif event.subject_type == "award":
                link = page + f"#award-{event.subject_id}"
        lines.append({"at": event.at, "text": text, "link": link})
    return lines


def _parts(tender, told) -> dict:
    """The questions, awards, claims... the changes are about, one query per kind."""
    wanted = {}
    for event, _kind in told:
        if event.subject_type in PARTS:
            wanted.setdefault(event.subject_type, set()).add(event.subject_id)
    found = {}
    for subject, ids in wanted.items():
        rows = PARTS[subject].objects.filter(tender=tender, pk__in=ids)
        if subject == "contract":
            rows = rows.select_related("award")
        found.update({(subject, row.pk): row for row in rows})
    return found


def _document_titles(told) -> dict:
    """(part, document id) -> the document's latest title (one query per kind of part)."""
    wanted = {}
    for event, kind in told:
        if kind == "document":
            wanted.setdefault(event.subject_type, set()).add(
                (event.subject_id, event.payload.get("document_id"))
            )
    titles = {}
    for subject, pairs in wanted.items():
        model, parent = DOCUMENT_MODELS[subject]
        versions = model.objects.filter(
            **{f"{parent}__in": {part for part, _document in pairs}},
            document_id__in={document for _part, document in pairs},
        ).order_by("version")
        for version in versions.only(parent, "document_id", "version", "title"):
            titles[(subject, version.document_id)] = version.title  # (the latest last)
    return titles


def _document(action: str, title: str) -> str:
    if action == "add_document":
        return _("New document: «%(title)s».") % {"title": title}
    if action == "replace_document":
        return _("A new version of the document «%(title)s».") % {"title": title}
    return _("The details of the document «%(title)s» changed.") % {"title": title}


def _change(kind: str, event, part) -> str:
    if kind == "answer":
        return _("The question «%(title)s» was answered.") % {"title": part.title}
    if kind == "dates":
        return _("The tender's dates changed.")
    if kind == "conditions":
        return _("The tender's conditions changed.")
    if kind == "lots":
        return _("The tender's lots changed.")
    if kind == "status":
        return _("The tender is now at the stage: %(stage)s.") % {
            "stage": TenderStatus(event.to_status).label
        }
    if kind == "decision":
        return _decision(event.subject_type, event.action, part)
    if kind == "cancellation":
        return _cancellation(event.action, part)
    return _claim(kind, part, event.to_status)


def _cancellation(action: str, cancellation) -> str:
    words = {"reason": cancellation.reason_in_reader_language}
    if cancellation.related_lot:
        lot = lot_of(cancellation.tender.data, cancellation.related_lot) or {}
        words["lot"] = lot.get("title", "")
        if action == "create":
            return _("The buyer means to cancel the lot «%(lot)s»: %(reason)s") % words
        return _("The lot «%(lot)s» is cancelled: %(reason)s") % words
    if action == "create":
        return _("The buyer means to cancel: %(reason)s") % words
    return _("Cancelled: %(reason)s") % words


def _decision(subject: str, action: str, part) -> str:
    if subject == "contract":
        return _("The contract with %(supplier)s was signed.") % {
            "supplier": part.award.supplier_name
        }
    supplier = {"supplier": part.supplier_name}
    if action == "activate":
        return _("The bid of %(supplier)s won.") % supplier
    if action == "disqualify":
        return _("The bid of %(supplier)s was disqualified.") % supplier
    return _("The decision on the bid of %(supplier)s was taken back.") % supplier


def _claim(kind: str, claim, status: str) -> str:
    words = {"title": claim.title, "id": claim.complaint_id}
    if kind == "claim_filed":
        return _("A claim was filed: «%(title)s» (%(id)s).") % words
    if kind == "claim_answered":
        return _("The claim «%(title)s» (%(id)s) was answered.") % words
    # (named by its outcome, as its own page names it)
    outcome = claim.outcome_after(status)
    return _("The claim «%(title)s» (%(id)s): %(outcome)s.") % {**words, "outcome": outcome}
