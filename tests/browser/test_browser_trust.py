"""What a teacher sets up is what a student gets (issue 39), in Chromium against a real server:
a page keeps its setup through other pages and a reload, and the share link is the view on screen."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser


def _query(page) -> dict[str, list[str]]:  # noqa: ANN001 (a Playwright page)
    return parse_qs(urlparse(page.url).query)


def _nav(page, title: str) -> None:  # noqa: ANN001
    page.locator("[data-testid='stSidebarNav'] a", has_text=title).first.click()


def test_compare_keeps_its_setup_through_another_page_and_a_reload(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/compare")
    wait_idle(page)
    box = page.get_by_role("textbox", name="Text to tokenize")
    box.fill("hello round trip")
    box.press("Control+Enter")
    page.wait_for_function("() => location.search.includes('text=hello+round+trip')", timeout=60_000)
    page.get_by_role("tab", name="Metrics", exact=True).click()
    page.wait_for_function("() => location.search.includes('compare_tab=Metrics')", timeout=60_000)
    _nav(page, "Batch")
    page.wait_for_function("() => location.pathname.endsWith('/batch')", timeout=60_000)
    wait_idle(page)
    _nav(page, "Compare")
    page.wait_for_function("() => location.pathname.endsWith('/compare')", timeout=60_000)
    for reload in (False, True):
        if reload:
            page.reload()
        wait_idle(page)
        expect(page.get_by_role("textbox", name="Text to tokenize")).to_have_value("hello round trip", timeout=60_000)
        expect(page.get_by_role("tab", name="Metrics", exact=True)).to_have_attribute("aria-selected", "true",
                                                                                    timeout=60_000)
        page.wait_for_function("() => location.search.includes('compare_tab=Metrics')", timeout=60_000)
        assert _query(page)["text"] == ["hello round trip"]
    assert page.console_errors == []


def _step_heading(page):  # noqa: ANN001
    import re

    return page.get_by_role("heading", name=re.compile(r"^Step [\d,]+ of 300"))


def _shared_link(page) -> str:  # noqa: ANN001
    """Open the sidebar's "Share this view" popover and read the link it offers."""
    from playwright.sync_api import expect

    page.get_by_role("button", name="Share this view").click()
    code = page.locator("[data-testid='stPopoverBody'] code")
    expect(code).to_contain_text("http", timeout=60_000)
    wait_idle(page)
    return code.inner_text().strip()


def test_the_bpe_share_link_after_ten_next_clicks_opens_that_step_for_a_new_user(streamlit_server, browser):
    from playwright.sync_api import expect

    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    teacher.goto(f"{streamlit_server}/merges?step=120&n=300")
    expect(_step_heading(teacher)).to_have_text("Step 120 of 300", timeout=90_000)
    wait_idle(teacher)
    for n in range(121, 131):  # ten clicks, each waited for (the page is not under test for speed here)
        teacher.locator(".tp-step-next").click()
        expect(_step_heading(teacher)).to_have_text(f"Step {n} of 300", timeout=30_000)
    teacher.wait_for_function("() => location.search.includes('step=130')", timeout=30_000)
    link = _shared_link(teacher)
    assert parse_qs(urlparse(link).query)["step"] == ["130"], link
    student = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    try:
        student.goto(link.replace(urlparse(link).netloc, urlparse(streamlit_server).netloc))
        expect(_step_heading(student)).to_have_text("Step 130 of 300", timeout=90_000)
    finally:
        student.context.close()
        teacher.context.close()


