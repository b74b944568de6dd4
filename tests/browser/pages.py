"""What every browser test does to a page: sign in, fill an item row, check accessibility."""

from axe_playwright_python.sync_playwright import Axe

from portal.core.schema import KYIV
from tests.factories import PASSWORD


def sign_in(page, user):
    page.goto("/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/dashboard/")


def serious_violations(page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']}: {v['help']} at {[node['target'] for node in v['nodes']]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def kyiv(moment) -> str:
    return moment.astimezone(KYIV).strftime("%Y-%m-%dT%H:%M")


def fill_item(page, number: int, description: str, cpv: str, cpv_name: str, quantity: str):
    row = page.get_by_role("group", name=f"Позиція {number}")
    row.get_by_label("Що закуповується").fill(description)
    row.get_by_label("Код CPV").fill(cpv)
    row.get_by_label("Назва за CPV").fill(cpv_name)
    row.get_by_label("Кількість").fill(quantity)
