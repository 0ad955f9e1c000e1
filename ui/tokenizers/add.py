"""Putting tokenizers on the shelf: train one on the active corpus, upload a file, or fetch one
from the Hugging Face Hub. Errors are shown with ``st.error``; nothing here raises to the page."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.counts.spec import COUNT_MODELS, CountSpec
from tokenizer_core.counts.training import train_from_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import (
    DEFAULT_CHARACTER_COVERAGE,
    DEFAULT_MAX_SENTENCE_LENGTH,
    PickyBpeOptions,
    SuperBpeOptions,
    TrainOptions,
    UnigramOptions,
)
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from ui import cache, url_state
from ui import session as state
from ui.corpus import counts_fit
from ui.corpus.counts import CountsCorpus, is_counts
from ui.shelf import state as shelf
from ui.tokenizers import PREFIX
from ui.tokenizers.algorithm_inputs import (
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    THRESHOLD,
    TRANSITION,
    superbpe_options,
    threshold_input,
    transition_input,
)
from ui.widgets import shelf_picker
from ui.widgets.cancel import cancel_button, throttled
from ui.widgets.text import display_name, escape_markdown

SELECTED = PREFIX + "selected"  # label of the shelf item the page shows


class Algorithm(str, Enum):
    """What the Train panels train (a ``str`` enum: its value is what the address holds)."""

    BPE_BYTES = "bpe-bytes"
    BPE_CHARS = "bpe-chars"
    WORDPIECE = "wordpiece"
    UNIGRAM = "unigram"
    SUPERBPE = "superbpe"
    PICKYBPE = "pickybpe"

    @property
    def label(self) -> str:
        return _LABELS[self][0]

    @property
    def short(self) -> str:
        """A name short enough for a multiselect tag (cut at about 120 pixels)."""
        return _LABELS[self][1]

    @property
    def trainer(self) -> str:
        """The engine's trainer name (:func:`tokenizer_core.training.train`)."""
        return "bpe" if self in (Algorithm.BPE_BYTES, Algorithm.BPE_CHARS) else self.value

    @property
    def counts(self) -> bool:
        """Whether it trains from a counts file (SuperBPE's second stage reads whole lines, which a
        counts file of words does not hold)."""
        return self.trainer in COUNT_MODELS


_LABELS = {
    Algorithm.BPE_BYTES: ("BPE on bytes (GPT-2 style)", "BPE bytes"),
    Algorithm.BPE_CHARS: ("BPE on characters", "BPE chars"),
    Algorithm.WORDPIECE: ("WordPiece (BERT style)", "WordPiece"),
    Algorithm.UNIGRAM: ("Unigram (SentencePiece style)", "Unigram"),
    Algorithm.SUPERBPE: ("SuperBPE (superwords)", "SuperBPE"),
    Algorithm.PICKYBPE: ("PickyBPE (removes used-up tokens)", "PickyBPE"),
}
#: Value -> label, for select boxes (options are the values, so the address holds short names).
ALGORITHMS: dict[str, str] = {a.value: a.label for a in Algorithm}

#: The Train and Upload panels' inputs in the address (named by their widget keys, as links made
#: before this module existed name them). They are forms: the address shows what was last trained or
#: imported (or what the link said), not what is being edited.
TRAIN_PARAMS = url_state.form(
    url_state.choice(PREFIX + "algorithm", PREFIX + "algorithm", [a.value for a in Algorithm], default=Algorithm.BPE_BYTES.value),
    url_state.integer(PREFIX + "vocab_size", PREFIX + "vocab_size", default=8000, lo=300, hi=200_000),
    url_state.flag(PREFIX + "lowercase", PREFIX + "lowercase", default=False),
    url_state.integer(TRANSITION, TRANSITION, default=DEFAULT_TRANSITION, lo=0, hi=100),
    url_state.integer(THRESHOLD, THRESHOLD, default=DEFAULT_THRESHOLD, lo=1, hi=100),
)
UPLOAD_PARAMS = url_state.form(url_state.flag(PREFIX + "uncased", PREFIX + "uncased", default=True))
URL_PARAMS = (*TRAIN_PARAMS, *UPLOAD_PARAMS)


