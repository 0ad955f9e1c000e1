"""PickyBPE on the BPE step-through page (issue 44): each step is a merge and the removals it
triggered, drawn from the core's trace; the vocabulary shrinks where tokens go; the teaching table,
the words and the encoded sentence follow training's own segmentations."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests._paths import APP
from tokenizer_core.corpus.loading import corpus_from_text
from tokenizer_core.pickybpe.events import MergeEvent
from tokenizer_core.pickybpe.trainer import train_pickybpe
from ui.merges.encode import encode
from ui.merges.pairs import pair_table
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run

PAGE = "pages/merges.py"
TEXT = ("the cat sat on the mat\n" * 3 + "that hat is the best hat\n" * 2 + "abc abc abc ab\n"
        + "unbelievable believers believe\n")


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def picky(budget: int, threshold: int) -> MergeSettings:
    return MergeSettings(algorithm="pickybpe", budget_kind="vocab", budget=budget, threshold=threshold)


@pytest.fixture(scope="module")
def run():
    return train_run(corpus_from_text(TEXT), picky(268, 70))


def test_the_steps_are_the_cores_merges_and_their_removals(run):
    core = train_pickybpe(TEXT.splitlines(keepends=True), vocab_size=268, threshold=0.7, special_tokens=())
    merges = [e for e in core.trace if isinstance(e, MergeEvent)]
    assert run.num_steps == len(merges) and core.trace.removals()
    assert [run.step_info(s).token for s in range(1, run.num_steps + 1)] == [m.token for m in merges]
    assert sum(len(run.removals_at(s)) for s in range(run.num_steps + 1)) == len(core.trace.removals())
    for s in range(1, run.num_steps + 1):
        for r in run.removals_at(s):
            assert r.trigger == (run.step_info(s).left, run.step_info(s).right)
    # The vocabulary counts the tokens present: a merge adds its token unless it was there already, each
    # removal takes one away, and training ends at the size asked.
    assert run.vocab_size_at(run.num_steps) == 268
    for s, m in enumerate(merges, 1):
        grew = run.vocab_size_at(s) - run.vocab_size_at(s - 1)
        assert grew == (m.status != "present") - len(run.removals_at(s)), s
    assert any(run.vocab_size_at(s) == run.vocab_size_at(s - 1) and run.removals_at(s)
               for s in range(1, run.num_steps + 1))
    # Every word ends as training left it.
    for word, tokens in core.segmentations().items():
        assert run.segment(word, run.num_steps) == tokens, word


def test_the_teaching_table_takes_the_next_merge_after_every_removal(run):
    assert run.teaching
    for step in range(run.num_steps):
        info = run.step_info(step + 1)
        top = pair_table(run, step)[0]
        assert (top.left, top.right, top.count) == (info.left, info.right, info.count), step


def test_the_encoded_sentence_ends_as_the_tokenizer_encodes_it(run):
    text = "the best believers sat on abc"
    view = encode(run, text, run.num_steps)
    assert view.tokens() == run.tokenizer.encode(text).tokens
    steps = [s.step for s in view.strips]
    assert steps == sorted(set(steps)) and len(steps) >= 3
    # Each strip is the sentence as the model segments it after that step's merge and removals.
    for strip in view.strips:
        assert strip.pieces == tuple(tuple(run.segment(p, strip.step)) for p in view.pieces)


def test_threshold_100_removes_nothing_and_is_byte_level_bpe():
    none = train_run(corpus_from_text(TEXT), picky(320, 100))
    bpe = train_run(corpus_from_text(TEXT), MergeSettings(level="byte", pre_tokenizer="gpt2-regex",
                                                          budget_kind="vocab", budget=320))
    assert none.removed_until(none.num_steps) == 0
    assert ([none.step_info(s).token for s in range(1, none.num_steps + 1)]
            == [bpe.step_info(s).token for s in range(1, bpe.num_steps + 1)])


def test_settings_and_their_description():
    assert picky(268, 70).describe() == "PickyBPE · bytes · vocabulary 268 · IoS threshold 0.7"
    assert MergeSettings(algorithm="pickybpe", budget=64).effective().budget == 320  # 256 bytes + 64
    assert MergeSettings(threshold=40).effective() == MergeSettings().effective()
    with pytest.raises(Exception, match="PickyBPE threshold"):
        MergeSettings(algorithm="pickybpe", threshold=101)


def test_a_link_opens_a_removal_step_with_its_ios(run):
    step = next(s for s in range(1, run.num_steps + 1) if run.removals_at(s))
    removal = run.removals_at(step)[0]
    at = AppTest.from_file(APP, default_timeout=120)
    ok(at.run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(TEXT).run()
    ok(at.button(key="corpus_use_paste").click().run())
    for name, value in {"algo": "pickybpe", "stop": "vocab", "n": "268", "ios": "70", "step": str(step)}.items():
        at.query_params[name] = value
    at = ok(at.switch_page(PAGE).run())
    bodies = "\n".join(h.proto.body for h in at.get("html"))
    assert f"IoS = {removal.merged:,} / ({removal.merged:,} + {removal.remaining:,}) = {removal.ios:.3g} &gt; 0.7" in bodies
    assert "removed)" in bodies  # the vocabulary metric's delta names the removals
    quiet = next(s for s in range(1, run.num_steps + 1) if not run.removals_at(s))
    at.number_input(key="merges_jump").set_value(quiet)
    at = ok(at.run())
    assert "No token removed at this step" in "\n".join(h.proto.body for h in at.get("html"))
