"""The Compare page under AppTest: text sources, aligned rows, metrics, training, robustness, sweep."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests import _pages as pages
from tests._pages import html_bodies, ok
from tokenizer_core.analysis.compare import compare_rows, granularity_tokenizer
from tokenizer_core.analysis.sweep import log_sizes, split_lines, sweep
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import load_reference
from ui.compare.page import TAB
from ui.compare.sweep_view import LINKED_NOTE
from ui.tokenizers.add import TrainRequest

PAGE = "pages/compare.py"
HOSTILE = '<script>window.__xss=1</script> <img src=x onerror="alert(1)"> unhappiness & café'


def open_page(sample: str = "sennrich-low-lower-newest-widest", text: str | None = None) -> AppTest:
    return pages.open_page(PAGE, sample=sample, text=text)


def show(at: AppTest, tab: str) -> AppTest:
    """Open the page's tab ``tab`` (what a click on it does: only the open tab is computed)."""
    at.session_state[TAB] = tab
    return ok(at.run())


def test_url_text_is_aligned_escaped_and_counted():
    at = open_page(text=HOSTILE)
    assert at.text_area(key="compare_text").value == HOSTILE
    bodies = html_bodies(at)
    assert "<script>" not in bodies and "<img" not in bodies and "&lt;script" in bodies
    lines = list(load_sample("sennrich-low-lower-newest-widest").lines())
    expected = {"word": granularity_tokenizer("word", lines), "char": granularity_tokenizer("char", lines),
                "byte": granularity_tokenizer("byte", []), "gpt2": load_reference("gpt2"),
                "cl100k_base": load_reference("cl100k_base")}
    counts = next(m.value for m in at.markdown if m.value.startswith("Tokens:"))
    for name, tok in expected.items():
        shown = name.replace("_", "\\_")  # markdown-escaped
        assert f"**{shown}** {len(tok.encode(HOSTILE, add_special_tokens=False).ids):,}" in counts
    # Every token of every row is one chip whose hover names its id.
    for tid in load_reference("cl100k_base").encode(HOSTILE, add_special_tokens=False).ids:
        assert f'title="id {tid} ' in bodies


