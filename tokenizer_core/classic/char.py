"""Character-level model: one token per Unicode character; unseen characters become [UNK].

>>> m = CharLevel({"[UNK]": 0, "h": 1, "i": 2})
>>> [(t.text, t.offsets) for t in m.tokenize("hi!")]
[('h', (0, 1)), ('i', (1, 2)), ('[UNK]', (2, 3))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from tokenizer_core.classic.common import VocabModel, count_pieces, normalizer_for
from tokenizer_core.classic.vocabulary import Vocabulary
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import TrainOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.registry import register
from tokenizer_core.text.decoders import JoinDecoder
from tokenizer_core.types import ProgressCallback, Token, no_progress


@register("model", "CharLevel")
class CharLevel(VocabModel):
    """One token per character (spaces and newlines included, so nothing is lost)."""

    type_name = "CharLevel"

    def tokenize(self, piece: str) -> list[Token]:
        out = []
        get = self._vocab.get
        for k, c in enumerate(piece):
            tid = get(c)
            out.append(Token(tid, c, (k, k + 1)) if tid is not None else self._unk(c, k, k + 1))
        return out

    def to_hf(self) -> dict[str, Any]:
        # A BPE model without merges is exactly a character-level model in tokenizers.
        return {"type": "BPE", "dropout": None, "unk_token": self.unk_token, "continuing_subword_prefix": None,
                "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                "vocab": self.get_vocab(), "merges": []}


def train_char_level(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress):
    """Vocabulary of the characters seen (most frequent first, ``vocab_size`` caps it)."""

    normalizer = normalizer_for(options)
    pieces = count_pieces(lines, normalizer=normalizer, pre_tokenizer=None, progress=progress)
    counts: Counter[str] = Counter()
    for line, n in pieces.items():
        for c, k in Counter(line).items():
            counts[c] += k * n
    if not counts:
        raise TokenizerError("the corpus has no characters to learn from; give it some text")
    vocab = Vocabulary.build(counts, special_tokens=options.special_tokens, unk_token=options.unk_token,
                             min_frequency=options.min_frequency, max_size=options.vocab_size)
    return TokenizerParts(model=CharLevel.from_vocabulary(vocab), normalizer=normalizer, decoder=JoinDecoder(""),
                     special_tokens=options.special_tokens)
