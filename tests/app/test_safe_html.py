"""Every HTML block the app shows goes through ui/widgets/safe_html.render_html, its builders escape
token text, and the guard refuses markup they never write."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests._paths import ROOT
from tokenizer_core.corpus.loading import corpus_from_text
from ui.merges.encode import encode, tokens_of
from ui.merges.html import (
    merge_banner_html,
    sentence_html,
    strips_html,
    strips_parts,
    tree_block_html,
    words_html,
    words_parts,
)
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run
from ui.widgets.charts import candidates_html, kinds_legend_html
from ui.widgets.metric_strip import Metric, metric_strip_html
from ui.widgets.quick_charts import curve_drawing, to_svg
from ui.widgets.safe_html import markup_problems
from ui.widgets.tokens import chips_html

HOSTILE = ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "a&amp;b", '" onmouseover="alert(1)',
           "<a href='javascript:alert(1)'>x</a>"]


@pytest.mark.parametrize("fragment, problem", [
    ("<img src=x>", "tag <img>"),
    ("<script>alert(1)</script>", "tag <script>"),
    ("<iframe srcdoc='x'></iframe>", "tag <iframe>"),
    ('<span ONMOUSEOVER="alert(1)">x</span>', "attribute onmouseover on <span>"),
    ('<div style="x" onclick=alert(1)>', "attribute onclick on <div>"),
    ('<span style="background:url(java script:alert(1))">x</span>', "a javascript: URL in style on <span>"),
    ("<svg/onload=alert(1)>", "tag <svg>"),
])
def test_the_guard_names_what_the_helpers_never_write(fragment, problem):
    assert problem in markup_problems(fragment)


def test_escaped_text_and_the_helpers_own_markup_pass():
    assert markup_problems('<div style="display:flex"><span class="tok" title="&lt;b&gt;">&lt;img&gt;</span></div>') == []
    assert markup_problems('<span title="javascript:alert(1) is only text here">x</span>') == []
    assert markup_problems("<style>.tok > span { color: red }</style><table><tr><td>1</td></tr></table>") == []


@pytest.fixture(scope="module")
def hostile_run():
    corpus = corpus_from_text(" ".join(HOSTILE * 3) + "\n")
    return train_run(corpus, MergeSettings(budget=30, pre_tokenizer="whitespace-split"))


def test_every_merges_page_builder_escapes_hostile_tokens(hostile_run):
    """Each builder behind an st.html block of ui/merges/page.py, fed tokens made of HTML."""
    run = hostile_run
    step = run.num_steps
    view = encode(run, " ".join(HOSTILE), step)
    info = run.step_info(step)
    blocks = [
        merge_banner_html(HOSTILE[0], HOSTILE[1], HOSTILE[0] + HOSTILE[1], run.token_id, scheme=run.scheme,
                          translate=True, label="<b>label</b>"),
        kinds_legend_html(info, scheme=run.scheme, translate=True),
        candidates_html(info, run.token_id, scheme=run.scheme, translate=True),
        metric_strip_html([Metric(HOSTILE[0], HOSTILE[1], delta=HOSTILE[4], help=HOSTILE[3])]),
        words_html(run.display_words(step, 16), run.token_id, scheme=run.scheme, translate=True,
                   highlight=frozenset([info.token])),
        strips_html(view, run.token_id, scheme=run.scheme, translate=True),
        sentence_html(view.final, run.token_id, scheme=run.scheme, translate=False),
        *(tree_block_html(run.merge_tree(t, step), scheme=run.scheme, translate=False) for t in tokens_of(view)),
        chips_html([(i, t) for i, t in enumerate(HOSTILE)], scheme="plain"),
    ]
    for block in blocks:
        assert markup_problems(block) == [], block[:200]
    joined = "".join(blocks)
    assert not re.search(r"<\s*(script|img|a)\b", joined, re.I)
    assert "&lt;script&gt;" in joined and "&lt;img" in joined


def _show_hostile() -> None:
    from ui.widgets.safe_html import render_html

    render_html('<div>ok</div><img src=x onerror="window.__xss=1">')
    render_html('<span class="tok">&lt;script&gt;</span>')


def _show_hostile_parts() -> None:
    from ui.widgets.safe_html import render_html

    render_html(["<table><tbody>", "<tr><td>ok</td></tr>", '<tr><td><img src=x onerror="window.__xss=1"></td></tr>',
                 "</tbody></table>"])
    render_html(['<span class="tok">', "&lt;b&gt;", "</span>"])


def test_a_fragment_in_parts_with_a_refused_part_is_shown_whole_as_text():
    at = AppTest.from_function(_show_hostile_parts).run()
    assert not at.exception
    bodies = "".join(h.proto.body for h in at.get("html"))
    assert not re.search(r"<\s*img", bodies, re.I) and "&lt;img" in bodies and "&lt;td&gt;ok" in bodies
    assert '<span class="tok">&lt;b&gt;</span>' in bodies  # safe parts are shown joined, as they are
    assert len(at.warning) == 1 and "tag <img>" in at.warning[0].value


def test_the_strips_the_page_draws_in_parts_escape_hostile_tokens(hostile_run):
    run = hostile_run
    view = encode(run, " ".join(HOSTILE), run.num_steps)
    parts = strips_parts(view, run.token_id, scheme=run.scheme, translate=True)
    assert markup_problems(parts) == []
    joined = "".join(parts)
    assert not re.search(r"<\s*(script|img|a)\b", joined, re.I)
    assert "&lt;" in joined and "&quot;" in joined  # the tokens' own brackets and quotes, as text


def test_refused_markup_is_shown_as_text_with_a_warning():
    at = AppTest.from_function(_show_hostile).run()
    assert not at.exception
    bodies = "".join(h.proto.body for h in at.get("html"))
    assert not re.search(r"<\s*img", bodies, re.I) and "&lt;img" in bodies
    assert '<span class="tok">&lt;script&gt;</span>' in bodies  # the safe fragment is shown as it is
    assert len(at.warning) == 1 and "tag <img>" in at.warning[0].value


def test_no_module_but_the_guard_calls_st_html():
    callers = [str(p.relative_to(ROOT)) for p in (ROOT / "ui").rglob("*.py")
               if "st.html(" in p.read_text(encoding="utf-8") and p.name != "safe_html.py"]
    callers += [str(p.relative_to(ROOT)) for p in (ROOT / "pages").rglob("*.py") if "st.html(" in p.read_text(encoding="utf-8")]
    assert callers == [], "call ui.widgets.safe_html.render_html instead of st.html"


def test_every_compare_tab_escapes_hostile_tokens():
    """Compare draws only its open tab (lazily run tabs): each one, opened in turn, shows whole tokens
    made of HTML (a tokenizer of the user's whose special tokens are tags, and one trained on a corpus
    of HTML) as text, never as markup."""
    from tests._pages import APP, TIMEOUT, html_bodies, ok
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.training import train
    from ui.compare.choices import SHELF
    from ui.compare.page import TAB, TABS
    from ui.shelf.state import Kind, ShelfItem

    tags = tuple(HOSTILE[:2])  # whole tags, so a token holds "<script>" or "<img ...>" in one piece
    tok = train("bpe", ["plain words here\n"] * 5, options=TrainOptions(vocab_size=60, special_tokens=tags))
    item = ShelfItem(key="own:hostile", name="tags as tokens", kind=Kind.IMPORTED, detail="x", digest="tok-hostile")
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(("\n".join(HOSTILE) + "\n") * 30).run()
    ok(at.button(key="corpus_use_paste").click().run())
    at.session_state["shelf_items"] = {item.key: (item, tok)}
    at.session_state[SHELF] = [item.label]
    at.query_params["text"] = " ".join(HOSTILE)
    ok(at.switch_page("pages/compare.py").run())
    at.multiselect(key="compare_algorithms").set_value(["bpe-chars"]).run()
    at.number_input(key="compare_vocab_size").set_value(300).run()
    ok(at.button(key="compare_train").click().run())
    shown: dict[str, str] = {}
    for tab in TABS[:-1]:  # the sweep draws charts and tables, no HTML blocks
        at.session_state[TAB] = tab
        ok(at.run())
        bodies = shown[tab] = html_bodies(at)
        assert "<script" not in bodies and "<img" not in bodies and "<a href" not in bodies, tab
        for body in (h.proto.body for h in at.get("html")):
            assert markup_problems(body) == [], (tab, body[:200])
        assert not any("not shown as formatting" in w.value for w in at.warning), tab  # the guard refused none
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown["Side by side"]  # one token, shown as text


def test_the_aligned_view_escapes_tokens_cut_inside_characters_and_row_names():
    """The aligned view's shared cells, byte-boundary marks and their titles (which name the
    character a cut falls in, its bytes and the rows that cut it) carry token text and row names:
    hostile ones, with multi-byte characters between tags so that byte rows cut inside them."""
    from tokenizer_core.analysis.compare import granularity_tokenizer, segments
    from tokenizer_core.io.references import load_reference
    from ui.compare.align import aligned_html

    text = "ü<script>alert('é')</script>😀<img src=x onerror=\"a()\">" + HOSTILE[3]
    toks = {'<b onmouseover="x()">gpt2</b>': load_reference("gpt2"),
            "<script>bytes</script>": granularity_tokenizer("byte", [text]),
            "chars & 'quotes'": granularity_tokenizer("char", [text])}
    rows = [(name, segments(tok, text)) for name, tok in toks.items()]
    block = aligned_html(text, rows, schemes=["bytes", "bytes", "plain"], translate=False)
    assert markup_problems(block) == [], block[:300]
    assert not re.search(r"<\s*(script|img|b)\b", block, re.I)
    assert "&lt;script&gt;" in block and "&lt;b onmouseover=" in block


def test_the_dropout_rows_escape_hostile_tokens():
    """The Lattice page's BPE-dropout rows: a share next to the chips of one segmentation."""
    from ui.lattice.views import dropout_row_html

    row = dropout_row_html(0.25, list(enumerate(HOSTILE)), scheme="plain", translate=False)
    assert markup_problems(row) == []
    assert not re.search(r"<\s*(script|img)\b", row, re.I)


