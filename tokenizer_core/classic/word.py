"""Word-level model: each pre-tokenized piece is one token; unknown words become [UNK].

>>> from tokenizer_core.classic.vocabulary import Vocabulary
>>> m = WordLevel.from_vocabulary(Vocabulary.build({"low": 5, "lower": 2}))
>>> [(t.id, t.text) for t in m.tokenize("low") + m.tokenize("lowest")]
[(4, 'low'), (1, '[UNK]')]
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
from tokenizer_core.text.pre_tokenizers import preset
from tokenizer_core.types import ProgressCallback, Token, no_progress


@register("model", "WordLevel")
class WordLevel(VocabModel):
    """One token per piece; out-of-vocabulary pieces map to the unknown token."""

    type_name = "WordLevel"

    def tokenize(self, piece: str) -> list[Token]:
        tid = self._vocab.get(piece)
        if tid is not None:
            return [Token(tid, piece, (0, len(piece)))]
        return [self._unk(piece, 0, len(piece))]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "WordLevel", "vocab": self.get_vocab(), "unk_token": self.unk_token}

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> "WordLevel":
        """From the ``"model"`` object of a tokenizers ``tokenizer.json``."""
        return cls(dict(data["vocab"]), unk_token=data.get("unk_token"))


def train_word_level(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress):
    """Vocabulary of the most frequent words (``vocab_size`` includes special tokens)."""

    normalizer = normalizer_for(options)
    pre = preset(options.pre_tokenizer or "word-split")
    counts: Counter[str] = count_pieces(lines, normalizer=normalizer, pre_tokenizer=pre, progress=progress)
    if not counts:
        raise TokenizerError("the corpus has no words to learn from; give it some text")
    vocab = Vocabulary.build(counts, special_tokens=options.special_tokens, unk_token=options.unk_token,
                             min_frequency=options.min_frequency, max_size=options.vocab_size)
    model = WordLevel.from_vocabulary(vocab)
    return TokenizerParts(model=model, normalizer=normalizer, pre_tokenizer=pre, decoder=JoinDecoder(" "),
                     special_tokens=options.special_tokens)


