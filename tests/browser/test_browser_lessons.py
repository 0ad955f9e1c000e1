"""The Lessons page in Chromium on a real ``streamlit run``: every built-in lesson walked to its end
with the keys (N and →, then P and ←), the address following each step, and a link to a step.

The walks share one tab: each picks its lesson in the page's own selector, as a teacher does in
class, instead of loading the whole app again (a page load is 3 CPU-seconds of Chromium; eleven of
them were a fifth of this file's time).
"""

from __future__ import annotations

import re

import pytest

from tokenizer_core.lessons import BUILTIN_IDS, builtin_lessons

pytestmark = pytest.mark.browser
LESSONS = builtin_lessons()


def wait_idle(page) -> None:
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=90_000)


def step_heading(page, lesson_id: str, index: int):
    title = LESSONS[lesson_id].steps[index].title
    return page.get_by_role("heading", name=f"{index + 1}. {title}", exact=True)


def open_lesson(page, base: str, lesson_id: str, step: int | None = None) -> None:
    from playwright.sync_api import expect

    page.goto(f"{base}/lessons?lesson={lesson_id}" + (f"&step={step}" if step else ""))
    expect(step_heading(page, lesson_id, (step or 1) - 1)).to_be_visible(timeout=90_000)
    # The step controls' script is mounted (it marks the toolbar with the step): keys now reach it.
    expect(page.locator(".tp-stepper[data-step]")).to_have_count(1, timeout=60_000)
    wait_idle(page)


@pytest.fixture(scope="module")
def lessons_tab(streamlit_server, browser_context):
    """One tab for the module's walks, kept open from test to test (see tests/conftest.py's
    ``keep_page``), with ``page.console_errors`` as a fresh page has."""
    from tests.conftest import keep_page

    with keep_page(browser_context) as page:
        yield page


def pick_lesson(page, base: str, lesson_id: str) -> None:
    """Open ``lesson_id`` at its first step: by the address the first time, then in the page's
    selector (a rerun, the same session)."""
    from playwright.sync_api import expect

    if "/lessons" not in page.url:
        open_lesson(page, base, lesson_id)
        return
    wait_idle(page)
    picker = page.locator(".st-key-lessons_lesson input")
    picker.click()
    picker.fill(LESSONS[lesson_id].title)
    page.get_by_role("option", name=LESSONS[lesson_id].title, exact=True).click()
    picker.blur()  # keys typed into the selector stay there (the stepper ignores keys in a field)
    expect(step_heading(page, lesson_id, 0)).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(rf"[?&]lesson={re.escape(lesson_id)}(&|$)"), timeout=30_000)
    expect(page.locator(".tp-stepper[data-step='0']")).to_have_count(1, timeout=60_000)
    wait_idle(page)


@pytest.mark.parametrize("lesson_id", BUILTIN_IDS)
def test_walk_every_lesson_to_its_end_with_the_keys(lesson_id, streamlit_server, lessons_tab):
    from playwright.sync_api import expect

    page = lessons_tab
    pick_lesson(page, streamlit_server, lesson_id)
    steps = len(LESSONS[lesson_id].steps)
    for index in range(1, steps):
        page.keyboard.press("n" if index % 2 else "ArrowRight")
        expect(step_heading(page, lesson_id, index)).to_be_visible(timeout=60_000)
        expect(page).to_have_url(re.compile(rf"[?&]step={index + 1}(&|$)"), timeout=30_000)
        expect(page.get_by_text(f"Step {index + 1} of {steps}", exact=True)).to_be_visible()
    expect(page.locator(".tp-step-next")).to_be_disabled()
    if steps > 1:
        page.keyboard.press("p")
        expect(step_heading(page, lesson_id, steps - 2)).to_be_visible(timeout=60_000)
        page.keyboard.press("ArrowRight")
        expect(step_heading(page, lesson_id, steps - 1)).to_be_visible(timeout=60_000)
        if steps > 2:
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowLeft")
            expect(step_heading(page, lesson_id, steps - 3)).to_be_visible(timeout=60_000)
            # A lesson's address always names its step, step 1 too (issue 39: it never drops it).
            expect(page).to_have_url(re.compile(rf"[?&]step={steps - 2}(&|$)"), timeout=30_000)
    wait_idle(page)
    assert not page.get_by_test_id("stException").count()
    assert page.console_errors == []


def test_a_link_opens_its_step_and_a_reload_stays_there(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    open_lesson(page, streamlit_server, "hf-course-unigram", step=2)
    expect(page.get_by_test_id("stAlertContentSuccess").first).to_contain_text("the engine agrees")
    page.keyboard.press("n")
    expect(step_heading(page, "hf-course-unigram", 2)).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(r"step=3"), timeout=30_000)
    page.reload()
    expect(step_heading(page, "hf-course-unigram", 2)).to_be_visible(timeout=90_000)
    assert page.console_errors == []