def test_the_fewest_tokens_chips_escape_hostile_pieces():
    """The Lattice page's Fewest tokens tab: every path of a model whose pieces are markup, as chips."""
    from tokenizer_core.min_tokens import fewest_tokens, longest_match
    from tokenizer_core.unigram.model import Unigram
    from ui.lattice.fewest import path_chips_html

    text = "<img src=x onerror=alert(1)><script>"
    model = Unigram.from_frequencies({"<img": 3, " src=x": 2, " onerror=alert(1)>": 1, "<script>": 1,
                                      **{c: 1 for c in set(text)}})
    lattice = model.lattice(text)
    for path in (lattice.viterbi(), fewest_tokens(lattice), longest_match(lattice)):
        chips = path_chips_html(path)
        assert markup_problems(chips) == []
        assert not re.search(r"<\s*(script|img)\b", chips, re.I)
        assert "&lt;img" in chips and "&lt;script&gt;" in chips


def test_the_lessons_token_rows_escape_hostile_tokens_on_the_page_and_in_the_handout():
    """A lesson's token rows reach the browser through the Lessons page's chips (render_html) and the
    downloadable handout: both escape every token and label, with and without a vocabulary's ids."""
    from tokenizer_core.lessons.figure_types import FigureResult, TokenRow
    from ui.lessons.handout import _figure
    from ui.lessons.view import _chips

    for ids in ((), tuple(range(len(HOSTILE)))):
        row = TokenRow(label="<b onmouseover=alert(1)>row</b>", tokens=tuple(HOSTILE), ids=ids)
        chips = _chips(row, {})
        assert markup_problems(chips) == []
        assert not re.search(r"<\s*(script|img|a)\b", chips, re.I) and "&lt;script&gt;" in chips
        page = _figure(FigureResult(title="<script>t</script>", values={}, token_rows=(row,)), lambda chart: "")
        assert not re.search(r"<\s*(script|img|a|b)\b", page, re.I)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b onmouseover=" in page


