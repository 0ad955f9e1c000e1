"""The BPE page counts a corpus once per training (and once between trainings that count alike), and a
run the server dropped is trained again with progress and a message, never silently."""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

import tokenizer_core.bpe.trainer as bpe_trainer
import tokenizer_core.text.counting as counting
import tokenizer_core.training as training
import tokenizer_core.wordpiece.bert as bert
from tests._pages import APP, TIMEOUT, ok
from tokenizer_core.corpus.loading import corpus_from_text, load_sample
from ui import cache
from ui.merges.run import RunFacts
from ui.merges.settings import MergeSettings
from ui.merges.training import counting_for, train_run

PAGE = "pages/merges.py"


@pytest.fixture
def count_calls(monkeypatch) -> list[int]:
    """Every call of ``count_words``, wherever a trainer or the page imported it from."""
    calls: list[int] = []
    real = counting.count_words

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    for module in (counting, training, bpe_trainer, bert):
        monkeypatch.setattr(module, "count_words", counted, raising=False)  # some import it when they run
    return calls


@pytest.mark.parametrize("settings", [
    MergeSettings(budget=3),  # a small corpus: the teaching table's words come from the same counts
    MergeSettings(budget=3, level="byte"),
    MergeSettings(algorithm="wordpiece", budget=3),
], ids=["bpe", "bytes", "wordpiece"])
def test_a_training_counts_the_corpus_once(count_calls, settings):
    run = train_run(load_sample("hf-course-hug-pug"), settings)
    assert len(count_calls) == 1 and run.words is not None and run.num_steps == 3


def test_counts_handed_in_are_not_counted_again_and_give_the_same_run(count_calls):
    corpus = load_sample("sennrich-low-lower-newest-widest")
    settings = MergeSettings(budget=6, tie_break="first")
    counts = counting_for(settings).count(corpus.lines())
    before = Counter(counts)
    assert len(count_calls) == 1
    handed = train_run(corpus, settings, counts=counts)
    assert len(count_calls) == 1 and counts == before  # shared counts are never changed
    own = train_run(corpus, settings)
    assert [handed.step_info(k) for k in range(1, 7)] == [own.step_info(k) for k in range(1, 7)]
    assert (handed.words, handed.top_words) == (own.words, own.top_words)


def test_counting_key_names_the_stages_not_the_budget():
    assert counting_for(MergeSettings(budget=3)).key == counting_for(MergeSettings(budget=9, min_frequency=2)).key
    assert counting_for(MergeSettings(budget=3)).key != counting_for(MergeSettings(budget=3, lowercase=True)).key
    assert counting_for(MergeSettings(budget=3)).key != counting_for(MergeSettings(algorithm="wordpiece")).key


def test_a_run_names_no_corpus():
    # A run is shared by every session whose corpus has the same content, whatever its name.
    run = train_run(corpus_from_text("hug pug", name="private name"), MergeSettings(budget=1))
    assert "corpus_name" not in RunFacts.__dataclass_fields__ and not hasattr(run, "corpus_name")


def _page_with_text(text: str):
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(text).run()
    ok(at.button(key="corpus_use_paste").click().run())
    return ok(at.switch_page(PAGE).run())


def test_the_page_counts_once_for_trainings_that_count_alike(count_calls):
    at = _page_with_text("zyx wvu zyx tsr zyx wvu qpo " * 5)  # text no other test trains on
    ok(at.number_input(key="merges_budget").set_value(2).run())
    ok(at.button(key="merges_train").click().run())
    assert len(count_calls) == 1
    ok(at.number_input(key="merges_budget").set_value(4).run())
    at = ok(at.button(key="merges_train").click().run())
    assert len(count_calls) == 1 and at.session_state["merges_trained"][1].budget == 4
    ok(at.checkbox(key="merges_lowercase").check().run())
    ok(at.button(key="merges_train").click().run())
    assert len(count_calls) == 2  # lowercasing counts other words


def test_a_dropped_run_is_trained_again_visibly_and_keeps_its_step(monkeypatch):
    import ui.merges.cache as merges_cache

    trained = []
    real = merges_cache.train_run
    monkeypatch.setattr(merges_cache, "train_run", lambda *a, **k: trained.append(1) or real(*a, **k))
    at = _page_with_text("abab cdcd abab efef abab cdcd " * 4)
    ok(at.number_input(key="merges_budget").set_value(3).run())
    at = ok(at.button(key="merges_train").click().run())
    ok(at.number_input(key="merges_jump").set_value(2).run())
    assert len(trained) == 1
    at = ok(at.run())  # an ordinary rerun reads the run back
    assert len(trained) == 1 and not any("dropped" in i.value for i in at.info)
    for i in range(cache.MERGE_RUNS.max_entries):  # eight newer runs push it out of the server's table
        cache.MERGE_RUNS.put(("another corpus", i), object())
    at = ok(at.run())
    assert len(trained) == 2
    assert any("dropped this run" in i.value and "trained again" in i.value for i in at.info)
    assert at.session_state["merges_step"] == 2  # the same run, so the same step
    at = ok(at.run())
    assert len(trained) == 2 and not any("dropped" in i.value for i in at.info)


def test_cancel_while_a_dropped_run_trains_again_stops_showing_it():
    def script():
        import streamlit as st

        from ui.merges import state as ms
        from ui.merges.settings import MergeSettings

        if st.button("start", key="t_start"):
            st.session_state[ms.TRAINED] = ("corpus-x", MergeSettings(budget=2))
            st.session_state[ms.SETTINGS_OPEN] = False
        st.button("cancel", key="t_cancel", on_click=ms.forget_run)
        st.text(f"{ms.trained() is None}|{st.session_state.get(ms.SETTINGS_OPEN)}")

    at = AppTest.from_function(script).run()
    at.button(key="t_start").click().run()
    assert at.text[0].value == "False|False"
    at.button(key="t_cancel").click().run()
    assert at.text[0].value == "True|True"
