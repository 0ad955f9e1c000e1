"""The Compare page stays fast on reruns: only the open tab is computed, each robustness probe is
encoded once per tokenizer (and never again on a rerun), and another user's tokenizer of the same
kind, size and name never lends this user its corpus metrics."""

from __future__ import annotations

import random
import uuid
from collections import Counter

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from tokenizer_core.analysis.compare import compare_rows, robustness_examples
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from ui.compare import corpus_metrics, probes, views
from ui.compare.corpus_metrics import corpus_head
from ui.compare.page import TAB
from ui.tokenizers.add import Algorithm, TrainRequest

PAGE = "pages/compare.py"


def private_text(word: str) -> str:
    """A text only this test writes (so what is built on it is new to the server): ``word`` and made-up
    words drawn from it, varied enough for a 300-token BPE to reach its full size."""
    rng = random.Random(word)
    syllables = ["ka", "lo", "mi", "tra", "zen", "qu", "ori", "ble", "st", "an", "ing", "er", "pho", "vi", "ux", "dre"]
    return "".join(" ".join([word, *("".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(8))]) + "\n"
                   for _ in range(300))


def paste_corpus(at: AppTest, text: str) -> AppTest:
    """Paste ``text`` on the Corpus page, with the default name, and use it."""
    at = ok(at.switch_page("pages/corpus.py").run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(text).run()
    return ok(at.button(key="corpus_use_paste").click().run())


def fresh_session(text: str) -> AppTest:
    return paste_corpus(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()), text)


def show(at: AppTest, tab: str) -> AppTest:
    at.session_state[TAB] = tab
    return ok(at.run())


def test_only_the_open_tab_is_computed(monkeypatch):
    calls: Counter[str] = Counter()

    def counting(name, real):  # noqa: ANN001, ANN202
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            calls[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(probes, "fertility_by_language", counting("languages", probes.fertility_by_language))
    monkeypatch.setattr(probes, "_encode_probes", counting("robustness", probes._encode_probes))
    monkeypatch.setattr(views, "compare_rows", counting("text metrics", views.compare_rows))
    monkeypatch.setattr(corpus_metrics, "compare_rows", counting("corpus metrics", corpus_metrics.compare_rows))
    at = ok(fresh_session(private_text("quibbleflux" + uuid.uuid4().hex[:6])).switch_page(PAGE).run())
    assert any(m.value.startswith("Tokens:") for m in at.markdown)  # the open tab: Side by side
    assert calls == Counter(), calls  # a new corpus' baselines, yet nothing of the other tabs ran
    # the side-by-side view's own table (the graphemes cut) only: no metrics table, no chart
    assert not [d for d in at.dataframe if "graphemes cut (× tokens)" not in d.value.columns]
    assert not at.get("plotly_chart")
    at = show(at, "Languages")
    assert calls["languages"] >= 3 and set(calls) == {"languages"}, calls  # the three new baselines at least
    assert at.get("plotly_chart")
    at = show(at, "Metrics")
    assert calls["corpus metrics"] >= 3 and calls["text metrics"] == 1, calls
    assert at.number_input(key="compare_d_model").value == 768


def test_probes_are_encoded_once_per_tokenizer(monkeypatch):
    texts = {text for _, text in robustness_examples()}
    encoded: Counter[tuple[int, str]] = Counter()
    real = Tokenizer.encode

    def counting(self, text, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if text in texts:
            encoded[id(self), text] += 1
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "encode", counting)
    at = fresh_session(private_text("snorkelwhump" + uuid.uuid4().hex[:6]))
    at = show(ok(at.switch_page(PAGE).run()), "Robustness")
    # The new corpus' three baselines were encoded, each probe once (the table and the chips share it).
    assert len(encoded) >= 3 * len(texts) and set(encoded.values()) == {1}, encoded
    before = sum(encoded.values())
    at = ok(at.toggle[0].set_value(not at.toggle[0].value).run())  # an ordinary click: the markers
    at = ok(at.multiselect(key="compare_granularities").set_value(["char"]).run())
    assert sum(encoded.values()) == before  # reruns encode nothing again
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["probe", "char", "gpt2", "cl100k_base"]
    assert len(frame) == len(texts)


def _own_tokenizer(text: str) -> Tokenizer:
    request = TrainRequest(Algorithm.BPE_CHARS, 300)
    return train(request.trainer, text.splitlines(keepends=True), options=request.options())


def _corpus_tokens(at: AppTest) -> dict[str, int]:
    at.multiselect(key="compare_granularities").set_value([]).run()
    own = [label for label in at.multiselect(key="compare_shelf").options if "trained here" in label]
    assert len(own) == 1, own
    at = show(ok(at.multiselect(key="compare_shelf").set_value(own).run()), "Metrics")
    on_corpus = at.dataframe[1].value
    return dict(zip(on_corpus["name"], on_corpus["tokens"]))


def test_each_user_gets_the_corpus_metrics_of_their_own_tokenizer():
    # Two users paste different private texts, train the same kind and size with the default name,
    # then measure on the same corpus (both texts): equal names, different tokenizers.
    texts = [private_text("zorbluxian" + uuid.uuid4().hex[:4]), private_text("plimwhistle" + uuid.uuid4().hex[:4])]
    sessions = []
    for text in texts:
        at = ok(fresh_session(text).switch_page(PAGE).run())
        at.multiselect(key="compare_algorithms").set_value([Algorithm.BPE_CHARS.value]).run()
        at.number_input(key="compare_vocab_size").set_value(300).run()
        ok(at.button(key="compare_train").click().run())
        sessions.append(ok(paste_corpus(at, "".join(texts)).switch_page(PAGE).run()))
    lines = corpus_head(Corpus("both", ("".join(texts),)))
    expected = [compare_rows([("", _own_tokenizer(text))], lines)[0].tokens for text in texts]
    assert expected[0] != expected[1]  # else the test could not tell them apart
    assert [_own_tokenizer(text).vocab_size for text in texts] == [300, 300]  # the same size, as shown
    got = [_corpus_tokens(at) for at in sessions]
    assert [list(g) for g in got] == [["BPE on characters 300 · trained here"]] * 2
    assert [next(iter(g.values())) for g in got] == expected
