"""Browser test fixtures: Debian's chromium driven by Playwright, and a Jupyter server.

- ``browser`` (session): headless ``/usr/bin/chromium`` (``KPCA_CHROMIUM`` overrides it),
  installed by ``make venv`` when missing; Playwright's own browser download is not used.
  Missing chromium fails the tests with that message; it never skips them.
- ``page`` (per test): a fresh context and page, watched by
  :func:`tests.browser.harness.watch_page` (``page.kpca_log``). When the test fails, a
  full-page screenshot is saved as ``<pytest basetemp>/screenshots/<test name>.png``
  (``pytest --basetemp=DIR`` to choose the folder) and its path is added to the report.
- ``jupyter_server_for(root, app="server")`` (session factory): a started
  :class:`~tests.browser.harness.JupyterServer` for a course directory, stopped at the end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.browser.harness import CHROMIUM, JupyterServer, watch_page


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"chromium not found at {CHROMIUM}: run `make venv` as root, or "
                    "`apt-get install chromium` (KPCA_CHROMIUM=/path/to/chromium overrides)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # chromium's own sandbox needs user namespaces it cannot get as root in a container
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request, tmp_path_factory):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.kpca_log = watch_page(page)
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        folder = tmp_path_factory.getbasetemp() / "screenshots"
        folder.mkdir(exist_ok=True)
        shot = folder / (re.sub(r"[^\w.-]+", "_", request.node.name) + ".png")
        try:
            page.screenshot(path=str(shot), full_page=True)
            failed.sections.append(("screenshot", f"saved to {shot}"))
            print(f"\nscreenshot of the failed page: {shot}")
        except Exception as exc:  # noqa: BLE001  (a dead page must not hide the failure)
            failed.sections.append(("screenshot", f"could not be taken: {exc}"))
    context.close()


@pytest.fixture(scope="session")
def jupyter_server_for(tmp_path_factory):
    servers: list[JupyterServer] = []

    def start(root: Path, app: str = "server", env: dict | None = None) -> JupyterServer:
        server = JupyterServer(root, tmp_path_factory.mktemp("jupyter"), app=app, env=env)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()
