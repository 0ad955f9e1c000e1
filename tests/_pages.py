"""Helpers shared by the page tests: open a page under AppTest (after picking a sample corpus and
putting ``?text=`` in the URL), check it raised nothing, read its HTML blocks; wait for a page in
the browser to finish its run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TIMEOUT = 180


def ok(at: AppTest) -> AppTest:
    """``at``, after checking that its last run raised nothing."""
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(page: str, *, sample: Optional[str] = None, text: Optional[str] = None) -> AppTest:
    """Run the app, make ``sample`` the corpus (when given), set ``?text=``, and switch to ``page``."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    if sample is not None:
        at.radio(key="corpus_source").set_value("sample").run()
        at.selectbox(key="corpus_sample").set_value(sample).run()
        ok(at.button(key="corpus_use_sample").click().run())
    if text is not None:
        at.query_params["text"] = text
    return ok(at.switch_page(page).run())


def html_bodies(at: AppTest) -> str:
    """Every ``st.html`` body of the page, one per line."""
    return "\n".join(h.proto.body for h in at.get("html"))


def wait_idle(page) -> None:  # noqa: ANN001 (a Playwright page)
    """Wait until the Streamlit page in the browser has finished its script run."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=90_000)


def click_until(page, target, outcome, *, tries: int = 3) -> None:  # noqa: ANN001 (Playwright objects)
    """Click ``target`` until ``outcome`` (a locator) is visible. Under load a click can land while a
    run redraws its element and be lost; a click is tried again only once the page is idle (the run
    it may have started has ended) and the outcome is still absent, so nothing is done twice."""
    from playwright.sync_api import expect

    for attempt in range(tries):
        wait_idle(page)
        target.click()
        try:
            expect(outcome.first).to_be_visible(timeout=20_000)
            return
        except AssertionError:
            wait_idle(page)  # a slow run the click did start ends here
            try:
                expect(outcome.first).to_be_visible(timeout=5_000)
                return
            except AssertionError:
                if attempt == tries - 1:
                    raise


LESSONS_PAGE = "pages/lessons.py"


def open_lessons(**params: str) -> AppTest:
    """A new session opening ``/lessons?...`` (a link, a reload, a join link)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    ok(at.run())
    return ok(at.switch_page(LESSONS_PAGE).run())


def lesson_heading(at: AppTest) -> str:
    """The shown step's heading (``3. Second merge: ab → Y``)."""
    return at.subheader[0].value.replace("\\", "")


def goto_page(page, url: str, heading: str):  # noqa: ANN001, ANN201 (Playwright objects)
    """Open ``url`` in the browser tab ``page``, wait for the page's ``heading`` and the end of its
    run; returns the page's main area."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    return page.get_by_test_id("stMain")
