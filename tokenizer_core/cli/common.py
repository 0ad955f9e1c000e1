"""What every command shares: the usage error, the parser that exits with code 2, progress bars,
reading corpora, input lines and tokenizers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Sampling

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A usage problem found after argparse (reported like argparse errors)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (``--help`` still shows the usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {self.prog.removeprefix('python -m ')}: {message} (see --help)\n")


def progress_bar(quiet: bool):
    """A progress callback drawing a tqdm bar on stderr (nothing when quiet or not a terminal)."""
    if quiet or not sys.stderr.isatty():
        # Bars redrawn with carriage returns are noise in a log file or a pipe (a WordPiece training
        # wrote 24 KB of them); errors still go to stderr.
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


def split_specials(value: Optional[str]) -> Optional[tuple[str, ...]]:
    if value is None:
        return None
    items = tuple(t.strip() for t in value.split(",") if t.strip())
    return items


def corpus_lines(args: argparse.Namespace) -> Iterable[str]:
    """The training lines of the files, directories and globs named (and/or a bundled sample), streamed:
    memory holds a few MB of text at a time, whatever the corpus' size (see tokenizer_core.counts.readers).
    Read as :class:`~tokenizer_core.line_blocks.LineBlocks`: counting takes whole blocks of lines."""
    from tokenizer_core.line_blocks import LineBlocks

    if args.replace_errors:
        return _replaced_lines(args)
    return LineBlocks(lambda: _corpus_blocks(args))


def _corpus_blocks(args: argparse.Namespace) -> Iterator[str]:
    from tokenizer_core.corpus.loading import load_sample

    if args.sample:
        yield from load_sample(args.sample).lines()
    if args.files:
        from tokenizer_core.counts.inputs import expand, partitions
        from tokenizer_core.counts.readers import blocks_of

        # One partition per file: the lines in corpus order, a block at a time.
        for part in partitions(expand(args.files), part_bytes=1 << 62):
            yield from blocks_of(part, text_column=args.text_column)


def _replaced_lines(args: argparse.Namespace) -> Iterator[str]:
    from tokenizer_core.corpus.loading import load_corpus, load_sample

    if args.sample:
        yield from load_sample(args.sample).lines()
    for f in args.files or ():
        corpus = load_corpus(Path(f), text_column=args.text_column, errors="replace")
        if corpus.replaced_bytes:
            print(f"warning: {f}: {corpus.replaced_bytes} undecodable bytes replaced", file=sys.stderr)
        yield from corpus.lines()


def load_tokenizer(args: argparse.Namespace):
    from tokenizer_core.pipeline import Tokenizer

    if args.reference:
        from tokenizer_core.io.references import load_reference

        return load_reference(args.reference)
    if not args.tokenizer:
        raise CliError("give a tokenizer file with -t FILE (or --reference NAME)")
    return Tokenizer.load(args.tokenizer)


def input_lines(paths: Sequence[str], stdin: TextIO) -> Iterator[str]:
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


#: Which model types honour each sampling option (``type_name`` of the model classes).
_DROPOUT_MODELS = ("BPE",)
_SAMPLE_MODELS = ("Unigram", "SentencePieceUnigram")
#: SentencePiece's defaults, used when --sample is given without --alpha / --nbest-size.
_DEFAULT_ALPHA = 0.1
_DEFAULT_NBEST_SIZE = -1


def _model_kind(tok: Any) -> str:
    return getattr(tok.model, "type_name", type(tok.model).__name__)


def sampling_from_flags(args: argparse.Namespace, tok: Any) -> Optional[Sampling]:
    """The sampling the flags ask for, refusing flags the tokenizer's model would ignore
    (a Unigram model has no merges to drop, a BPE model no lattice to sample from)."""
    kind = _model_kind(tok)
    name = args.reference or Path(args.tokenizer or "the tokenizer").name
    lattice_flags = [f for f, v in (("--alpha", args.alpha), ("--nbest-size", args.nbest_size)) if v is not None]
    if args.dropout and args.sample:
        raise CliError("--dropout (BPE-dropout) and --sample (Unigram sampling) exclude each other; give one")
    if args.dropout:
        if kind not in _DROPOUT_MODELS:
            hint = "; use --sample (with --alpha, --nbest-size) for Unigram sampling" if kind in _SAMPLE_MODELS else ""
            raise TokenizerError(f"--dropout applies to BPE tokenizers only; {name} is {kind}{hint}")
        if lattice_flags:
            verb = "applies" if len(lattice_flags) == 1 else "apply"
            raise TokenizerError(f"{' and '.join(lattice_flags)} {verb} to Unigram sampling (--sample), not --dropout")
        return Sampling(seed=args.seed, dropout=args.dropout)
    if args.sample or lattice_flags:
        flag = "--sample" if args.sample else lattice_flags[0]
        if kind not in _SAMPLE_MODELS:
            hint = "; use --dropout for BPE-dropout" if kind in _DROPOUT_MODELS else ""
            raise TokenizerError(f"{flag} applies to Unigram tokenizers only; {name} is {kind}{hint}")
        if not args.sample:
            raise CliError(f"{flag} only changes sampled encodings; add --sample")
        return Sampling(seed=args.seed,
                        alpha=_DEFAULT_ALPHA if args.alpha is None else args.alpha,
                        nbest_size=_DEFAULT_NBEST_SIZE if args.nbest_size is None else args.nbest_size)
    return None