@dataclass(frozen=True)
class TrainRequest:
    """What a Train panel asks for; hashable, so it keys the cache (with the corpus' digest).

    >>> TrainRequest(Algorithm("bpe-chars"), 1000, lowercase=False).trainer
    'bpe'
    """

    algorithm: Algorithm
    vocab_size: int
    lowercase: bool = False
    #: Unigram only: SentencePiece's ``character_coverage`` (its default for Unigram).
    character_coverage: float = DEFAULT_CHARACTER_COVERAGE
    #: Unigram only: SentencePiece's ``max_sentence_length`` (longer lines, in UTF-8 bytes, are skipped).
    max_sentence_length: int = DEFAULT_MAX_SENTENCE_LENGTH
    #: SuperBPE only: stage 2 (merges across spaces) begins at this percent of the vocabulary.
    transition_percent: int = DEFAULT_TRANSITION
    #: PickyBPE only: a token a merge used up goes when its IoS is above this percent.
    threshold_percent: int = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        object.__setattr__(self, "algorithm", Algorithm(self.algorithm))  # a value from a widget is a str

    def options(self) -> TrainOptions:
        a = self.algorithm
        if a is Algorithm.BPE_BYTES:
            return TrainOptions(vocab_size=self.vocab_size, lowercase=self.lowercase, byte_level=True,
                                special_tokens=("<|endoftext|>",), unk_token=None)
        if a is Algorithm.SUPERBPE:  # the special token of BPE on bytes, so the two compare like with like
            return TrainOptions(vocab_size=self.vocab_size, lowercase=self.lowercase, byte_level=True,
                                special_tokens=("<|endoftext|>",), unk_token=None, superbpe=self.superbpe())
        if a is Algorithm.PICKYBPE:
            return TrainOptions(vocab_size=self.vocab_size, lowercase=self.lowercase, byte_level=True,
                                special_tokens=("<|endoftext|>",), unk_token=None,
                                pickybpe=PickyBpeOptions(threshold=self.threshold_percent / 100))
        specials = ("<unk>", "<s>", "</s>") if a is Algorithm.UNIGRAM else ("[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]")
        unigram = UnigramOptions(character_coverage=self.character_coverage,
                                 max_sentence_length=self.max_sentence_length)
        return TrainOptions(vocab_size=self.vocab_size, lowercase=self.lowercase, byte_level=False,
                            special_tokens=specials, unk_token=specials[0], unigram=unigram)

    def superbpe(self) -> SuperBpeOptions:
        """SuperBPE's transition as a share; 0% is a transition of one token, which (below the 256
        bytes) learns every merge in stage 2, as a share of 0 would if a transition could be 0.

        >>> TrainRequest(Algorithm.SUPERBPE, 8000, transition_percent=80).superbpe().transition_for(8000)
        6400
        >>> TrainRequest(Algorithm.SUPERBPE, 8000, transition_percent=0).superbpe().transition_for(8000)
        1
        """
        return superbpe_options(self.transition_percent)

    @property
    def trainer(self) -> str:
        return self.algorithm.trainer

    def count_spec(self) -> CountSpec:
        """How this training counts a corpus (what a counts file's header must name)."""
        return CountSpec(self.trainer, self.options())

    def describe(self, corpus_name: str, *, reached: Optional[int] = None) -> str:
        """One line for the shelf: the algorithm, the size asked for (and the size ``reached``
        when it differs), the options that are not the defaults, and the corpus."""
        size = f"{self.vocab_size:,} tokens"
        if reached is not None and reached != self.vocab_size:
            size = f"{self.vocab_size:,} tokens asked, {reached:,} reached (the corpus had no more to learn)"
        case = ", lowercased" if self.lowercase else ""
        if self.algorithm is Algorithm.UNIGRAM and self.character_coverage != DEFAULT_CHARACTER_COVERAGE:
            case += f", character coverage {self.character_coverage:g}"
        if self.algorithm is Algorithm.UNIGRAM and self.max_sentence_length != DEFAULT_MAX_SENTENCE_LENGTH:
            case += f", lines up to {self.max_sentence_length:,} bytes"
        if self.algorithm is Algorithm.SUPERBPE:
            at = min(self.superbpe().transition_for(self.vocab_size), self.vocab_size)
            case += f", stage 2 (merges across spaces) from {at:,} tokens ({self.transition_percent}%)"
        if self.algorithm is Algorithm.PICKYBPE:
            case += f", tokens removed above IoS {self.threshold_percent / 100:g}"
        return f"{self.algorithm.label}, {size}{case}, on “{corpus_name}”"

    def shelf_name(self, *, reached: int) -> str:
        """The name on the shelf: the algorithm's short name and size (:func:`trained_name`), and
        SuperBPE's transition, which tells two SuperBPEs of one size apart.

        >>> TrainRequest(Algorithm.SUPERBPE, 8000).shelf_name(reached=8000)
        'SuperBPE 8,000 (transition 90%)'
        >>> TrainRequest(Algorithm.UNIGRAM, 8000).shelf_name(reached=81)
        'Unigram 8,000 → 81'
        """
        name = trained_name(self.algorithm.label.split(" (")[0], asked=self.vocab_size, reached=reached)
        if self.algorithm is Algorithm.SUPERBPE:
            name += f" (transition {self.transition_percent}%)"
        if self.algorithm is Algorithm.PICKYBPE:
            name += f" (IoS {self.threshold_percent / 100:g})"
        return name


