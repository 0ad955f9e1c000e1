"""The Batch page in Chromium: hostile rows from ``?text=``, the controls, every tab, a download."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests._pages import wait_idle

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
