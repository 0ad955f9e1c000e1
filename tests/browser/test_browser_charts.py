"""Charts in Chromium, in both themes: every chart of a page is darker in the dark theme than in the
light one, and its SVG text (plotly's and Vega's) reads against the page's background (contrast >= 4.5);
the download buttons under charts and tables give a real PNG, SVG, CSV and JSON."""

from __future__ import annotations

import io
import json

import pytest

from tests._pages import wait_idle
from tests.browser.test_browser_contrast import _luminance, contrast

pytestmark = pytest.mark.browser

#: Charts: plotly's, Vega's, and the quick ones redrawn on every BPE step (markup bars, an SVG drawing).
CHARTS = ".stPlotlyChart, [data-testid='stVegaLiteChart'], .tp-bars, svg.tp-drawing"
#: Text drawn in a chart's SVG, with its fill, where it is visible (hover layers and empty labels skipped).
TEXT_FILLS = """els => els.flatMap(chart => [...chart.querySelectorAll('svg text, .tp-bar-row span:not(.tp-chip)')].filter(t => {
    const s = getComputedStyle(t), r = t.getBoundingClientRect();
    return t.textContent.trim() && s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0
        && parseFloat(s.fillOpacity || '1') > 0 && parseFloat(s.opacity || '1') > 0
        && !t.closest('.hoverlayer');
}).map(t => [t.textContent.trim(), t instanceof SVGElement ? getComputedStyle(t).fill : getComputedStyle(t).color]))"""

#: Where each page's charts are: its address, the tab to open (None: the first) and how many charts it
#: shows (waited for: under load the page may still be adding its second chart when the first is drawn).
PAGES = {
    "lattice": ("/lattice?text=unhugs", None, 1),
    "masks": ("/batch", "Masks", 4),
    "waste": ("/batch", "Waste and throughput", 1),
    "zipf": ("/", None, 1),  # the Corpus page is the landing page
    # The BPE page's pair-count and compression charts: a link with ?step= trains and opens that step.
    "bpe": ("/merges?step=3", None, 2),  # markup bars and an SVG drawing
    # The sweep's charts: ?compare_sweep=1 runs the linked sweep (three sizes, character BPE: quick).
    "sweep": ("/compare?compare_tab=Vocabulary-size+sweep&compare_sweep=1&compare_sweep_algorithm=bpe-chars"
              "&compare_sweep_range=256&compare_sweep_range=1000&compare_sweep_points=3", None, 1),
}


def _mean_luminance(png: bytes) -> float:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    pixels = image.get_flattened_data() if hasattr(image, "get_flattened_data") else image.getdata()
    return sum(pixels) / (image.width * image.height) / 255


def _open(page, base: str, where: str, tab, count: int) -> None:  # noqa: ANN001 (Playwright)
    from playwright.sync_api import expect

    page.goto(base + where)
    wait_idle(page)
    if tab is not None:
        page.get_by_role("tab", name=tab).click()
        wait_idle(page)
    shown = page.locator(CHARTS).filter(visible=True)  # charts of other tabs are in the page, hidden
    expect(shown).to_have_count(count, timeout=90_000)
    for k in range(count):
        expect(shown.nth(k).locator("text, .tp-bar-row").first).to_be_attached(timeout=60_000)