def test_tokens_from_the_kernels_chunk_table_are_escaped():
    """The kernel's chunk table hands back an unknown SentencePiece piece with the text it covers (a
    stand-in id turned back into the unknown id and that text): hostile text there reaches the
    token chips as text, never as markup, single texts and batches alike."""
    from tokenizer_core.fast.packed import PackedEncoding
    from tokenizer_core.kernel import native
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    vocab = [("<unk>", 0.0, "unknown"), ("▁", -2.0, "normal"), ("▁x", -1.0, "normal"), ("x", -3.0, "normal")]
    tok = Tokenizer(SentencePieceUnigram(vocab), normalizer=SentencePieceNormalizer())
    texts = [f"x {h} x" for h in HOSTILE]
    rows = [tok.encode(t) for t in texts] + tok.encode_batch(texts).encodings
    if native.available():  # the kernel's path
        assert all(isinstance(r, PackedEncoding) for r in rows)
    for row in rows:
        assert any(t.startswith(("<", '"', "a&")) for t in row.tokens)  # the hostile text kept as a token
        block = chips_html(list(zip(row.ids, row.tokens)), scheme="plain")
        assert markup_problems(block) == [] and not re.search(r"<\s*(script|img|a)\b", block, re.I)
    assert "&lt;script&gt;" in chips_html(list(zip(rows[0].ids, rows[0].tokens)), scheme="plain")


