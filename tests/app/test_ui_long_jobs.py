"""Long recomputations run under a progress bar with Cancel (ui.widgets.cancel.run_job): a job the
user cancelled is not started again by the next rerun on its own, the page says so and offers to
start it again, and then it runs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from ui import cache


def _paste(at: AppTest, text: str) -> AppTest:
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(text).run()
    return ok(at.button(key="corpus_use_paste").click().run())


def test_cancelled_statistics_wait_for_the_user_then_run():
    at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), "quendrify zorblux " * 50)
    key = at.session_state["state_active_corpus_key"]
    assert any(m.label == "Distinct words" for m in at.metric)
    cache._registry()["corpus-stats"][1].pop((key,), None)  # as if never counted on this server
    at.session_state["tp_cancelled_jobs"] = {f"stats:{key}"}  # what the Cancel button's callback leaves
    ok(at.run())
    assert any("was cancelled" in i.value for i in at.info)
    assert not any(m.label == "Distinct words" for m in at.metric)  # not counted behind the user's back
    ok(at.run())
    assert not any(m.label == "Distinct words" for m in at.metric)  # nor on the next rerun
    restart = next(b for b in at.button if b.label.endswith("start again"))
    ok(restart.click().run())
    assert {m.label: m.value for m in at.metric}["Distinct words"] == "2"


def test_a_job_the_user_did_not_cancel_runs_and_its_result_is_kept():
    at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), "plimwhistle " * 30)
    key = at.session_state["state_active_corpus_key"]
    assert cache.CORPUS_STATS.get((key,)) is not None
    assert not any("was cancelled" in i.value for i in at.info)
