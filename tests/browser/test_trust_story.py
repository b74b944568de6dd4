"""Who may act for an organization, in a real browser: a new person signs up for a new
organization, confirms the e-mail address by its link, is verified by an operator in the admin
and publishes a tender; another person names the same organization at sign-up, and gets in only
when the first accepts the request."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core import mail

from portal.models import Membership, Organization
from tenders.models import Tender
from tests.browser.pages import fill_item, kyiv, serious_violations
from tests.factories import PASSWORD, operator

pytestmark = pytest.mark.django_db(transaction=True)

IDENTIFIER = "43210987"


def sign_up(page, username: str, first: str, last: str):
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_first_name", first)
    page.fill("#id_last_name", last)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", "Tr1cky-passphrase")
    page.fill("#id_password2", "Tr1cky-passphrase")
    page.get_by_label("Назва організації").fill("КНП «Міська лікарня №7»")
    page.get_by_label("Код ЄДРПОУ або РНОКПП").fill(IDENTIFIER)
    page.get_by_label(re.compile("замовник \\(")).check()
    page.get_by_role("button", name="Створити обліковий запис").click()
    page.wait_for_url("**/dashboard/")


def follow_the_link_sent_to(page, address: str):
    [message] = [m for m in mail.outbox if m.to == [address]]
    [url] = re.findall(r"https?://\S+", message.body)
    page.goto(urlsplit(url).path)


def test_a_new_organization_is_confirmed_verified_publishes_and_admits_a_colleague(people, clock):
    # A new person signs up for a new organization and confirms the address.
    oksana = people()
    sign_up(oksana, "oksana", "Оксана", "Гнатюк")
    assert "Підтвердьте адресу електронної пошти" in oksana.locator("main").inner_text()
    assert serious_violations(oksana) == []
    assert not Organization.objects.exists()
    follow_the_link_sent_to(oksana, "oksana@example.org")
    oksana.wait_for_url("**/dashboard/")
    assert "очікує перевірки оператором" in oksana.locator("main").inner_text()
    organization = Organization.objects.get(identifier=IDENTIFIER)
    assert organization.verification == "pending"

    # Until it is verified, the tender can only be saved as a draft.
    def write_tender(title: str, button: str):
        oksana.goto("/tenders/new/")
        oksana.get_by_label(re.compile(r"^Назва\s*\*?$")).fill(title)
        oksana.get_by_label("Очікувана вартість, грн").fill("90000")
        oksana.get_by_label("Мінімальний крок пониження ціни, грн").fill("900")
        oksana.get_by_label("Запитання до").fill(kyiv(clock.now() + timedelta(days=7)))
        oksana.get_by_label("Подання пропозицій до").fill(kyiv(clock.now() + timedelta(days=12)))
        fill_item(oksana, 1, "Бинт марлевий", "33141110-4", "Перев’язувальні матеріали", "900")
        oksana.get_by_label("Область").select_option("Житомирська область")
        oksana.get_by_label("Населений пункт").fill("м. Житомир")
        oksana.get_by_label("Вулиця, будинок").fill("вул. Київська, 1")
        oksana.get_by_role("button", name=button).click()

    write_tender("Бинти", "Оголосити одразу")
    oksana.get_by_text("Вашу організацію ще не перевірено").wait_for()
    assert not Tender.objects.exists()

    # An operator verifies it in the admin's queue.
    operator()
    clerk = people()
    clerk.goto("/admin/login/")
    clerk.fill("#id_username", "operator")
    clerk.fill("#id_password", PASSWORD)
    clerk.click("input[type=submit], button[type=submit]")
    clerk.goto("/admin/portal/organization/?verification__exact=pending")
    clerk.locator(f"input[name=_selected_action][value='{organization.pk}']").check()
    clerk.select_option("select[name=action]", "verify")
    clerk.click("button[name=index]")
    clerk.get_by_text("КНП «Міська лікарня №7»: перевірена").wait_for()
    organization.refresh_from_db()
    assert organization.verification == "verified"
    assert organization.events.filter(action="verify", actor_name="operator").exists()
    assert any(m.to == ["oksana@example.org"] for m in mail.outbox)

    # Now the tender is published.
    write_tender("Бинти", "Оголосити одразу")
    oksana.wait_for_url(re.compile(r"/tenders/[0-9a-f]{32}/$"))
    assert Tender.objects.get().status == "active.enquiries"

    # A colleague names the same organization at sign-up: a request, no access yet.
    taras = people()
    sign_up(taras, "taras", "Тарас", "Мельник")
    follow_the_link_sent_to(taras, "taras@example.org")
    taras.wait_for_url("**/dashboard/")
    assert "Ви попросилися до організації" in taras.locator("main").inner_text()
    assert not Membership.objects.filter(user__username="taras").exists()

    # The administrator accepts it from the dashboard.
    oksana.goto("/dashboard/")
    requests = oksana.get_by_role("region", name="Запити на приєднання до вашої організації")
    assert "taras@example.org" in requests.inner_text()
    assert serious_violations(oksana) == []
    requests.get_by_role("button", name="Прийняти").click()
    oksana.get_by_text("тепер учасник організації").wait_for()
    assert Membership.objects.get(user__username="taras").organization == organization

    taras.goto("/organization/")
    members = taras.get_by_role("region", name="Учасники").inner_text()
    assert "Оксана Гнатюк" in members and "Тарас Мельник" in members
    assert serious_violations(taras) == []
    for page in (oksana, taras, clerk):
        # (the refused tender came back with 422, as every refused form does)
        assert [error for error in page.errors if "status of 422" not in error] == []