def trained_tokenizer(request: TrainRequest, corpus: Corpus, bar: object = None) -> Tokenizer:
    """The tokenizer ``request`` trains on ``corpus``, trained once per server: the same text (by its
    digest) and settings give the same tokenizer, never changed after training, so sessions share it.
    ``bar`` (an ``st.progress``) shows the training's progress."""
    key = (cache.corpus_digest(corpus), request)
    tok = cache.TRAINED.get(key)
    if tok is None:
        def show(done: int, total: int, message: str) -> None:
            if bar is not None:
                bar.progress(min(1.0, done / total) if total else 0.0, text=message or "training")

        if is_counts(corpus):  # a counts file: the trainer's counts entry point, the same result
            tok = train_from_counts(request.trainer, corpus.counts, options=request.options(),
                                    progress=throttled(show))
        else:
            tok = train(request.trainer, corpus.lines(), options=request.options(), progress=throttled(show))
        cache.TRAINED.put(key, tok)
    return tok


def select(item: shelf.ShelfItem) -> None:
    """Show ``item`` next (it is drawn after the panels, so setting its widget here is allowed)."""
    shelf_picker.select(SELECTED, item)


def train_panel() -> None:
    corpus = state.active_corpus()
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
    algorithm = c1.selectbox("Algorithm", list(ALGORITHMS), format_func=ALGORITHMS.get, key=PREFIX + "algorithm")
    vocab = c2.number_input("Vocabulary size", min_value=300, max_value=200_000, step=500, key=PREFIX + "vocab_size")
    lowercase = c3.checkbox("Lowercase", key=PREFIX + "lowercase")
    coverage, max_sentence = DEFAULT_CHARACTER_COVERAGE, DEFAULT_MAX_SENTENCE_LENGTH
    if algorithm == Algorithm.UNIGRAM.value:
        u1, u2 = st.columns(2)
        coverage = u1.number_input(
            "Character coverage", min_value=0.98, max_value=1.0, value=DEFAULT_CHARACTER_COVERAGE, step=0.0005,
            format="%.4f", key=PREFIX + "character_coverage",
            help="SentencePiece's character_coverage: the share of the text's characters the vocabulary "
                 "keeps; the rarest rest become <unk>. 0.9995 is SentencePiece's default, 1.0 keeps every character.")
        max_sentence = u2.number_input(
            "Max sentence length", min_value=1, max_value=1 << 30, value=DEFAULT_MAX_SENTENCE_LENGTH, step=1024,
            key=PREFIX + "max_sentence_length",
            help="SentencePiece's max_sentence_length: training skips lines longer than this many bytes "
                 "(UTF-8). 4192 is SentencePiece's default.")
    transition = transition_input(int(vocab)) if algorithm == Algorithm.SUPERBPE.value else DEFAULT_TRANSITION
    threshold = threshold_input() if algorithm == Algorithm.PICKYBPE.value else DEFAULT_THRESHOLD
    if not c4.button("Train", key=PREFIX + "train", type="primary", icon=":material/model_training:"):
        if is_counts(corpus):
            fits = counts_fit.fitting(corpus, count_choices(corpus))
            st.caption(escape_markdown(
                f"Trains from the counts file “{display_name(corpus)}” (the active corpus). "
                + ("Its header matches: " + "; ".join(fits) + "." if fits else
                   "Its header matches none of these choices (it was counted with other stages).")))
        else:
            st.caption(escape_markdown(f"Trains on the active corpus, “{display_name(corpus)}”."))
        return
    # The address names the training on show: a transition only when it is SuperBPE's, a threshold PickyBPE's.
    fixed = {} if algorithm == Algorithm.SUPERBPE.value else {TRANSITION: DEFAULT_TRANSITION}
    if algorithm != Algorithm.PICKYBPE.value:
        fixed[THRESHOLD] = DEFAULT_THRESHOLD
    url_state.commit(TRAIN_PARAMS, fixed or None)
    request = TrainRequest(algorithm=algorithm, vocab_size=int(vocab), lowercase=bool(lowercase),
                           character_coverage=float(coverage), max_sentence_length=int(max_sentence),
                           transition_percent=transition, threshold_percent=threshold)
    trained = train_onto_shelf(request)
    if trained is not None:
        item, seconds = trained
        select(item)
        st.success(escape_markdown(f"Trained in {seconds:.1f} s and put on the shelf: {item.name}."))
        reached = shelf.tokenizer(item.key).vocab_size
        if reached < request.vocab_size:  # say it where it is trained, not only in the name
            st.info(escape_markdown(f"{reached:,} tokens reached of the {request.vocab_size:,} asked for: the corpus "
                                    "had no more to learn. A larger corpus gives a larger vocabulary."))


