"""What every browser test does to a page: sign in, fill an item row, check accessibility."""

from axe_playwright_python.sync_playwright import Axe

from core.schema import KYIV
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
    """An item row; its code chosen from the catalogue's list by words of its name (with
    JavaScript: as choosing an option puts it in the field), or typed (without)."""
    row = page.get_by_role("group", name=f"Позиція {number}")
    row.get_by_label("Що закуповується").fill(description)
    code_field = row.get_by_label("Код CPV")
    if page.evaluate("() => Boolean(window.htmx)"):
        code_field.press_sequentially(cpv_name.split()[0][:8])
        option = page.locator(f'#cpv-options option[value^="{cpv} "]')
        option.wait_for(state="attached")
        code_field.fill(option.get_attribute("value"))
    else:
        code_field.fill(cpv)
    row.get_by_label("Кількість").fill(quantity)


def sign_the_contract(page, number: str = "Д-17/2026", ends: str = "2027-12-31T18:00") -> None:
    """On the signing's review: the contract's number and the end of its term (signed now, at
    the awarded price), then the signature."""
    page.get_by_label("Номер договору").fill(number)
    page.get_by_label("Кінець строку дії договору").fill(ends)
    page.get_by_role("button", name="Укласти договір").click()
