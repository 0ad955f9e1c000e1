"""A counts file in Chromium: uploaded through the Corpus page's real file uploader, it becomes the
corpus; a hostile piece (HTML) is shown as the text it is, in the top-pieces grid, and nothing is
injected into the page; the rank-frequency (Zipf) plot draws its marks."""

from __future__ import annotations

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"
COUNTS = ("# tokenizer-playground counts 1\n# model: bpe\n# normalizer: null\n"
          '# pre_tokenizer: {"type": "Whitespace"}\n# files: 1\n'
          f"{HOSTILE}\t90\nthe\t40\nof\t20\nand\t12\nto\t9\n<script>window.__xss=1</script>\t3\nzipf\t1\n")


def test_an_uploaded_counts_file_shows_html_pieces_as_text_and_draws_its_zipf_plot(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(streamlit_server + "/")
    expect(page.get_by_role("heading", name="Active corpus: English prose")).to_be_visible(timeout=90_000)
    wait_idle(page)
    page.get_by_text("Upload files", exact=True).click()
    wait_idle(page)
    box = page.locator(".st-key-corpus_upload")
    expect(box.locator("input[type=file]")).to_be_attached(timeout=30_000)
    wait_idle(page)  # the rerun that drew the uploader is over: a file given now is not lost
    for attempt in range(3):
        box.locator("input[type=file]").set_input_files(
            {"name": "counts.tsv", "mimeType": "text/tab-separated-values", "buffer": COUNTS.encode()})
        try:
            expect(page.get_by_text("counts.tsv is a counts file")).to_be_visible(timeout=30_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
            wait_idle(page)
    page.locator(".st-key-corpus_use_upload button:enabled").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=60_000)
    expect(page.get_by_role("heading", name="Active corpus: counts.tsv")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Counts file · 7 distinct pieces")
    wait_idle(page)

    # The top pieces' grid is drawn (on a canvas: its cells are text by construction).
    grids = page.get_by_test_id("stDataFrame")
    expect(grids).to_have_count(2, timeout=60_000)  # the header's facts, the top pieces
    expect(grids.nth(1).get_by_test_id("data-grid-canvas")).to_be_visible(timeout=60_000)

    # The Zipf plot: a Vega chart whose SVG has one point per piece, and whose tooltip shows the most
    # frequent piece, HTML and all, as text (spaces made visible, as the app shows tokens).
    chart = page.get_by_test_id("stVegaLiteChart")
    expect(chart).to_have_count(1)
    chart.scroll_into_view_if_needed()
    points = chart.locator("svg .mark-symbol path")
    expect(points).to_have_count(7, timeout=60_000)
    expect(chart.locator("svg text", has_text="piece count (log scale)")).to_be_attached()
    tooltip = page.locator("#vg-tooltip-element")
    for attempt in range(3):  # a redraw under the pointer (a late rerun) can drop the hover
        points.first.hover(force=True)
        try:
            expect(tooltip).to_contain_text("<img·src=x·onerror=alert(1)>", timeout=10_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
            page.mouse.move(0, 0)
            wait_idle(page)
    assert tooltip.locator("img").count() == 0

    # Nothing was injected: no element, no script run, no alert.
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert dialogs == []
    assert page.get_by_test_id("stException").count() == 0
    assert page.console_errors == []
