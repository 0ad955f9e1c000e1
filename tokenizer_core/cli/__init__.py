"""Command line: ``python -m tokenizer_core train|count|encode|decode|inspect|export|import|references|compare|sweep|lattice``.

Bad input ends with exit code 2 and one line on stderr saying what to fix; the
tokenizer errors of the core are already written that way.

>>> import io; buf = io.StringIO()
>>> main(["references"], stdout=buf) == 0 and "gpt2" in buf.getvalue()
True
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, Optional, TextIO

from tokenizer_core.cli.analysis_commands import add_compare_parser, add_sweep_parser, cmd_compare, cmd_sweep
from tokenizer_core.cli.commands import (
    cmd_decode,
    cmd_encode,
    cmd_export,
    cmd_import,
    cmd_inspect,
    cmd_references,
    cmd_train,
    trace_rows,
)
from tokenizer_core.cli.common import EXIT_BAD_INPUT, CliError, Parser
from tokenizer_core.cli.count_command import add_count_parser, cmd_count
from tokenizer_core.cli.export_args import add_transformers_args
from tokenizer_core.cli.lattice_command import add_lattice_parser, cmd_lattice
from tokenizer_core.cli.train_args import add_corpus_args, add_option_args
from tokenizer_core.errors import TokenizerError

__all__ = ["EXIT_BAD_INPUT", "build_parser", "main", "trace_rows"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for docs and tests): one sub-parser per command."""
    p = Parser(prog="python -m tokenizer_core", description="Train, run and inspect tokenizers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for add in (_add_train_parser, add_count_parser, _add_encode_parser, _add_decode_parser, _add_inspect_parser,
                _add_export_parser, _add_import_parser):
        add(sub)
    sub.add_parser("references", help="list the pretrained references available offline")
    add_compare_parser(sub)
    add_sweep_parser(sub)
    add_lattice_parser(sub)
    return p


def _add_tokenizer_args(sp: argparse.ArgumentParser) -> None:
    """How a command names the tokenizer it uses: a file or an offline reference."""
    sp.add_argument("-t", "--tokenizer", help="tokenizer file (own JSON format)")
    sp.add_argument("--reference", help="a pretrained reference instead of a file, e.g. gpt2, cl100k_base")


def _add_train_parser(sub: Any) -> None:
    from tokenizer_core.training import trainer_names

    t = sub.add_parser("train", help="train a tokenizer on corpus files (or a counts file)")
    add_corpus_args(t)
    t.add_argument("--from-counts", metavar="COUNTS_TSV",
                   help="train from a counts file made by `count` (or any job writing that format) instead of files")
    t.add_argument("--model", required=True, choices=trainer_names())
    t.add_argument("--vocab-size", type=int)
    t.add_argument("--num-merges", type=int)
    add_option_args(t)
    t.add_argument("--trace", help="write the training trace here as JSON lines (one merge or round per line)")
    t.add_argument("-o", "--output", required=True)
    t.add_argument("-q", "--quiet", action="store_true")


def _add_encode_parser(sub: Any) -> None:
    e = sub.add_parser("encode", help="encode lines of text (stdin or files): one output line per input line")
    _add_tokenizer_args(e)
    e.add_argument("inputs", nargs="*")
    e.add_argument("--tokens", action="store_true", help="print tokens instead of ids")
    e.add_argument("--json", action="store_true", help="print the whole encoding as JSON")
    e.add_argument("--no-special-tokens", action="store_true")
    e.add_argument("--dropout", type=float, default=0.0, help="BPE-dropout probability (BPE tokenizers only)")
    e.add_argument("--sample", action="store_true", help="sample a segmentation (Unigram tokenizers only)")
    e.add_argument("--alpha", type=float, help="with --sample: smoothing, P(s) ∝ exp(alpha·score) (default 0.1)")
    e.add_argument("--nbest-size", type=int,
                   help="with --sample: sample among the n best (-1: all segmentations, the default; 1: Viterbi)")
    e.add_argument("--seed", type=int,
                   help="with --sample or --dropout: seeds the run's one random generator, so the same seed and "
                        "input give the same output; lines draw from it in turn, so equal lines get independent "
                        "samples (default: a new seed each run)")
    _add_batch_args(e)
    e.add_argument("--pair-file", help="file with the second text of each pair, one per line")


def _add_batch_args(e: argparse.ArgumentParser) -> None:
    """``encode --batch``: padding and truncation of the lines as one batch."""
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


def _add_decode_parser(sub: Any) -> None:
    d = sub.add_parser("decode", help="decode lines of ids (space-separated or JSON lists)")
    _add_tokenizer_args(d)
    d.add_argument("inputs", nargs="*")
    d.add_argument("--keep-special-tokens", action="store_true")


def _add_inspect_parser(sub: Any) -> None:
    i = sub.add_parser("inspect", help="describe a tokenizer, or show every stage for one text")
    _add_tokenizer_args(i)
    i.add_argument("text", nargs="?")
    i.add_argument("--show", type=int, default=20, help="how many first/last vocabulary entries to list")
    i.add_argument("--words", action="store_true",
                   help="with TEXT: how the model handled each piece (BPE merges in order, WordPiece "
                        "longest-match lookups, Unigram 5-best segmentations)")
    i.add_argument("--merge-tree", metavar="TOKEN", help="BPE: how TOKEN is built from its symbols")


def _add_export_parser(sub: Any) -> None:
    x = sub.add_parser("export", help="write a tokenizer in another format")
    _add_tokenizer_args(x)
    x.add_argument("--format", choices=["hf", "own", "transformers"], default="hf",
                   help="hf: a tokenizer.json; own: this package's JSON; transformers: a folder "
                        "AutoTokenizer.from_pretrained loads (tokenizer.json, tokenizer_config.json, "
                        "special_tokens_map.json)")
    x.add_argument("-o", "--output", required=True, help="the file (hf, own) or a new or empty folder (transformers)")
    add_transformers_args(x)


def _add_import_parser(sub: Any) -> None:
    from tokenizer_core.io.importers import importer_names

    m = sub.add_parser("import", help="read a tokenizer made elsewhere into the own format")
    m.add_argument("path")
    m.add_argument("--format", required=True, choices=importer_names())
    m.add_argument("-o", "--output", required=True)


def main(argv: Optional[Sequence[str]] = None, *, stdout: Optional[TextIO] = None,
         stdin: Optional[TextIO] = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input)."""
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "train":
            return cmd_train(args)
        if args.command == "count":
            return cmd_count(args)
        if args.command == "encode":
            return cmd_encode(args, out, inp)
        if args.command == "decode":
            return cmd_decode(args, out, inp)
        if args.command == "inspect":
            return cmd_inspect(args, out)
        if args.command == "export":
            return cmd_export(args)
        if args.command == "import":
            return cmd_import(args)
        if args.command == "compare":
            return cmd_compare(args, out, inp)
        if args.command == "sweep":
            return cmd_sweep(args, out)
        if args.command == "lattice":
            return cmd_lattice(args, out, inp)
        return cmd_references(out)
    except (TokenizerError, CliError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("error: out of memory; use a smaller corpus or vocabulary", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
