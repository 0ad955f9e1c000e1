"""What every command shares: the usage error, the parser that exits with code 2, progress bars,
reading corpora, input lines and tokenizers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Sampling

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
    from tokenizer_core.corpus.loading import load_corpus, load_sample

    if args.sample:
        yield from load_sample(args.sample).lines()
    for f in args.files:
        corpus = load_corpus(Path(f), text_column=args.text_column,
                             errors="replace" if args.replace_errors else "strict")
        if corpus.replaced_bytes:
            print(f"warning: {f}: {corpus.replaced_bytes} undecodable bytes replaced", file=sys.stderr)
        yield from corpus.lines()



def _load_tokenizer(args: argparse.Namespace):
    from tokenizer_core.pipeline import Tokenizer

    if args.reference:
        from tokenizer_core.io.references import load_reference

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