def test_metrics_on_the_text_match_the_core():
    at = show(open_page(text="unhappiness is not happiness"), "Metrics")
    frame = at.dataframe[0].value  # "On this text"
    assert list(frame["name"]) == ["word", "char", "byte", "gpt2", "cl100k_base"]
    gpt2 = load_reference("gpt2")
    row = compare_rows([("gpt2", gpt2)], ["unhappiness is not happiness"])[0]
    got = frame[frame["name"] == "gpt2"].iloc[0]
    assert got["tokens"] == row.tokens and got["embedding_params"] == gpt2.vocab_size * 768
    assert abs(got["chars_per_token"] - row.chars_per_token) < 1e-9
    at.number_input(key="compare_d_model").set_value(10).run()
    at.radio(key="compare_metrics_view").set_value("Strategy table").run()
    strategy = ok(at).dataframe[0].value
    assert list(strategy.columns) == ["name", "vocab_size", "chars_per_token", "compression", "char_coverage"]
    # Both metrics tables download as CSV.
    keys = {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
    assert {"compare_metrics_text_csv", "compare_metrics_corpus_csv"} <= keys
    assert strategy[strategy["name"] == "char"].iloc[0]["compression"] == 1.0


def test_train_and_compare_adds_subword_rows():
    at = open_page(text="lowest newer")
    at.multiselect(key="compare_algorithms").set_value(["bpe-chars", "unigram"]).run()
    at.number_input(key="compare_vocab_size").set_value(300).run()
    at = ok(at.button(key="compare_train").click().run())
    picked = at.multiselect(key="compare_shelf").value
    assert any(p.startswith("BPE on characters 300") for p in picked)
    assert any(p.startswith("Unigram 300") for p in picked)
    at = show(at, "Metrics")
    names = list(at.dataframe[0].value["name"])
    assert len(names) == 7 and names[:3] == ["word", "char", "byte"]
    # The training went onto the shelf, where the Tokenizers page sees it too.
    at = ok(at.switch_page("pages/tokenizers.py").run())
    assert sum("trained here" in o for o in at.selectbox(key="tokenizers_selected").options) == 2
    # The same training asked for again (there) is taken from the server's store, with no replay of
    # the progress bar the first training drew (Streamlit's cached functions would replay it, and fail).
    at.selectbox(key="tokenizers_algorithm").set_value("bpe-chars").run()
    at.number_input(key="tokenizers_vocab_size").set_value(300).run()
    at = ok(at.button(key="tokenizers_train").click().run())
    assert any("put on the shelf" in s.value for s in at.success)


def test_no_tokenizer_picked_says_so():
    at = open_page(text="abc")
    at.multiselect(key="compare_granularities").set_value([]).run()
    at = ok(at.multiselect(key="compare_shelf").set_value([]).run())
    assert any("Pick at least one tokenizer" in i.value for i in at.info)


def test_example_and_corpus_line_sources():
    at = open_page()
    at = ok(at.radio(key="compare_source").set_value("corpus").run())
    at.number_input(key="compare_line_count").set_value(1).run()
    first = next(load_sample("sennrich-low-lower-newest-widest").lines())
    counts = next(m.value for m in at.markdown if m.value.startswith("Tokens:"))
    char = granularity_tokenizer("char", load_sample("sennrich-low-lower-newest-widest").lines())
    assert f"**char** {len(char.encode(first, add_special_tokens=False).ids):,}" in counts
    at.number_input(key="compare_first_line").set_value(10 ** 6).run()
    assert any("fewer than" in w.value for w in ok(at).warning)
    at = ok(at.radio(key="compare_source").set_value("example").run())
    assert any(o.startswith("misspelt") for o in at.selectbox(key="compare_example").options)


def test_sweep_rows_equal_the_core_sweep():
    at = show(open_page("hf-course-hug-pug"), "Vocabulary-size sweep")
    at.selectbox(key="compare_sweep_algorithm").set_value("bpe-chars").run()
    at.select_slider(key="compare_sweep_range").set_value((256, 1000)).run()
    at.number_input(key="compare_sweep_points").set_value(3).run()
    at = ok(at.button(key="compare_sweep_run").click().run())
    frame = next(d.value for d in at.dataframe if "heldout_tokens" in d.value.columns)
    train, held = split_lines(list(load_sample("hf-course-hug-pug").lines()), heldout_fraction=0.1)
    options = TrainRequest(algorithm="bpe-chars", vocab_size=1000, lowercase=False).options()
    rows = sweep("bpe", train, held, sizes=log_sizes(256, 1000, 3), options=options)
    assert list(frame["heldout_tokens"]) == [r.heldout_tokens for r in rows]
    assert list(frame["vocab_size"]) == [r.vocab_size for r in rows]
    assert at.get("plotly_chart")


def _sweep_frame(at: AppTest):
    return next(d.value for d in at.dataframe if "heldout_tokens" in d.value.columns)


def test_the_address_names_the_sweep_on_show_not_the_settings_being_edited():
    at = show(open_page("hf-course-hug-pug"), "Vocabulary-size sweep")
    at.selectbox(key="compare_sweep_algorithm").set_value("bpe-chars").run()
    at = ok(at.select_slider(key="compare_sweep_range").set_value((256, 1000)).run())
    assert "compare_sweep_range" not in at.query_params and "compare_sweep" not in at.query_params
    at.number_input(key="compare_sweep_points").set_value(3).run()
    at = ok(at.button(key="compare_sweep_run").click().run())
    ran = {"compare_sweep": "1", "compare_sweep_algorithm": "bpe-chars", "compare_sweep_range": ["256", "1000"],
           "compare_sweep_points": "3"}
    assert {name: at.query_params[name] for name in ran} == ran
    # Editing a setting leaves the address naming the sweep on show until the button is pressed again.
    at = ok(at.number_input(key="compare_sweep_points").set_value(4).run())
    assert at.query_params["compare_sweep_points"] == "3"
    assert any("settings differ" in c.value for c in at.caption)
    at = ok(at.button(key="compare_sweep_run").click().run())
    assert at.query_params["compare_sweep_points"] == "4" and len(_sweep_frame(at)) == 4


def test_a_link_naming_a_sweep_runs_it_again_with_its_settings():
    params = {"compare_tab": "Vocabulary-size sweep", "compare_sweep": "1", "compare_sweep_algorithm": "bpe-chars",
              "compare_sweep_range": ["256", "1000"], "compare_sweep_points": "3", "compare_sweep_heldout": "0.2"}
    at = open_link(params, sample="hf-course-hug-pug")
    assert at.number_input(key="compare_sweep_points").value == 3
    assert any(c.value == LINKED_NOTE for c in at.caption)  # says why it runs on opening
    train, held = split_lines(list(load_sample("hf-course-hug-pug").lines()), heldout_fraction=0.2)
    options = TrainRequest(algorithm="bpe-chars", vocab_size=1000, lowercase=False).options()
    rows = sweep("bpe", train, held, sizes=log_sizes(256, 1000, 3), options=options)
    assert list(_sweep_frame(at)["heldout_tokens"]) == [r.heldout_tokens for r in rows]
    assert {name: at.query_params[name] for name in params} == params  # the address keeps naming it
    # The next run shows the same sweep without running it again.
    at = ok(at.run())
    assert not any(c.value == LINKED_NOTE for c in at.caption) and len(_sweep_frame(at)) == 3


def test_a_link_with_sweep_settings_but_no_sweep_only_fills_them_in():
    at = open_link({"compare_tab": "Vocabulary-size sweep", "compare_sweep_points": "3"},
                   sample="hf-course-hug-pug")
    assert at.number_input(key="compare_sweep_points").value == 3
    assert not [d for d in at.dataframe if "heldout_tokens" in d.value.columns]
    assert any("Run the sweep" in i.value for i in at.info)


def open_link(params: dict, sample: str = "sennrich-low-lower-newest-widest") -> AppTest:
    """Open the page as a shared link does: the address carries ``params``."""
    at = pages.open_page("pages/corpus.py", sample=sample)
    at.query_params.update(params)
    return ok(at.switch_page(PAGE).run())


def test_a_link_restores_the_open_tab_and_its_settings():
    at = open_link({"compare_tab": "Metrics", "compare_d_model": "10", "compare_metrics_view": "Strategy table",
                    "compare_granularities": ["char", "word"], "text": "lowest newer"})
    assert at.number_input(key="compare_d_model").value == 10
    frame = at.dataframe[0].value  # the Metrics tab is the open one
    assert list(frame["name"])[:2] == ["char", "word"]
    assert list(frame.columns) == ["name", "vocab_size", "chars_per_token", "compression", "char_coverage"]
    # The address keeps what differs from the defaults, and only that.
    assert at.query_params["compare_tab"] == "Metrics" and at.query_params["compare_d_model"] == "10"
    assert at.query_params["compare_granularities"] == ["char", "word"]
    assert "compare_price" not in at.query_params and "compare_sweep_range" not in at.query_params


def test_closed_tabs_keep_their_settings():
    at = show(open_page(text="abc"), "Metrics")
    at = ok(at.number_input(key="compare_d_model").set_value(12).run())
    at = show(at, "Vocabulary-size sweep")
    at = ok(at.select_slider(key="compare_sweep_range").set_value((256, 1000)).run())
    at = show(at, "Side by side")
    assert at.query_params["compare_d_model"] == "12"  # still in the address while its tab is closed
    at = show(at, "Vocabulary-size sweep")
    assert at.select_slider(key="compare_sweep_range").value == (256, 1000)  # kept, though not yet run
    at = show(at, "Metrics")
    assert at.number_input(key="compare_d_model").value == 12
    frame = at.dataframe[0].value
    char = frame[frame["name"] == "char"].iloc[0]
    assert char["embedding_params"] == char["vocab_size"] * 12


def test_a_link_with_a_sweep_range_and_a_bad_value():
    at = open_link({"compare_tab": "Vocabulary-size sweep", "compare_sweep_range": ["256", "1000"],
                    "compare_sweep_points": "99"})
    assert at.select_slider(key="compare_sweep_range").value == (256, 1000)
    assert at.number_input(key="compare_sweep_points").value == 6  # refused, and said
    assert any("compare_sweep_points" in w.value for w in at.warning)


def test_the_round_trip_tab_marks_what_each_tokenizer_loses():
    """The word and char baselines trained on a tiny corpus lose what they never saw (unknown
    tokens, struck through); GPT-2 and cl100k give the hostile text back, escaped."""
    from tokenizer_core.analysis.round_trip import round_trip

    at = show(open_page(text=HOSTILE), "Round trip")
    table = at.dataframe[0].value
    lines = list(load_sample("sennrich-low-lower-newest-widest").lines())
    word = round_trip(granularity_tokenizer("word", lines), HOSTILE)
    rows = dict(zip(table["tokenizer"], table["gives the text back"]))
    assert rows["gpt2"] == rows["cl100k_base"] == "yes" and rows["word"] == ("yes" if word.lossless else "no") == "no"
    assert int(table.set_index("tokenizer").loc["word", "unknown tokens"]) == word.unknown > 0
    assert any("unknown token" in w.value for w in at.warning)
    bodies = html_bodies(at)
    assert 'class="tp-lost"' in bodies and "<script>" not in bodies and "&lt;script&gt;" in bodies


def test_the_numbers_tab_draws_each_tokenizers_splits_of_0_to_9999():
    from tokenizer_core.analysis.numbers import number_splits

    at = show(open_page(), "Numbers")
    text = "\n".join(m.value for m in at.markdown)
    assert "**cl100k\\_base** · digits in groups of up to 3, counted from the left" in text
    assert "**gpt2** · whatever digit strings" in text and "**byte** · every digit a token of its own" in text
    # the baselines trained on a corpus without digits: unknown tokens, said so
    assert "**word** · most numbers hold an unknown token" in text and "**char** · most numbers hold an unknown" in text
    cl = number_splits(load_reference("cl100k_base"))
    assert any(f"these 10,000 numbers cost {sum(cl.counts):,} tokens" in c.value.replace("\\", "") for c in at.caption)
    charts = at.get("plotly_chart")
    assert len(charts) == 5  # word, char, byte, gpt2, cl100k_base


def test_the_numbers_tab_splits_a_chosen_range_decimals_and_a_years_dates():
    """Each number set's heatmap holds what the core's grid and pieces say: the counts per cell,
    none for 30 February; the set and its start are in the address."""
    import json

    from tokenizer_core.analysis.numbers import grid_pieces, number_grid

    cl = load_reference("cl100k_base")
    at = show(open_page(), "Numbers")
    at = ok(at.number_input(key="compare_numbers_start").set_value(1_000_000).run())
    grid = number_grid("integers", start=1_000_000)
    total = sum(len(p) for row in grid_pieces(cl, grid) for p in row)
    assert any(f"these 10,000 numbers cost {total:,} tokens" in c.value.replace("\\", "") for c in at.caption)
    assert at.query_params["compare_numbers_start"] == "1000000"
    for kind, settings in (("decimals", {}), ("dates", {"year": 2023})):
        at = ok(at.radio(key="compare_numbers_kind").set_value(kind).run())
        if kind == "dates":
            at = ok(at.number_input(key="compare_numbers_year").set_value(2023).run())
        grid = number_grid(kind, **settings)
        expected = [[None if p is None else len(p) for p in row] for row in grid_pieces(cl, grid)]
        figure = json.loads(at.get("plotly_chart")[-1].proto.spec)  # the last row: cl100k_base
        assert figure["data"][0]["z"] == expected
    assert expected[1][29] is None and expected[1][27] is not None  # 30 February 2023 is no date
    assert at.query_params["compare_numbers_kind"] == "dates"


def test_the_aligned_view_says_why_the_counts_differ():
    from tokenizer_core.analysis.rules import split_rules

    at = open_page(text="I don't have 1234 cats")
    said = "\n".join(m.value for m in at.markdown)
    assert "*cl100k\\_base*:" in said and "*gpt2*:" in said
    # a rule only some rows have is bold (a cause): cl100k's digit groups, the bytes GPT-2 and cl100k read
    assert "**digits in groups of up to 3, from the left**" in said
    plain = said.replace("\\", "")
    assert all(r in plain for r in split_rules(load_reference("gpt2")))


def test_the_aligned_view_lists_the_graphemes_each_tokenizer_cuts():
    """A family emoji, a flag and accents written with combining marks: the table's row per
    tokenizer counts the graphemes the core finds cut; the byte row cuts every one."""
    from tokenizer_core.analysis.compare import segments
    from tokenizer_core.analysis.graphemes import EXAMPLES, cut_graphemes, graphemes

    text = " ".join(EXAMPLES[k] for k in ("family emoji (ZWJ sequence)", "flag (regional indicators)",
                                          "combining accents")) + " <b>x</b>"
    at = open_page(text=text)
    frame = next(d.value for d in at.dataframe if "graphemes cut (× tokens)" in d.value.columns)
    rows = dict(zip(frame["tokenizer"], frame["cut"]))
    wide = [g for g in graphemes(text) if len(g.text.encode()) > 1]
    assert len(wide) == 5 and rows["byte"] == frame["of"].iloc[0] == 5  # family, flag, é, é, ñ
    for name in ("gpt2", "cl100k_base"):
        assert rows[name] == len(cut_graphemes(text, segments(load_reference(name), text)))
    assert rows["gpt2"] >= 2  # the family and the flag are byte tokens to GPT-2
    shown = frame.set_index("tokenizer").loc["byte", "graphemes cut (× tokens)"]
    assert EXAMPLES["flag (regional indicators)"] + " ×8" in shown  # two 4-byte regional indicators


def test_the_rules_say_where_the_rows_part_and_which_rule_decides():
    """The digits of "1234567" part GPT-2, cl100k_base and the baselines; the line for digits names each
    tokenizer's own digit rule, with an escaped example, and a hostile text stays text."""
    from tokenizer_core.analysis.rules import split_rules

    at = open_page(text="I don't have 1234567 <b>cats</b>")
    said = "\n".join(m.value for m in at.markdown)
    assert "Where the rows part" in said
    digits = next(line for line in said.splitlines() if line.startswith("- **digits**"))
    for name in ("gpt2", "cl100k_base"):
        rule = next(r for r in split_rules(load_reference(name)) if "digit" in r)
        assert f"*{name.replace('_', chr(92) + '_')}*: {rule}" in digits.replace("\\(", "(").replace("\\)", ")")
    assert "<b>" not in said.replace("\\<b>", "")  # shown escaped, never as a tag
