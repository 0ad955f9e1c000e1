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
>>> u = options_from_args(p.parse_args(["c.txt", "--character-coverage", "1", "--no-split-by-number"]),
...                       model="unigram").unigram
>>> u.character_coverage, u.split_by_number
(1.0, False)
>>> options_from_args(p.parse_args(["c.txt", "--max-sentence-length", "100"]), model="unigram").unigram.max_sentence_length
100
>>> options_from_args(p.parse_args(["c.txt", "--transition-share", "0.8"]), model="superbpe").superbpe.transition_for(1000)
800
>>> options_from_args(p.parse_args(["c.txt", "--threshold", "0.7"]), model="pickybpe").pickybpe.threshold
0.7
>>> b = options_from_args(p.parse_args(["c.txt", "--no-removals"]), model="boundless").boundless
>>> b.threshold, b.superwords
(None, True)
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from tokenizer_core.cli.common import CliError, split_specials
from tokenizer_core.options import (
    DEFAULT_CHARACTER_COVERAGE,
    DEFAULT_MAX_SENTENCE_LENGTH,
    DEFAULT_MAX_WORD_LENGTH,
    DEFAULT_SPECIAL_TOKENS,
    BoundlessOptions,
    BpeOptions,
    PickyBpeOptions,
    SuperBpeOptions,
    TrainOptions,
    UnigramOptions,
)


def add_corpus_args(p: argparse.ArgumentParser) -> None:
    """Corpus files, a bundled sample, and how to read them."""
    p.add_argument("files", nargs="*", help="files, directories or globs: .txt .md .jsonl .csv .tsv .parquet (each "
                                            "optionally .gz .bz2 .xz .zst) or .zip, streamed")
    p.add_argument("--sample", help="train on a bundled sample corpus (e.g. default)")
    p.add_argument("--text-column", help="column (csv/tsv/parquet) or field (jsonl) holding the text")
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
    # Unigram settings under SentencePiece's names (--character-coverage is its character_coverage).
    p.add_argument("--character-coverage", type=float,
                   help=f"Unigram: share of character occurrences the vocabulary covers; rarer characters "
                        f"become unknown (default {DEFAULT_CHARACTER_COVERAGE}, SentencePiece's; 1.0 keeps all)")
    p.add_argument("--split-by-number", action=argparse.BooleanOptionalAction,
                   help="Unigram: keep digits out of letter pieces (default on, as SentencePiece)")
    p.add_argument("--split-by-unicode-script", action=argparse.BooleanOptionalAction,
                   help="Unigram: no piece mixes scripts (default on, as SentencePiece)")
    p.add_argument("--split-digits", action=argparse.BooleanOptionalAction,
                   help="Unigram: every digit a piece of its own (default off)")
    p.add_argument("--seed-sentencepiece-size", type=int, help="Unigram: seed pieces kept (default 1,000,000)")
    p.add_argument("--num-sub-iterations", type=int, help="Unigram: EM steps per pruning round (default 2)")
    p.add_argument("--max-sentence-length", type=int,
                   help=f"Unigram: skip training lines longer than this many UTF-8 bytes "
                        f"(default {DEFAULT_MAX_SENTENCE_LENGTH}, SentencePiece's)")
    p.add_argument("--transition", type=int,
                   help="SuperBPE: the vocabulary size where the second stage (merges across spaces) begins "
                        "(at the vocabulary size or above: plain BPE)")
    p.add_argument("--transition-share", type=float,
                   help=f"SuperBPE: the transition as a share of the vocabulary size, above 0 and at most 1 "
                        f"(default {SuperBpeOptions().transition_share:g}, the paper's best)")
    p.add_argument("--threshold", type=float,
                   help=f"PickyBPE and BoundlessBPE: remove a token a merge used up when its Intersection over Self "
                        f"is above this (BoundlessBPE: at or above), above 0 and at most 1 (default "
                        f"{PickyBpeOptions().threshold:g}; PickyBPE's 1 removes nothing)")
    p.add_argument("--no-removals", action="store_true", help="BoundlessBPE: remove no token (superword merges only)")
    p.add_argument("--no-superwords", action="store_true",
                   help="BoundlessBPE: no merge joins two pretokens (with --no-removals: plain byte-level BPE)")


def _top_k(args: argparse.Namespace) -> int:
    """Runner-ups are only read from a written trace: keep 10 per step for one, none otherwise."""
    if args.top_k is not None:
        return args.top_k
    return 10 if getattr(args, "trace", None) else 0


#: Unigram flags (argparse names) and the UnigramOptions fields they set.
_UNIGRAM_FLAGS = {"max_word_length": "max_word_length", "character_coverage": "character_coverage",
                  "split_by_number": "split_by_number", "split_by_unicode_script": "split_by_script",
                  "split_digits": "split_digits", "seed_sentencepiece_size": "seed_size",
                  "num_sub_iterations": "num_sub_iterations", "max_sentence_length": "max_sentence_length"}