def train_onto_shelf(request: TrainRequest) -> Optional[tuple[shelf.ShelfItem, float]]:
    """Train ``request`` on the active corpus with a progress bar and put the tokenizer on the shelf;
    the item and the seconds it took, or None after showing the error (every page trains this way)."""
    corpus = state.active_corpus()
    label = request.algorithm.label
    if is_counts(corpus) and not request.algorithm.counts:
        why = ("its second stage reads whole lines" if request.algorithm is Algorithm.SUPERBPE
               else "training from counts is not offered for it yet")
        st.error(escape_markdown(f"{label} learns from running text ({why}), and the active corpus is a counts "
                                 "file of words: pick a text corpus on the Corpus page."))
        return None
    if is_counts(corpus):
        try:
            notes = counts_fit.header_notes(corpus, request.count_spec())
        except TokenizerError as err:
            fits = counts_fit.fitting(corpus, count_choices(corpus))
            st.error(escape_markdown(f"{label}: {refusal(err, fits)}"))
            return None
        for note in notes:
            st.info(escape_markdown(f"{label}: {note}."))
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=f"Training {label}…")
        cancel_button(key=f"{PREFIX}cancel_{request.algorithm.value}", what=f"Training {label}")
    start = time.perf_counter()
    try:
        tok = trained_tokenizer(request, corpus, bar)
    except TokenizerError as err:
        slot.empty()
        st.error(escape_markdown(f"{label}: {err}"))
        return None
    slot.empty()
    item = shelf.add(tok, name=request.shelf_name(reached=tok.vocab_size), kind=shelf.Kind.TRAINED,
                     detail=request.describe(display_name(corpus), reached=tok.vocab_size))
    return item, time.perf_counter() - start


def trained_name(short: str, *, asked: int, reached: int) -> str:
    """A trained tokenizer's shelf name: the size asked for, and the size reached when the corpus
    ran out of things to learn before it.

    >>> trained_name("Unigram", asked=8000, reached=81), trained_name("BPE", asked=300, reached=300)
    ('Unigram 8,000 → 81', 'BPE 300')
    """
    return f"{short} {asked:,}" + (f" → {reached:,}" if reached != asked else "")


def refusal(err: TokenizerError, fits: list[str]) -> str:
    """A counts file's refusal, with the choices (``fits``) that do train from the file."""
    hint = ("This file can train: " + "; ".join(fits) + "." if fits else
            "None of this page's choices counts that way: count the text again with "
            "`python -m tokenizer_core count --model ...` and the options you want.")
    return f"The counts file does not fit these options: {err}. {hint}"


def count_choices(corpus: CountsCorpus) -> list[tuple[str, CountSpec]]:
    """The Train panel's choices (algorithm, lowercase) a counts file could match, labelled as the panel
    shows them (Unigram with the file's line limit, the one part of its options a header names)."""
    limit = counts_fit.max_sentence_length(corpus)
    out = []
    for algorithm in (a for a in Algorithm if a.counts):
        for lowercase in (False, True):
            label = algorithm.label + (", Lowercase on" if lowercase else "")
            if algorithm is Algorithm.UNIGRAM and limit != DEFAULT_MAX_SENTENCE_LENGTH:
                label += f", Max sentence length {limit:,}"
            out.append((label, TrainRequest(algorithm, 1000, lowercase=lowercase, max_sentence_length=limit).count_spec()))
    return out


def counts_fit_note(corpus: Corpus, algorithms: Iterable[Algorithm]) -> Optional[str]:
    """For a counts file, which of ``algorithms`` (with default options) train from it, for a caption
    beside another page's Train button; None for a text corpus."""
    if not is_counts(corpus):
        return None
    algorithms = [a for a in algorithms if a.counts]  # SuperBPE learns from running text only
    fits = counts_fit.fitting(corpus, [(a.short, TrainRequest(a, 1000).count_spec()) for a in algorithms])
    if fits:
        return f"The active corpus is a counts file: {', '.join(fits)} train from it here."
    names = ", ".join(a.short for a in algorithms)
    made = f"made for {corpus.model} training" if corpus.model else "from another tool"
    return (f"The active corpus is a counts file {made}, counted with other stages than {names} count with here: "
            "training says what differs (the Tokenizers page has more options, Lowercase among them).")
