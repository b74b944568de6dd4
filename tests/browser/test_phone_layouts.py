"""What issue 48 found on a phone (390 px) and on a desktop (1,280 px), in both languages: the
contracts' list breaks no word, the home page's results come within the first screen, the
follow bar's sentence reads as one, the work queue says what each date is, an award under
consideration says by when, the auction's results give the reduction. Screenshots of each in
build/screenshots/."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Award
from tests.browser.pages import serious_violations, sign_in
from tests.factories import RESOLUTION, portal_world

pytestmark = pytest.mark.django_db(transaction=True)

# Words drawn on more than one line (a word broken mid-word) among the text of `selector` (a
# tender ID may break at its hyphens, as words do: each part between them is a word here).
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\\s\\-]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()]
          .filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""

WORDS = {
    "uk": {"when": "Коли", "by": "до ", "from": "з ", "considers": "Замовник розглядає пропозицію до",
           "remedy": "Скасуйте рішення щодо ПП «Чисто»: ви задовольнили вимогу",
           "careful": "Увага: ви задовольнили вимогу",
           "review": "Скасувати рішення щодо ПП «Чисто»?", "undone": "більше не переможна",
           "take_back": "Скасувати рішення"},
    "en": {"when": "When", "by": "by ", "from": "from ", "considers": "The procuring entity considers the bid by",
           "remedy": "Take back the decision on ПП «Чисто»: you granted the claim",
           "careful": "Careful: you granted the claim",
           "review": "Take back the decision on ПП «Чисто»?", "undone": "is no longer the winner",
           "take_back": "Take the decision back"},
}  # fmt: skip


@pytest.fixture
def signed(brokers, clock):
    """A tender whose award is decided and whose contract is signed, and another tender whose
    award waits for the buyer's decision."""
    world = portal_world(brokers, clock)
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    world.refresh()
    contract = world.tender.contracts.get()
    contract.tender = world.tender
    contract.sign(by=world.owner())
    return world


def opened(people, live_server, language: str, width: int, *, javascript: bool = True):
    page = people(width=width, javascript=javascript)
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    return page


@pytest.mark.parametrize("language", ["uk", "en"])
@pytest.mark.parametrize("width", [390, 1280])
def test_lists_read_whole_words_and_the_results_come_first(
    people, signed, screenshot, live_server, language, width
):
    visitor = opened(people, live_server, language, width)

    visitor.goto("/contracts/")
    assert visitor.locator("table.contracts tbody tr").count() == 1
    assert visitor.evaluate(BROKEN_WORDS, "table.contracts tbody, .page-head") == []
    assert visitor.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(visitor, f"{language}-contracts-{width}")

    visitor.goto("/")
    first = visitor.locator("#results .card").first.bounding_box()
    assert first["y"] < 900  # (the first result within the first screen)
    folded = visitor.locator("details.filters-box").evaluate("d => d.open") is False
    assert folded == (width == 390)  # (a phone folds the filters; a desktop shows them)
    screenshot(visitor, f"{language}-home-{width}")

    visitor.goto(f"/tenders/{signed.tender.pk}/")
    # The follow bar's sentence: its link and the words after it flow as one sentence.
    same_line = visitor.locator("#follow p").evaluate(
        """p => {
          const link = p.querySelector("a").getBoundingClientRect();
          const range = document.createRange();
          range.setStart(p.lastChild, 0); range.setEnd(p.lastChild, 1);
          return Math.round(range.getClientRects()[0].top) === Math.round(link.top);
        }"""
    )
    assert same_line
    assert serious_violations(visitor) == []
    screenshot(visitor, f"{language}-follow-bar-{width}")
    assert visitor.errors == []


@pytest.mark.parametrize("language", ["uk", "en"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_queue_says_what_each_date_is_and_the_award_its_deadline(
    people, brokers, clock, screenshot, live_server, language, width
):
    world = portal_world(brokers, clock, decision="")
    words = WORDS[language]
    buyer = opened(people, live_server, language, width)
    sign_in(buyer, world.buyer)

    buyer.goto("/dashboard/")
    due = timezone.localtime(world.award.decision_due).strftime("%d.%m.%Y %H:%M")
    queue = buyer.locator("table.queue")
    assert words["by"] + due in queue.inner_text()
    if width > 500:
        assert queue.locator("th").nth(2).inner_text().strip() == words["when"]
    assert buyer.evaluate(BROKEN_WORDS, "table.queue tbody") == []
    screenshot(buyer, f"{language}-queue-award-{width}")

    buyer.goto(f"/tenders/{world.tender.pk}/#award-{world.award.pk}")
    assert f"{words['considers']} {due}" in buyer.locator(f"#award-{world.award.pk}").inner_text()
    screenshot(buyer, f"{language}-award-deadline-{width}")
    assert buyer.errors == []


@pytest.mark.parametrize("language", ["uk", "en"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_claim_granted_and_accepted_asks_the_buyer_to_take_the_decision_back(
    people, brokers, clock, screenshot, live_server, language, width
):
    world = portal_world(brokers, clock)
    claim = world.claim()
    claim.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")
    Complaint.objects.get(pk=claim.pk).resolve(
        by=Actor(Role.COMPLAINT_OWNER, user=world.bidder, subject=claim), satisfied=True
    )
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    words = WORDS[language]
    buyer = opened(people, live_server, language, width)
    sign_in(buyer, world.buyer)

    buyer.goto("/dashboard/")
    buyer.get_by_role("cell", name=re.compile(re.escape(words["remedy"]))).wait_for()
    assert buyer.evaluate(BROKEN_WORDS, "table.queue tbody") == []
    screenshot(buyer, f"{language}-queue-remedy-{width}")
    buyer.goto(f"/tenders/{world.tender.pk}/awards/{world.award.pk}/contract/")
    buyer.get_by_text(words["careful"]).wait_for()
    screenshot(buyer, f"{language}-signing-warns-{width}")

    # The queue's step leads to the decision's review, which says what taking it back does.
    buyer.goto("/dashboard/")
    buyer.locator("tr.task-award-remedy").get_by_role("link").click()
    review = buyer.locator("section.review")
    review.get_by_role("heading", name=words["review"]).wait_for()
    assert words["undone"] in review.inner_text()
    assert buyer.evaluate(BROKEN_WORDS, "section.review") == []
    screenshot(buyer, f"{language}-take-back-review-{width}")
    review.get_by_role("button", name=words["take_back"], exact=True).click()
    buyer.wait_for_url(re.compile(rf"/tenders/{world.tender.pk}/"))
    assert Award.objects.get(pk=world.award.pk).status == "cancelled"
    buyer.goto("/dashboard/")
    assert words["remedy"] not in buyer.locator("main").inner_text()
    assert buyer.errors == []
