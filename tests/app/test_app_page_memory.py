"""Every page keeps what its user set across visits to other pages: Streamlit forgets the state of
widgets a run does not draw, and :func:`ui.url_state.recall` gives them back (issue 39)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from ui.batch.controls import ROWS
from ui.compare.choices import SHELF
from ui.compare.page import TAB
from ui.compare.text_source import TEXT


def test_compare_keeps_its_text_tab_and_picks_through_other_pages():
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at = ok(at.switch_page("pages/compare.py").run())
    at.text_area(key=TEXT).input("hello round trip").run()
    at.session_state[TAB] = "Metrics"
    picks = [*at.multiselect(key=SHELF).value, "llama3 · reference"]
    at.multiselect(key=SHELF).set_value(picks)
    ok(at.run())
    for page in ("pages/batch.py", "pages/merges.py", "pages/lessons.py"):
        at = ok(at.switch_page(page).run())
        assert TEXT not in at.session_state  # Streamlit forgot the widget: the page must give it back
    at = ok(at.switch_page("pages/compare.py").run())
    assert at.text_area(key=TEXT).value == "hello round trip"
    assert at.session_state[TAB] == "Metrics"
    assert at.multiselect(key=SHELF).value == picks
    assert at.query_params["text"] == "hello round trip"  # the address says the view again
    assert at.query_params[TAB] == "Metrics"


def test_a_link_wins_over_what_the_session_remembers():
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at = ok(at.switch_page("pages/batch.py").run())
    at.text_area(key=ROWS).input("typed rows\nsecond").run()
    at = ok(at.switch_page("pages/compare.py").run())
    at.query_params["text"] = "from a link"
    at = ok(at.switch_page("pages/batch.py").run())
    assert at.text_area(key=ROWS).value == "from a link"
