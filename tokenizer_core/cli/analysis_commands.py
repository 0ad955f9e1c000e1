"""The analysis commands: ``compare`` (tokenizers and granularities on one text) and ``sweep``
(one algorithm trained at several vocabulary sizes, scored on held-out text).

Both print a readable table, or with ``--json`` one object ``{"rows": [...]}`` holding every field
of :class:`~tokenizer_core.analysis.compare.CompareRow` / :class:`~tokenizer_core.analysis.sweep.SweepRow`.

>>> import io
>>> from tokenizer_core.cli import main
>>> out = io.StringIO()
>>> main(["compare", "--json", "--granularity", "byte"], stdout=out, stdin=io.StringIO("héllo")) == 0
True
>>> __import__("json").loads(out.getvalue())["rows"][0]["tokens"]
6
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional, TextIO

from tokenizer_core.cli.common import CliError, corpus_lines, progress_bar
from tokenizer_core.cli.train_args import add_corpus_args, add_option_args, options_from_args
from tokenizer_core.errors import TokenizerError

# The analysis package is imported by the commands that use it, not by every command line (it
# costs 45 ms, a sixth of training 1 MB); tests/cli/test_compare_cli.py checks these names against it.
GRANULARITIES = ("word", "char", "byte")
SWEEP_MODELS = ("bpe", "wordpiece", "unigram", "superbpe")

#: Sizes swept when ``--sizes`` is not given.
DEFAULT_SIZES = (256, 8000, 8)

# (header, field, format) of the readable tables; None prints as "-".
_COMPARE_COLUMNS = [
    ("name", "name", "{}"), ("vocab", "vocab_size", "{:,}"), ("tokens", "tokens", "{:,}"),
    ("chars/tok", "chars_per_token", "{:.2f}"), ("bytes/tok", "bytes_per_token", "{:.2f}"),
    ("tok/word", "fertility", "{:.2f}"), ("unk", "unk_rate", "{:.1%}"), ("covered", "char_coverage", "{:.1%}"),
    ("vocab used", "vocab_utilization", "{:.2%}"), ("attention", "attention_cost", "{:,.4g}"),
    ("cost", "cost", "{:.4g}"),
]
_SWEEP_COLUMNS = [
    ("model", "model", "{}"), ("vocab", "vocab_size", "{:,}"), ("held-out tokens", "heldout_tokens", "{:,}"),
    ("tok/byte", "tokens_per_byte", "{:.4f}"), ("chars/tok", "chars_per_token", "{:.3f}"),
    ("tok/word", "fertility", "{:.3f}"), ("unk", "unk_rate", "{:.2%}"),
    ("vocab used", "utilization", "{:.1%}"), ("embedding", "embedding_params", "{:,}"),
    ("seconds", "seconds", "{:.2f}"),
]


class _AddSource(argparse.Action):
    """Collect ``-t``/``--reference``/``--granularity`` into one list, in command-line order."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        namespace.sources = [*getattr(namespace, "sources", []), (self.dest, values)]


def add_compare_parser(sub: Any) -> None:
    """The ``compare`` subcommand."""
    c = sub.add_parser("compare", help="compare tokenizers and word/char/byte granularities on one text")
    c.add_argument("input", nargs="?", help="text file, tokenized as one string (default: stdin)")
    c.add_argument("-t", "--tokenizer", action=_AddSource, help="tokenizer file (repeatable)")
    c.add_argument("--reference", action=_AddSource, help="pretrained reference, e.g. cl100k_base (repeatable)")
    c.add_argument("--granularity", action=_AddSource, choices=GRANULARITIES,
                   help="word, char or byte baseline, trained on the text (repeatable)")
    c.add_argument("--train", help="corpus file to train the word/char granularities on instead of the text")
    c.add_argument("--baseline", help="name of the row whose attention cost counts as 1 (e.g. char)")
    c.add_argument("--d-model", type=int, default=768, help="embedding width for the parameter count")
    c.add_argument("--price-per-1k", type=float, default=0.0, help="price per 1,000 tokens for the cost column")
    c.add_argument("--json", action="store_true", help="print {\"rows\": [...]} instead of a table")
    c.set_defaults(sources=[])


def add_sweep_parser(sub: Any) -> None:
    """The ``sweep`` subcommand."""
    s = sub.add_parser("sweep", help="train at several vocabulary sizes and score each on held-out text")
    add_corpus_args(s)
    s.add_argument("--model", required=True, choices=SWEEP_MODELS)
    s.add_argument("--sizes", help="comma-separated vocabulary sizes, e.g. 500,1000,4000 "
                                   f"(default: {DEFAULT_SIZES[2]} log-spaced from {DEFAULT_SIZES[0]} to {DEFAULT_SIZES[1]})")
    held = s.add_mutually_exclusive_group()
    held.add_argument("--heldout", help="held-out text file (default: hold out a share of the training lines)")
    held.add_argument("--heldout-fraction", type=float, help="share of the lines held out (default 0.1)")
    s.add_argument("--seed", type=int, default=0, help="which lines are held out")
    s.add_argument("--d-model", type=int, default=768, help="embedding width for the parameter count")
    add_option_args(s)
    s.add_argument("--json", action="store_true", help="print {\"rows\": [...], \"knee\": N} instead of a table")
    s.add_argument("-q", "--quiet", action="store_true")


