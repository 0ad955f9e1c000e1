"""The Batch page in Chromium: hostile rows from ``?text=``, the controls, every tab, a download."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests._pages import click_until, wait_idle

pytestmark = pytest.mark.browser

ROWS = '<script>window.__xss=1</script> hi\n<img src=x onerror="window.__xss=2">\na longer row of plain text here'



def pick(page, key: str, option: str) -> None:
    page.locator(f".st-key-{key}").get_by_role("combobox").click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def test_batch_page_controls_tabs_and_download(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/batch?text={quote(ROWS)}")
    expect(page.get_by_role("heading", name="Batch", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    expect(page.locator(".st-key-batch_rows textarea")).to_have_value(ROWS, timeout=30_000)
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3", timeout=30_000)  # three rows

    page.locator(".st-key-batch_padding_side").get_by_text("left").click()
    wait_idle(page)
    pick(page, "batch_truncation", "longest_first")
    page.locator(".st-key-batch_max_length input").fill("5")
    page.locator(".st-key-batch_max_length input").press("Enter")
    wait_idle(page)
    expect(page.get_by_text("Overflowing windows follow the row").first).to_be_visible(timeout=30_000)
    pick(page, "batch_template", "BERT  [CLS] A [SEP] B [SEP]")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("needs the token", timeout=30_000)
    pick(page, "batch_template", "GPT-2 (adds nothing)")

    page.get_by_role("tab", name="Masks").click()
    expect(page.get_by_text("causal × padding").first).to_be_attached(timeout=30_000)
    page.get_by_role("tab", name="Waste and throughput").click()
    expect(page.get_by_text("of the positions are padding").first).to_be_visible(timeout=30_000)
    page.get_by_role("tab", name="Export").click()
    with page.expect_download() as info:
        page.locator(".st-key-batch_dl_json button").click()
    saved = tmp_path / "batch.json"
    info.value.save_as(str(saved))
    data = json.loads(saved.read_text())
    assert data["tokens"][0][:1] and "<" in "".join(data["tokens"][0])  # the hostile text, as data
    assert data["padding"]["side"] == "left"
    assert page.evaluate("typeof window.__xss") == "undefined"


def metric(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def fill(page, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input, .st-key-{key} textarea").first
    box.fill(value)
    box.press("Enter")
    wait_idle(page)


def test_the_other_batch_controls(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/batch?text={quote(ROWS)}")
    expect(page.get_by_role("heading", name="Batch", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    expect(metric(page, "Padded length")).to_have_text("16", timeout=30_000)  # GPT-2: 14, 16 and 7 tokens
    fill(page, "batch_multiple", "5")
    expect(metric(page, "Padded length")).to_have_text("20", timeout=30_000)  # 16 rounded up to a multiple of 5
    pick(page, "batch_padding", "max_length")
    fill(page, "batch_pad_length", "22")
    expect(metric(page, "Padded length")).to_have_text("25", timeout=30_000)
    fill(page, "batch_multiple", "0")
    expect(metric(page, "Padded length")).to_have_text("22", timeout=30_000)

    pick(page, "batch_truncation", "longest_first")
    fill(page, "batch_max_length", "6")
    fill(page, "batch_stride", "2")
    expect(metric(page, "Rows")).not_to_have_text("3", timeout=30_000)  # overflow windows became rows
    page.locator(".st-key-batch_overflow").get_by_text("Overflow as rows").click()
    wait_idle(page)
    expect(metric(page, "Rows")).to_have_text("3", timeout=30_000)

    pick(page, "batch_template", "custom")
    fill(page, "batch_single", "<|endoftext|> $A <|endoftext|>")
    expect(page.get_by_text("needs the token").first).to_be_visible(timeout=30_000)  # the pair still says [CLS]
    fill(page, "batch_pair", "<|endoftext|> $A <|endoftext|> $B:1")
    expect(page.get_by_text("needs the token")).to_have_count(0, timeout=30_000)  # GPT-2 has <|endoftext|>: no error
    expect(metric(page, "Rows")).to_have_text("3", timeout=30_000)

    click_until(page, page.get_by_role("tab", name="Masks"), page.locator(".st-key-batch_mask_row"))
    pick(page, "batch_mask_row", "2")
    click_until(page, page.get_by_role("tab", name="Waste and throughput"), page.locator(".st-key-batch_lengths input"))
    fill(page, "batch_lengths", "4, 8")
    expect(page.get_by_text("One batch of 2: padded to 8").first).to_be_visible(timeout=30_000)
    page.locator(".st-key-batch_use_lengths button").click()
    wait_idle(page)
    expect(page.get_by_text("This batch of 3: padded to 6").first).to_be_visible(timeout=30_000)  # its own lengths again
    expect(page.locator(".st-key-batch_lengths input")).to_have_value("")

    page.locator(".st-key-batch_source").get_by_text("Lines of the corpus").click()
    wait_idle(page)
    fill(page, "batch_corpus_rows", "5")
    expect(page.get_by_text("This batch of 5: padded to").first).to_be_visible(timeout=30_000)  # the open tab follows
    page.get_by_role("tab", name="Batch", exact=True).click()  # only the open tab is drawn: the grid's metrics
    expect(metric(page, "Rows")).to_have_text("5", timeout=30_000)
    assert page.evaluate("typeof window.__xss") == "undefined"
