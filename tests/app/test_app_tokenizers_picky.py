"""PickyBPE on the Tokenizers page under AppTest: its threshold is asked only for PickyBPE and kept in
the address, training shelves exactly what ``train_pickybpe`` learns (named with the threshold), and the
vocabulary tab lists every removal with its IoS, the merge that used the token up and its split."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from tests.app.test_app_tokenizers_superbpe import open_with_text, shelf
from tokenizer_core.pickybpe.trainer import train_pickybpe
from tokenizer_core.pipeline import Tokenizer
from ui.tokenizers.removed import removal_rows

PAGE = "pages/tokenizers.py"
THRESHOLD = "tokenizers_threshold"


def test_training_pickybpe_shelves_the_trainers_vocabulary_and_lists_its_removals():
    at = open_with_text()
    assert THRESHOLD not in {n.key for n in at.number_input}
    at = ok(at.selectbox(key="tokenizers_algorithm").set_value("pickybpe").run())
    assert at.number_input(key=THRESHOLD).value == 90  # the paper's best, shown for PickyBPE only
    at.number_input(key="tokenizers_vocab_size").set_value(600).run()
    at = ok(at.number_input(key=THRESHOLD).set_value(60).run())
    at = ok(at.button(key="tokenizers_train").click().run())
    assert any("put on the shelf" in s.value for s in at.success), [e.value for e in at.error]
    name = "PickyBPE 600 (IoS 0.6)"
    tok = shelf(at)[name]
    corpus = list(at.session_state["state_active_corpus"].lines())
    expected = train_pickybpe(corpus, vocab_size=600, threshold=0.6, special_tokens=("<|endoftext|>",))
    assert tok.get_vocab() == expected.vocab and tok.model.removed_tokens() == expected.removed
    assert at.query_params[THRESHOLD] == "60"
    # The vocabulary tab (open by default) lists every removal, in order, with its IoS.
    frames = [df.value for df in at.dataframe if "IoS" in df.value.columns]
    assert len(frames) == 1
    removals = expected.trace.removals()
    assert len(frames[0]) == len(removals) > 0
    assert [round(r.ios, 4) for r in removals] == frames[0]["IoS"].tolist()
    assert all(r.ios > 0.6 for r in removals)
    assert any(f"{len(removals):,} removals, {len(expected.removed):,} of the tokens" in c.value for c in at.caption)


def test_a_tokenizer_read_back_from_its_file_lists_its_removals_without_counts(tmp_path):
    lines = ["abc abc abc abc ab\n"] * 3
    trained = train_pickybpe(lines, vocab_size=262, threshold=0.7, special_tokens=())
    from tokenizer_core.parts import TokenizerParts
    from tokenizer_core.text.pre_tokenizers import ByteLevel

    tok = Tokenizer.from_parts(TokenizerParts(model=trained.model, pre_tokenizer=ByteLevel(add_prefix_space=False)))
    path = tmp_path / "picky.json"
    tok.save(path)
    again = Tokenizer.load(path)
    fresh, loaded = removal_rows(tok.model), removal_rows(again.model)
    assert fresh and [r["token"] for r in loaded] == [r["token"] for r in fresh]
    assert [r["split into"] for r in loaded] == [r["split into"] for r in fresh]
    assert all(r["IoS"] is None for r in loaded) and all(r["IoS"] is not None for r in fresh)


def test_a_link_with_a_threshold_fills_the_form_in():
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.query_params.update({"tokenizers_algorithm": "pickybpe", THRESHOLD: "75"})
    at = ok(at.switch_page(PAGE).run())
    assert at.selectbox(key="tokenizers_algorithm").value == "pickybpe"
    assert at.number_input(key=THRESHOLD).value == 75
