"""The Tokenizers page under AppTest: the shelf, training onto it, the views of one tokenizer."""

from __future__ import annotations

import html

from streamlit.testing.v1 import AppTest

from tests._paths import APP
from tokenizer_core.io.references import load_reference
from ui.widgets.text import escape_markdown as escape

PAGE = "pages/tokenizers.py"
TIMEOUT = 120


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(sample: str | None = None) -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    if sample is not None:
        at.radio(key="corpus_source").set_value("sample").run()
        at.selectbox(key="corpus_sample").set_value(sample).run()
        ok(at.button(key="corpus_use_sample").click().run())
    return ok(at.switch_page(PAGE).run())


def show(at: AppTest, tab: str) -> AppTest:
    """Open the view ``tab`` (only the open one is drawn) and rerun, as a click on it does."""
    at.session_state["tokenizers_tab"] = tab
    return ok(at.run())


def html_bodies(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def test_references_are_on_the_shelf_and_gpt2_is_shown():
    at = open_page("hf-course-hug-pug")
    options = at.selectbox(key="tokenizers_selected").options
    assert any(o.startswith("gpt2") for o in options) and any(o.startswith("cl100k_base") for o in options)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Vocabulary size"] == f"{load_reference('gpt2').vocab_size:,}"
    # The pipeline tab: each stage named, the final tokens as chips with GPT-2's ids.
    bodies = html_bodies(show(at, "Pipeline on a text"))
    gpt2 = load_reference("gpt2")
    text = at.text_area(key="tokenizers_pipeline_text").value
    for tid in gpt2.encode(text).ids[:5]:
        assert f'title="id {tid} ' in bodies
    assert any("ByteLevel" in m.value for m in at.markdown)
    # How it runs: GPT-2 on byte-level BPE's fast path, in the kernel (the first kind asked: no refusals).
    assert [s.value for s in at.success] == [escape("Fast path: byte-level BPE (GPT-2's family, Llama 3, Qwen), "
                                                    "in the compiled kernel.")]
    assert not [e for e in at.expander if e.label.startswith("Why not")]
    # The shelf table and the pipeline's token table each have a visible CSV button.
    buttons = {b.proto.id.rsplit("-", 1)[-1]: b for b in at.get("download_button")}
    assert {"tokenizers_shelf_table_csv", "tokenizers_stages_table_csv"} <= set(buttons)
    assert all(buttons[k].proto.label == "CSV" for k in ("tokenizers_shelf_table_csv", "tokenizers_stages_table_csv"))


def test_training_puts_a_tokenizer_on_the_shelf_and_selects_it():
    at = open_page("sennrich-low-lower-newest-widest")
    at.selectbox(key="tokenizers_algorithm").set_value("bpe-chars").run()
    at.number_input(key="tokenizers_vocab_size").set_value(300).run()
    at = ok(at.button(key="tokenizers_train").click().run())
    assert any("put on the shelf" in s.value for s in at.success)
    selected = at.selectbox(key="tokenizers_selected")
    metrics = {m.label: m.value for m in at.metric}
    reached = int(metrics["Vocabulary size"].replace(",", ""))
    assert reached < 300  # the tiny corpus runs out of pairs: the name says both sizes
    assert selected.value == f"BPE on characters 300 → {reached} · trained here"
    assert metrics["Corpus use"].endswith("%")
    # Another page trained tokenizer joins the same shelf.
    at = ok(at.switch_page("pages/merges.py").run())
    at = ok(at.button(key="merges_train").click().run())
    at = ok(at.switch_page(PAGE).run())
    kinds = [o for o in at.selectbox(key="tokenizers_selected").options if "trained here" in o]
    assert len(kinds) == 2


def test_vocabulary_search_and_merge_tree():
    at = open_page("hf-course-hug-pug")
    at = ok(at.text_input(key="tokenizers_search").input("Ġthe").run())
    frame = at.dataframe[1].value  # the shelf table comes first, then the vocabulary
    gpt2 = load_reference("gpt2")
    assert len(frame) == sum("Ġthe" in t for t in gpt2.get_vocab())
    assert all(t.startswith("·the") or "·the" in t for t in frame["token"])  # Ġ shown as a visible space
    assert "tokenizers_vocab_table_csv" in {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
    at = ok(show(at, "Merge tree").text_input(key="tokenizers_tree_token").input("Ġthe").run())
    tree = next(b for b in html_bodies(at).split("\n") if "tp-tree" in b)
    assert "merge #" in tree and "·the" in tree  # Ġ shown as a visible space
    at = ok(at.text_input(key="tokenizers_tree_token").input("not-a-token-xyz").run())
    assert any("not in the vocabulary" in w.value for w in at.warning)


def test_hub_offline_gives_a_clear_message():
    at = open_page()
    at.text_input(key="tokenizers_hub_id").input("some-owner/some-model").run()
    at = ok(at.button(key="tokenizers_hub_load").click().run())
    assert at.error and not at.exception


def test_every_html_block_escapes_hostile_tokens():
    """A tokenizer trained on HTML: the pipeline chips, the "tokens to try" chips and the merge tree
    all show it as text (no tag reaches the page)."""
    hostile = "<script>alert(1)</script> <img src=x onerror=alert(1)> <b>bold</b> &amp;\n" * 30
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(hostile).run()
    ok(at.button(key="corpus_use_paste").click().run())
    at = ok(at.switch_page(PAGE).run())
    at.selectbox(key="tokenizers_algorithm").set_value("bpe-chars").run()
    at.number_input(key="tokenizers_vocab_size").set_value(300).run()
    at = show(ok(at.button(key="tokenizers_train").click().run()), "Pipeline on a text")
    at = ok(at.text_area(key="tokenizers_pipeline_text").input(hostile.splitlines()[0]).run())
    bodies = html_bodies(at)
    assert "&lt;script&gt;" in bodies and "&lt;img" in bodies  # shown, as text
    (_, tok), = at.session_state["shelf_items"].values()
    angled = max((t for t in tok.get_vocab() if "<" in t and len(t) > 1), key=len)  # made by a merge
    at = show(at, "Merge tree")  # no token asked for yet: the longest tokens to try, as chips
    tried = html_bodies(at)
    assert "tp-chip" in tried and "<script" not in tried and "<img" not in tried and "<b>" not in tried
    longest = sorted(tok.get_vocab(), key=len, reverse=True)[:12]
    assert all(html.escape(t, quote=False) in tried for t in longest)  # every one shown, as text
    at = ok(at.text_input(key="tokenizers_tree_token").input(angled).run())
    bodies = html_bodies(at)
    assert "tp-tree" in bodies and html.escape(angled) in bodies
    for tag in ("<script", "<img", "<b>"):
        assert tag not in bodies, tag


def test_special_tab_lists_added_tokens_with_their_flags():
    at = open_page()
    at.selectbox(key="tokenizers_selected").set_value(
        next(o for o in at.selectbox(key="tokenizers_selected").options if o.startswith("cl100k_base"))).run()
    at = show(ok(at), "Special tokens")
    frame = next(d.value for d in at.dataframe if "lstrip" in d.value.columns)
    cl100k = load_reference("cl100k_base")
    assert list(frame["token"]) == [t.content for t, _ in sorted(cl100k.added.entries, key=lambda e: e[1])]
    assert set(frame.columns) >= {"id", "special", "single_word", "lstrip", "rstrip", "normalized", "in model vocab"}
    row = frame[frame["token"] == "<|endoftext|>"].iloc[0]
    assert row["id"] == 100257 and bool(row["special"]) and not bool(row["normalized"])
    assert "tokenizers_added_table_csv" in {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}


def test_presenter_mode_hides_the_intro_and_folds_the_shelf_table():
    at = open_page()
    assert any("sits on the **shelf**" in m.value for m in at.markdown)
    at.query_params["present"] = "1"
    at = ok(at.run())
    assert not any("sits on the **shelf**" in m.value for m in at.markdown)  # a slide shows the tokenizer
    shelf = next(e for e in at.expander if e.label == "Shelf")
    assert "gpt2" in list(shelf.dataframe[0].value["name"])  # the shelf's table, folded in it
    assert at.selectbox(key="tokenizers_selected").value.startswith("gpt2")  # the picker stays in sight


def test_residue_tab_ranks_gpt2s_glitch_tokens_first_and_counts_the_corpus():
    """The "Residue & glitch tokens" view of GPT-2 on a sample: its known glitch tokens on top, the
    figures the core computes, and the table's rows as the core ranks them (plain text cells)."""
    from tokenizer_core.analysis.residue import GPT2_GLITCH_TOKENS, residue_rows
    from tokenizer_core.corpus.loading import load_sample

    at = open_page("hf-course-hug-pug")
    gpt2 = next(o for o in at.selectbox(key="tokenizers_selected").options if o.startswith("gpt2"))
    at.selectbox(key="tokenizers_selected").set_value(gpt2).run()
    at = show(at, "Residue & glitch tokens")
    metrics = {m.label: m.value for m in at.metric}
    rows = residue_rows(load_reference("gpt2"), load_sample("hf-course-hug-pug").lines())
    assert metrics["Unused on the corpus"] == f"{sum(not r.final for r in rows):,}"
    assert metrics["No round trip"] == f"{sum(not r.round_trips for r in rows):,}"
    frame = next(d.value for d in at.dataframe if "glitch" in d.value.columns)
    assert frame["glitch"].head(len(GPT2_GLITCH_TOKENS)).all() and not frame["glitch"].iloc[len(GPT2_GLITCH_TOKENS)]
    assert frame["id"].tolist() == [r.id for r in rows]
    assert any(b.proto.label == "CSV" for b in at.get("download_button"))
