"""Questions to the buyer (2.3's enquiries).

Anyone known (a broker's key, a signed-in portal user) asks while the enquiry period runs; the
tender's owner answers while the tender is in enquiries. 2.3 has no later answer and no
extension: answers are taken until tendering starts, so no bid is made before the answers it
needed. The asker's name is hidden until bids are opened, as 2.3 hides it, so that the buyer
cannot tell who is going to bid.
"""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import limits, notices
from core.actors import Actor
from core.errors import InvalidData, NotAllowed, NotFound, PermissionDenied, worth_offering
from core.ids import is_id
from core.schema import validate
from core.transactions import atomic_change
from tenders.part_schemas import QuestionAnswerSchema, QuestionSchema
from tenders.schema import MAX_QUESTIONS, MAX_QUESTIONS_OF_ONE

from .base import Counter, Owned, new_id
from .lots import lot_of
from .room import check_room
from .statuses import LotStatus, TenderStatus

# While the tender is in these statuses, who asked is not shown (2.3's question roles).
ASKER_HIDDEN_IN = TenderStatus.bidders_unnamed()


class QuestionOf(models.TextChoices):
    TENDER = "tender", _("the tender")
    LOT = "lot", _("a lot")
    ITEM = "item", _("an item")


class QuestionQuerySet(models.QuerySet):
    def to_answer_by(self, organization):
        """The questions `organization`'s tenders have not answered and still may (until
        tendering starts: also on a tender nobody read since, which still says enquiries),
        each with its tender."""
        return self.filter(
            tender__organization=organization,
            tender__status=TenderStatus.ENQUIRIES,
            tender__tender_start__gt=timezone.now(),
            date_answered__isnull=True,
        ).select_related("tender")

    # --- asking and answering (the tender's row locked: its lock_for_change) -------------

    def check_asking(self, tender, by: Actor, now) -> None:
        """May `by` ask a question about `tender` now? The 2.3 refusal if not."""
        if not by.is_authenticated:
            raise PermissionDenied()
        if by.organization is not None and tender.is_owned_by_organization(by.organization):
            raise PermissionDenied()  # (a buyer asks itself nothing)
        if tender.status != TenderStatus.ENQUIRIES:
            raise NotAllowed(
                "Can add question only in enquiryPeriod",
                code="tender_status",
                params={"status": tender.get_status_display()},
            )
        if not tender.enquiry_start <= now < tender.enquiry_end:
            raise NotAllowed(
                "Can add question only in enquiryPeriod",
                code="questions_period",
                params={"start": tender.enquiry_start, "end": tender.enquiry_end},
            )

    def can_ask(self, tender, by: Actor, now) -> bool:
        return worth_offering(self.check_asking, tender, by, now)

    def ask(self, *, tender, by: Actor, data: dict) -> "Question":
        """POST /tenders/{id}/questions."""
        if not by.is_authenticated:
            raise PermissionDenied()
        fields = validate(QuestionSchema, data)
        limits.count_public_post(by)
        with atomic_change():
            now = tender.lock_for_change()
            question_of = fields.get("questionOf", QuestionOf.TENDER)
            related_item = fields.get("relatedItem", "")
            _check_named(tender, question_of, related_item)
            self.check_asking(tender, by, now)
            _check_lot_open(tender, question_of, related_item, "add")
            by.check_standing()
            check_room(
                tender.questions.all(), by, name="questions", most=MAX_QUESTIONS,
                most_of_one=MAX_QUESTIONS_OF_ONE,
            )  # fmt: skip
            question = self.model(
                id=new_id(),
                tender=tender,
                number=Counter.next(f"questions:{tender.pk}"),
                broker=by.broker,
                organization=by.organization,
                title=fields["title"],
                description=fields.get("description", ""),
                author=fields["author"],
                question_of=question_of,
                related_item=related_item,
                date=now,
            )
            question.save(force_insert=True)
            tender.record_event(question, "ask", by, now)
            tender.stamp_change(now)
            _notify_buyer(question, tender)
        return question

    def answer(self, *, tender, by: Actor, question_id: str, data: dict) -> "Question":
        """PATCH /tenders/{id}/questions/{qid}: the owner's answer (given again, it replaces
        the last one, as 2.3 allows; the audit trail keeps each)."""
        with atomic_change():
            now = tender.lock_for_change()
            question = (
                tender.questions.filter(pk=question_id).first() if is_id(question_id) else None
            )
            if question is None:
                raise NotFound("question_id")
            # (2.3: who may answer, then what was sent, then whether it is the time)
            tender.check_party(by)
            fields = validate(QuestionAnswerSchema, data)
            tender.guard("update_question", by, now)
            _check_lot_open(tender, question.question_of, question.related_item, "update")
            first = not question.is_answered
            question.answer = fields["answer"]
            question.date_answered = now
            question.save(update_fields=["answer", "date_answered"])
            tender.record_event(question, "answer", by, now)
            tender.stamp_change(now)
            if first:
                _notify_asker(question, tender)
        return question


