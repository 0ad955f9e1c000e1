"""SuperBPE on the Tokenizers page under AppTest: its transition is asked only for SuperBPE and kept in
the address, training puts on the shelf exactly what ``train_superbpe`` learns, named with the transition;
a counts file is refused with a reason (SuperBPE's second stage reads whole lines)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from tests.app.test_app_counts import counts_bytes, upload
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.superbpe.trainer import train_superbpe

PAGE = "pages/tokenizers.py"
LINES = list(load_sample("default").lines())[:400]
TRANSITION = "tokenizers_transition"


def open_with_text() -> AppTest:
    """The Tokenizers page with 400 lines of the default corpus pasted as the corpus (seconds to train)."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input("".join(LINES)).run()
    ok(at.button(key="corpus_use_paste").click().run())
    return ok(at.switch_page(PAGE).run())


def shelf(at: AppTest) -> dict[str, object]:
    return {item.name: tok for item, tok in at.session_state["shelf_items"].values()}


def test_training_superbpe_shelves_the_trainers_merges_named_with_the_transition():
    at = open_with_text()
    assert TRANSITION not in {n.key for n in at.number_input}  # BPE on bytes, the default: no transition
    at = ok(at.selectbox(key="tokenizers_algorithm").set_value("superbpe").run())
    assert at.number_input(key=TRANSITION).value == 90  # shown for SuperBPE only, at the paper's 90%
    at.number_input(key="tokenizers_vocab_size").set_value(500).run()
    at = ok(at.number_input(key=TRANSITION).set_value(80).run())
    assert any("begins at 400 of the 500 tokens" in c.value for c in at.caption)
    assert TRANSITION not in at.query_params  # a form: the address names what was trained, not edits
    at = ok(at.button(key="tokenizers_train").click().run())
    assert any("put on the shelf" in s.value for s in at.success), [e.value for e in at.error]
    name = "SuperBPE 500 (transition 80%)"
    assert at.selectbox(key="tokenizers_selected").value == f"{name} · trained here"
    tok = shelf(at)[name]
    corpus = list(at.session_state["state_active_corpus"].lines())
    assert "".join(corpus).split() == "".join(LINES).split()  # the pasted text, trained on as pasted
    expected = train_superbpe(corpus, vocab_size=500, transition=400, special_tokens=("<|endoftext|>",))
    assert tok.model.merges == expected.merges and tok.get_vocab() == expected.vocab
    assert tok.metadata["trainer"] == "superbpe" and tok.metadata["transition"] == 400
    assert tok.metadata["superwords"] == len(expected.superwords()) > 0
    assert {k: at.query_params[k] for k in ("tokenizers_algorithm", "tokenizers_vocab_size", TRANSITION)} == {
        "tokenizers_algorithm": "superbpe", "tokenizers_vocab_size": "500", TRANSITION: "80"}
    # Another algorithm: its own settings, no transition; its training leaves the transition out of the address.
    at = ok(at.selectbox(key="tokenizers_algorithm").set_value("bpe-chars").run())
    assert TRANSITION not in {n.key for n in at.number_input}
    at = ok(at.button(key="tokenizers_train").click().run())
    assert TRANSITION not in at.query_params and "BPE on characters 500" in shelf(at)


def test_a_link_with_a_transition_fills_the_form_in():
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.query_params.update({"tokenizers_algorithm": "superbpe", TRANSITION: "70"})
    at = ok(at.switch_page(PAGE).run())
    assert at.selectbox(key="tokenizers_algorithm").value == "superbpe"
    assert at.number_input(key=TRANSITION).value == 70


def test_a_counts_file_is_refused_for_superbpe_with_the_reason():
    at = ok(upload(counts_bytes(sample="hf-course-hug-pug")).switch_page(PAGE).run())
    at.selectbox(key="tokenizers_algorithm").set_value("superbpe").run()
    at = ok(at.button(key="tokenizers_train").click().run())
    assert any("learns from running text" in e.value for e in at.error)
    assert not any(name.startswith("SuperBPE") for name in shelf(at))
    # The counts file's caption lists what does train from it, without SuperBPE.
    assert not any("SuperBPE" in c.value for c in at.caption)
