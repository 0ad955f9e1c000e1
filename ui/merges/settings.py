"""Settings of the BPE step-through page: what to train, as one hashable value.

:class:`MergeSettings` is the cache key of a training run (together with the
corpus key) and knows how to turn itself into the engine's
:class:`~tokenizer_core.training.TrainOptions`. The worked examples of the
course material (:data:`WORKED_EXAMPLES`) are settings too, so the page can
replay them exactly.

>>> s = MergeSettings(budget=3)
>>> s.options().num_merges, s.options().byte_level
(3, False)
>>> MergeSettings(algorithm="wordpiece").effective().marker
'none'
>>> MergeSettings(algorithm="superbpe", budget_kind="vocab", budget=1000).describe()
'SuperBPE · bytes · vocabulary 1,000 · stage 2 from 900 tokens (90 %)'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import BpeOptions, PickyBpeOptions, SuperBpeOptions, TrainOptions

Algorithm = Literal["bpe", "wordpiece", "superbpe", "pickybpe"]
Level = Literal["char", "byte"]
Marker = Literal["none", "glued", "symbol"]
TieBreak = Literal["ids", "first"]
BudgetKind = Literal["merges", "vocab"]

ALGORITHMS: dict[str, str] = {"bpe": "BPE", "wordpiece": "WordPiece", "superbpe": "SuperBPE", "pickybpe": "PickyBPE"}
LEVELS: dict[str, str] = {"char": "Characters", "byte": "Bytes (GPT-2 style)"}
MARKERS: dict[str, str] = {
    "none": "None",
    "glued": "</w> glued to the last letter",
    "symbol": "</w> as a symbol of its own",
}
TIE_BREAKS: dict[str, str] = {
    "ids": "Smallest token ids",
    "first": "First seen in the corpus",
}
BUDGET_KINDS: dict[str, str] = {"merges": "Number of merges", "vocab": "Vocabulary size"}
# The option labels above are short enough to read in a closed select box on a projector; the
# details are in these help texts (Markdown).
PRE_TOKENIZER_HELP = (
    "How the text is cut into words before merging; merges never cross words.\n\n"
    "- **Words and punctuation**: runs of letters/digits, runs of punctuation (`\\w+|[^\\w\\s]+`)\n"
    "- **Words, punctuation one by one**: every punctuation mark a word of its own, as BERT does\n"
    "- **Split at spaces only**: punctuation stays glued to words\n"
    "- **Metaspace**: spaces become ▁ at the start of words (SentencePiece)\n"
    "- **BERT**: splits at spaces and around every punctuation mark (WordPiece)\n"
    "- **GPT-2 / cl100k regex**: the patterns of OpenAI's tokenizers (bytes)\n"
    "- **Words, then whole lines** (SuperBPE): the authors' word pattern up to the switch, then only "
    "newlines and groups of digits cut the text, so merges may cross spaces"
)
MARKER_HELP = (
    "Mark the end of each word so that 'st' at the end of a word and inside it become different "
    "tokens (BPE on characters only). Glued to the last letter as subword-nmt and Hugging Face "
    "tokenizers do (`t</w>`), or a symbol of its own as in the Python code of Sennrich et al. (2016)."
)
TRANSITION_HELP = (
    "SuperBPE (Liu et al., 2025) learns in two stages: ordinary byte-level BPE within words up to this "
    "share of the vocabulary, then BPE over whole lines, so later merges may cross spaces and make "
    "*superwords* such as `of the`. 100 % is plain BPE; the paper's best share is about 90 %."
)
THRESHOLD_HELP = (
    "PickyBPE (Chizhov et al., 2024) checks both tokens of every merge: a token that the merge used up "
    "almost everywhere, whose *Intersection over Self* (pairs merged / its occurrences before the merge) is "
    "above this threshold, is removed from the vocabulary and its last occurrences split back into its "
    "pair. 1 removes nothing (plain BPE); the paper's best is about 0.9."
)
TIE_BREAK_HELP = (
    "When several pairs occur equally often: the pair with the smallest token ids wins (Hugging Face "
    "tokenizers), or the pair seen first in the corpus (the papers' Python code). WordPiece always "
    "takes the pair seen first."
)

#: Pre-tokenizers offered per algorithm and level (preset names of tokenizer_core.text.pre_tokenizers).
PRE_TOKENIZERS: dict[tuple[str, str], dict[str, str]] = {
    ("bpe", "char"): {
        "whitespace": "Words and punctuation",
        "word-split": "Words, punctuation one by one",
        "whitespace-split": "Split at spaces only",
        "metaspace": "Metaspace (▁ for spaces)",
    },
    ("bpe", "byte"): {
        "gpt2-regex": "GPT-2 regex",
        "cl100k-regex": "cl100k regex (GPT-4)",
    },
    ("superbpe", "byte"): {
        "superbpe": "Words, then whole lines",
    },
    ("pickybpe", "byte"): {
        "gpt2-regex": "GPT-2 regex",
        "cl100k-regex": "cl100k regex (GPT-4)",
    },
    ("wordpiece", "char"): {
        "bert": "BERT (spaces and punctuation)",
        "whitespace": "Words and punctuation",
        "whitespace-split": "Split at spaces only",
    },
}

MAX_BUDGET = 30_000
END_OF_WORD = "</w>"
#: SuperBPE's byte-level alphabet: a number of merges is a vocabulary of this many tokens more.
BYTE_ALPHABET = 256
# A vocabulary-size cap that never binds, for WordPiece runs limited by the number of merges.
_UNBOUNDED_VOCAB = 5_000_000


@dataclass(frozen=True)
class MergeSettings:
    """Everything that decides a training run of the page (hashable: it is a cache key).

    ``budget`` is a number of merges or a vocabulary size, as ``budget_kind`` says.
    Options that do not apply to the algorithm are ignored (see :meth:`effective`).
    """

    algorithm: Algorithm = "bpe"
    level: Level = "char"
    marker: Marker = "none"
    lowercase: bool = False
    pre_tokenizer: str = "whitespace"
    budget_kind: BudgetKind = "merges"
    budget: int = 1000
    min_frequency: int = 0
    tie_break: TieBreak = "ids"
    #: SuperBPE: stage 2 begins when the vocabulary reaches this share of its size (percent).
    transition: int = 90
    #: PickyBPE: the Intersection over Self above which a token a merge used up is removed (percent).
    threshold: int = 90

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise TokenizerError(f"algorithm must be one of {list(ALGORITHMS)}, got {self.algorithm!r}")
        if self.level not in LEVELS:
            raise TokenizerError(f"level must be one of {list(LEVELS)}, got {self.level!r}")
        if self.marker not in MARKERS:
            raise TokenizerError(f"marker must be one of {list(MARKERS)}, got {self.marker!r}")
        if self.tie_break not in TIE_BREAKS:
            raise TokenizerError(f"tie_break must be one of {list(TIE_BREAKS)}, got {self.tie_break!r}")
        if self.budget_kind not in BUDGET_KINDS:
            raise TokenizerError(f"budget_kind must be one of {list(BUDGET_KINDS)}, got {self.budget_kind!r}")
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or not 1 <= self.budget <= MAX_BUDGET:
            raise TokenizerError(f"the number of merges or vocabulary size must be 1 to {MAX_BUDGET:,}, "
                                 f"got {self.budget!r}")
        if isinstance(self.min_frequency, bool) or not isinstance(self.min_frequency, int) or self.min_frequency < 0:
            raise TokenizerError(f"minimum frequency must be a whole number >= 0, got {self.min_frequency!r}")
        if isinstance(self.transition, bool) or not isinstance(self.transition, int) or not 1 <= self.transition <= 100:
            raise TokenizerError(f"the SuperBPE transition must be a whole percentage from 1 to 100, got "
                                 f"{self.transition!r}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int) or not 1 <= self.threshold <= 100:
            raise TokenizerError(f"the PickyBPE threshold must be a whole percentage from 1 to 100, got "
                                 f"{self.threshold!r}")

    def effective(self) -> "MergeSettings":
        """The same settings with the options that do not apply reset, so equal runs share a cache entry."""
        s = self
        if s.algorithm == "wordpiece":
            s = replace(s, level="char", marker="none", tie_break="first")
        if s.algorithm in ("superbpe", "pickybpe"):  # as their authors train: bytes, ties to the smallest ids
            s = replace(s, level="byte", tie_break="ids", min_frequency=0)
        if s.algorithm == "pickybpe" and s.budget_kind == "merges":  # removals make merges outnumber new tokens
            s = replace(s, budget_kind="vocab", budget=min(BYTE_ALPHABET + s.budget, MAX_BUDGET))
        if s.algorithm != "superbpe":
            s = replace(s, transition=MergeSettings.transition)
        if s.algorithm != "pickybpe":
            s = replace(s, threshold=MergeSettings.threshold)
        if s.level == "byte":
            s = replace(s, marker="none")
        choices = pre_tokenizer_choices(s.algorithm, s.level)
        if s.pre_tokenizer not in choices:
            s = replace(s, pre_tokenizer=next(iter(choices)))
        return s

    @property
    def special_tokens(self) -> tuple[str, ...]:
        """Only an unknown token (to show characters the alphabet lacks); byte-level needs none."""
        return () if self.level == "byte" and self.algorithm != "wordpiece" else ("[UNK]",)

    @property
    def vocab_size(self) -> int:
        """SuperBPE's and PickyBPE's vocabulary size: the budget, or the bytes and that many merges."""
        return self.budget if self.budget_kind == "vocab" else BYTE_ALPHABET + self.budget

    @property
    def transition_size(self) -> int:
        """SuperBPE's vocabulary size when stage 2 begins."""
        return SuperBpeOptions(transition_share=self.transition / 100).transition_for(self.vocab_size)

    def options(self) -> TrainOptions:
        """The engine's options for these settings."""
        s = self.effective()
        merges = s.budget if s.budget_kind == "merges" else None
        vocab = s.budget if s.budget_kind == "vocab" else None
        if s.algorithm == "superbpe":
            return TrainOptions(vocab_size=s.vocab_size, lowercase=s.lowercase, special_tokens=(), unk_token=None,
                                byte_level=True, top_k=10, superbpe=SuperBpeOptions(transition=s.transition_size))
        if s.algorithm == "pickybpe":
            return TrainOptions(vocab_size=s.vocab_size, lowercase=s.lowercase, special_tokens=(), unk_token=None,
                                pre_tokenizer=s.pre_tokenizer, byte_level=True,
                                pickybpe=PickyBpeOptions(threshold=s.threshold / 100))
        if s.algorithm == "wordpiece":
            return TrainOptions(
                vocab_size=vocab if vocab is not None else _UNBOUNDED_VOCAB,
                num_merges=merges,
                min_frequency=s.min_frequency,
                lowercase=s.lowercase,
                special_tokens=s.special_tokens,
                unk_token="[UNK]",
                pre_tokenizer=s.pre_tokenizer,
                top_k=10,
            )
        return TrainOptions(
            vocab_size=vocab,
            num_merges=merges,
            min_frequency=s.min_frequency,
            lowercase=s.lowercase,
            special_tokens=s.special_tokens,
            unk_token=None if s.level == "byte" else "[UNK]",
            pre_tokenizer=s.pre_tokenizer,
            byte_level=s.level == "byte",
            end_of_word_suffix=END_OF_WORD if s.marker != "none" else None,
            top_k=10,
            bpe=BpeOptions(suffix_as_symbol=s.marker == "symbol", tie_break=s.tie_break),
        )

    def count_spec(self) -> CountSpec:
        """How these settings count a corpus (what a counts file's header must name)."""
        s = self.effective()
        if s.algorithm == "pickybpe":
            return CountSpec("bpe", replace(s, algorithm="bpe").options())  # counted as byte-level BPE counts
        if s.algorithm == "superbpe":
            raise TokenizerError("SuperBPE trains on the text itself (its second stage reads whole lines), "
                                 "not on a counts file's words; use the corpus the file was counted from")
        return CountSpec(s.algorithm, s.options())

    def describe(self) -> str:
        """One line for people, e.g. ``'BPE · characters · 1,000 merges'``."""
        s = self.effective()
        parts = [ALGORITHMS[s.algorithm], "bytes" if s.level == "byte" else "characters"]
        if s.marker != "none":
            parts.append("</w> symbol" if s.marker == "symbol" else "</w>")
        if s.lowercase:
            parts.append("lowercase")
        parts.append(f"{s.budget:,} merges" if s.budget_kind == "merges" else f"vocabulary {s.budget:,}")
        if s.min_frequency:
            parts.append(f"min. frequency {s.min_frequency}")
        if s.algorithm == "bpe" and s.tie_break == "first":
            parts.append("ties: first seen")
        if s.algorithm == "pickybpe":
            parts.append(f"IoS threshold {s.threshold / 100:g}")
        if s.algorithm == "superbpe":
            parts.append(f"stage 2 from {s.transition_size:,} tokens ({s.transition} %)")
        return " · ".join(parts)