class Question(Owned):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="questions", editable=False
    )
    number = models.PositiveIntegerField(editable=False)
    title = models.TextField(_("title"))
    description = models.TextField(_("description"), blank=True)
    author = models.JSONField(_("author"))
    question_of = models.CharField(max_length=8, choices=QuestionOf, default=QuestionOf.TENDER)
    # The lot or the item asked about (questionOf lot or item).
    related_item = models.CharField(max_length=64, blank=True, default="")
    date = models.DateTimeField(editable=False)
    answer = models.TextField(_("answer"), blank=True)
    date_answered = models.DateTimeField(null=True, blank=True, editable=False)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tender", "number"], name="question_number_unique"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_answered(self) -> bool:
        return self.date_answered is not None

    def asker_shown(self, tender_status: str) -> bool:
        return tender_status not in ASKER_HIDDEN_IN

    def lot_id(self, tender) -> str | None:
        """The lot the question is about (directly, or through its item), if any."""
        if self.question_of == QuestionOf.LOT:
            return self.related_item
        if self.question_of == QuestionOf.ITEM:
            item = next(
                (i for i in tender.data.get("items", []) if i.get("id") == self.related_item), None
            )
            return (item or {}).get("relatedLot")
        return None


def _notify_buyer(question, tender) -> None:
    if tender.organization is not None:
        notices.send(
            "tenders/email/question_asked.txt",
            {"question": question, "tender": tender, "link": notices.link("tender", tender.pk)},
            tender.organization.emails(),
        )


def _notify_asker(question, tender) -> None:
    if question.organization is not None:
        notices.send(
            "tenders/email/question_answered.txt",
            {"question": question, "tender": tender, "link": notices.link("tender", tender.pk)},
            question.organization.emails(),
        )


def _check_named(tender, question_of: str, related_item: str) -> None:
    """What a question names exists (2.3's messages: a 422, before the period's 403)."""
    if question_of == QuestionOf.LOT and lot_of(tender.data, related_item) is None:
        raise InvalidData.field("relatedItem", "relatedItem should be one of lots")
    if question_of == QuestionOf.ITEM and not any(
        item.get("id") == related_item for item in tender.data.get("items", [])
    ):
        raise InvalidData.field("relatedItem", "relatedItem should be one of items")


def _check_lot_open(tender, question_of: str, related_item: str, verb: str) -> None:
    """The lot a question is about (directly or through its item) is still active."""
    lot_id = Question(question_of=question_of, related_item=related_item).lot_id(tender)
    if lot_id:
        status = tender.lot_status(lot_id)
        if status is not None and status != LotStatus.ACTIVE:
            raise NotAllowed(
                f"Can {verb} question only in active lot status", code="lot_not_active"
            )


def check_items_asked_about(tender, document: dict) -> None:
    """A change of the tender's items keeps every item a question is about (2.3 checks the
    whole tender again, its questions too)."""
    items = {item.get("id") for item in document.get("items", [])}
    stray = [
        q.question_of == QuestionOf.ITEM and q.related_item not in items
        for q in tender.questions.all()
    ]
    if any(stray):
        message = {"relatedItem": ["relatedItem should be one of items"]}
        raise InvalidData({"questions": [message if bad else {} for bad in stray]})
