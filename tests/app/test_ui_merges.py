"""The step-through page's logic without Streamlit: runs, pair tables, encode strips, trees, HTML, charts."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import Corpus, corpus_from_text, load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.wordpiece.trainer import train_wordpiece
from ui.merges.encode import encode, tokens_of
from ui.merges.html import (
    MAX_WORD_CHIPS,
    merge_banner_html,
    stop_text,
    strips_html,
    tie_text,
    tree_block_html,
    tree_html,
    words_html,
)
from ui.merges.pairs import pair_frame, pair_table
from ui.merges.run import MAX_TREE_NODES, BpeRun, TreeNode, WordPieceRun
from ui.merges.settings import MARKERS, PRE_TOKENIZERS, TIE_BREAKS, WORKED_EXAMPLES, MergeSettings
from ui.merges.training import train_run
from ui.widgets.charts import BAR_HEIGHT, candidates_chart, candidates_frame, compression_frame, kinds_legend_html

HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def corpus_of(counts: dict[str, int], name: str = "test") -> Corpus:
    """A corpus whose whitespace words have exactly these counts, first appearance in dict order."""
    return Corpus(name, (" ".join(w for w, c in counts.items() for _ in range(c)) + "\n",))


# ------------------------------------------------------------------------------------ settings


def test_settings_map_to_engine_options():
    opts = MergeSettings(marker="symbol", tie_break="first", budget=7, min_frequency=2).options()
    assert (opts.num_merges, opts.vocab_size, opts.min_frequency) == (7, None, 2)
    assert opts.end_of_word_suffix == "</w>"
    assert (opts.bpe.suffix_as_symbol, opts.bpe.tie_break) == (True, "first")
    byte = MergeSettings(level="byte", marker="glued", pre_tokenizer="whitespace").options()
    assert byte.byte_level and byte.end_of_word_suffix is None and byte.pre_tokenizer == "gpt2-regex"
    assert byte.special_tokens == ()
    vocab = MergeSettings(budget_kind="vocab", budget=300).options()
    assert (vocab.vocab_size, vocab.num_merges) == (300, None)


def test_option_labels_fit_a_closed_select_box():
    # The select boxes are about 30 characters wide on a 1400-pixel screen: longer labels were cut
    # ("Smallest token ids (Hugging"); details live in the help texts.
    labels = [*MARKERS.values(), *TIE_BREAKS.values(), *(v for d in PRE_TOKENIZERS.values() for v in d.values())]
    assert max(map(len, labels)) <= 30, max(labels, key=len)


def test_wordpiece_ignores_bpe_only_options():
    a = MergeSettings(algorithm="wordpiece", level="byte", marker="glued", tie_break="ids").effective()
    b = MergeSettings(algorithm="wordpiece").effective()
    assert a == b
    # A pre-tokenizer WordPiece is not offered with falls back to its default, BERT's.
    assert MergeSettings(algorithm="wordpiece", pre_tokenizer="metaspace").effective().pre_tokenizer == "bert"


@pytest.mark.parametrize("bad", [{"budget": 0}, {"budget": 10**9}, {"min_frequency": -1}, {"algorithm": "x"},
                                 {"budget": True}])
def test_bad_settings_are_refused(bad):
    with pytest.raises(TokenizerError):
        MergeSettings(**bad)


# ------------------------------------------------------------------------------------ runs


def test_bpe_run_matches_the_engine_on_the_course_example():
    run = train_run(corpus_of(HUG), MergeSettings(budget=3))
    engine = train_bpe_counts(HUG, num_merges=3, special_tokens=("[UNK]",), unk_token="[UNK]")
    assert isinstance(run, BpeRun) and run.num_steps == 3
    for k, rec in enumerate(engine.trace, 1):
        info = run.step_info(k)
        assert (info.left, info.right, info.count, info.token) == (rec.left, rec.right, rec.count, rec.token)
    assert run.curve == engine.trace.compression_curve()
    # [UNK] + 7 letters, then one new token per merge (the course's 7 + 3 = 10, plus [UNK]).
    assert [run.vocab_size_at(k) for k in range(4)] == [8, 9, 10, 11]
    assert run.words == list(HUG.items()) and run.teaching


def test_wordpiece_run_matches_the_engine_and_names_bpe_choice():
    run = train_run(corpus_of(HUG), MergeSettings(algorithm="wordpiece", budget=3))
    engine = train_wordpiece(HUG, vocab_size=100, num_merges=3, special_tokens=("[UNK]",))
    assert isinstance(run, WordPieceRun)
    for k, m in enumerate(engine.merges, 1):
        info = run.step_info(k)
        assert (info.left, info.right, info.token, info.count, info.score) == (
            m.left, m.right, m.new_token, m.count, m.score)
    first = run.step_info(1)
    # The course: ("##g", "##s") scores 5 / (20 * 5) = 1/20, while BPE would merge ("##u", "##g"), 20 times.
    assert (first.left, first.right, first.score) == ("##g", "##s", 5 / (20 * 5))
    assert first.bpe_choice is not None and (first.bpe_choice.pair, first.bpe_choice.count) == (("##u", "##g"), 20)
    assert run.vocab_size_at(0) == 1 + 3 + 4  # [UNK]; h p b (word starts); ##u ##g ##n ##s
    assert run.vocab_at(1) == {t: i for t, i in run.vocab.items() if i < run.vocab_size_at(1)}


def test_step_zero_and_out_of_range_steps():
    run = train_run(corpus_of(HUG), MergeSettings(budget=3))
    assert run.segment("hugs", 0) == ["h", "u", "g", "s"]
    with pytest.raises(TokenizerError):
        run.step_info(0)
    with pytest.raises(TokenizerError):
        run.segment("hug", 4)


def test_empty_corpus_is_refused_with_a_clear_error():
    with pytest.raises(TokenizerError):
        train_run(Corpus("empty", ("   \n",)), MergeSettings(budget=3))


def test_display_words_skip_single_symbols_and_show_the_new_token():
    run = train_run(corpus_from_text("a a a the the then ! ! !\n"), MergeSettings(budget=4))
    shown = [w for w, _, _ in run.display_words(2)]
    assert "a" not in shown and "!" not in shown and shown[0] == "the"
    token = run.step_info(2).token
    assert all(token in seg for _, _, seg in run.words_with(token, 2))


# --------------------------------------------------------------------------- worked examples


LITERATURE = {
    # Wikipedia, "Byte pair encoding": aa -> Z, ab -> Y, ZY -> X, then no pair occurs twice.
    "wikipedia-aaabdaaabac": [("a", "a"), ("a", "b"), ("aa", "ab")],
    # Sennrich, Haddow & Birch (2016), Algorithm 1 with num_merges = 10.
    "sennrich-low-lower-newest-widest": [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"),
                                         ("n", "e"), ("ne", "w"), ("new", "est</w>"), ("low", "</w>"), ("w", "i")],
    # Hugging Face course, chapter 6 (BPE): ("u", "g"), ("u", "n"), ("h", "ug").
    "hf-course-hug-pug": [("u", "g"), ("u", "n"), ("h", "ug")],
}


@pytest.mark.parametrize("name", list(WORKED_EXAMPLES))
def test_worked_example_settings_replay_the_literature(name):
    run = train_run(load_sample(name), WORKED_EXAMPLES[name][0])
    assert [run.step_info(k).chosen.pair for k in range(1, run.num_steps + 1)] == LITERATURE[name]


def test_course_counts_in_the_pair_table():
    run = train_run(load_sample("hf-course-hug-pug"), WORKED_EXAMPLES["hf-course-hug-pug"][0])
    top = {(r.left, r.right): r.count for r in pair_table(run, 0)}
    # The course's table: ("u", "g") 20, ("p", "u") 17, ("u", "n") 16, ("h", "u") 15, ...
    assert top[("u", "g")] == 20 and top[("p", "u")] == 17 and top[("u", "n")] == 16 and top[("h", "u")] == 15
    assert [(r.left, r.right, r.count) for r in pair_table(run, 1)][:2] == [("u", "n", 16), ("h", "ug", 15)]


# ------------------------------------------------------------------------------ pair tables


words_st = st.dictionaries(st.text("abcd", min_size=1, max_size=6), st.integers(1, 6), min_size=1, max_size=6)
setting_st = st.sampled_from([
    MergeSettings(budget=12),
    MergeSettings(budget=12, tie_break="first"),
    MergeSettings(budget=12, marker="glued"),
    MergeSettings(budget=12, marker="symbol", tie_break="first"),
    MergeSettings(budget=12, algorithm="wordpiece"),
    MergeSettings(budget=12, algorithm="wordpiece", min_frequency=2),
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_st, setting_st)
def test_pair_table_top_row_is_what_the_engine_merged(counts, merge_settings):
    run = train_run(corpus_of(counts), merge_settings)
    assert run.teaching
    for k in range(run.num_steps):
        rows = pair_table(run, k)
        info = run.step_info(k + 1)
        assert (rows[0].left, rows[0].right, rows[0].count) == (info.left, info.right, info.count)
        if info.score is not None:
            assert rows[0].score == info.score
    # Every pair's count is the count over the words as segmented at that step.
    step = run.num_steps
    expected: Counter = Counter()
    for word, c in counts.items():
        seg = run.segment(word, step)
        for pair in zip(seg, seg[1:]):
            expected[pair] += c
    assert {(r.left, r.right): r.count for r in pair_table(run, step)} == dict(expected)


def test_pair_table_needs_a_small_corpus():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=2))
    run.words = None  # as for a corpus with too many distinct words
    with pytest.raises(TokenizerError):
        pair_table(run, 0)


def test_pair_frame_marks_the_row_merged_next():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(algorithm="wordpiece", budget=3,
                                                                      min_frequency=6))
    frame = pair_frame(pair_table(run, 0), scheme="wordpiece", translate=False, wordpiece=True)
    assert list(frame["merged next"]).count("✔") == 1
    marked = frame[frame["merged next"] == "✔"].iloc[0]
    info = run.step_info(1)
    assert (marked["left"], marked["right"], marked["count"]) == (info.left, info.right, info.count)
    assert "below min. frequency" in set(frame["merged next"])  # ("##g", "##s") occurs only 5 times


# ------------------------------------------------------------------------------ encode strips


sentence_st = st.lists(st.text("abcdx", min_size=1, max_size=7), min_size=1, max_size=4).map(" ".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_st, sentence_st, st.integers(0, 12))
def test_bpe_strips_end_at_the_encoding_and_each_applies_one_merge(counts, sentence, step):
    run = train_run(corpus_of(counts), MergeSettings(budget=12))
    step = min(step, run.num_steps)
    view = encode(run, sentence, step)
    model_tokens = [t.text for p in view.pieces for t in run.model.tokenize(p)] if step == run.num_steps else None
    last = view.strips[-1].pieces if view.strips else view.initial
    assert last == view.final
    if model_tokens is not None:
        assert view.tokens() == model_tokens
    steps = [s.step for s in view.strips]
    assert steps == sorted(set(steps)) and all(1 <= s <= step for s in steps)
    before = view.initial
    for s in view.strips:
        assert s.pieces != before  # a strip is listed only when its merge changes the sentence
        assert any(s.token in p for p in s.pieces)
        before = s.pieces


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_st, st.integers(0, 12))
def test_wordpiece_replay_matches_training_segmentation(counts, step):
    run = train_run(corpus_of(counts), MergeSettings(algorithm="wordpiece", budget=12))
    step = min(step, run.num_steps)
    words = list(counts)
    view = encode(run, " ".join(words), step)
    replay = view.strips[-1].pieces if view.strips else view.initial
    assert [list(p) for p in replay] == [run.segment(w, step) for w in words]


def test_wordpiece_final_tokens_come_from_the_vocabulary_at_the_step():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(algorithm="wordpiece", budget=3))
    # After all merges, the encoder at the step is the trained tokenizer's own model.
    view = encode(run, "hugs bugs pun mug", run.num_steps)
    assert view.tokens() == [t.text for p in view.pieces for t in run.tokenizer.model.tokenize(p)]
    # At step 1 "hugs" can only use ##gs; "hu" and "hugs" do not exist yet.
    early = encode(run, "hugs", 1)
    assert early.final == (("h", "##u", "##gs"),) and not early.final_differs


def test_merge_trees_rebuild_their_token():
    run = train_run(load_sample("sennrich-low-lower-newest-widest"), WORKED_EXAMPLES[
        "sennrich-low-lower-newest-widest"][0])
    tree = run.merge_tree("newest</w>", run.num_steps)
    assert "".join(tree.leaves()) == "newest</w>" and tree.step == 8
    assert tree.left.token == "new" and tree.right.token == "est</w>"
    assert run.merge_tree("newest</w>", 3).is_leaf  # not made yet at step 3
    wp = train_run(load_sample("hf-course-hug-pug"), MergeSettings(algorithm="wordpiece", budget=3))
    t = wp.merge_tree("hugs", 3)
    assert t.leaves() == ["h", "##u", "##g", "##s"] and t.step == 3
    assert "hugs" in tokens_of(encode(wp, "hugs", 3))


def test_encode_cuts_long_text_and_handles_empty_text():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=3))
    assert encode(run, "", 3).pieces == ()
    assert len(encode(run, "hug " * 500, 3).text) == 300


# ------------------------------------------------------------------------------ HTML and charts


HOSTILE = ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "a&amp;b"]


def tags(html: str) -> set[str]:
    return {t.lower() for t in re.findall(r"<\s*/?\s*([a-zA-Z]+)", html)}


def test_html_helpers_escape_hostile_tokens():
    ids = {t: i for i, t in enumerate(HOSTILE)}.get
    html = (merge_banner_html(HOSTILE[0], HOSTILE[1], HOSTILE[2], ids, scheme="plain", translate=True,
                              label="<b>x</b>")
            + words_html([(HOSTILE[0], 3, HOSTILE)], ids, scheme="plain", translate=True,
                         highlight=frozenset(HOSTILE[:1])))
    assert tags(html) <= {"div", "span", "table", "thead", "tbody", "tr", "th", "td"}
    assert "&lt;script&gt;" in html and "&amp;amp;" in html


def test_strips_and_trees_escape_hostile_text():
    corpus = corpus_from_text(("<script>alert(1)</script> <img/src=x/onerror=alert(1)> " * 3) + "\n")
    run = train_run(corpus, MergeSettings(budget=40, pre_tokenizer="whitespace-split"))
    view = encode(run, "<script>alert(1)</script> <img/src=x/onerror=alert(1)>", run.num_steps)
    html = strips_html(view, run.token_id, scheme=run.scheme, translate=True)
    html += "".join(tree_html(run.merge_tree(t, run.num_steps), scheme=run.scheme) for t in tokens_of(view))
    assert tags(html) <= {"div", "span", "table", "thead", "tbody", "tr", "th", "td"}
    assert "&lt;script&gt;" in html


def test_strips_count_tokens_show_ids_and_keep_words_whole():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=3))
    view = encode(run, "hugs bugs pun", 3)
    html = strips_html(view, run.token_id, scheme=run.scheme, translate=True)
    counts = re.findall(r'title="tokens">([0-9,]+)</td>', html)
    # start: h u g s | b u g s | p u n = 11 symbols; then each strip's own total
    assert counts[0] == "11" and counts[-1] == str(len(view.tokens()))
    assert [int(c) for c in counts] == sorted((int(c) for c in counts), reverse=True)
    ids = [run.token_id(t) for t in view.tokens()]
    assert f"{len(ids)} tokens · ids [{', '.join(map(str, ids))}]" in html
    # one unbreakable box per word on every row
    assert html.count('class="tp-word"') == 3 * (len(view.strips) + 1)


def test_tie_text_names_the_rule():
    run = train_run(load_sample("sennrich-low-lower-newest-widest"),
                    WORKED_EXAMPLES["sennrich-low-lower-newest-widest"][0])
    tied = [k for k in range(1, run.num_steps + 1) if run.step_info(k).tied]
    assert tied  # l o and o w both occur 7 times at step 4
    info = run.step_info(tied[0])
    text = tie_text(info, algorithm="bpe", tie_break="first", id_of=run.token_id, scheme=run.scheme,
                    translate=False)
    assert "seen first" in text and f"{info.left} + {info.right}" in text
    ids_run = train_run(load_sample("sennrich-low-lower-newest-widest"), MergeSettings(budget=10))
    info = next(ids_run.step_info(k) for k in range(1, 11) if ids_run.step_info(k).tied)
    text = tie_text(info, algorithm="bpe", tie_break="ids", id_of=ids_run.token_id, scheme="plain",
                    translate=False)
    assert f"({ids_run.token_id(info.left)}, {ids_run.token_id(info.right)})" in text
    hug = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=1))
    assert tie_text(hug.step_info(1), algorithm="bpe", tie_break="ids", id_of=hug.token_id,
                    scheme="plain", translate=True) == ""  # ("u", "g") 20 times, ("p", "u") 17


def test_candidates_frame_puts_the_merged_pair_first():
    run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(algorithm="wordpiece", budget=3))
    info = run.step_info(1)
    frame = candidates_frame(info, scheme="wordpiece", translate=False)
    assert frame.iloc[0]["kind"] == "merged" and frame.iloc[0]["value"] == info.score
    assert "BPE's choice" in set(frame["kind"])  # ("##u", "##g") scores lower but is the most frequent
    assert frame["pair"].is_unique


def test_compression_frame_keeps_first_last_and_current_step():
    curve = list(range(10_000, 0, -1))
    frame = compression_frame(curve, 4321, points=100)
    steps = list(frame["step"])
    assert steps[0] == 0 and steps[-1] == len(curve) - 1 and 4321 in steps and len(steps) < 120
    assert all(frame["tokens"] == [curve[s] for s in steps])


def test_candidates_chart_leaves_the_legend_to_the_page_and_grows_per_bar():
    # A Vega legend under the bars squashed charts of one to a few candidates into a line.
    run = train_run(load_sample("wikipedia-aaabdaaabac"), WORKED_EXAMPLES["wikipedia-aaabdaaabac"][0])
    info = run.step_info(run.num_steps)
    spec = candidates_chart(info, scheme="plain", translate=True)
    assert spec["height"] == {"step": BAR_HEIGHT}
    assert all(layer["encoding"]["color"].get("legend", "absent") is None
               for layer in spec["layer"] if "field" in layer["encoding"]["color"])
    legend = kinds_legend_html(info, scheme="plain", translate=True)
    assert "merged" in legend and "runner-up" in legend and "BPE" not in legend
    assert tags(legend) <= {"div", "span"}


def test_the_candidate_bars_drawn_on_each_step_are_the_charts_rows():
    """The step view draws markup bars (ui/widgets/quick_charts.py); its download is the Vega-Lite
    chart: both list the same pairs in the same order, with the same kinds and values."""
    import re

    from ui.widgets.charts import KIND_COLOURS, candidates_html
    from ui.widgets.quick_charts import BAR_SHARE

    run = train_run(load_sample("wikipedia-aaabdaaabac"), WORKED_EXAMPLES["wikipedia-aaabdaaabac"][0])
    info = run.step_info(1)
    frame = candidates_frame(info, scheme="plain", translate=True)
    bars = candidates_html(info, run.token_id, scheme="plain", translate=True)
    widths = [float(w) for w in re.findall(r"width:([\d.]+)%", bars)]
    colours = re.findall(r"height:\d+px;background:(#[0-9a-f]{6})", bars)
    values = re.findall(r'white-space:nowrap">([^<]+)</span></div></div>', bars)
    assert len(widths) == len(frame) >= 2 and widths[0] == BAR_SHARE  # the merged pair is the longest
    assert colours == [KIND_COLOURS[k] for k in frame["kind"]]
    assert values == [f"{v:,}" for v in frame["value"]]
    top = frame["value"].max()
    assert widths == [round(BAR_SHARE * v / top, 1) for v in frame["value"]]


def test_the_compression_curve_is_drawn_to_scale_with_the_step_marked():
    from ui.widgets.quick_charts import curve_drawing

    curve = [1000, 700, 600, 550, 540]
    d = curve_drawing(curve, 2, x_title="merge step", y_title="corpus length (tokens)")
    (line,) = [s for s in d.base if s["tag"] == "polyline"]
    points = [tuple(map(float, p.split(","))) for p in str(line["points"]).split()]
    assert len(points) == len(curve)
    xs, ys = zip(*points)
    assert list(xs) == sorted(xs) and list(ys) == sorted(ys)  # later steps right, fewer tokens lower
    zero = max(float(s["y1"]) for s in d.base if s["tag"] == "line" and s["y1"] == s["y2"])  # the 0 grid line
    # The y axis starts at zero: the curve's y positions are proportional to the counts.
    assert (zero - ys[0]) / (zero - ys[-1]) == pytest.approx(curve[0] / curve[-1], rel=1e-2)
    rule, dot = d.overlay
    assert rule["x1"] == dot["cx"] == points[2][0] and dot["cy"] == points[2][1]
    assert dot["tip"] == "merge step 2: 600 tokens"
    labels = [s["text"] for s in d.base if s["tag"] == "text"]
    assert "0" in labels and "1,000" in labels and all("." not in t for t in labels)  # integer ticks


# ------------------------------------------------------------------------- long words and tokens


def test_a_huge_word_gives_small_html():
    # One 200,000-letter word: before, the words table alone was 56 MB of HTML (the browser hung).
    run = train_run(corpus_from_text("x" * 200_000), MergeSettings(budget=30))
    rows = run.display_words(0, 16)
    html = words_html(rows, run.token_id, scheme=run.scheme, translate=True)
    assert len(html) < 30_000 and f"+{200_000 - MAX_WORD_CHIPS:,} more tokens" in html
    last = run.num_steps
    info = run.step_info(last)
    assert len(info.token) > 100_000
    html = merge_banner_html(info.left, info.right, info.token, run.token_id, scheme=run.scheme, translate=True)
    assert len(html) < 5_000 and "more)" in html
    tree = run.merge_tree(info.token, last)
    html = tree_block_html(tree, scheme=run.scheme)
    assert len(html) < 100_000 and "merge #" in html


def _nodes(node: TreeNode) -> list[TreeNode]:
    if node.left is None or node.right is None:
        return [node]
    return [node, *_nodes(node.left), *_nodes(node.right)]


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
def test_big_merge_trees_are_drawn_with_a_bounded_number_of_merges(algorithm):
    # WordPiece skips words over 100 characters, so: several words of 100 x's.
    run = train_run(corpus_from_text(" ".join(["x" * 100] * 3)),
                    MergeSettings(algorithm=algorithm, budget=200))
    token = run.step_info(run.num_steps).token
    tree = run.merge_tree(token, run.num_steps)
    nodes = _nodes(tree)
    expanded = [n for n in nodes if not n.is_leaf]
    collapsed = [n for n in nodes if n.is_leaf and n.step is not None]
    assert len(expanded) == MAX_TREE_NODES and collapsed  # the rest is left folded, marked by its step
    assert "".join(n.token if algorithm == "bpe" else n.token.removeprefix("##") for n in _leaves(tree)) \
        == token.removeprefix("##")
    assert "merge #" in tree_html(collapsed[0], scheme=run.scheme)
    small = run.merge_tree(token, run.num_steps, max_nodes=1)
    assert small.step == run.num_steps and small.left is not None and small.left.left is None


def _leaves(node: TreeNode) -> list[TreeNode]:
    if node.left is None or node.right is None:
        return [node]
    return _leaves(node.left) + _leaves(node.right)


# ------------------------------------------------------------------------------ stop reasons


def test_stop_text_speaks_in_the_settings_of_the_page():
    hug = load_sample("hf-course-hug-pug")
    tiny = train_run(hug, MergeSettings(budget_kind="vocab", budget=1))
    assert tiny.num_steps == 0
    assert stop_text(tiny) == (
        "the vocabulary size you asked for (1) leaves no room for merges: the starting vocabulary "
        "(every character of the corpus and [UNK]) already has 8 tokens. Choose a vocabulary size above 8")
    byte = train_run(hug, MergeSettings(level="byte", budget_kind="vocab", budget=100))
    assert "(the 256 bytes)" in stop_text(byte) and "above 256" in stop_text(byte)
    wp = train_run(hug, MergeSettings(algorithm="wordpiece", budget_kind="vocab", budget=3))
    assert "leaves no room for merges" in stop_text(wp)  # the engine only says "reached vocab_size"
    assert stop_text(train_run(hug, MergeSettings(budget=3))) == "all 3 merges you asked for are done"
    assert stop_text(train_run(hug, MergeSettings(budget_kind="vocab", budget=10))) == (
        "the vocabulary reached the size you asked for (10 tokens)")
    rare = train_run(hug, MergeSettings(budget=50, min_frequency=16))
    assert rare.num_steps == 2 and stop_text(rare) == (
        "no pair occurs at least 16 times (the minimum pair frequency) any more; lower the minimum to keep merging")
    none = train_run(hug, MergeSettings(algorithm="wordpiece", budget=50, min_frequency=10**6))
    assert stop_text(none).startswith("no pair occurs at least 1,000,000 times") and "to merge" in stop_text(none)
    done = train_run(hug, MergeSettings(budget=1000))
    assert stop_text(done) == "every word is a single token now: there is no pair left to merge"
    assert "min_frequency" not in stop_text(rare) + stop_text(none) and "vocab_size" not in stop_text(tiny)


@pytest.fixture(scope="module", params=["char", "byte"])
def default_run(request):
    return train_run(load_sample("default"), MergeSettings(budget=300, level=request.param))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from("the rn\u00e9\u2615<>aé 東京s"), max_size=40),
       step=st.integers(0, 300))
def test_strips_from_one_trace_per_piece_equal_encoding_every_piece_for_every_strip(default_run, text, step):
    """The encode panel walks each piece's own trace once; every strip is still the sentence
    encoded with the merges up to it (unknown characters included)."""
    from ui.merges import encode as panel

    pieces = tuple(default_run.pieces(text))
    assert panel._bpe_strips(default_run, pieces, step) == panel._bpe_strips_encoding(default_run, pieces, step)
