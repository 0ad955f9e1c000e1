"""Command line: ``python -m tokenizer_core train|encode|decode|inspect|export|import|references``.

Bad input ends with exit code 2 and one line on stderr saying what to fix; the
tokenizer errors of the core are already written that way.

>>> import io; buf = io.StringIO()
>>> main(["references"], stdout=buf) == 0 and "gpt2" in buf.getvalue()
True
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

from .errors import TokenizerError
from .types import Sampling

EXIT_BAD_INPUT = 2


class _CliError(Exception):
    """A usage problem found after argparse (reported like argparse errors)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (``--help`` still shows the usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {self.prog.removeprefix('python -m ')}: {message} (see --help)\n")


def _progress_bar(quiet: bool):
    """A progress callback drawing a tqdm bar on stderr (nothing when quiet or not a terminal)."""
    if quiet:
        return lambda done, total, message: None
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def report(done: int, total: int, message: str) -> None:
        bar = state.get("bar")
        if bar is None or state.get("message") != message:
            if bar is not None:
                bar.close()
            bar = tqdm(total=total or None, desc=message, file=sys.stderr, leave=False,
                       dynamic_ncols=True, mininterval=0.2)
            state["bar"], state["message"] = bar, message
        bar.n = done
        bar.refresh() if done == total else bar.update(0)

    def close() -> None:
        if state.get("bar") is not None:
            state["bar"].close()

    report.close = close  # type: ignore[attr-defined]
    return report


def _split_specials(value: Optional[str]) -> Optional[tuple[str, ...]]:
    if value is None:
        return None
    items = tuple(t.strip() for t in value.split(",") if t.strip())
    return items


def _corpus_lines(args: argparse.Namespace) -> Iterator[str]:
    from .corpus import load_corpus, load_sample

    if args.sample:
        yield from load_sample(args.sample).lines()
    for f in args.files:
        corpus = load_corpus(Path(f), text_column=args.text_column,
                             errors="replace" if args.replace_errors else "strict")
        if corpus.replaced_bytes:
            print(f"warning: {f}: {corpus.replaced_bytes} undecodable bytes replaced", file=sys.stderr)
        yield from corpus.lines()


def _cmd_train(args: argparse.Namespace) -> int:
    from .training import DEFAULT_SPECIAL_TOKENS, TrainOptions, train

    if not args.files and not args.sample:
        raise _CliError("train needs corpus files (or --sample NAME)")
    specials = _split_specials(args.special_tokens)
    extra: dict[str, Any] = {}
    if args.model == "bpe":
        extra.update(tie_break=args.tie_break, suffix_as_symbol=args.suffix_as_symbol)
    elif args.tie_break != "ids" or args.suffix_as_symbol:
        raise _CliError("--tie-break and --suffix-as-symbol apply to --model bpe only")
    options = TrainOptions(
        vocab_size=args.vocab_size, num_merges=args.num_merges, min_frequency=args.min_frequency,
        lowercase=args.lowercase,
        special_tokens=specials if specials is not None else DEFAULT_SPECIAL_TOKENS,
        unk_token=args.unk_token if args.unk_token else None,
        pre_tokenizer=args.pre_tokenizer, byte_level=args.byte_level,
        end_of_word_suffix=args.end_of_word_suffix, continuing_subword_prefix=args.continuing_subword_prefix,
        limit_alphabet=args.limit_alphabet, max_piece_length=args.max_piece_length,
        shrinking_factor=args.shrinking_factor, byte_fallback=args.byte_fallback, top_k=args.top_k, extra=extra,
    )
    if options.unk_token is not None and options.unk_token not in options.special_tokens:
        options = TrainOptions(**{**options.__dict__, "unk_token": None})
    bar = _progress_bar(args.quiet)
    try:
        tok = train(args.model, _corpus_lines(args), options=options, progress=bar)
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


def _load_tokenizer(args: argparse.Namespace):
    from .pipeline import Tokenizer

    if args.reference:
        from .references import load_reference

        return load_reference(args.reference)
    if not args.tokenizer:
        raise _CliError("give a tokenizer file with -t FILE (or --reference NAME)")
    return Tokenizer.load(args.tokenizer)


def _input_lines(paths: Sequence[str], stdin: TextIO) -> Iterator[str]:
    if not paths:
        for line in stdin:
            yield line.rstrip("\n").rstrip("\r")
        return
    for p in paths:
        try:
            text = Path(p).read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise TokenizerError(f"{p} is not UTF-8 text (bad byte at offset {err.start})") from err
        except OSError as err:
            raise TokenizerError(f"cannot read {p}: {err.strerror or err}") from err
        yield from text.splitlines()


def _sampling(args: argparse.Namespace) -> Optional[Sampling]:
    if args.dropout:
        return Sampling(seed=args.seed, dropout=args.dropout)
    if args.sample:
        return Sampling(seed=args.seed, alpha=args.alpha, nbest_size=args.nbest_size)
    return None


def _cmd_encode(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    tok = _load_tokenizer(args)
    lines = list(_input_lines(args.inputs, stdin)) if args.batch else _input_lines(args.inputs, stdin)
    if args.batch:
        return _encode_batch(tok, list(lines), args, out)
    sampling = _sampling(args)
    for line in lines:
        enc = tok.encode(line, add_special_tokens=not args.no_special_tokens, sampling=sampling)
        if args.json:
            out.write(json.dumps(enc.to_dict(), ensure_ascii=False) + "\n")
        elif args.tokens:
            out.write(" ".join(enc.tokens) + "\n")
        else:
            out.write(" ".join(map(str, enc.ids)) + "\n")
    return 0


def _encode_batch(tok: Any, lines: list[str], args: argparse.Namespace, out: TextIO) -> int:
    from . import batching

    pairs = None
    if args.pair_file:
        pairs = list(_input_lines([args.pair_file], sys.stdin))
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
                             padding=padding, truncation=truncation, sampling=_sampling(args),
                             return_overflowing=args.return_overflowing)
    out.write(json.dumps(batching.batch_to_json(batch), ensure_ascii=False) + "\n")
    return 0


def _cmd_decode(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    tok = _load_tokenizer(args)
    for line in _input_lines(args.inputs, stdin):
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


def _cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    tok = _load_tokenizer(args)
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


def _cmd_export(args: argparse.Namespace) -> int:
    tok = _load_tokenizer(args)
    if args.format == "hf":
        tok.save_hf(args.output)
    else:
        tok.save(args.output)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from .formats import import_tokenizer

    tok = import_tokenizer(args.format, args.path)
    tok.save(args.output)
    return 0


def _cmd_references(out: TextIO) -> int:
    from .references import list_references

    for ref in list_references():
        name = getattr(ref, "name", ref)
        title = getattr(ref, "title", "")
        out.write(f"{name}\t{title}\n" if title else f"{name}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for docs and tests)."""
    from .formats import importer_names
    from .training import trainer_names

    p = _Parser(prog="python -m tokenizer_core", description="Train, run and inspect tokenizers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def tokenizer_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("-t", "--tokenizer", help="tokenizer file (own JSON format)")
        sp.add_argument("--reference", help="a pretrained reference instead of a file, e.g. gpt2, cl100k_base")

    t = sub.add_parser("train", help="train a tokenizer on corpus files")
    t.add_argument("files", nargs="*", help=".txt .md .csv .tsv .jsonl or .zip files")
    t.add_argument("--sample", help="train on a bundled sample corpus (e.g. default)")
    t.add_argument("--model", required=True, choices=trainer_names())
    t.add_argument("--vocab-size", type=int)
    t.add_argument("--num-merges", type=int)
    t.add_argument("--min-frequency", type=int, default=0)
    t.add_argument("--lowercase", action="store_true")
    t.add_argument("--special-tokens", help="comma-separated, e.g. '[PAD],[UNK],[BOS],[EOS]'")
    t.add_argument("--unk-token", default="[UNK]", help="unknown token ('' for none)")
    t.add_argument("--pre-tokenizer", help="whitespace, word-split, bert, byte-level, metaspace, ...")
    t.add_argument("--byte-level", action="store_true", help="BPE on bytes (GPT-2 style)")
    t.add_argument("--end-of-word-suffix", help="e.g. '</w>' (Sennrich-style BPE)")
    t.add_argument("--continuing-subword-prefix")
    t.add_argument("--limit-alphabet", type=int)
    t.add_argument("--max-piece-length", type=int, default=16)
    t.add_argument("--shrinking-factor", type=float, default=0.75)
    t.add_argument("--byte-fallback", action="store_true")
    t.add_argument("--tie-break", default="ids", choices=["ids", "first"],
                   help="BPE: among equal counts take the smallest ids (tokenizers) or the pair seen first")
    t.add_argument("--suffix-as-symbol", action="store_true",
                   help="BPE: the end-of-word suffix is a symbol of its own (Sennrich's Algorithm 1)")
    t.add_argument("--top-k", type=int, default=10, help="runner-up pairs kept per step in the trace")
    t.add_argument("--trace", help="write the training trace here as JSON lines (one merge or round per line)")
    t.add_argument("--text-column", help="column (csv/tsv) or field (jsonl) holding the text")
    t.add_argument("--replace-errors", action="store_true", help="replace undecodable bytes instead of failing")
    t.add_argument("-o", "--output", required=True)
    t.add_argument("-q", "--quiet", action="store_true")

    e = sub.add_parser("encode", help="encode lines of text (stdin or files): one output line per input line")
    tokenizer_args(e)
    e.add_argument("inputs", nargs="*")
    e.add_argument("--tokens", action="store_true", help="print tokens instead of ids")
    e.add_argument("--json", action="store_true", help="print the whole encoding as JSON")
    e.add_argument("--no-special-tokens", action="store_true")
    e.add_argument("--dropout", type=float, default=0.0, help="BPE-dropout probability")
    e.add_argument("--sample", action="store_true", help="sample a segmentation (Unigram)")
    e.add_argument("--alpha", type=float, default=0.1)
    e.add_argument("--nbest-size", type=int, default=-1)
    e.add_argument("--seed", type=int)
    e.add_argument("--batch", action="store_true", help="encode all lines as one padded batch (JSON)")
    e.add_argument("--padding", default="longest", choices=["longest", "max_length", "do_not_pad"])
    e.add_argument("--truncation", default="do_not_truncate",
                   choices=["longest_first", "only_first", "only_second", "do_not_truncate"])
    e.add_argument("--max-length", type=int)
    e.add_argument("--stride", type=int, default=0)
    e.add_argument("--pad-to-multiple-of", type=int)
    e.add_argument("--padding-side", default="right", choices=["left", "right"])
    e.add_argument("--truncation-side", default="right", choices=["left", "right"])
    e.add_argument("--return-overflowing", action="store_true",
                   help="with --truncation and --stride: windows cut off become rows of their own")
    e.add_argument("--pad-token")
    e.add_argument("--pair-file", help="file with the second text of each pair, one per line")

    d = sub.add_parser("decode", help="decode lines of ids (space-separated or JSON lists)")
    tokenizer_args(d)
    d.add_argument("inputs", nargs="*")
    d.add_argument("--keep-special-tokens", action="store_true")

    i = sub.add_parser("inspect", help="describe a tokenizer, or show every stage for one text")
    tokenizer_args(i)
    i.add_argument("text", nargs="?")
    i.add_argument("--show", type=int, default=20, help="how many first/last vocabulary entries to list")
    i.add_argument("--words", action="store_true",
                   help="with TEXT: how the model handled each piece (BPE merges in order, WordPiece "
                        "longest-match lookups, Unigram 5-best segmentations)")
    i.add_argument("--merge-tree", metavar="TOKEN", help="BPE: how TOKEN is built from its symbols")

    x = sub.add_parser("export", help="write a tokenizer in another format")
    tokenizer_args(x)
    x.add_argument("--format", choices=["hf", "own"], default="hf")
    x.add_argument("-o", "--output", required=True)

    m = sub.add_parser("import", help="read a tokenizer made elsewhere into the own format")
    m.add_argument("path")
    m.add_argument("--format", required=True, choices=importer_names())
    m.add_argument("-o", "--output", required=True)

    sub.add_parser("references", help="list the pretrained references available offline")
    return p


def main(argv: Optional[Sequence[str]] = None, *, stdout: Optional[TextIO] = None,
         stdin: Optional[TextIO] = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input)."""
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "train":
            return _cmd_train(args)
        if args.command == "encode":
            return _cmd_encode(args, out, inp)
        if args.command == "decode":
            return _cmd_decode(args, out, inp)
        if args.command == "inspect":
            return _cmd_inspect(args, out)
        if args.command == "export":
            return _cmd_export(args)
        if args.command == "import":
            return _cmd_import(args)
        return _cmd_references(out)
    except (TokenizerError, _CliError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("error: out of memory; use a smaller corpus or vocabulary", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
