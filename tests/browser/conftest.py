"""Browser tests: headless Debian chromium driven by Playwright against the live server.

Without chromium they are skipped with the reason, except where REQUIRE_BROWSER is set (CI),
where a missing browser is an error. Screenshots land in build/screenshots/.
"""

import os
import shutil
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def browser(monkeypatch):
    """One chromium per test: Playwright's sync API keeps an event loop running while it is
    open, so it is closed with the test, and the ORM is allowed beside it only meanwhile."""
    executable = _chromium()
    if executable is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("needs Debian's chromium (apt-get install chromium; .ci/run installs it)")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def people(browser, live_server):
    """Open a browser context per person (each its own cookies); closes them after the test."""
    contexts = []

    def open_as(*, javascript: bool = True, width: int = 1200):
        context = browser.new_context(
            java_script_enabled=javascript,
            viewport={"width": width, "height": 900},
            accept_downloads=True,
            base_url=live_server.url,
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on(
            "console",
            lambda message: page.errors.append(message.text) if message.type == "error" else None,
        )
        return page

    yield open_as
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
