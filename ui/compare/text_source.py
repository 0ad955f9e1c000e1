"""The text the Compare page tokenizes: typed (kept in ``?text=``), an example, or lines of the corpus.

The page seeds :data:`URL_PARAMS` (see :mod:`ui.url_state`) before drawing :func:`choose_text`, so the
widgets here take no default of their own.

>>> [p.name for p in URL_PARAMS][:2]
['compare_source', 'text']
"""

from __future__ import annotations

import streamlit as st

from tokenizer_core.analysis.compare import robustness_examples
from tokenizer_core.corpus.documents import Corpus
from ui import address, url_state
from ui import session as state
from ui.compare import PREFIX
from ui.corpus.counts import say_no_running_text
from ui.widgets.text import display_name, escape_markdown

TEXT, SOURCE, EXAMPLE = PREFIX + "text", PREFIX + "source", PREFIX + "example"
FIRST_LINE, LINE_COUNT = PREFIX + "first_line", PREFIX + "line_count"
#: Longest text the page tokenizes (a paste can be huge; the aligned view shows less still).
MAX_TEXT_CHARS = 20_000
MAX_CORPUS_LINES = 200
DEFAULT_TEXT = "Tokenizers don't see words: unhappiness, aritifical inteligense, 1234567 and 👍🏽 all split differently."
SOURCES = {"type": "Type or paste", "example": "An example", "corpus": "Lines of the corpus"}

#: Named by their widget keys (links made before url_state name them so); the typed text is ``?text=``,
#: which the other pages' links use too.
URL_PARAMS = (
    url_state.choice(SOURCE, SOURCE, list(SOURCES), default="type"),
    url_state.text("text", TEXT, default=DEFAULT_TEXT),
    url_state.label(EXAMPLE, EXAMPLE, what="the example"),
    url_state.integer(FIRST_LINE, FIRST_LINE, default=1, lo=1, hi=10 ** 9),
    url_state.integer(LINE_COUNT, LINE_COUNT, default=3, lo=1, hi=MAX_CORPUS_LINES),
)


def before_seed() -> None:
    """A link with a new ``?text=`` and no source of its own opens on that text (call before seeding):
    the source picker may still show an example from this session's earlier view."""
    given = address.raw("text")
    if url_state.is_news("text", given) and address.raw(SOURCE) is None:
        st.session_state[SOURCE] = "type"


def examples() -> dict[str, str]:
    """The example texts by their label: the robustness probes, then lines of the multilingual sample."""
    out = {f"{label}: {text[:40]}": text for label, text in robustness_examples()}
    multilingual = state.load_sample_cached("multilingual")
    for line in list(multilingual.lines())[:27]:
        line = line.rstrip("\n")
        if line.strip():
            out[f"multilingual: {line[:40]}"] = line
    return out


def _corpus_lines(corpus: Corpus) -> str:
    if say_no_running_text(corpus, "Taking lines of the corpus"):
        return ""
    c1, c2 = st.columns(2)
    first = int(c1.number_input("First line", min_value=1, step=1, key=FIRST_LINE))
    count = int(c2.number_input("Lines", min_value=1, max_value=MAX_CORPUS_LINES, step=1, key=LINE_COUNT))
    lines: list[str] = []
    for i, line in enumerate(corpus.lines()):  # stops at the last line asked for, whatever the corpus' size
        if i >= first - 1 + count:
            break
        if i >= first - 1:
            lines.append(line)
    text = "".join(lines)[:MAX_TEXT_CHARS]
    if not text:
        st.warning(escape_markdown(f"“{display_name(corpus)}” has fewer than {first:,} lines."))
    return text


def choose_text(corpus: Corpus) -> str:
    """The source picker and the text it gives (at most :data:`MAX_TEXT_CHARS` characters)."""
    source = st.radio("Text", list(SOURCES), format_func=SOURCES.get, key=SOURCE, horizontal=True,
                      label_visibility="collapsed")
    if source == "example":
        shown = examples()
        current = st.session_state.get(EXAMPLE)
        if current not in shown:
            if current is not None:  # from a link made before the examples changed
                st.info(escape_markdown(f"The example “{current}” (from the link) is not one of this page's; "
                                        "the first is shown."), icon=":material/link_off:")
            st.session_state[EXAMPLE] = next(iter(shown))
        return shown[st.selectbox("Example", list(shown), key=EXAMPLE)]
    if source == "corpus":
        return _corpus_lines(corpus)
    return st.text_area("Text to tokenize", key=TEXT, height=90, max_chars=MAX_TEXT_CHARS,
                        help=f"The page's address keeps the text (up to {url_state.MAX_URL_TEXT:,} characters): "
                             "copy it to share the view.")