def pre_tokenizer_choices(algorithm: str, level: str) -> dict[str, str]:
    """Pre-tokenizer preset names offered for an algorithm and level, the default first."""
    level = {"wordpiece": "char", "superbpe": "byte", "pickybpe": "byte"}.get(algorithm, level)
    return PRE_TOKENIZERS[(algorithm, level)]


#: The classic samples and the settings that replay their worked example exactly.
WORKED_EXAMPLES: dict[str, tuple[MergeSettings, str]] = {
    "wikipedia-aaabdaaabac": (
        MergeSettings(budget=10, min_frequency=2),
        "Wikipedia's byte-pair encoding example: aa is merged first (it occurs 4 times), then ab, "
        "then aa+ab; then no pair occurs twice and training stops (minimum frequency 2).",
    ),
    "sennrich-low-lower-newest-widest": (
        MergeSettings(marker="symbol", tie_break="first", budget=10),
        "Algorithm 1 of Sennrich, Haddow and Birch (2016), 10 merges with </w> as a symbol of its own: "
        "e s, es t, est </w>, l o, lo w, ...",
    ),
    "hf-course-hug-pug": (
        MergeSettings(budget=3),
        "The Hugging Face course's BPE example: (u, g) 20 times, then (u, n) 16 times, then (h, ug) 15 times. "
        "Switch the algorithm to WordPiece for the course's WordPiece example.",
    ),
}

#: A sentence to encode by default, per sample (others get DEFAULT_TEXT).
EXAMPLE_TEXTS: dict[str, str] = {
    "wikipedia-aaabdaaabac": "aaabdaaabac abacab",
    "sennrich-low-lower-newest-widest": "lowest newer wider",
    "hf-course-hug-pug": "hugs bugs pun",
}
DEFAULT_TEXT = "Tokenizers split unbelievably long words into familiar pieces."
