"""The BERT tokenization pipeline around a WordPiece vocabulary, and WordPiece training on text.

A BERT tokenizer is: :class:`~tokenizer_core.text.normalizers.BertNormalizer` (drop
control characters, whitespace to spaces, spaces around CJK characters,
optionally lowercase and strip accents), :class:`~tokenizer_core.text.pre_tokenizers.BertPreTokenizer`
(split on whitespace and punctuation), the :class:`~tokenizer_core.wordpiece.model.WordPiece`
model, the template ``[CLS] A [SEP]`` / ``[CLS] A [SEP] B [SEP]`` (type ids 0
then 1), and the WordPiece decoder that rejoins ``##`` pieces.

>>> vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hug", "##s", "!"])}
>>> from tokenizer_core.pipeline import Tokenizer
>>> tok = Tokenizer.from_parts(bert_parts(vocab))
>>> enc = tok.encode("Hugs!")
>>> enc.tokens, enc.offsets
(['[CLS]', 'hug', '##s', '!', '[SEP]'], [(0, 0), (0, 3), (3, 4), (4, 5), (0, 0)])
>>> tok.decode(enc.ids)
'hugs!'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from tokenizer_core.batch.processors import TemplateProcessing
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_SPECIAL_TOKENS, TrainOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.decoders import WordPieceDecoder
from tokenizer_core.text.normalizers import BertNormalizer
from tokenizer_core.text.pre_tokenizers import BertPreTokenizer, preset
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.wordpiece.model import DEFAULT_MAX_INPUT_CHARS_PER_WORD, WordPiece
from tokenizer_core.wordpiece.trainer import BERT_SPECIAL_TOKENS, WordPieceTraining, train_wordpiece

#: Vocabulary size used when training options give none (BERT-base has 30,522).
DEFAULT_VOCAB_SIZE = 30_000


def bert_parts(
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
) -> TokenizerParts:
    """The parts of a BERT-style tokenizer over a WordPiece vocabulary.

    ``strip_accents=None`` follows ``lowercase`` (as BERT does). ``special_tokens``
    defaults to those of BERT's five (``[PAD] [UNK] [CLS] [SEP] [MASK]``) that
    are in the vocabulary; they are matched whole in the input and skipped when
    decoding. ``add_template=False`` leaves out the ``[CLS] ... [SEP]`` template.

    >>> from tokenizer_core.pipeline import Tokenizer
    >>> tok = Tokenizer.from_parts(bert_parts({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, lowercase=False))
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
    return TokenizerParts(
        model=model,
        normalizer=BertNormalizer(clean_text=clean_text, handle_chinese_chars=handle_chinese_chars,
                                  strip_accents=strip_accents, lowercase=lowercase),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=post,
        decoder=WordPieceDecoder(prefix=continuing_subword_prefix),
        special_tokens=special_tokens,
    )


def train_bert_wordpiece(
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> tuple[TokenizerParts, WordPieceTraining]:
    """Train WordPiece on text and wrap it in the BERT pipeline; also return the training trace.

    Options used: ``vocab_size`` (default 30,000), ``num_merges``, ``min_frequency``,
    ``lowercase``, ``special_tokens`` (the package default becomes BERT's five),
    ``unk_token``, ``pre_tokenizer`` (preset name; default BERT's),
    ``continuing_subword_prefix`` (default ``##``), ``limit_alphabet``, ``top_k``
    (runner-ups per trace record) and ``wordpiece.max_input_chars_per_word``.

    >>> from tokenizer_core.pipeline import Tokenizer
    >>> parts, trace = train_bert_wordpiece(["hug pug pun bun hugs\\n"], options=TrainOptions(vocab_size=16))
    >>> [m.new_token for m in trace.merges], Tokenizer.from_parts(parts).encode("hugs").tokens
    (['##gs', 'hu', 'hugs', 'hug'], ['[CLS]', 'hugs', '[SEP]'])
    """
    normalizer, pre = bert_stages(options)
    counts = count_words(lines, normalizer=normalizer, pre_tokenizer=pre, progress=progress)
    return train_bert_wordpiece_from_counts(counts, options=options, progress=progress)


def bert_stages(options: TrainOptions) -> tuple[BertNormalizer, Any]:
    """The normalizer and pre-tokenizer :func:`train_bert_wordpiece` counts words with, for these options.

    >>> bert_stages(TrainOptions())[1]
    BertPreTokenizer()
    """
    normalizer = BertNormalizer(lowercase=options.lowercase)
    pre = BertPreTokenizer() if options.pre_tokenizer in (None, "bert") else preset(options.pre_tokenizer)
    return normalizer, pre


def train_bert_wordpiece_from_counts(
    word_counts: Mapping[str, int],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> tuple[TokenizerParts, WordPieceTraining]:
    """:func:`train_bert_wordpiece` from words counted already with :func:`bert_stages` ``(options)``:
    the same parts and training, without counting the corpus again.

    >>> options = TrainOptions(vocab_size=16)
    >>> normalizer, pre = bert_stages(options)
    >>> counts = count_words(["hug pug pun bun hugs\\n"], normalizer=normalizer, pre_tokenizer=pre)
    >>> [m.new_token for m in train_bert_wordpiece_from_counts(counts, options=options)[1].merges]
    ['##gs', 'hu', 'hugs', 'hug']
    """
    specials = tuple(BERT_SPECIAL_TOKENS if options.special_tokens == DEFAULT_SPECIAL_TOKENS
                     else options.special_tokens)
    unk = options.unk_token or "[UNK]"
    if unk not in specials:
        specials = (unk, *specials)
    prefix = "##" if options.continuing_subword_prefix is None else options.continuing_subword_prefix
    _, pre = bert_stages(options)
    if not word_counts:
        raise TokenizerError("the corpus has no words to learn from; give it some text")
    max_chars = options.wordpiece.max_input_chars_per_word
    result = train_wordpiece(
        word_counts,
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
    parts = bert_parts(
        result.vocab,
        lowercase=options.lowercase,
        unk_token=unk,
        special_tokens=specials,
        add_template="[CLS]" in result.vocab and "[SEP]" in result.vocab,
        continuing_subword_prefix=prefix,
        max_input_chars_per_word=max_chars,
    )
    parts.pre_tokenizer = pre
    parts.model.training = result
    parts.metadata = {"trainer": "wordpiece"}
    return parts, result