def _measure(page, base: str, scheme: str, where: str, tab, count: int) -> tuple[list[float], list[tuple[str, float]]]:
    """Each visible chart's mean luminance, and every chart text with its contrast on the app background,
    with the browser in ``scheme`` (each call loads the page afresh: a new session, which tells the
    server the browser's theme)."""
    page.emulate_media(color_scheme=scheme)
    _open(page, base, where, tab, count)
    app_bg = page.evaluate("getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert (_luminance(app_bg) < 0.2) == (scheme == "dark")
    charts = page.locator(CHARTS).filter(visible=True).all()
    shades = []
    for chart in charts:
        chart.scroll_into_view_if_needed()
        shades.append(_mean_luminance(chart.screenshot()))
    texts = page.locator(CHARTS).evaluate_all(TEXT_FILLS)
    assert texts, "no chart text found"
    return shades, [(text, contrast(fill, app_bg)) for text, fill in texts]


@pytest.mark.parametrize("name", list(PAGES))
def test_charts_follow_the_theme_and_their_text_reads(streamlit_server, browser_page, name):
    # One tab of the worker's shared context (its scripts compiled once), loaded in each theme in turn.
    where, tab, count = PAGES[name]
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    light, light_text = _measure(page, streamlit_server, "light", where, tab, count)
    dark, dark_text = _measure(page, streamlit_server, "dark", where, tab, count)
    assert len(light) == len(dark) == count
    for i, (a, b) in enumerate(zip(light, dark)):
        assert b < a - 0.2, f"chart {i}: dark {b:.2f} is not darker than light {a:.2f}"
    for scheme, texts in (("light", light_text), ("dark", dark_text)):
        worst = min(texts, key=lambda t: t[1])
        assert worst[1] >= 4.5, f"{scheme}: {worst[0]!r} has contrast {worst[1]:.2f}"


def _download(page, locator) -> bytes:  # noqa: ANN001 (Playwright)
    with page.expect_download(timeout=90_000) as info:
        locator.click()
    path = info.value.path()
    with open(path, "rb") as fh:
        return fh.read()


def _button(page, key: str):  # noqa: ANN001 (Playwright)
    return page.locator(f".st-key-{key} button").filter(visible=True).first


def test_chart_and_table_downloads_are_real_files(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.emulate_media(color_scheme="dark")
    page.goto(streamlit_server + "/batch")
    wait_idle(page)
    expect(_button(page, "batch_grid_csv")).to_be_visible(timeout=90_000)
    csv = _download(page, _button(page, "batch_grid_csv")).decode("utf-8-sig").splitlines()
    assert csv[0].startswith(",0,1") and csv[1].startswith("row 0,")  # rows by positions, with the row names
    assert len(csv) == 4  # the three rows of the default batch
    page.get_by_role("tab", name="Waste and throughput").click()
    wait_idle(page)
    png = _download(page, _button(page, "batch_waste_chart_png"))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5_000
    svg = _download(page, _button(page, "batch_waste_chart_svg")).decode("utf-8")
    assert "<svg" in svg[:400] and "batch size" in svg and "rgb(23, 22, 20)" in svg  # the dark theme's background

    page = page.context.new_page()  # a fresh page per section: nothing left over from the last one
    page.emulate_media(color_scheme="dark")
    _open(page, streamlit_server, "/", None, 1)  # an Altair chart (the Zipf plot)
    expect(_button(page, "corpus_zipf_chart_svg")).to_be_visible()
    svg = _download(page, _button(page, "corpus_zipf_chart_svg")).decode("utf-8")
    assert svg.lstrip().startswith("<svg") and "rank" in svg
    assert _download(page, _button(page, "corpus_zipf_chart_png"))[:4] == b"\x89PNG"

    page = page.context.new_page()
    page.goto(streamlit_server + "/compare?compare_tab=Vocabulary-size%20sweep&compare_sweep_points=3")
    wait_idle(page)
    run = _button(page, "compare_sweep_run")
    expect(run).to_be_visible(timeout=60_000)
    box = run.bounding_box()
    assert box and page.evaluate("e => e.scrollWidth <= e.clientWidth", run.element_handle())  # label not cut
    run.click()
    wait_idle(page)
    expect(_button(page, "compare_sweep_numbers_json")).to_be_visible(timeout=120_000)
    data = json.loads(_download(page, _button(page, "compare_sweep_numbers_json")))
    assert [r["requested_size"] for r in data["rows"]] == data["sizes_asked"] and "knee" in data
    assert all("note" in r for r in data["rows"])
    table = _download(page, _button(page, "compare_sweep_table_csv")).decode("utf-8-sig")
    assert table.splitlines()[0].startswith("vocab_size,requested_size,knee")
    assert len(table.splitlines()) == 1 + len(data["rows"])
    assert not browser_page.console_errors, browser_page.console_errors
