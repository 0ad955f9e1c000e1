"""The BPE step-through page in Chromium on a real ``streamlit run``: training, stepping, keys, escaping."""

from __future__ import annotations

import re

import pytest

from tokenizer_core.bpe_train import train_bpe
from tokenizer_core.corpus import load_sample
from tokenizer_core.training import TrainOptions
from ui.tokens import display_text

pytestmark = pytest.mark.browser

HOSTILE = (
    "<script>window.__xss=1</script> <img src=x onerror=\"window.__xss=1\"> hug pug pun\n" * 5
)


def wait_idle(page) -> None:
    """Wait until Streamlit has finished the current run."""
    page.wait_for_selector("[data-testid='stApp']")
    page.wait_for_timeout(300)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90_000)


def open_merges(page, base: str) -> None:
    """Open the app at its root, then the page through the navigation (as a user does)."""
    page.goto(base + "/")
    wait_idle(page)
    page.get_by_role("link", name="BPE step-through").first.click()
    wait_idle(page)
    page.get_by_role("heading", name="BPE step-through").wait_for(timeout=60_000)


def press(page, key: str) -> None:
    page.locator(f".st-key-{key} button").click()
    wait_idle(page)


def banner_chips(page) -> list[str]:
    return page.locator(".tp-merge .tp-chip").all_inner_texts()


def test_train_on_the_default_corpus_and_step_five_merges(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    open_merges(page, streamlit_server)
    press(page, "merges_train")
    expect(page.get_by_role("heading", name=re.compile("^Step 0 of 2,000"))).to_be_visible(timeout=90_000)
    for _ in range(5):
        press(page, "merges_next")
    expect(page.get_by_role("heading", name="Step 5 of 2,000")).to_be_visible()

    # The page's default settings: BPE on characters, whitespace words, 2,000 merges, [UNK] special.
    _, result = train_bpe(load_sample("default").lines(),
                          options=TrainOptions(num_merges=2000, special_tokens=("[UNK]",)))
    rec = result.trace[4]
    assert banner_chips(page) == [display_text(t) for t in (rec.left, rec.right, rec.token)]
    expect(page.get_by_test_id("stMetric").first).to_contain_text(f"{rec.count:,}")
    page.screenshot(path=str(tmp_path / "merges-step5.png"), full_page=True)
    assert (tmp_path / "merges-step5.png").stat().st_size > 10_000

    # Keyboard: N is "next", P is "previous" (Streamlit ignores them while typing in a field).
    page.get_by_role("heading", name="BPE step-through").click()
    page.keyboard.press("n")
    wait_idle(page)
    expect(page.get_by_role("heading", name="Step 6 of 2,000")).to_be_visible()
    page.keyboard.press("p")
    wait_idle(page)
    expect(page.get_by_role("heading", name="Step 5 of 2,000")).to_be_visible()
    assert page.console_errors == []


def test_hostile_tokens_render_as_text(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(streamlit_server + "/")
    wait_idle(page)
    page.get_by_text("Paste text", exact=True).click()
    wait_idle(page)
    area = page.get_by_label("Text", exact=True)
    area.fill(HOSTILE)
    area.press("Control+Enter")
    wait_idle(page)
    page.get_by_role("button", name="Use this text").click()
    wait_idle(page)

    page.get_by_role("link", name="BPE step-through").first.click()
    wait_idle(page)
    page.locator(".st-key-merges_pre_tokenizer").click()
    page.get_by_role("option", name="Split at spaces only").click()
    wait_idle(page)
    press(page, "merges_train")
    press(page, "merges_last")
    text = page.locator(".st-key-merges_text input")
    text.fill('<script>window.__xss=1</script> <img src=x onerror="window.__xss=1">')
    text.press("Enter")
    wait_idle(page)

    # Whole words became tokens: they are shown as chips with their literal text.
    expect(page.locator(".tp-chip", has_text="<script>window.__xss=1</script>").first).to_be_visible()
    expect(page.locator(".tp-chip", has_text="<img").first).to_be_visible()
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0
    assert page.console_errors == []


def test_candidate_chart_of_a_few_pairs_is_readable(streamlit_server, browser_page):
    """Few candidate bars used to be squashed into a line by a legend under the chart."""
    import io

    from PIL import Image

    page = browser_page
    page.goto(streamlit_server + "/")
    wait_idle(page)
    page.get_by_label("Sample", exact=True).click()
    page.get_by_role("option", name="Wikipedia: aaabdaaabac").click()
    wait_idle(page)
    page.get_by_role("button", name="Use this sample").click()
    wait_idle(page)
    page.get_by_role("link", name="BPE step-through").first.click()
    wait_idle(page)
    press(page, "merges_train")
    press(page, "merges_last")  # 4 candidates: the merged pair (count 2) and three pairs seen once
    chart = page.get_by_test_id("stVegaLiteChart").first
    chart.wait_for(timeout=30_000)
    page.wait_for_timeout(800)  # let Vega draw
    image = Image.open(io.BytesIO(chart.screenshot())).convert("RGB")
    merged = (0xD9, 0x48, 0x0F)  # KIND_COLOURS["merged"]
    width, height = image.size
    rows = sum(
        any(max(abs(a - b) for a, b in zip(image.getpixel((x, y)), merged)) < 40 for x in range(0, width, 2))
        for y in range(height)
    )
    assert rows >= 16, f"the merged pair's bar is {rows} px tall"
    legend = page.locator(".tp-legend").first.inner_text()
    assert "merged" in legend and "runner-up" in legend
    assert page.console_errors == []