_PIECES = ['<span title="a&lt;b">', "x</span>", "<img src=x onerror=alert(1)>", "<style>td{}</style>",
           "<style>", "</style>", '<span title="', '">', "<!-- c -->", "<!--", "-->", "a & b", "&amp",
           "<a href='javascript:alert(1)'>", "</a>", "<tr><td>1</td></tr>", "<script>", "</script>", "<"]


@given(st.lists(st.sampled_from(_PIECES), max_size=8), st.data())
def test_a_fragment_in_parts_gets_the_answer_of_the_whole(pieces, data):
    """However a fragment is cut into parts, checking the parts one by one (as the BPE page's merge
    strips are) finds exactly what checking the joined text finds."""
    whole = "".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=4)))
    parts = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)])]
    assert markup_problems(parts) == markup_problems(whole)


_PLAIN_PIECES = ['<span class="tok" title="a&lt;b">', "</span>", "<b>", "</b>", "<br/>", "<img src=\"x\">",
                 '<b onclick="x()">', '<td style="background:url(&#106;avascript:x)">', '<div style="color:red">',
                 '<span title=x>', "<Span>", "<style>", "</style>", "<svg>", "<!-- c -->", "a &amp; b", "&lt;",
                 ">", "<", "text", '<a href="java\tscript:x">', "</a>", "<tr>", "<td>1</td>", '"', "=",
                 '<span data-x="1"/>', "<table >", "</tr >"]


@given(st.lists(st.sampled_from(_PLAIN_PIECES), max_size=10))
def test_the_fast_reader_answers_as_the_parser_on_every_fragment_it_takes(pieces):
    """The quick check of the helpers' plain shape (tags with double-quoted values, no raw text)
    finds exactly what html.parser finds, and declines whatever is not in that shape."""
    from ui.widgets.safe_html import _Checker, _plain_problems

    fragment = "".join(pieces)
    fast = _plain_problems(fragment)
    checker = _Checker()
    checker.feed(fragment)
    checker.close()
    if fast is not None:
        assert list(fast) == checker.problems, fragment
    if any(p in fragment for p in ("<style>", "<svg>", "<!--", "<Span>", "title=x")):
        assert fast is None


