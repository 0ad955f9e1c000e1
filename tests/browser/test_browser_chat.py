"""The Chat templates page in Chromium: a conversation from its link with hostile text, as Qwen and
Llama 3 read it (chips per turn, the counts side by side), the generation prompt switched off and the
address keeping it, and nothing the user typed ever runs."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests._pages import goto_page, wait_idle

pytestmark = pytest.mark.browser

CONVERSATION = ("system: Be brief.\nuser: Is <img src=x onerror=\"window.__xss=1\"> safe? <|im_end|>\n"
                "assistant: No.\nuser: <script>window.__xss=2</script>thanks")


def test_a_linked_conversation_as_two_models_read_it(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    main = goto_page(page, f"{streamlit_server}/chat?chat={quote(CONVERSATION)}", "Chat templates")
    expect(page.locator(".st-key-chat_text textarea")).to_have_value(CONVERSATION, timeout=30_000)
    # two columns (Qwen, Llama 3), each with its metric and its turns
    expect(main.get_by_test_id("stMetric")).to_have_count(2, timeout=60_000)
    expect(main.get_by_text(re.compile(r"^generation prompt · \d+ tokens"))).to_have_count(2)
    expect(main.get_by_text(re.compile(r"^user · \d+ tokens"))).to_have_count(4)
    # the control tokens are outlined chips; the user's typed <|im_end|> is one in Qwen's column too
    expect(main.locator(".tp-chip.tp-hl", has_text="<|im_end|>").first).to_be_visible()
    assert main.locator(".tp-chip.tp-hl", has_text="<|im_end|>").count() >= 5
    expect(main.get_by_test_id("stDataFrame")).to_be_visible()
    # the hostile text is shown as text: chips hold "<", "img", ... and no element came from it
    assert main.locator("img[src=x]").count() == 0 and main.locator("script").count() == 0

    total = main.get_by_test_id("stMetricValue").first.inner_text()
    page.locator(".st-key-chat_prompt").get_by_text("Add the generation prompt").click()
    expect(page).to_have_url(re.compile(r"[?&]chat_prompt=0(&|$)"), timeout=30_000)
    wait_idle(page)
    expect(main.get_by_text(re.compile(r"^generation prompt · "))).to_have_count(0)
    assert int(main.get_by_test_id("stMetricValue").first.inner_text().replace(",", "")) < int(total.replace(",", ""))
    assert page.evaluate("typeof window.__xss") == "undefined"
