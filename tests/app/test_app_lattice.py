"""The Lattice page under AppTest: the course model's walk, n-best, sampling, dropout, training."""

from __future__ import annotations

import json
import math
import re

from streamlit.testing.v1 import AppTest

from tests import _pages as pages
from tests._pages import html_bodies, ok
from tokenizer_core.io.references import load_reference
from tokenizer_core.unigram.explain import course_model, exact_distribution
from ui.lattice.graph import VITERBI_COLOUR

PAGE = "pages/lattice.py"


def open_page(text: str | None = None, sample: str = "hf-course-hug-pug") -> AppTest:
    return pages.open_page(PAGE, sample=sample, text=text)


def frame_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def show(at: AppTest, tab: str) -> AppTest:
    """Open ``tab`` (only the open tab is drawn) and rerun, as a click on it does."""
    at.session_state["lattice_tab"] = tab
    return ok(at.run())


def test_course_model_viterbi_walk_and_nbest():
    at = open_page(text="pug")
    assert at.text_input(key="lattice_text").value == "pug"
    table = frame_with(show(at, "Viterbi table"), "back-pointer")
    assert sum("P(path | text) = P(path) /" in c.value for c in at.caption) == 1  # under the Viterbi table
    assert list(table["best piece"]) == ["p", "pu", "ug"]
    assert list(table["back-pointer"]) == [0, 0, 1]
    assert math.isclose(table["best score"].iloc[-1], math.log(17 / 210) + math.log(20 / 210), rel_tol=1e-9)
    nbest = frame_with(show(at, "n-best and entropy"), "rank")
    lattice = course_model().lattice("pug")
    exact = {tuple(p.pieces): p.probability for p in exact_distribution(lattice)}
    assert len(nbest) == 3 and math.isclose(sum(nbest["probability"]), 1.0, rel_tol=1e-9)
    for seg, prob in zip(nbest["segmentation"], nbest["probability"]):
        assert math.isclose(prob, exact[tuple(seg.split(" | "))], rel_tol=1e-9)
    # Both probabilities are there, told apart: a path's own (exp(score)) and its share of all splits.
    assert all(math.isclose(p, math.exp(s), rel_tol=1e-9) for p, s in zip(nbest["path probability"], nbest["score"]))
    assert sum("P(path | text) = P(path) /" in c.value for c in at.caption) == 1  # under the n-best list
    assert any(m.label == "Entropy" for m in at.metric)
    # The course's pruning numbers.
    at = show(at, "Training")
    assert any(m.label == "Loss with every piece" and m.value == "169.8" for m in at.metric)
    losses = frame_with(at, "words split differently")
    assert losses.iloc[-1]["piece"] == "hug" and round(losses.iloc[-1]["increase"], 1) == 23.5


def test_sampled_frequencies_sit_next_to_the_exact_ones():
    at = show(open_page(text="hugs"), "Subword sampling")
    at.slider(key="lattice_alpha").set_value(1.0).run()
    frame = frame_with(ok(at), "sampled")
    assert math.isclose(frame["exact"].sum(), 1.0, rel_tol=1e-9)
    assert all(abs(a - b) < 0.05 for a, b in zip(frame["exact"], frame["sampled"]))  # 1,000 draws


def test_bpe_dropout_on_gpt2_unrelated():
    at = show(open_page(), "BPE-dropout")
    bodies = html_bodies(at)
    gpt2 = load_reference("gpt2")
    for tid in gpt2.encode("unrelated").ids:
        assert f'title="id {tid} ' in bodies
    at.slider(key="lattice_dropout_p").set_value(1.0).run()  # every merge dropped: characters only
    assert any("1 different segmentations" in m.value for m in at.markdown)


def test_training_a_unigram_shows_its_rounds_and_sentences_split_into_pieces():
    at = open_page(text="hugs and puns", sample="sennrich-low-lower-newest-widest")
    at.number_input(key="lattice_vocab_size").set_value(300).run()
    at = ok(at.button(key="lattice_train").click().run())
    assert at.selectbox(key="lattice_model").value.startswith("Unigram 300")
    pieces = at.selectbox(key="lattice_piece").options
    assert len(pieces) == 3 and pieces[0].startswith("1. ▁hugs")
    rounds = frame_with(show(at, "Training"), "EM iterations")
    assert len(rounds) >= 1 and rounds["vocabulary"].iloc[-1] <= 300 * 1.1 + 1
    # The training chart and tables download like every other (PNG, SVG, CSV).
    keys = download_keys(at)
    assert {"lattice_training_chart_png", "lattice_training_chart_svg", "lattice_rounds_table_csv"} <= keys


def download_keys(at: AppTest) -> set[str]:
    """The widget keys of the page's download buttons."""
    return {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}


def test_every_chart_and_table_downloads_and_the_caption_names_the_paths_colour():
    at = open_page(text="hugs")
    caption = next(c.value for c in at.caption if "Viterbi path" in c.value)
    assert f"{VITERBI_COLOUR}\\: the Viterbi path" in caption and "red" not in caption
    keys, charts = download_keys(at), list(at.get("plotly_chart"))
    for tab in ("Viterbi table", "n-best and entropy", "Subword sampling", "Training"):  # one tab at a time
        at = show(at, tab)
        keys |= download_keys(at)
        charts += list(at.get("plotly_chart"))
    for chart in ("lattice_graph", "lattice_sampling_chart"):
        assert {chart + "_png", chart + "_svg"} <= keys
    for table in ("lattice_viterbi_table", "lattice_nbest_table", "lattice_sampling_table", "lattice_pruning_table"):
        assert table + "_csv" in keys
    # Every plotly chart is drawn through the export helper: no toolbar, buttons under it instead.
    assert len(charts) >= 2
    for chart in charts:
        assert json.loads(chart.proto.config).get("displayModeBar") is False


def test_hostile_text_is_escaped_in_every_html_block():
    at = open_page(text="<img/src=x/onerror=alert(1)>")
    bodies = html_bodies(at)
    assert "<img" not in bodies
    # Plotly draws text as markup: the lattice figure carries the pieces escaped.
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    texts = [t for trace in figure["data"] for key in ("text", "hovertext") for t in (trace.get(key) or [])]
    assert "&lt;" in "".join(texts)
    for t in texts:  # only the figure's own <b> and <br> tags
        assert re.sub(r"</?b>|<br>", "", t).count("<") == 0, t


def test_the_courses_viterbi_walk_of_unhug_is_replayed_exactly():
    """Hugging Face course, chapter 6.7: the best segmentation ending at each character of "unhug",
    with its probability (printed with six decimals; the course shows 16/210 = 0.0761905 as 0.076191)."""
    course = [("u", ["u"], 0.171429), ("n", ["un"], 0.076191), ("h", ["un", "h"], 0.005442),
              ("u", ["un", "hu"], 0.005442), ("g", ["un", "hug"], 0.005442)]
    at = show(open_page(text="unhug"), "Viterbi table")
    table = frame_with(at, "back-pointer")
    text = "unhug"
    for i, (char, pieces, probability) in enumerate(course):
        row = table.iloc[i]
        assert row["character"] == char and row["best piece"] == pieces[-1]
        assert math.isclose(math.exp(row["best score"]), probability, abs_tol=1.5e-6)
        # Following the back-pointers from this position gives the course's segmentation.
        pos, seg = i + 1, []
        while pos > 0:
            start = int(table.iloc[pos - 1]["back-pointer"])
            seg.insert(0, text[start:pos])
            pos = start
        assert seg == pieces
