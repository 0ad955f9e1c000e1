"""The training options on the command line, shared by ``train`` and ``sweep``: corpus arguments,
one flag per :class:`~tokenizer_core.options.TrainOptions` setting, and the options they make.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_corpus_args(p); add_option_args(p)
>>> options_from_args(p.parse_args(["c.txt", "--lowercase", "--special-tokens", "<s>,<unk>",
...                                 "--unk-token", "<unk>"]), model="bpe").special_tokens
('<s>', '<unk>')
>>> options_from_args(p.parse_args(["c.txt", "--max-word-length", "64"]), model="unigram").unigram.max_word_length
64
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from tokenizer_core.cli.common import _CliError, _split_specials
from tokenizer_core.options import (
    DEFAULT_MAX_WORD_LENGTH,
    DEFAULT_SPECIAL_TOKENS,
    BpeOptions,
    TrainOptions,
    UnigramOptions,
)


def add_corpus_args(p: argparse.ArgumentParser) -> None:
    """Corpus files, a bundled sample, and how to read them."""
    p.add_argument("files", nargs="*", help=".txt .md .csv .tsv .jsonl or .zip files")
    p.add_argument("--sample", help="train on a bundled sample corpus (e.g. default)")
    p.add_argument("--text-column", help="column (csv/tsv) or field (jsonl) holding the text")
    p.add_argument("--replace-errors", action="store_true", help="replace undecodable bytes instead of failing")


def add_option_args(p: argparse.ArgumentParser) -> None:
    """One flag per training setting (all but the size limits)."""
    p.add_argument("--min-frequency", type=int, default=0)
    p.add_argument("--lowercase", action="store_true")
    p.add_argument("--special-tokens", help="comma-separated, e.g. '[PAD],[UNK],[BOS],[EOS]'")
    p.add_argument("--unk-token", default="[UNK]", help="unknown token ('' for none)")
    p.add_argument("--pre-tokenizer", help="whitespace, word-split, bert, byte-level, metaspace, ...")
    p.add_argument("--byte-level", action="store_true", help="BPE on bytes (GPT-2 style)")
    p.add_argument("--end-of-word-suffix", help="e.g. '</w>' (Sennrich-style BPE)")
    p.add_argument("--continuing-subword-prefix")
    p.add_argument("--limit-alphabet", type=int)
    p.add_argument("--max-piece-length", type=int, default=16)
    p.add_argument("--shrinking-factor", type=float, default=0.75)
    p.add_argument("--byte-fallback", action="store_true")
    p.add_argument("--tie-break", default="ids", choices=["ids", "first"],
                   help="BPE: among equal counts take the smallest ids (tokenizers) or the pair seen first")
    p.add_argument("--suffix-as-symbol", action="store_true",
                   help="BPE: the end-of-word suffix is a symbol of its own (Sennrich's Algorithm 1)")
    p.add_argument("--top-k", type=int,
                   help="runner-up pairs kept per step in the trace (default 10 with --trace; without it none "
                        "are kept, which lets BPE take the compiled merge loop)")
    p.add_argument("--max-word-length", type=int,
                   help=f"Unigram: words longer than this many characters only add their characters "
                        f"(default {DEFAULT_MAX_WORD_LENGTH}, enough for space-free Chinese/Japanese lines)")


def _top_k(args: argparse.Namespace) -> int:
    """Runner-ups are only read from a written trace: keep 10 per step for one, none otherwise."""
    if args.top_k is not None:
        return args.top_k
    return 10 if getattr(args, "trace", None) else 0


def options_from_args(args: argparse.Namespace, *, model: str) -> TrainOptions:
    """The :class:`TrainOptions` the flags describe (``--vocab-size``/``--num-merges`` when present)."""
    specials = _split_specials(args.special_tokens)
    if model != "bpe" and (args.tie_break != "ids" or args.suffix_as_symbol):
        raise _CliError("--tie-break and --suffix-as-symbol apply to --model bpe only")
    max_word_length = getattr(args, "max_word_length", None)
    if max_word_length is not None and model != "unigram":
        raise _CliError(f"--max-word-length applies to --model unigram only, not {model}")
    unigram = UnigramOptions() if max_word_length is None else UnigramOptions(max_word_length=max_word_length)
    options = TrainOptions(
        vocab_size=getattr(args, "vocab_size", None), num_merges=getattr(args, "num_merges", None),
        min_frequency=args.min_frequency, lowercase=args.lowercase,
        special_tokens=specials if specials is not None else DEFAULT_SPECIAL_TOKENS,
        unk_token=args.unk_token if args.unk_token else None,
        pre_tokenizer=args.pre_tokenizer, byte_level=args.byte_level,
        end_of_word_suffix=args.end_of_word_suffix, continuing_subword_prefix=args.continuing_subword_prefix,
        limit_alphabet=args.limit_alphabet, max_piece_length=args.max_piece_length,
        shrinking_factor=args.shrinking_factor, byte_fallback=args.byte_fallback, top_k=_top_k(args),
        bpe=BpeOptions(tie_break=args.tie_break, suffix_as_symbol=args.suffix_as_symbol), unigram=unigram,
    )
    # An unknown token that is not among the special tokens cannot have an id: go without one.
    if options.unk_token is not None and options.unk_token not in options.special_tokens:
        options = replace(options, unk_token=None)
    return options