def _read_text(path: Optional[str], stdin: TextIO) -> str:
    if path is None:
        return stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise TokenizerError(f"{path} is not UTF-8 text (bad byte at offset {err.start})") from err
    except OSError as err:
        raise TokenizerError(f"cannot read {path}: {err.strerror or err}") from err


def _corpus_file_lines(path: str) -> list[str]:
    from tokenizer_core.corpus.loading import load_corpus

    return list(load_corpus(Path(path)).lines())


def _tokenizers(sources: Sequence[tuple[str, str]], text: str, train_file: Optional[str]) -> list[tuple[str, Any]]:
    """``(name, tokenizer)`` for each source, names made unique."""
    from tokenizer_core.analysis.compare import granularity_tokenizer
    from tokenizer_core.io.references import load_reference
    from tokenizer_core.pipeline import Tokenizer

    train_lines: Optional[list[str]] = None
    out: list[tuple[str, Any]] = []
    for kind, value in sources:
        if kind == "tokenizer":
            name, tok = Path(value).name, Tokenizer.load(value)
        elif kind == "reference":
            name, tok = value, load_reference(value)
        else:
            if train_lines is None:
                train_lines = _corpus_file_lines(train_file) if train_file else text.splitlines(keepends=True)
            name, tok = value, granularity_tokenizer(value, train_lines)
        taken = {n for n, _ in out}
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name} ({k})", k + 1
        out.append((unique, tok))
    return out


def cmd_compare(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """``compare``: one row per tokenizer on the text of FILE or stdin."""
    from tokenizer_core.analysis.compare import compare_rows

    if not args.sources:
        raise CliError("give tokenizers to compare: -t FILE, --reference NAME or --granularity word|char|byte")
    text = _read_text(args.input, stdin)
    tokenizers = _tokenizers(args.sources, text, args.train)
    rows = compare_rows(tokenizers, [text], d_model=args.d_model, price_per_1k=args.price_per_1k,
                        baseline=args.baseline)
    if args.json:
        out.write(json.dumps({"rows": [asdict(r) for r in rows]}, ensure_ascii=False) + "\n")
    else:
        out.write(_table([asdict(r) for r in rows], _COMPARE_COLUMNS))
    return 0


def _sizes(value: Optional[str]) -> list[int]:
    from tokenizer_core.analysis.sweep import log_sizes

    if value is None:
        return log_sizes(*DEFAULT_SIZES)
    try:
        sizes = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise CliError(f"--sizes must be positive whole numbers separated by commas, e.g. 500,1000,4000; got {value!r}")
    return sizes


def cmd_sweep(args: argparse.Namespace, out: TextIO) -> int:
    """``sweep``: rows of held-out scores, one per vocabulary size."""
    from tokenizer_core.analysis.sweep import knee, split_lines, sweep

    if not args.files and not args.sample:
        raise CliError("sweep needs training files (or --sample NAME)")
    sizes = _sizes(args.sizes)
    options = options_from_args(args, model=args.model)
    lines = list(corpus_lines(args))
    if args.heldout:
        train_lines, heldout = lines, _corpus_file_lines(args.heldout)
    else:
        fraction = 0.1 if args.heldout_fraction is None else args.heldout_fraction
        train_lines, heldout = split_lines(lines, heldout_fraction=fraction, seed=args.seed)
    bar = progress_bar(args.quiet)
    try:
        rows = sweep(args.model, train_lines, heldout, sizes=sizes, options=options, progress=bar,
                     d_model=args.d_model)
    finally:
        getattr(bar, "close", lambda: None)()
    at = knee(rows)
    if args.json:
        out.write(json.dumps({"rows": [asdict(r) for r in rows], "knee": at}, ensure_ascii=False) + "\n")
    else:
        out.write(_table([asdict(r) for r in rows], _SWEEP_COLUMNS))
        out.write(f"knee of chars/token: {'-' if at is None else f'{at:,}'}\n")
    if not args.quiet:
        print(f"swept {args.model} at {len(rows)} sizes: {len(train_lines):,} training lines, "
              f"{len(heldout):,} held out", file=sys.stderr)
    return 0


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]]) -> str:
    """Rows as an aligned text table: the first column left-aligned, numbers right-aligned."""
    cells = [[h for h, _, _ in columns]]
    for row in rows:
        cells.append(["-" if row[f] is None else fmt.format(row[f]) for _, f, fmt in columns])
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in cells]
    return "\n".join(lines) + "\n"
