"""Presenter mode as a slide mode, in Chromium at projector sizes and in both themes: entered and left
with the mouse (the sidebar switch, the bar's Exit) and with keys (F, Esc, 1-6), pages switched from
the bar, and the thing each page teaches inside the first screen."""

from __future__ import annotations

import re

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1024, 768)]
SCHEMES = ["light", "dark"]
# Every size with every theme, each pair walked once: the mouse walk takes two pairs and the keys
# walk the other two (the walks are the same whatever the pair; walking each one four times cost
# more than a minute of the test command).
MOUSE_CASES = [((1280, 720), "light"), ((1024, 768), "dark")]
KEY_CASES = [((1280, 720), "dark"), ((1024, 768), "light")]
_case_id = lambda case: f"{case[0][0]}x{case[0][1]}-{case[1]}"  # noqa: E731
BAR = ".st-key-display_presenter_bar"
PRESENT = re.compile(r"[?&]present=1\b")


def _open(page, url: str, size, scheme: str = "light") -> None:
    from playwright.sync_api import expect

    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.emulate_media(color_scheme=scheme)
    page.goto(url)
    wait_idle(page)
    expect(page.locator("[data-testid=stMain] h1").first).to_be_visible(timeout=120_000)
    wait_idle(page)


def _heading(page, name: str):
    return page.locator("[data-testid=stMain] h1").filter(has_text=re.compile(f"^{re.escape(name)}$"))


INSIDE_JS = """(sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth; }"""


def _settle_inside(page, selector: str) -> None:
    """Wait (a while) for ``selector`` to lie inside the first screen: a rerun may still be laying the
    page out; whether it got there is asserted by the caller."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(INSIDE_JS, arg=selector, timeout=20_000)
    except PlaywrightTimeout:
        pass


def _inside_first_screen(page, locator, size) -> dict:
    box = locator.bounding_box()
    assert box is not None
    assert 0 <= box["y"] and box["y"] + box["height"] <= size[1], box
    assert 0 <= box["x"] and box["x"] + box["width"] <= size[0], box
    return box


SETTLED_JS = """(sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect(); return r.top < 30 && Math.abs(window.innerWidth - r.right) < 40; }"""


def _text_box(locator) -> dict:
    """The box of an element's text (a heading's box spans the whole width)."""
    return locator.evaluate("""e => { const r = document.createRange(); r.selectNodeContents(e);
      const b = r.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height}; }""")


def _overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def _check_presenting(page, size, title: str) -> None:
    """The bar on screen, clear of the page's title; the sidebar gone; the address says so."""
    from playwright.sync_api import expect

    bar = page.locator(BAR)
    expect(bar).to_be_visible(timeout=60_000)
    expect(_heading(page, title)).to_be_visible(timeout=60_000)
    expect(page).to_have_url(PRESENT)
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    wait_idle(page)
    # Settled at the top right (while the sidebar folds, the page is laid out anew).
    page.wait_for_function(SETTLED_JS, arg=BAR, timeout=30_000)
    bar_box = _inside_first_screen(page, bar, size)
    assert not _overlap(bar_box, _text_box(_heading(page, title)))
    expect(bar.get_by_role("button", name=re.compile("Exit"))).to_be_in_viewport()


def _check_left(page) -> None:
    from playwright.sync_api import expect

    expect(page.locator(BAR)).to_have_count(0, timeout=60_000)
    expect(page).not_to_have_url(PRESENT)
    expect(page.get_by_test_id("stSidebar")).to_be_in_viewport()  # the sidebar is back, open


def _focus_page(page) -> None:
    """Click the page's title (keys go to the page, not a field), once the key listener is there."""
    page.wait_for_function("() => !!(window.__tpPresenterKeys && window.__tpPresenter)", timeout=30_000)
    page.locator("[data-testid=stMain] h1").first.click()


def test_the_two_walks_cover_every_size_with_every_theme():
    assert sorted(MOUSE_CASES + KEY_CASES) == sorted((size, scheme) for size in SIZES for scheme in SCHEMES)


@pytest.mark.parametrize(("size", "scheme"), MOUSE_CASES, ids=map(_case_id, MOUSE_CASES))
def test_presenter_mode_with_the_mouse(streamlit_server, browser_page, size, scheme):
    from playwright.sync_api import expect

    page = browser_page
    _open(page, f"{streamlit_server}/lattice", size, scheme)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Presenter mode", exact=True).click()
    _check_presenting(page, size, "Unigram lattice")
    bg = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    dark = sum(int(v) for v in re.findall(r"\d+", bg)[:3]) < 3 * 90
    assert dark == (scheme == "dark"), bg  # the theme followed the system setting
    # Settings folded, intro hidden: the lattice has the screen.
    expect(page.get_by_text("Model and text")).to_be_visible()
    expect(page.get_by_text(re.compile("scores every way to cut"))).to_have_count(0)

    page.locator(BAR).get_by_role("link", name=re.compile("Batch")).click()
    _check_presenting(page, size, "Batch")
    page.locator(BAR).get_by_role("link", name=re.compile("BPE step-through")).click()
    _check_presenting(page, size, "BPE step-through")

    page.locator(BAR).get_by_role("button", name=re.compile("Exit")).click()
    _check_left(page)
    expect(_heading(page, "BPE step-through")).to_be_visible()
    assert page.console_errors == []