def _unigram_options(args: argparse.Namespace, *, model: str) -> UnigramOptions:
    """The Unigram settings the flags give (defaults for the rest); an error if given for another model."""
    given = {field: getattr(args, flag) for flag, field in _UNIGRAM_FLAGS.items()
             if getattr(args, flag, None) is not None}
    if given and model != "unigram":
        flag = next(f for f, field in _UNIGRAM_FLAGS.items() if field in given)
        raise CliError(f"--{flag.replace('_', '-')} applies to --model unigram only, not {model}")
    return UnigramOptions(**given)


def _superbpe_options(args: argparse.Namespace, *, model: str) -> SuperBpeOptions:
    """The SuperBPE settings the flags give; an error if given for another model, or both at once."""
    transition, share = getattr(args, "transition", None), getattr(args, "transition_share", None)
    if model != "superbpe":
        for flag, value in (("--transition", transition), ("--transition-share", share)):
            if value is not None:
                raise CliError(f"{flag} applies to --model superbpe only, not {model}")
        return SuperBpeOptions()
    if getattr(args, "num_merges", None) is not None:
        raise CliError("SuperBPE trains to a vocabulary size: give --vocab-size, not --num-merges")
    if transition is not None and share is not None:
        raise CliError("give --transition (a vocabulary size) or --transition-share (a share of it), not both")
    if transition is not None:
        if transition < 1:
            raise CliError(f"--transition must be a vocabulary size of 1 or more, got {transition}")
        return SuperBpeOptions(transition=transition)
    if share is not None:
        # A share of 0 would make the transition 0 tokens; 1 is plain BPE.
        if not 0 < share <= 1:
            raise CliError(f"--transition-share must be above 0 and at most 1 (0.9 is the paper's best; 1 trains "
                           f"plain BPE), got {share:g}")
        return SuperBpeOptions(transition_share=share)
    return SuperBpeOptions()


def _pickybpe_options(args: argparse.Namespace, *, model: str) -> PickyBpeOptions:
    """The PickyBPE settings the flags give; an error if given for another model or out of range."""
    threshold = getattr(args, "threshold", None)
    if model != "pickybpe":
        if threshold is not None and model != "boundless":
            raise CliError(f"--threshold applies to --model pickybpe or boundless only, not {model}")
        return PickyBpeOptions()
    if getattr(args, "num_merges", None) is not None:
        raise CliError("PickyBPE trains to a vocabulary size (removals free room for more merges): give "
                       "--vocab-size, not --num-merges")
    if threshold is None:
        return PickyBpeOptions()
    if not 0 < threshold <= 1:
        raise CliError(f"--threshold must be above 0 and at most 1 (0.9 is the paper's best; 1 removes nothing), "
                       f"got {threshold:g}")
    return PickyBpeOptions(threshold=threshold)


def _boundless_options(args: argparse.Namespace, *, model: str) -> BoundlessOptions:
    """The BoundlessBPE settings the flags give; an error if given for another model or together."""
    threshold = getattr(args, "threshold", None)
    no_removals, no_superwords = getattr(args, "no_removals", False), getattr(args, "no_superwords", False)
    if model != "boundless":
        for flag, given in (("--no-removals", no_removals), ("--no-superwords", no_superwords)):
            if given:
                raise CliError(f"{flag} applies to --model boundless only, not {model}")
        return BoundlessOptions()
    if getattr(args, "num_merges", None) is not None:
        raise CliError("BoundlessBPE trains to a vocabulary size: give --vocab-size, not --num-merges")
    if threshold is not None and no_removals:
        raise CliError("give --threshold or --no-removals, not both")
    if threshold is not None and not 0 < threshold <= 1:
        raise CliError(f"--threshold must be above 0 and at most 1 (0.9 is the paper's), got {threshold:g}")
    return BoundlessOptions(superwords=not no_superwords,
                            threshold=None if no_removals else BoundlessOptions().threshold if threshold is None
                            else threshold)


def options_from_args(args: argparse.Namespace, *, model: str) -> TrainOptions:
    """The :class:`TrainOptions` the flags describe (``--vocab-size``/``--num-merges`` when present)."""
    specials = split_specials(args.special_tokens)
    if model != "bpe" and (args.tie_break != "ids" or args.suffix_as_symbol):
        raise CliError("--tie-break and --suffix-as-symbol apply to --model bpe only")
    unigram = _unigram_options(args, model=model)
    superbpe = _superbpe_options(args, model=model)
    pickybpe = _pickybpe_options(args, model=model)
    boundless = _boundless_options(args, model=model)
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
        superbpe=superbpe, pickybpe=pickybpe, boundless=boundless,
    )
    # An unknown token that is not among the special tokens cannot have an id: go without one.
    if options.unk_token is not None and options.unk_token not in options.special_tokens:
        options = replace(options, unk_token=None)
    return options
