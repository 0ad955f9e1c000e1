"""The commands: train, encode, decode, inspect, export, import, references (compare and sweep are in
:mod:`tokenizer_core.cli.analysis_commands`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from tokenizer_core.cli.common import (
    CliError,
    corpus_lines,
    input_lines,
    load_tokenizer,
    progress_bar,
    sampling_from_flags,
)
from tokenizer_core.errors import TokenizerError


def cmd_train(args: argparse.Namespace) -> int:
    from tokenizer_core.cli.train_args import options_from_args
    from tokenizer_core.training import train

    if args.from_counts and (args.files or args.sample):
        raise CliError("give either corpus files or --from-counts, not both")
    if not args.files and not args.sample and not args.from_counts:
        raise CliError("train needs corpus files (or --sample NAME, or --from-counts FILE)")
    options = options_from_args(args, model=args.model)
    bar = progress_bar(args.quiet)
    try:
        if args.from_counts:
            tok = _train_from_counts(args, options, bar)
        else:
            tok = train(args.model, corpus_lines(args), options=options, progress=bar)
    finally:
        getattr(bar, "close", lambda: None)()
    tok.save(args.output)
    if args.trace:
        rows = trace_rows(tok.model)
        with open(args.trace, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    if not args.quiet:
        print(f"trained {args.model} tokenizer, vocabulary {tok.vocab_size} -> {args.output}", file=sys.stderr)
    return 0


def _train_from_counts(args: argparse.Namespace, options: Any, bar: Any) -> Any:
    from tokenizer_core.counts.spec import COUNT_MODELS
    from tokenizer_core.counts.training import train_from_counts
    from tokenizer_core.counts.tsv import read_counts
    from tokenizer_core.training import MAX_DISTINCT_WORDS

    if args.model not in COUNT_MODELS:
        raise CliError(f"--from-counts trains {', '.join(COUNT_MODELS)}, not {args.model}")
    data = read_counts(args.from_counts, max_pieces=MAX_DISTINCT_WORDS[args.model])
    say = None if args.quiet else (lambda note: print(f"note: {note}", file=sys.stderr))
    return train_from_counts(args.model, data, options=options, progress=bar, on_note=say)


def trace_rows(model: Any) -> list[dict[str, Any]]:
    """The training trace of a freshly trained model as plain rows (one per merge or round)."""
    trace = getattr(model, "training_trace", None)
    if trace is not None:  # BPE
        return trace.table()
    training = getattr(model, "training", None)
    if training is None:
        raise TokenizerError("this model keeps no training trace (word, char and byte models have none)")
    if hasattr(training, "merges"):  # WordPiece
        return [m.to_dict() for m in training.merges]
    from dataclasses import asdict

    return [asdict(r) for r in training.rounds]  # Unigram



def cmd_encode(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    tok = load_tokenizer(args)
    lines = list(input_lines(args.inputs, stdin)) if args.batch else input_lines(args.inputs, stdin)
    if args.batch:
        return _encode_batch(tok, list(lines), args, out)
    sampling = sampling_from_flags(args, tok)
    # One generator for the whole run: --seed reproduces the run, and equal lines still get
    # independent samples (a generator per line would repeat one sample on every equal line).
    rng = None if sampling is None else sampling.generator()
    for line in lines:
        enc = tok.encode(line, add_special_tokens=not args.no_special_tokens, sampling=sampling, rng=rng)
        if args.json:
            out.write(json.dumps(enc.to_dict(), ensure_ascii=False) + "\n")
        elif args.tokens:
            out.write(" ".join(enc.tokens) + "\n")
        else:
            out.write(" ".join(map(str, enc.ids)) + "\n")
    return 0


def _encode_batch(tok: Any, lines: list[str], args: argparse.Namespace, out: TextIO) -> int:
    from tokenizer_core.batch import batching

    pairs = None
    if args.pair_file:
        pairs = list(input_lines([args.pair_file], sys.stdin))
        if len(pairs) != len(lines):
            raise TokenizerError(f"--pair-file has {len(pairs)} lines but the input has {len(lines)}; they must match")
    padding = None
    if args.padding != "do_not_pad":
        pad_token = args.pad_token or (tok.special_tokens[0] if tok.special_tokens else None)
        if pad_token is None or tok.token_to_id(pad_token) is None:
            raise TokenizerError("padding needs a pad token in the vocabulary; give one with --pad-token")
        padding = batching.PaddingParams(strategy=args.padding, side=args.padding_side, max_length=args.max_length,
                                         pad_to_multiple_of=args.pad_to_multiple_of,
                                         pad_id=tok.token_to_id(pad_token), pad_token=pad_token)
    truncation = None
    if args.truncation != "do_not_truncate":
        if args.max_length is None:
            raise TokenizerError("truncation needs --max-length")
        truncation = batching.TruncationParams(strategy=args.truncation, max_length=args.max_length,
                                               stride=args.stride, side=args.truncation_side)
    batch = tok.encode_batch(lines, pairs=pairs, add_special_tokens=not args.no_special_tokens,
                             padding=padding, truncation=truncation, sampling=sampling_from_flags(args, tok),
                             return_overflowing=args.return_overflowing)
    out.write(json.dumps(batching.batch_to_json(batch), ensure_ascii=False) + "\n")
    return 0


def cmd_decode(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    tok = load_tokenizer(args)
    for line in input_lines(args.inputs, stdin):
        s = line.strip()
        if not s:
            out.write("\n")
            continue
        try:
            ids = json.loads(s) if s.startswith("[") else [int(x) for x in s.replace(",", " ").split()]
        except ValueError as err:
            raise TokenizerError(f"cannot read ids from {s[:40]!r}: give integers separated by spaces") from err
        out.write(tok.decode(ids, skip_special_tokens=not args.keep_special_tokens) + "\n")
    return 0


def cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    tok = load_tokenizer(args)
    info = {
        "model": type(tok.model).__name__,
        "vocab_size": tok.vocab_size,
        "special_tokens": tok.special_tokens,
        "normalizer": None if tok.normalizer is None else tok.normalizer.to_dict(),
        "pre_tokenizer": None if tok.pre_tokenizer is None else tok.pre_tokenizer.to_dict(),
        "post_processor": None if tok.post_processor is None else tok.post_processor.to_dict(),
        "decoder": None if tok.decoder is None else tok.decoder.to_dict(),
        "metadata": tok.metadata,
    }
    if args.merge_tree is not None:
        if not hasattr(tok.model, "merge_tree"):
            raise TokenizerError("--merge-tree needs a BPE tokenizer")
        if tok.token_to_id(args.merge_tree) is None:
            raise TokenizerError(f"{args.merge_tree!r} is not a token of this vocabulary")
        info["merge_tree"] = _plain(tok.model.merge_tree(args.merge_tree))
    if args.text is not None and args.words:
        info["words"] = [{"piece": p.text, "trace": _word_trace(tok.model, p.text)}
                         for p in tok.explain(args.text).pieces]
    if args.text is not None:
        trace = tok.explain(args.text)
        info["text"] = {
            "normalized": trace.normalized,
            "pieces": [{"piece": p.text, "offsets": list(p.offsets), "tokens": [t.text for t in p.tokens]}
                       for p in trace.pieces],
            "ids": trace.encoding.ids,
        }
    else:
        vocab = tok.get_vocab()
        by_id = sorted(vocab.items(), key=lambda kv: kv[1])
        info["first_tokens"] = [t for t, _ in by_id[: args.show]]
        info["last_tokens"] = [t for t, _ in by_id[-args.show:]]
    out.write(json.dumps(info, ensure_ascii=False, indent=2) + "\n")
    return 0


def _plain(value: Any) -> Any:
    """A trace record (dataclasses, tuples, Tokens) as plain JSON values."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _word_trace(model: Any, piece: str) -> Any:
    """What the model did to one piece: BPE merges in order, WordPiece lookups, Unigram n-best."""
    if hasattr(model, "encode_trace"):  # BPE
        return _plain(model.encode_trace(piece))
    if hasattr(model, "trace"):  # WordPiece
        return _plain(model.trace(piece))
    if hasattr(model, "nbest"):  # Unigram
        return [{"tokens": [t.text for t in toks], "log_prob": lp} for toks, lp in model.nbest(piece, 5)]
    return None


def cmd_export(args: argparse.Namespace) -> int:
    from tokenizer_core.cli.export_args import transformers_options

    options = transformers_options(args)  # refuses its flags with another format, before any loading
    tok = load_tokenizer(args)
    if args.format == "transformers":
        from tokenizer_core.io.transformers_export import save_transformers

        save_transformers(tok, args.output, options=options)
    elif args.format == "hf":
        tok.save_hf(args.output)
    else:
        tok.save(args.output)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from tokenizer_core.io.importers import import_tokenizer

    tok = import_tokenizer(args.format, args.path)
    tok.save(args.output)
    return 0


def cmd_references(out: TextIO) -> int:
    from tokenizer_core.io.references import list_references

    for ref in list_references():
        name = getattr(ref, "name", ref)
        title = getattr(ref, "title", "")
        out.write(f"{name}\t{title}\n" if title else f"{name}\n")
    return 0


