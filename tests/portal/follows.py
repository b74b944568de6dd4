"""What the tests of following tenders share: the people, a tender to follow, one pass of the
alerts and the mails it sent to the follower."""

import io

from django.core import mail
from django.core.management import call_command

from core.actors import Actor, Role
from portal.models import Follow, Organization
from tenders.models import Question, Tender
from tests.factories import make_user, sign_up
from tests.helpers import organization, tender_data

WATCHER = "watcher@example.org"


def buyer_and_watcher():
    buyer = make_user("buyer", "Лікарня №3", "01993913", Organization.Kind.PROCURING)
    return buyer, sign_up("watcher", email=WATCHER)


def published(buyer, clock, **overrides) -> Tender:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), **overrides)
    )
    return tender


def follow(user, tender, clock, *, frequency="at_once", language="en") -> Follow:
    return Follow.start(user, tender, frequency=frequency, language=language, now=clock.now())


def owner(buyer, tender) -> Actor:
    return Actor(Role.TENDER_OWNER, user=buyer, subject=tender)


def ask_and_answer(tender, buyer, broker, title="Яка калорійність?") -> Question:
    question = Question.objects.ask(
        tender=tender,
        by=Actor(Role.AUTHENTICATED, broker=broker),
        data={"title": title, "author": organization()},
    )
    return Question.objects.answer(
        tender=tender, by=owner(buyer, tender), question_id=question.pk, data={"answer": "Так"}
    )


def alerts(capture, to=WATCHER) -> list:
    """One pass of `manage.py alerts`; the mails it sent to `to`."""
    mail.outbox.clear()
    with capture(execute=True):
        call_command("alerts", "--once", stdout=io.StringIO())
    return [sent for sent in mail.outbox if sent.to == [to]]


def said(sent) -> str:
    """A mail's text with its lines joined again (the mail wraps them)."""
    return " ".join(sent.body.split())
