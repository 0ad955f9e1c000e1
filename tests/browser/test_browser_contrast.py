"""Token chips stay readable in the dark theme: their text colour is set with their background, so
the theme's light text never lands on a pastel chip (contrast computed from the rendered page)."""

from __future__ import annotations

import re

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser


def _luminance(rgb: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", rgb)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chips_have_readable_text_in_both_themes(streamlit_server, browser_page, scheme):
    from playwright.sync_api import expect

    page = browser_page
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{streamlit_server}/compare?text=Tokenizers%20split%20unhappiness")
    expect(page.locator(".tp-chip").first).to_be_visible(timeout=60_000)
    wait_idle(page)
    app_bg = page.evaluate("getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert (_luminance(app_bg) < 0.2) == (scheme == "dark")  # the theme followed the system setting
    colours = page.evaluate("""[...document.querySelectorAll('.tp-chip')].slice(0, 60).map(e => {
        const s = getComputedStyle(e); return [s.color, s.backgroundColor]; })""")
    assert colours
    worst = min(contrast(fg, bg) for fg, bg in colours)
    assert worst >= 4.5, worst
