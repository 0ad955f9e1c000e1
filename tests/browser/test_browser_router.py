"""Every page's URL, opened as the very first request of a fresh server, goes through the router.

With a ``pages/`` folder, Streamlit runs a page script on its own until the router has run once
(see ``ui/router.py``); then the page has no navigation titles and no sidebar. Each case here
starts its own server so that the page URL really is the first request it serves (about 6 s a case on
2 cores). Two pages are opened that way; that every page script calls the router first, before
anything else, is checked on the scripts themselves (tests/project/test_architecture.py).
"""

from __future__ import annotations

import pytest

from tests.conftest import running_app
from ui.navigation import PAGES

pytestmark = pytest.mark.browser


#: A step-through page and the newest page: the mechanism is the same line at the top of every page.
FRESH = [p for p in PAGES if p.url_path in ("merges", "chat")]


def test_two_pages_are_opened_on_fresh_servers():
    assert len(FRESH) == 2


@pytest.mark.parametrize("spec", FRESH, ids=[p.url_path for p in FRESH])
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
