"""The portal's search finds a word in any of its forms (tenders.lemmas), by the procuring
entity's name, filters by procedure type, and lists the newest published first unless asked
otherwise. Run on SQLite and on PostgreSQL alike."""

import copy
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from core.actors import Actor, Role
from portal.models import Organization
from portal.searches import described
from tenders.models import Tender, TenderSearch
from tenders.models.tender_search import rebuild
from tenders.search import searchable
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import found

pytestmark = pytest.mark.django_db


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", Organization.Kind.PROCURING)


def publish(user, clock, title, *, buyer_name="Державне управління справами") -> Tender:
    data = tender_data(clock.now(), title=title)
    entity = copy.deepcopy(data["procuringEntity"])
    entity["name"] = buyer_name
    data["procuringEntity"] = entity
    data["items"][0]["description"] = title
    tender, _ = Tender.objects.register(by=Actor(Role.AUTHENTICATED, user=user), data=data)
    return tender


def test_a_word_is_found_in_any_of_its_forms(client, buyer, clock):
    publish(buyer, clock, "Ремонт покрівлі поліклініки")
    publish(buyer, clock, "Папір офісний А4")
    publish(buyer, clock, "Закупівля паперу для принтерів")
    publish(buyer, clock, "Бензин А-95")

    assert found(client, q="покрівля") == ["Ремонт покрівлі поліклініки"]
    assert found(client, q="покрівлі") == ["Ремонт покрівлі поліклініки"]
    paper = ["Закупівля паперу для принтерів", "Папір офісний А4"]
    assert sorted(found(client, q="паперу")) == paper
    assert sorted(found(client, q="папір")) == paper
    # Every word asked must be there, in whichever form.
    assert found(client, q="папір принтери") == ["Закупівля паперу для принтерів"]
    assert found(client, q="паперу покрівля") == []
    # The start of a word as written still finds it.
    assert found(client, q="поліклін") == ["Ремонт покрівлі поліклініки"]


def test_the_kept_words_carry_their_lemmas_after_them():
    assert searchable("Ремонт покрівлі, паперу") == "ремонт покрівлі, покрівля паперу папір"


def test_a_procuring_entity_is_found_by_its_name_in_any_form(client, buyer, clock):
    publish(buyer, clock, "Рукавички", buyer_name="Київська міська клінічна лікарня №5")
    publish(buyer, clock, "Бинти", buyer_name="Відділ освіти Броварської міської ради")

    assert found(client, q="клінічна лікарня") == ["Рукавички"]
    assert found(client, q="лікарні") == ["Рукавички"]
    assert found(client, q="відділу освіти") == ["Бинти"]


def test_the_procedure_type_filter(client, buyer, clock):
    publish(buyer, clock, "Папір")

    assert found(client, procedure="belowThreshold") == ["Папір"]
    assert Tender.objects.public().matching(procedure="aboveThresholdUA").count() == 0
    response = client.get("/", {"procedure": "aboveThresholdUA"})
    assert response.context["form"].errors.keys() == {"procedure"}
    page = client.get("/").content.decode()
    assert "допорогова закупівля" in page


def test_the_newest_published_come_first_unless_asked_for_the_latest_change(client, buyer, clock):
    first = publish(buyer, clock, "Папір перший")
    clock.advance(minutes=1)
    publish(buyer, clock, "Папір другий")
    clock.advance(minutes=1)
    first.cancel(by=Actor(Role.TENDER_OWNER, user=buyer, subject=first), reason="Потреба відпала")

    assert found(client) == ["Папір другий", "Папір перший"]
    assert found(client, q="папір") == ["Папір другий", "Папір перший"]
    assert found(client, sort="newest") == ["Папір другий", "Папір перший"]
    assert found(client, sort="changed") == ["Папір перший", "Папір другий"]
    assert found(client, q="папір", sort="changed") == ["Папір перший", "Папір другий"]


def test_the_search_columns_of_every_tender_are_derived_anew_a_chunk_at_a_time(buyer, clock):
    """Migration 0032: the words kept before lemmas get theirs, the procedure type is kept."""
    tenders = [publish(buyer, clock, title) for title in ("Ремонт покрівлі", "Паперу", "Бинти")]
    TenderSearch.objects.update(search_text="старе", procedure="")

    assert rebuild(Tender, TenderSearch, chunk=2) == 3

    kept = {row.tender_id: row for row in TenderSearch.objects.all()}
    assert kept[tenders[0].pk].search_text.startswith("ремонт покрівлі покрівля")
    assert kept[tenders[1].pk].search_text.startswith("паперу папір")
    assert {row.procedure for row in kept.values()} == {"belowThreshold"}


def test_the_search_words_command_derives_them_anew(buyer, clock):
    """After the dictionary is upgraded (`manage.py search_words`)."""
    tender = publish(buyer, clock, "Ремонт покрівлі")
    TenderSearch.objects.update(search_text="старе")
    out = io.StringIO()

    call_command("search_words", "--chunk", "1", stdout=out)

    assert "1 tenders" in out.getvalue()
    assert TenderSearch.objects.get(tender=tender).search_text.startswith("ремонт покрівлі")


def test_a_saved_search_keeps_the_procedure_type(db):
    with translation.override("uk"):
        assert ("Тип процедури", "допорогова закупівля") in described("procedure=belowThreshold")
    assert described("procedure=aboveThresholdUA") == []  # a search its form refuses


@pytest.mark.postgres
def test_a_page_found_among_the_newest_first_is_the_search_s_own(client, buyer, clock, monkeypatch):
    """A word's page is looked for among the newest tenders first (a walk of a bounded part of
    the registry); what it finds there is what the whole search finds, and a word not among
    them is still found."""
    monkeypatch.setattr("portal.views.TENDERS_PER_PAGE", 2)
    monkeypatch.setattr("portal.views.SEARCH_FIRST_AMONG", 4)
    publish(buyer, clock, "Бинти давні")
    for n in range(6):
        clock.advance(minutes=1)
        publish(buyer, clock, f"Папір {n}")
    clock.advance(minutes=1)
    publish(buyer, clock, "Бинти нові")

    # Among the newest four: papers 5, 4, 3 (a page of two and one more).
    assert found(client, q="паперу") == ["Папір 5", "Папір 4"]
    assert found(client, q="папір", page="2") == ["Папір 3", "Папір 2"]
    assert found(client, q="папір", page="3") == ["Папір 1", "Папір 0"]
    assert found(client, q="бинти") == ["Бинти нові", "Бинти давні"]
    assert found(client, q="папір", sort="changed") == ["Папір 5", "Папір 4"]
    among = Tender.objects.public().newest_matching(among=4, q="папір")
    assert [t.title for t in among] == ["Папір 5", "Папір 4", "Папір 3"]
    # The first page of "папір" is read among the newest alone (a range of the newest, whose
    # start the query finds); "бинти" needs the whole search too.
    [among_newest] = words_read(client, q="папір")
    assert "COALESCE" in among_newest
    assert ["COALESCE" in sql for sql in words_read(client, q="бинти")] == [True, False]


def words_read(client, **asked) -> list[str]:
    """The queries that read the words for the search's page."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/", asked).status_code == 200
    return [q["sql"] for q in captured if "to_tsvector" in q["sql"] and "EXPLAIN" not in q["sql"]]
