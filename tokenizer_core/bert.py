"""The BERT tokenization pipeline around a WordPiece vocabulary, and WordPiece training on text.

A BERT tokenizer is: :class:`~tokenizer_core.normalizers.BertNormalizer` (drop
control characters, whitespace to spaces, spaces around CJK characters,
optionally lowercase and strip accents), :class:`~tokenizer_core.pre_tokenizers.BertPreTokenizer`
(split on whitespace and punctuation), the :class:`~tokenizer_core.models.wordpiece.WordPiece`
model, the template ``[CLS] A [SEP]`` / ``[CLS] A [SEP] B [SEP]`` (type ids 0
then 1), and the WordPiece decoder that rejoins ``##`` pieces.

>>> vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hug", "##s", "!"])}
>>> tok = bert_tokenizer(vocab)
>>> enc = tok.encode("Hugs!")
>>> enc.tokens, enc.offsets
(['[CLS]', 'hug', '##s', '!', '[SEP]'], [(0, 0), (0, 3), (3, 4), (4, 5), (0, 0)])
>>> tok.decode(enc.ids)
'hugs!'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Optional, Union

from .decoders import WordPieceDecoder
from .errors import TokenizerError
from .models.wordpiece import DEFAULT_MAX_INPUT_CHARS_PER_WORD, WordPiece, read_vocab_txt
from .normalizers import BertNormalizer
from .pipeline import Tokenizer
from .pre_tokenizers import BertPreTokenizer, Whitespace, WhitespaceSplit, WordSplit, preset
from .processors import TemplateProcessing
from .training import DEFAULT_SPECIAL_TOKENS, TrainOptions
from .types import ProgressCallback, no_progress
from .wordpiece_train import BERT_SPECIAL_TOKENS, WordPieceTraining, train_wordpiece

_SPACES = re.compile(r"[ \t\n\r]+")
# Pre-tokenizers whose pieces never contain nor straddle a space, tab or newline.
_SPLITS_AT_SPACES = (BertPreTokenizer, Whitespace, WhitespaceSplit, WordSplit)

#: Vocabulary size used when training options give none (BERT-base has 30,522).
DEFAULT_VOCAB_SIZE = 30_000


def bert_tokenizer(
    vocab: Mapping[str, int],
    *,
    lowercase: bool = True,
    strip_accents: Optional[bool] = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    unk_token: str = "[UNK]",
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
    special_tokens: Optional[Sequence[str]] = None,
    add_template: bool = True,
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: int = DEFAULT_MAX_INPUT_CHARS_PER_WORD,
) -> Tokenizer:
    """A BERT-style :class:`Tokenizer` over a WordPiece vocabulary.

    ``strip_accents=None`` follows ``lowercase`` (as BERT does). ``special_tokens``
    defaults to those of BERT's five (``[PAD] [UNK] [CLS] [SEP] [MASK]``) that
    are in the vocabulary; they are matched whole in the input and skipped when
    decoding. ``add_template=False`` leaves out the ``[CLS] ... [SEP]`` template.

    >>> tok = bert_tokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, lowercase=False)
    >>> tok.encode("a", "A").tokens, tok.encode("a", "A").type_ids
    (['[CLS]', 'a', '[SEP]', '[UNK]', '[SEP]'], [0, 0, 0, 1, 1])
    """
    if special_tokens is None:
        special_tokens = [t for t in BERT_SPECIAL_TOKENS if t in vocab]
        special_tokens += [t for t in (unk_token, cls_token, sep_token) if t in vocab and t not in special_tokens]
    model = WordPiece(vocab, unk_token=unk_token, continuing_subword_prefix=continuing_subword_prefix,
                      max_input_chars_per_word=max_input_chars_per_word, special_tokens=special_tokens)
    post = None
    if add_template:
        missing = [t for t in (cls_token, sep_token) if t not in vocab]
        if missing:
            raise TokenizerError(
                f"the BERT template needs {' and '.join(missing)} in the vocabulary; add them to the special "
                f"tokens, or build the tokenizer with add_template=False"
            )
        post = TemplateProcessing(
            single=f"{cls_token} $A {sep_token}",
            pair=f"{cls_token} $A {sep_token} $B:1 {sep_token}:1",
            special_tokens=[(cls_token, vocab[cls_token]), (sep_token, vocab[sep_token])],
        )
    return Tokenizer(
        model,
        normalizer=BertNormalizer(clean_text=clean_text, handle_chinese_chars=handle_chinese_chars,
                                  strip_accents=strip_accents, lowercase=lowercase),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=post,
        decoder=WordPieceDecoder(prefix=continuing_subword_prefix),
        special_tokens=special_tokens,
    )


def load_bert_vocab(path: Union[str, Path], *, lowercase: bool = True) -> Tokenizer:
    """A BERT tokenizer from a ``vocab.txt`` (one token per line; uncased models: ``lowercase=True``).

    The template is added when the file has ``[CLS]`` and ``[SEP]``.
    """
    vocab = read_vocab_txt(path)
    return bert_tokenizer(vocab, lowercase=lowercase, add_template="[CLS]" in vocab and "[SEP]" in vocab)


def count_words(
    lines: Iterable[str],
    *,
    normalizer: Optional[BertNormalizer],
    pre_tokenizer: object,
    progress: ProgressCallback = no_progress,
) -> Counter[str]:
    """Words of ``lines`` after normalization and pre-tokenization, counted in order of first appearance.

    >>> count_words(["Hug hug, pug\\n"], normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer())
    Counter({'hug': 2, ',': 1, 'pug': 1})
    """
    words = pre_tokenizer.words  # type: ignore[attr-defined]
    if not isinstance(pre_tokenizer, _SPLITS_AT_SPACES):
        counts: Counter[str] = Counter()
        for n, line in enumerate(lines, 1):
            if not isinstance(line, str):
                raise TokenizerError(f"training lines must be text (str), got {type(line).__name__}")
            counts.update(words(normalizer.normalize_str(line) if normalizer is not None else line))
            if n % 5000 == 0:
                progress(n, 0, "counting words")
        return counts
    # BERT normalization works character by character and these pre-tokenizers always
    # split at spaces, tabs and newlines, so a line's words are the words of its
    # space-separated chunks. Chunks repeat a lot: each distinct one is normalized once.
    # Counting chunks in order of first appearance keeps the words in that order too.
    chunks: Counter[str] = Counter()
    for n, line in enumerate(lines, 1):
        if not isinstance(line, str):
            raise TokenizerError(f"training lines must be text (str), got {type(line).__name__}")
        chunks.update(_SPACES.split(line))
        if n % 5000 == 0:
            progress(n, 0, "counting words")
    counts = Counter()
    for chunk, count in chunks.items():
        if chunk:
            for word in words(normalizer.normalize_str(chunk) if normalizer is not None else chunk):
                counts[word] += count
    return counts


def train_bert_wordpiece(
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> tuple[Tokenizer, WordPieceTraining]:
    """Train WordPiece on text and wrap it in the BERT pipeline; also return the training trace.

    Options used: ``vocab_size`` (default 30,000), ``num_merges``, ``min_frequency``,
    ``lowercase``, ``special_tokens`` (the package default becomes BERT's five),
    ``unk_token``, ``pre_tokenizer`` (preset name; default BERT's),
    ``continuing_subword_prefix`` (default ``##``), ``limit_alphabet``, ``top_k``
    (runner-ups per trace record) and ``extra["max_input_chars_per_word"]``.

    >>> tok, trace = train_bert_wordpiece(["hug pug pun bun hugs\\n"], options=TrainOptions(vocab_size=16))
    >>> [m.new_token for m in trace.merges], tok.encode("hugs").tokens
    (['##gs', 'hu', 'hugs', 'hug'], ['[CLS]', 'hugs', '[SEP]'])
    """
    specials = tuple(BERT_SPECIAL_TOKENS if options.special_tokens == DEFAULT_SPECIAL_TOKENS
                     else options.special_tokens)
    unk = options.unk_token or "[UNK]"
    if unk not in specials:
        specials = (unk, *specials)
    prefix = "##" if options.continuing_subword_prefix is None else options.continuing_subword_prefix
    normalizer = BertNormalizer(lowercase=options.lowercase)
    pre = BertPreTokenizer() if options.pre_tokenizer in (None, "bert") else preset(options.pre_tokenizer)
    counts = count_words(lines, normalizer=normalizer, pre_tokenizer=pre, progress=progress)
    if not counts:
        raise TokenizerError("the corpus has no words to learn from; give it some text")
    max_chars = options.extra.get("max_input_chars_per_word", DEFAULT_MAX_INPUT_CHARS_PER_WORD)
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise TokenizerError(f"max_input_chars_per_word must be a positive whole number, got {max_chars!r}")
    result = train_wordpiece(
        counts,
        vocab_size=options.vocab_size or DEFAULT_VOCAB_SIZE,
        min_frequency=options.min_frequency,
        special_tokens=specials,
        continuing_subword_prefix=prefix,
        limit_alphabet=options.limit_alphabet,
        num_merges=options.num_merges,
        top_k=options.top_k,
        max_word_length=max_chars,
        progress=progress,
    )
    tok = bert_tokenizer(
        result.vocab,
        lowercase=options.lowercase,
        unk_token=unk,
        special_tokens=specials,
        add_template="[CLS]" in result.vocab and "[SEP]" in result.vocab,
        continuing_subword_prefix=prefix,
        max_input_chars_per_word=max_chars,
    )
    tok.pre_tokenizer = pre
    tok.model.training = result
    return tok, result