@pytest.mark.parametrize(("path", "marker", "local"), [
    ("lessons?lesson=bpe-aaabdaaabac&step=1", "Step 1 of", "1"),  # the lesson's controls count from 0
    ("merges?step=1&n=300", "Step 1 of 300", "2"),
], ids=["lesson", "bpe"])
def test_the_first_key_press_after_the_page_opens_counts(streamlit_server, browser, path, marker, local):
    """N pressed as soon as the page's text shows (before the step controls' script has run) moves
    one step, and the address never drops the step it opened on."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    seen: list[str] = []
    page.on("framenavigated", lambda frame: seen.append(frame.url) if frame == page.main_frame else None)
    try:
        page.goto(f"{streamlit_server}/{path}")
        page.get_by_text(marker).first.wait_for(timeout=90_000)
        page.keyboard.press("n")
        page.wait_for_function("() => location.search.includes('step=2')", timeout=60_000)
        wait_idle(page)
        assert page.evaluate("document.querySelector('.tp-stepper').dataset.step") == local
        history = [url for url in seen + [page.url] if "step=" not in url]
        assert history == [], history  # the address always named a step
    finally:
        context.close()


_CHART_GEOMETRY = """() => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map((c) => {
  const frame = c.querySelector("g.mark-group.role-frame path.background");
  return { height: c.getBoundingClientRect().height, plot: frame ? frame.getBoundingClientRect().height : 0,
           labels: [...c.querySelectorAll("g.role-axis-label text")].map((t) => t.textContent) };
})"""


@pytest.mark.parametrize(("lesson", "step"), [("bpe-aaabdaaabac", 3), ("vocab-size-tradeoff", 2)])
def test_lesson_charts_keep_their_plot_area_in_presenter_mode(streamlit_server, browser, lesson, step):
    """Presenter mode's larger text never squeezes the plot (it grows with the text), counts are
    labelled with whole numbers, and the step's figure starts on the first screen at 1280x720."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(f"{streamlit_server}/lessons?lesson={lesson}&step={step}&present=1")
        page.wait_for_selector("[data-testid='stVegaLiteChart'] g.role-axis-label text", timeout=90_000)
        wait_idle(page)
        charts = page.evaluate(_CHART_GEOMETRY)
        assert charts, "no chart drawn"
        for chart in charts:
            assert chart["plot"] >= 150, chart  # was ~20 px when the chart kept 280 px for 1.5x text
            numbers = [t.replace(",", "") for t in chart["labels"] if t.replace(",", "").replace(".", "").isdigit()]
            assert numbers and all("." not in t for t in numbers), chart["labels"]  # no 0.2, 0.4 ... ticks
        figure_top = page.locator("[data-testid='stVegaLiteChart'], .tp-chip").first.bounding_box()["y"]
        assert figure_top < 720, figure_top
    finally:
        context.close()


def test_an_import_is_named_from_its_files_clears_the_uploader_and_can_be_renamed(streamlit_server, browser_page,
                                                                                  tmp_path):
    import json
    import re

    from playwright.sync_api import expect

    from tokenizer_core.io.references import load_reference

    model = tmp_path / "tokenizer.json"
    model.write_text(json.dumps(load_reference("gpt2").to_hf_json()), encoding="utf-8")
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"tokenizer_class": "GPT2TokenizerFast"}), encoding="utf-8")
    page = browser_page
    page.goto(f"{streamlit_server}/tokenizers")
    expect(page.get_by_role("heading", name="Tokenizers", exact=True)).to_be_visible(timeout=90_000)
    wait_idle(page)
    page.get_by_text("Add a tokenizer to the shelf").click()
    page.get_by_role("tab", name="Upload a file").click()
    uploader = page.locator(".st-key-tokenizers_upload")
    expect(uploader.get_by_test_id("stFileUploaderDropzone")).to_be_visible(timeout=30_000)
    uploader.locator("input[type=file]").set_input_files([str(model), str(config)])
    # Both files listed first: a loaded machine takes a while to upload them and run the page again.
    expect(uploader.get_by_test_id("stFileChip")).to_have_count(2, timeout=90_000)
    importer = page.locator(".st-key-tokenizers_import button")
    expect(importer).to_be_enabled(timeout=90_000)
    importer.click()
    picker = page.get_by_role("combobox", name="Tokenizer")
    expect(picker).to_have_value("GPT2 · BPE 50,257 · imported", timeout=90_000)
    # The uploader starts empty again: the next Import cannot re-import the last file by accident.
    expect(uploader.get_by_test_id("stFileChip")).to_have_count(0)
    expect(importer).to_be_disabled()
    page.get_by_role("button", name="Rename").first.click()
    box = page.get_by_role("textbox", name="New name")
    box.fill("<b>my</b> GPT-2")
    page.locator("[data-testid='stPopoverBody']").get_by_role("button", name="Rename").click()
    expect(picker).to_have_value(re.compile(r"^<b>my</b> GPT-2 · imported"), timeout=60_000)
    assert page.locator("b", has_text="my").count() == 0  # the name is text, never markup
    assert page.console_errors == []
