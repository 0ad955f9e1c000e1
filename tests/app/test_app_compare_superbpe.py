"""SuperBPE in Compare's vocabulary-size sweep: picked beside BPE on bytes, both curves on one chart (tokens
per byte first), the rows equal the core's sweep of each, the tokens saved said in a sentence; and the
chart's pieces (five panels, one legend entry per curve, each curve's own knee in the table)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from tokenizer_core.analysis.sweep import SWEEP_MODELS, SweepRow, log_sizes, split_lines, sweep
from tokenizer_core.corpus.loading import load_sample
from ui.compare.page import TAB
from ui.compare.sweep_chart import PANELS, change_line, sweep_figure, sweep_frame
from ui.tokenizers.add import Algorithm, TrainRequest
from ui.widgets.text import escape_markdown as escape

LINES = list(load_sample("default").lines())[:600]
SIZES = log_sizes(256, 1000, 3)


def sweep_tab() -> AppTest:
    """The Compare page's sweep tab, 600 lines of the default corpus pasted as the corpus."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input("".join(LINES)).run()
    ok(at.button(key="corpus_use_paste").click().run())
    at = ok(at.switch_page("pages/compare.py").run())
    at.session_state[TAB] = "Vocabulary-size sweep"
    return ok(at.run())


def frame_of(at: AppTest):
    return next(d.value for d in at.dataframe if "heldout_tokens" in d.value.columns)


def core_rows(at: AppTest, algorithm: Algorithm) -> list[SweepRow]:
    corpus = list(at.session_state["state_active_corpus"].lines())
    train, held = split_lines(corpus, heldout_fraction=0.1)
    return sweep(algorithm.trainer, train, held, sizes=SIZES, options=TrainRequest(algorithm, SIZES[-1]).options())


def test_superbpe_beside_bpe_on_one_chart_equals_the_core_sweeps():
    at = sweep_tab()
    at.selectbox(key="compare_sweep_algorithm").set_value("bpe-bytes").run()
    options = at.multiselect(key="compare_sweep_beside").options  # as shown: the first choice is not one
    assert "SuperBPE" in options and "BPE bytes" not in options
    # Only what the sweep trains is offered (PickyBPE, say, has no sweep).
    swept = {a.short for a in Algorithm if a.trainer in SWEEP_MODELS}
    assert set(options) == swept - {"BPE bytes"}
    at.multiselect(key="compare_sweep_beside").set_value(["superbpe"]).run()
    at.select_slider(key="compare_sweep_range").set_value((256, 1000)).run()
    at.number_input(key="compare_sweep_points").set_value(3).run()
    at = ok(at.button(key="compare_sweep_run").click().run())
    frame = frame_of(at)
    assert list(frame["algorithm"]) == ["BPE bytes"] * 3 + ["SuperBPE"] * 3
    bpe, superbpe = core_rows(at, Algorithm.BPE_BYTES), core_rows(at, Algorithm.SUPERBPE)
    for name, rows in (("BPE bytes", bpe), ("SuperBPE", superbpe)):
        part = frame[frame["algorithm"] == name]
        assert list(part["heldout_tokens"]) == [r.heldout_tokens for r in rows]
        assert list(part["tokens_per_byte"]) == [r.tokens_per_byte for r in rows]
    assert list(frame[frame["algorithm"] == "SuperBPE"]["derived"]) == [False] * 3  # a training per size
    # One chart: tokens per byte first, a curve (and a legend entry) per algorithm.
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    first = [t for t in figure["data"] if t.get("xaxis", "x") == "x" and t["name"] != "knee"]
    assert [t["name"] for t in first] == ["BPE bytes", "SuperBPE"] and all(t["showlegend"] for t in first)
    assert first[1]["y"] == [r.tokens_per_byte for r in superbpe]
    said = change_line("SuperBPE", "BPE bytes", bpe, superbpe)
    assert said is not None and "fewer at 1,000" in said and any(m.value == escape(said) for m in at.markdown)
    assert at.query_params["compare_sweep_beside"] == "superbpe"
    seconds = {name: list(frame[frame["algorithm"] == name]["seconds"]) for name in ("BPE bytes", "SuperBPE")}
    # SuperBPE first, BPE beside it: both sweeps are kept, so nothing trains again.
    at = ok(at.selectbox(key="compare_sweep_algorithm").set_value("superbpe").run())
    assert at.multiselect(key="compare_sweep_beside").value == []  # no curve beside itself
    at = ok(at.multiselect(key="compare_sweep_beside").set_value(["bpe-bytes"]).run())
    at = ok(at.button(key="compare_sweep_run").click().run())
    frame = frame_of(at)
    assert list(frame["algorithm"]) == ["SuperBPE"] * 3 + ["BPE bytes"] * 3
    assert list(frame["heldout_tokens"][:3]) == [r.heldout_tokens for r in superbpe]
    # The same rows, training times included: taken from the server's sweeps, not trained again.
    assert {name: list(frame[frame["algorithm"] == name]["seconds"]) for name in seconds} == seconds


def row(model: str, size: int, tokens: int, cpt: float) -> SweepRow:
    return SweepRow(model, size, size, tokens, cpt, 1.0, 0.0, 0.5, size * 768, 0.0, False, tokens_per_byte=tokens / 1e4)


def test_the_chart_has_five_panels_a_legend_per_curve_and_the_first_curves_knee():
    sizes, cpt = [500, 1000, 2000, 4000, 8000], [2.0, 2.7, 3.3, 3.4, 3.45]
    bpe = [row("bpe", s, int(1e4 / c), c) for s, c in zip(sizes, cpt)]
    other = [row("superbpe", s, int(0.8e4 / c), c * 1.25) for s, c in zip(sizes, cpt)]
    fig = sweep_figure(bpe, title="t", name="BPE bytes", beside=[("SuperBPE", other)])
    curves = [t for t in fig.data if t.name != "knee"]
    assert len(curves) == 2 * len(PANELS) and sum(bool(t.showlegend) for t in curves) == 2
    assert list(curves[1].y) == [r.tokens_per_byte for r in other] and curves[1].line.dash == "dash"
    assert len([t for t in fig.data if t.name == "knee"]) == len(PANELS)  # the first curve's knee only
    alone = sweep_figure(bpe, title="t")
    assert not any(t.showlegend for t in alone.data)  # one curve: no legend
    frame = sweep_frame(bpe, name="BPE bytes", beside=[("SuperBPE", other)])
    assert list(frame["algorithm"]) == ["BPE bytes"] * 5 + ["SuperBPE"] * 5
    assert frame["knee"].sum() == 2  # each curve's own knee
    assert "algorithm" not in sweep_frame(bpe).columns
    assert list(sweep_frame(bpe).columns[:5]) == ["vocab_size", "requested_size", "knee", "heldout_tokens",
                                                  "tokens_per_byte"]