def test_the_strips_in_parts_are_the_strips_joined():
    run = train_run(corpus_from_text("low lower lowest newer wider " * 20), MergeSettings(budget=12))
    view = encode(run, "lower newest", 12)
    parts = strips_parts(view, run.token_id, scheme=run.scheme, translate=True)
    assert len(parts) >= 3 and "".join(parts) == strips_html(view, run.token_id, scheme=run.scheme, translate=True)
    assert all(part.startswith("<tr>") and part.endswith("</tr>") for part in parts[1:-1])
    assert markup_problems(parts) == []


def test_the_word_tables_the_page_draws_in_parts_escape_hostile_tokens_and_parse_part_by_part(hostile_run):
    """Each part is a whole element (the parser ends it where a fresh one starts), so a step that
    changes a few rows parses only those again; joined, the parts are the table."""
    from ui.widgets.safe_html import _problems

    run = hostile_run
    step = run.num_steps
    rows = run.display_words(step, 16)
    parts = words_parts(rows, run.token_id, scheme=run.scheme, translate=True, highlight=frozenset([run.step_info(step).token]))
    assert len(parts) == len(rows) + 2
    assert "".join(parts) == words_html(rows, run.token_id, scheme=run.scheme, translate=True,
                                        highlight=frozenset([run.step_info(step).token]))
    assert all(_problems(part) == ((), True) for part in parts)
    joined = "".join(parts)
    assert not re.search(r"<\s*(script|img|a)\b", joined, re.I) and "&lt;" in joined


def test_the_text_block_escapes_hostile_text_and_its_class_and_passes_the_check():
    """The Corpus page's preview block (render_html): a corpus of HTML stays text, a quote cannot
    leave the class attribute, and the block unescapes back to the exact text."""
    import html as html_module

    from ui.widgets.text import text_block_html

    hostile = '<script>window.__xss=1</script>\n<img src=x onerror="alert(1)"> & "quotes" \'single\''
    block = text_block_html(hostile, max_height=260, css_class='tp-preview" onmouseover="alert(1)')
    assert markup_problems(block) == []
    assert not re.search(r"<\s*(script|img)\b", block, re.I)
    from html.parser import HTMLParser

    starts: list[tuple[str, list]] = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attrs: starts.append((tag, attrs))
    parser.feed(block)
    assert [(tag, [name for name, _ in attrs]) for tag, attrs in starts] == [("div", ["class", "style"])]
    assert dict(starts[0][1])["class"] == 'tp-preview" onmouseover="alert(1)'  # the quote stayed inside the value
    inner = re.fullmatch(r'<div class="[^"]*" style="[^"]*">(.*)</div>', block, re.S)
    assert inner is not None and html_module.unescape(inner.group(1)) == hostile


def test_the_chat_pages_chips_escape_hostile_control_tokens_and_text():
    """The Chat templates page's chips: a tokenizer whose control tokens are tags, a template that
    writes them around each message, and a message of HTML; every chip is text, none is markup."""
    from tokenizer_core.chat import ChatTemplate, chat_tokens
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.training import train
    from ui.chat.view import chat_turn_chips_html

    tags = tuple(HOSTILE[:2])
    tok = train("bpe", ["plain words here\n"] * 5, options=TrainOptions(vocab_size=60, special_tokens=tags))
    template = ChatTemplate("{% for m in messages %}" + tags[0] + "{{ m.content }}" + tags[1] + "{% endfor %}")
    chat = [{"role": "user", "content": HOSTILE[2] + " plain"}]
    view = chat_tokens(tok, template.turns(chat), chat)
    assert any(t.special and t.text == tags[0] for t in view.tokens)  # the tag is one control token
    block = chat_turn_chips_html(view, 0, "plain")
    assert markup_problems(block) == [], block[:300]
    assert not re.search(r"<\s*(script|img|a)\b", block, re.I) and "&lt;script&gt;" in block


