"""The whole story of a claim as people live it, in a real browser: a bidder files a claim with
two attachments as a draft and submits it, the buyer answers, the bidder rejects the answer, and
a visitor reads the timeline and downloads an attachment. Once with JavaScript (htmx swapping
fragments), once without (plain forms, post-redirect-get)."""

import re

import pytest

from complaints.models import Complaint
from tests.browser.pages import serious_violations, sign_in
from tests.factories import RESOLUTION, portal_world

pytestmark = pytest.mark.django_db(transaction=True)

EVIDENCE = (
    ("договір-1.pdf", b"%PDF-1.4 first piece of evidence"),
    (
        "акт виконаних робіт.txt",
        "Акт не підписано".encode(),
    ),
)


def walk_the_story(people, world, tmp_path, *, javascript: bool, check=lambda page: None):
    files = []
    for name, content in EVIDENCE:
        path = tmp_path / name
        path.write_bytes(content)
        files.append(path)

    # The bidder files a draft with two attachments, then submits it.
    bidder = people(javascript=javascript)
    sign_in(bidder, world.bidder)
    bidder.goto(f"/tenders/{world.tender.pk}/")
    check(bidder)
    bidder.get_by_role("link", name="Подати вимогу").click()
    bidder.get_by_label("Предмет вимоги").fill("Переможець не підтвердив досвід")
    bidder.get_by_label("Що не так з рішенням").fill("Учасник не надав договорів, п. 4.2.")
    bidder.get_by_label("Вкладення").set_input_files(files)
    check(bidder)
    bidder.get_by_role("button", name="Зберегти чернетку").click()
    bidder.wait_for_url(re.compile(r"/claims/[0-9a-f]{32}/$"))
    complaint = Complaint.objects.get()
    assert complaint.status == "draft"
    assert complaint.documents.count() == 2
    bidder.get_by_role("button", name="Подати вимогу").click()
    bidder.locator("#claim-panel .badge", has_text="подана: чекає на відповідь").wait_for()
    complaint.refresh_from_db()
    assert complaint.status == "claim"

    # The buyer finds it on the dashboard and answers.
    buyer = people(javascript=javascript)
    sign_in(buyer, world.buyer)
    check(buyer)
    buyer.get_by_role("link", name="Переможець не підтвердив досвід").click()
    buyer.get_by_label("Рішення").select_option("declined")
    buyer.get_by_label("Відповідь скаржнику").fill(RESOLUTION)
    buyer.get_by_role("button", name="Надіслати відповідь").click()
    buyer.locator("#claim-panel .badge", has_text="є відповідь").wait_for()
    check(buyer)

    # The bidder rejects the answer.
    bidder.goto(f"/claims/{complaint.pk}/")
    bidder.get_by_role("link", name="Не погодитися з відповіддю…").click()
    bidder.get_by_text("Антимонопольного комітету України").wait_for()  # its review says
    bidder.get_by_role("button", name="Не погодитися з відповіддю").click()
    bidder.locator("#claim-panel .badge", has_text="закрита: скаржник не погодився").wait_for()
    complaint.refresh_from_db()
    assert (complaint.status, complaint.satisfied) == ("resolved", False)

    # A visitor reads the story and downloads an attachment.
    visitor = people(javascript=javascript)
    visitor.goto(f"/claims/{complaint.pk}/")
    timeline = visitor.locator(".timeline")
    assert "Подано" in timeline.inner_text()
    assert "Скаржник не погодився з відповіддю" in timeline.inner_text()
    assert RESOLUTION in timeline.inner_text()
    check(visitor)
    with visitor.expect_download() as download:
        visitor.get_by_role("link", name=EVIDENCE[0][0]).click()
    saved = tmp_path / "downloaded"
    download.value.save_as(saved)
    assert download.value.suggested_filename == EVIDENCE[0][0]
    assert saved.read_bytes() == EVIDENCE[0][1]
    return bidder, buyer, visitor


def test_claim_story_with_javascript(people, brokers, clock, tmp_path):
    world = portal_world(brokers, clock)
    checked = []

    def check(page):
        assert serious_violations(page) == [], page.url
        checked.append(page.url)

    pages = walk_the_story(people, world, tmp_path, javascript=True, check=check)

    assert len(checked) == 5
    for page in pages:
        assert page.errors == []


def test_claim_story_without_javascript(people, brokers, clock, tmp_path):
    world = portal_world(brokers, clock)

    walk_the_story(people, world, tmp_path, javascript=False)
