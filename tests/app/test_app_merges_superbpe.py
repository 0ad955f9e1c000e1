"""SuperBPE on the BPE step-through page (issue 44): the run is the core's SuperBPE training, the page
says which stage a step is in and where the switch is, tokens that cross a space are marked, and the
teaching table's top row is the next merge in both stages."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests._paths import APP
from tokenizer_core.corpus.loading import corpus_from_text
from tokenizer_core.superbpe.trainer import train_superbpe
from ui.merges.pairs import pair_table
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run
from ui.widgets.tokens import spans_space

PAGE = "pages/merges.py"
TEXT = ("of the cat and of the dog\n" * 4 + "the end of the day, and the cat sat\n" * 3
        + "in 2024 the dog of the year\n" * 2)


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def superbpe(budget: int, transition: int) -> MergeSettings:
    return MergeSettings(algorithm="superbpe", budget_kind="vocab", budget=budget, transition=transition)


def test_the_run_is_the_cores_superbpe_training():
    settings = superbpe(300, 90)
    run = train_run(corpus_from_text(TEXT), settings)
    core = train_superbpe(TEXT.splitlines(keepends=True), vocab_size=300, transition=270, special_tokens=())
    assert [(run.step_info(s).left, run.step_info(s).right) for s in range(1, run.num_steps + 1)] == core.merges
    assert run.transition_step == core.transition_step and run.transition_size == 270
    assert run.vocab_size_at(run.transition_step) == 270
    # A number of merges is the 256 bytes and that many tokens more; the switch is at 90 % of that.
    assert MergeSettings(algorithm="superbpe", budget=44).options().vocab_size == 300
    assert superbpe(300, 90).describe() == "SuperBPE · bytes · vocabulary 300 · stage 2 from 270 tokens (90 %)"


def test_superwords_come_only_after_the_switch_and_are_counted():
    run = train_run(corpus_from_text(TEXT), superbpe(300, 90))
    crossing = [s for s in range(1, run.num_steps + 1) if spans_space(run.step_info(s).token, scheme=run.scheme)]
    assert crossing and min(crossing) > run.transition_step
    assert run.superwords_until(run.num_steps) == len(crossing)
    assert run.superwords_until(run.transition_step) == 0
    assert [run.stage(s) for s in (0, run.transition_step, run.transition_step + 1)] == [1, 1, 2]


def test_the_teaching_table_takes_the_next_merge_in_both_stages():
    run = train_run(corpus_from_text(TEXT), superbpe(300, 90))
    assert run.teaching
    for step in range(run.num_steps):
        info = run.step_info(step + 1)
        top = pair_table(run, step)[0]
        assert (top.left, top.right, top.count) == (info.left, info.right, info.count), step
    # Stage 1 counts within words, stage 2 within lines: the two tables draw on different words.
    assert run.table_words(run.transition_step - 1) != run.table_words(run.transition_step)


def test_transition_100_is_plain_byte_level_bpe_with_no_stage_2():
    run = train_run(corpus_from_text(TEXT), superbpe(300, 100))
    assert run.transition_step == run.num_steps
    assert run.superwords_until(run.num_steps) == 0


def test_other_algorithms_ignore_the_transition_so_their_runs_are_shared():
    assert MergeSettings(transition=40).effective() == MergeSettings().effective()
    assert superbpe(300, 40).effective() != superbpe(300, 90).effective()
    with pytest.raises(Exception, match="transition must be a whole percentage"):
        MergeSettings(algorithm="superbpe", transition=0)


def page_at(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    ok(at.run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(TEXT).run()
    ok(at.button(key="corpus_use_paste").click().run())
    for name, value in params.items():
        at.query_params[name] = value
    return ok(at.switch_page(PAGE).run())


def html_bodies(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def test_a_link_trains_superbpe_and_the_page_marks_the_switch_and_the_superwords():
    expected = train_run(corpus_from_text(TEXT), superbpe(300, 90))
    t = expected.transition_step
    at = page_at(algo="superbpe", stop="vocab", n="300", stage2="90", step=str(t + 1))
    assert at.session_state["merges_algorithm"] == "superbpe" and at.session_state["merges_transition"] == 90
    bodies = html_bodies(at)
    assert "Stage 2 begins with this merge" in bodies
    curve = next(e for e in at.get("bidi_component") if e.key == "merges_compression_curve")
    labels = [shape.get("text") for shape in json.loads(curve.proto.json)["base"]]
    assert "stage 2 →" in labels  # the compression curve's dashed rule
    # Every merge banner chip of a token crossing a space carries the mark, and no other chip does.
    first_super = next(s for s in range(t + 1, expected.num_steps + 1)
                       if spans_space(expected.step_info(s).token, scheme=expected.scheme))
    at.number_input(key="merges_jump").set_value(first_super)
    at = ok(at.run())
    banner = next(b for b in at.get("html") if 'class="tp-merge"' in b.proto.body).proto.body
    classes = re.findall(r'<span class="(tp-chip[^"]*)"', banner)
    assert classes[-1] == "tp-chip tp-hl tp-sw"  # the merged token
    assert "**Frequent lines holding the new token**" in [m.value for m in at.markdown]
    n = expected.num_steps
    at.number_input(key="merges_jump").set_value(n)
    at = ok(at.run())
    assert f"{expected.superwords_until(n):,} of its {n - t:,} merges so far" in html_bodies(at)
    at.number_input(key="merges_jump").set_value(t)
    at = ok(at.run())
    assert "Stage 1 of 2 (subwords)" in html_bodies(at)
    assert "tp-sw" not in next(b for b in at.get("html") if 'class="tp-merge"' in b.proto.body).proto.body
