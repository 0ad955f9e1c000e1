"""What the Compare page compares: the text (typed, an example, corpus lines, or ``?text=``) and the
tokenizers (word/char/byte baselines, subword tokenizers trained here, anything on the shelf).

Keys in ``st.session_state`` owned here start with ``compare_``.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from tokenizer_core.analysis.compare import GRANULARITIES, granularity_tokenizer, robustness_examples
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from ui import session as state
from ui.compare import PREFIX
from ui.shelf import state as shelf
from ui.tokenizers.add import ALGORITHMS, TrainRequest, shelf_label, train_onto_shelf
from ui.widgets.text import display_name, escape_markdown
from ui.widgets.url_text import publish_text, seed_from_url

TEXT, SOURCE, SHELF = PREFIX + "text", PREFIX + "source", PREFIX + "shelf"
#: Longest text the page tokenizes (a URL or paste can be huge; the aligned view shows less still).
MAX_TEXT_CHARS = 20_000
MAX_CORPUS_LINES = 200
DEFAULT_TEXT = "Tokenizers don't see words: unhappiness, aritifical inteligense, 1234567 and 👍🏽 all split differently."
DEFAULT_SHELF = ("gpt2", "cl100k_base")
SOURCES = {"type": "Type or paste", "example": "An example", "corpus": "Lines of the corpus"}
# Short names: multiselect tags are cut at about 120 pixels.
SHORT = {"bpe-bytes": "BPE bytes", "bpe-chars": "BPE chars", "wordpiece": "WordPiece", "unigram": "Unigram"}
GRANULARITY_LABELS = {"word": "word", "char": "character", "byte": "byte"}


@dataclass(frozen=True)
class Compared:
    """One tokenizer of the comparison: its row name, a cache key, and the tokenizer."""

    name: str
    key: str
    tokenizer: Tokenizer


def _examples() -> dict[str, str]:
    out = {f"{label}: {text[:40]}": text for label, text in robustness_examples()}
    multilingual = state.load_sample_cached("multilingual")
    for line in list(multilingual.lines())[:27]:
        line = line.rstrip("\n")
        if line.strip():
            out[f"multilingual: {line[:40]}"] = line
    return out


def choose_text(corpus: Corpus) -> str:
    """The source picker and the text it gives (at most :data:`MAX_TEXT_CHARS` characters)."""
    seed_from_url(TEXT, limit=MAX_TEXT_CHARS, also={SOURCE: "type"})
    source = st.radio("Text", list(SOURCES), format_func=SOURCES.get, key=SOURCE, bind="query-params", horizontal=True,
                      label_visibility="collapsed")
    if source != "type":
        publish_text(None)
    if source == "example":
        examples = _examples()
        return examples[st.selectbox("Example", list(examples), key=PREFIX + "example", bind="query-params")]
    if source == "corpus":
        c1, c2 = st.columns(2)
        first = c1.number_input("First line", min_value=1, value=1, step=1, key=PREFIX + "first_line", bind="query-params")
        count = c2.number_input("Lines", min_value=1, max_value=MAX_CORPUS_LINES, value=3, step=1,
                                key=PREFIX + "line_count", bind="query-params")
        lines: list[str] = []
        for i, line in enumerate(corpus.lines()):
            if i >= first - 1 + count:
                break
            if i >= first - 1:
                lines.append(line)
        text = "".join(lines)[:MAX_TEXT_CHARS]
        if not text:
            st.warning(escape_markdown(f"“{display_name(corpus)}” has fewer than {first:,} lines."))
        return text
    st.session_state.setdefault(TEXT, DEFAULT_TEXT)
    text = st.text_area("Text to tokenize", key=TEXT, height=90, max_chars=MAX_TEXT_CHARS,
                        help="The page's address keeps the text (up to 1,000 characters): copy it to share the view.")
    publish_text(text if text != DEFAULT_TEXT else None)
    return text


@st.cache_resource(max_entries=12, show_spinner="Building the word/char/byte baseline…")
def _granularity(corpus_key: str, kind: str, _corpus: Corpus) -> Tokenizer:
    # Keyed by the corpus' content: the same corpus gives the same baseline in every session.
    return granularity_tokenizer(kind, _corpus.lines())


def _train_panel() -> None:
    algorithms = st.multiselect("Train subword tokenizers on the corpus", list(ALGORITHMS), format_func=SHORT.get,
                                default=["bpe-bytes", "wordpiece", "unigram"], key=PREFIX + "algorithms", bind="query-params")
    c2, c3 = st.columns([1, 1.1], vertical_alignment="bottom")
    vocab = c2.number_input("Vocabulary size", min_value=300, max_value=200_000, value=4000, step=500,
                            key=PREFIX + "vocab_size", bind="query-params")
    if not c3.button("Train", help="Train the chosen algorithms on the corpus and add them below", key=PREFIX + "train", type="primary", disabled=not algorithms,
                     icon=":material/model_training:"):
        return
    chosen = list(st.session_state.get(SHELF, []))
    for algorithm in algorithms:
        trained = train_onto_shelf(TrainRequest(algorithm=algorithm, vocab_size=int(vocab), lowercase=False))
        if trained is not None:
            item, seconds = trained
            label = shelf_label(item)
            chosen = [c for c in chosen if c != label] + [label]
            st.toast(escape_markdown(f"{item.name}: trained in {seconds:.1f} s"))
    st.session_state[SHELF] = chosen  # the shelf picker below is drawn after this, so this is allowed


def choose_tokenizers(corpus: Corpus) -> list[Compared]:
    """The pickers, and the tokenizers they give, baselines first."""
    kinds = st.multiselect("Baselines (trained on the corpus)", list(GRANULARITIES), default=list(GRANULARITIES),
                           format_func=GRANULARITY_LABELS.get, key=PREFIX + "granularities", bind="query-params")
    _train_panel()
    labels = shelf.unique_labels(shelf.items())
    if SHELF not in st.session_state:
        st.session_state[SHELF] = [label for label, item in labels.items() if item.name in DEFAULT_SHELF]
    st.session_state[SHELF] = [label for label in st.session_state[SHELF] if label in labels]
    picked = st.multiselect("From the shelf", list(labels), key=SHELF, bind="query-params",
                            format_func=lambda label: label.replace(" · reference", ""),
                            help="Everything on the shelf: references, and what you trained or imported.")
    out = [Compared(kind, f"gran:{kind}", _granularity(state.active_corpus_key(), kind, corpus)) for kind in kinds]
    for label in picked:
        item = labels[label]
        try:
            tok = shelf.tokenizer(item.key)
        except (TokenizerError, KeyError) as err:
            st.error(escape_markdown(f"{item.name}: {err}"))
            continue
        out.append(Compared(item.name if item.kind == "reference" else label, item.key, tok))
    return out
