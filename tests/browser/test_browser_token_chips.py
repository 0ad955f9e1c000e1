"""Token chips in Chromium tell the truth: a partial-byte token's chip is as wide as its text, the
character it cuts is marked in the text row, neighbouring chips stay apart under a colour-blindness
simulation, chip details are reachable with the keyboard, and nothing is clipped at 1280 and 1024
pixels, trained rows' long names included."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests._pages import wait_idle
from tests.app.test_chip_colours import MIN_DELTA_E, VISIONS, delta_e

pytestmark = pytest.mark.browser

TEXT = "Grüße über 👍🏽 ok, the unhappiness of words"

# Every chip of the aligned view: its box, its text's scroll width, its row and colour, in page order.
CHIPS = """() => [...document.querySelectorAll('.tp-align-block')].flatMap((block, b) =>
  [...block.querySelectorAll('.tp-chip')].map(e => {
    const r = e.getBoundingClientRect();
    return {block: b, row: e.parentElement.style.gridRowStart, left: r.left, width: r.width,
            scroll: e.scrollWidth, text: e.innerText, title: e.title, bg: getComputedStyle(e).backgroundColor};
  }))"""


def _hex(rgb: str) -> str:
    return "#%02X%02X%02X" % tuple(int(x) for x in re.findall(r"\d+", rgb)[:3])


def _open(page, server: str, width: int, query: str = "") -> None:  # noqa: ANN001
    from playwright.sync_api import expect

    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server}/compare?text={quote(TEXT)}{query}")
    expect(page.locator(".tp-align .tp-chip").first).to_be_visible(timeout=90_000)
    wait_idle(page)


def _nothing_clipped(page) -> None:  # noqa: ANN001
    """Every block inside the view's width, every row name whole."""
    right, blocks = page.evaluate("""() => [document.querySelector('.tp-align').getBoundingClientRect().right,
        [...document.querySelectorAll('.tp-align-block')].map(b => b.getBoundingClientRect().right)]""")
    assert max(blocks) <= right + 1, (blocks, right)
    names = page.evaluate("""() => [...document.querySelectorAll('.tp-rowname')].map(e =>
        [e.innerText, e.title, e.scrollWidth, e.clientWidth])""")
    for text, title, scroll, client in names:
        assert text.replace("\n", " ") == title and scroll <= client + 1, (text, title, scroll, client)


@pytest.mark.parametrize("width", [1280, 1024])
def test_partial_byte_tokens_are_drawn_whole_and_apart(streamlit_server, browser_page, width):
    page = browser_page
    _open(page, streamlit_server, width)
    chips = page.evaluate(CHIPS)
    # GPT-2 cuts "ü" after its first byte and the thumbs-up after its third: each chip holds its text.
    for shown in ("·<0xC3>", "<0xBC>", "·<0xF0><0x9F><0x91>", "<0x8D>"):
        found = [c for c in chips if c["text"] == shown]
        assert found, shown
        for c in found:
            assert c["width"] + 0.5 >= c["scroll"] > 0, c
    assert all(c["width"] + 0.5 >= c["scroll"] for c in chips), [c for c in chips if c["width"] + 0.5 < c["scroll"]]
    # The cut is marked against the text: the characters cut inside are underlined, with their bytes.
    titles = page.locator(".tp-ruler.tp-cutchar", has_text="ü").evaluate_all("es => es.map(e => e.title)")
    assert any("C3 BC" in t and "gpt2" in t for t in titles), titles
    assert page.locator(".tp-chip.tp-bytecut", has_text="<0xBC>").count() >= 1
    _nothing_clipped(page)
    # Neighbouring chips of a row keep apart under simulated colour-blindness.
    rows: dict[tuple[int, str], list[dict]] = {}
    for c in chips:
        rows.setdefault((c["block"], c["row"]), []).append(c)
    pairs = 0
    for row in rows.values():
        row.sort(key=lambda c: c["left"])
        for a, b in zip(row, row[1:]):
            ids = [re.match(r"id (\d+)", c["title"]).group(1) for c in (a, b)]
            if ids[0] != ids[1]:
                pairs += 1
                worst = min(delta_e(_hex(a["bg"]), _hex(b["bg"]), v) for v in VISIONS)
                assert worst >= MIN_DELTA_E, (a["text"], b["text"], worst)
    assert pairs > 40
    assert not page.console_errors, page.console_errors


def test_a_chips_details_are_reachable_with_the_keyboard(streamlit_server, browser_page):
    page = browser_page
    _open(page, streamlit_server, 1280)
    first = page.locator(".tp-align .tp-chip").first
    first.focus()
    page.keyboard.press("Tab")
    focused = page.evaluate("""() => { const e = document.activeElement;
        return [e.className, e.title, getComputedStyle(e, '::after').content]; }""")
    assert "tp-chip" in focused[0]
    assert re.match(r"id \d+ · .* · bytes ", focused[1])
    assert focused[2].strip('"') == focused[1]  # focus shows what hover shows


def test_a_trained_wordpiece_row_is_named_whole_and_explained(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    _open(page, streamlit_server, 1024, "&compare_algorithms=wordpiece&compare_vocab_size=4000")
    page.locator(".st-key-compare_train button").first.click()
    expect(page.locator(".tp-rowname", has_text="trained here").first).to_be_visible(timeout=120_000)
    wait_idle(page)
    expect(page.get_by_text(re.compile("favours pairs whose parts are rare"))).to_be_visible(timeout=30_000)
    _nothing_clipped(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    wait_idle(page)
    _nothing_clipped(page)
