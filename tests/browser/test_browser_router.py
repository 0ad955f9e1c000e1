"""Every page's URL, opened as the very first request of a fresh server, goes through the router.

With a ``pages/`` folder, Streamlit runs a page script on its own until the router has run once
(see ``ui/router.py``); then the page has no navigation titles and no sidebar. Each case here
starts its own server so that the page URL really is the first request it serves.
"""

from __future__ import annotations

import pytest

from tests.conftest import running_app
from ui.navigation import PAGES

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("spec", PAGES, ids=[p.url_path for p in PAGES])
def test_direct_url_on_a_fresh_server_goes_through_the_router(spec, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    with running_app(tmp_path / "cache") as url:
        page.goto(f"{url}/{spec.url_path}")
        nav = page.get_by_test_id("stSidebarNav")
        # The router's menu: every page under its title (a page run alone would list file names).
        for other in PAGES:
            expect(nav.get_by_text(other.title, exact=True)).to_be_visible(timeout=60_000)
        expect(page.get_by_role("heading", name=spec.heading, exact=True).first).to_be_visible(timeout=60_000)
        # The sidebar the router draws on every page (the active corpus).
        expect(page.get_by_test_id("stSidebarUserContent")).to_contain_text("corpus", ignore_case=True)
        assert page.title() == "Tokenizer Playground" or spec.title in page.title()
        assert page.console_errors == []