@pytest.mark.parametrize(("size", "scheme"), KEY_CASES, ids=map(_case_id, KEY_CASES))
def test_presenter_mode_with_keys(streamlit_server, browser_page, size, scheme):
    from playwright.sync_api import expect

    page = browser_page
    _open(page, f"{streamlit_server}/lattice", size, scheme)
    _focus_page(page)
    page.keyboard.press("f")
    _check_presenting(page, size, "Unigram lattice")
    page.keyboard.press("6")  # the sixth page of the menu
    _check_presenting(page, size, "Batch")
    page.keyboard.press("1")
    _check_presenting(page, size, "Corpus")
    page.keyboard.press("Escape")
    _check_left(page)
    expect(_heading(page, "Corpus")).to_be_visible()
    # Escape outside presenter mode does nothing; F turns it on and F again off, as the switch would.
    _focus_page(page)
    page.keyboard.press("Escape")
    page.keyboard.press("F")
    _check_presenting(page, size, "Corpus")
    page.keyboard.press("f")
    _check_left(page)
    expect(page.get_by_role("switch", name="Presenter mode")).not_to_be_checked()
    assert page.console_errors == []


def test_keys_typed_into_a_field_stay_in_the_field(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    _open(page, f"{streamlit_server}/lattice?present=1", (1280, 720))
    page.get_by_text("Model and text").click()
    field = page.get_by_role("textbox").first
    field.click()
    field.press("End")
    field.type("f1")
    field.press("Escape")
    expect(page.locator(BAR)).to_be_visible()
    expect(_heading(page, "Unigram lattice")).to_be_visible()
    assert field.input_value().endswith("f1")


# The thing each page teaches: its selector, and the address that opens it.
KEY_ELEMENTS = [
    ("merges?step=1&n=300", "BPE step-through", ".tp-merge"),
    ("compare", "Compare", ".tp-align-block"),
    ("lattice", "Unigram lattice", ".st-key-lattice_graph"),
    ("batch", "Batch", "[data-testid=stMain] [data-testid=stDataFrame]"),
]


def test_the_key_element_of_each_page_is_on_the_first_screen(streamlit_server, browser_page):
    """Each page at both projector sizes: loaded at one, resized to the other (which size a page is
    loaded at alternates, so each size is checked after a fresh load and after a resize)."""
    from playwright.sync_api import expect

    page = browser_page
    for index, (path, title, selector) in enumerate(KEY_ELEMENTS):
        sizes = SIZES if index % 2 == 0 else SIZES[::-1]
        sep = "&" if "?" in path else "?"
        _open(page, f"{streamlit_server}/{path}{sep}present=1", sizes[0])
        target = page.locator(selector).first
        expect(target).to_be_visible(timeout=120_000)
        wait_idle(page)
        for expander in page.locator("[data-testid=stMain] [data-testid=stExpander] details").all():
            assert expander.get_attribute("open") is None, path  # settings folded
        for size in sizes:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            _check_presenting(page, size, title)
            _settle_inside(page, selector)
            box = _inside_first_screen(page, target, size)
            assert not _overlap(box, page.locator(BAR).bounding_box()), (path, size)
            if path.startswith("merges"):
                expect(page.locator(".tp-merge")).to_contain_text("Merge #1")
                _settle_inside(page, ".tp-step-play")
                play = page.locator(".tp-step-play").bounding_box()
                assert play is not None and play["y"] + play["height"] <= size[1], size
    assert page.console_errors == []


def test_the_bpe_page_before_any_training_folds_its_settings_and_shows_train(streamlit_server, browser_page):
    """Presenting a fresh session: the settings start folded and a primary Train is on the first
    screen; pressing it trains, and the merge and the step controls take the first screen. Both
    projector sizes, by resizing the one session (training it twice cost a page load and a training)."""
    from playwright.sync_api import expect

    page = browser_page
    _open(page, f"{streamlit_server}/merges?present=1&corpus=hf-course-hug-pug", SIZES[0])
    settings = page.locator("[data-testid=stMain] [data-testid=stExpander] details").filter(has_text="Settings")
    start = page.locator(".st-key-merges_start").get_by_role("button", name="Train")  # (not its hidden copy)
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        _check_presenting(page, size, "BPE step-through")
        expect(settings).to_have_count(1)
        assert settings.get_attribute("open") is None  # folded
        expect(page.locator(".st-key-merges_train button")).to_be_hidden()  # the one inside the settings
        expect(start).to_be_visible()
        assert start.get_attribute("data-testid") == "stBaseButton-primary"
        _settle_inside(page, ".st-key-merges_start")
        _inside_first_screen(page, start, size)
        expect(page.get_by_text(re.compile(r"^Press Train to learn BPE · characters · 3 merges"))).to_be_in_viewport()

    start.click()
    expect(page.get_by_role("heading", name="Step 0 of 3: every word split into single symbols")).to_be_visible(
        timeout=60_000)
    expect(page.locator(".st-key-merges_start")).to_have_count(0)
    wait_idle(page)
    assert settings.get_attribute("open") is None  # still folded
    for size in SIZES[::-1]:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for selector in (".tp-merge", ".tp-step-next", ".tp-step-play"):
            target = page.locator(selector).first
            expect(target).to_be_visible(timeout=30_000)
            _settle_inside(page, selector)
            _inside_first_screen(page, target, size)
    expect(page.locator(".tp-merge")).to_contain_text("Next merge (#1)")
    assert page.console_errors == []