def test_the_round_trip_diff_escapes_lost_and_added_text():
    """Compare's round-trip diff: text lost, kept and added, each of it HTML, shown as text."""
    from tokenizer_core.analysis.round_trip import Change
    from ui.compare.round_trip_view import diff_html

    changes = [Change("equal", HOSTILE[0], HOSTILE[0]), Change("replace", HOSTILE[1], HOSTILE[2]),
               Change("delete", HOSTILE[3], ""), Change("insert", "", "<b>added</b>")]
    block = diff_html(changes)
    assert markup_problems(block) == [], block[:300]
    assert not re.search(r"<\s*(script|img|a|b)\b", block, re.I) and "&lt;b&gt;added&lt;/b&gt;" in block


def test_the_step_curve_keeps_hostile_titles_as_words():
    """The curve is data the browser sets as text (ui/widgets/drawing.py); written as a file, every
    title is escaped, and no shape carries a tag or attribute the component does not draw."""
    from ui.widgets.drawing import ATTRIBUTES, TAGS

    drawing = curve_drawing([9, 5, 4], 1, x_title="<script>alert(1)</script>", y_title='" onload="alert(1) (x)',
                            boundaries=[(1, "<b>stage 2</b>")])  # SuperBPE's switch: a dashed rule, a label
    svg = to_svg(drawing)
    assert "<script" not in svg and "&lt;script&gt;" in svg and 'onload="' not in svg
    assert "&lt;b&gt;stage 2&lt;/b&gt;" in svg and 'stroke-dasharray="5 4"' in svg
    for shape in (*drawing.base, *drawing.overlay):
        assert shape["tag"] in TAGS
        assert set(shape) - {"tag", "text", "tip"} <= set(ATTRIBUTES)


@pytest.mark.parametrize("settings", [
    MergeSettings(algorithm="superbpe", budget_kind="vocab", budget=300, transition=88),
    MergeSettings(algorithm="pickybpe", budget_kind="vocab", budget=300, threshold=60),
], ids=["superbpe", "pickybpe"])
def test_the_superbpe_and_pickybpe_notes_and_chips_escape_hostile_tokens(settings):
    """SuperBPE's stage notes and PickyBPE's removal lists, at every step of a run on tokens made of
    HTML, with the page's own builders around them (the word tables of whole lines, the strips)."""
    from ui.merges.picky_html import removals_html
    from ui.merges.picky_run import PickyRun
    from ui.merges.stage_html import stage_html

    run = train_run(corpus_from_text(" ".join(HOSTILE * 4) + "\n"), settings)
    note = removals_html if isinstance(run, PickyRun) else lambda r, s, translate: stage_html(r, s)
    if isinstance(run, PickyRun):
        assert run.removed_until(run.num_steps)  # removals of hostile tokens are drawn
    else:
        assert run.superwords_until(run.num_steps)  # superwords across the hostile words are drawn
    blocks = [note(run, step, translate=t) for step in range(run.num_steps + 1) for t in (True, False)]
    blocks += [words_html(run.display_words(s, 16), run.token_id, scheme=run.scheme, translate=True)
               for s in (0, run.num_steps)]
    blocks.append(strips_html(encode(run, " ".join(HOSTILE), run.num_steps), run.token_id, scheme=run.scheme,
                              translate=False))
    for block in blocks:
        assert markup_problems(block) == [], block[:200]
    joined = "".join(blocks)
    assert not re.search(r"<\s*(script|img|a)\b", joined, re.I)
    assert "&lt;" in joined
