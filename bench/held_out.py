"""What the BPE-variant benchmarks share: the corpus split into lines to train on and held-out text,
and ``tokenizers``' byte-level BPE and our plain BPE as the baselines, measured in the same run.

``bench_pickybpe``, ``bench_boundless`` and ``bench_superbpe`` each train on the first 90% of the
benchmark corpus's lines and encode the last 10%:

>>> s = Split.of("a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\n")
>>> len(s.train_lines), s.held, s.held_bytes
(9, 'j\\n', 2)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from bench.bench_bpe import timed
from bench.corpus import bench_corpus_path
from bench.results import record

SPECIALS = ("<|endoftext|>",)


@dataclass(frozen=True)
class Split:
    """The corpus text, its first 90% of lines to train on, the rest held out to encode."""

    data: str
    train_lines: list[str]
    held: str

    @classmethod
    def of(cls, data: str) -> "Split":
        lines = data.splitlines(keepends=True)
        cut = len(lines) * 9 // 10
        return cls(data, lines[:cut], "".join(lines[cut:]))

    @classmethod
    def load(cls, mb: int) -> "Split":
        """The benchmark corpus of ``mb`` MB (built on first use), split."""
        return cls.of(bench_corpus_path(mb).read_text(encoding="utf-8"))

    @property
    def held_bytes(self) -> int:
        return len(self.held.encode("utf-8"))

    def header(self, vocab_size: int) -> str:
        """The report's first line: the corpus, the split and the vocabulary."""
        return (f"corpus: {len(self.data.encode()) / 1e6:.1f} MB, {len(self.train_lines):,} lines to train on, "
                f"{self.held_bytes:,} bytes held out; vocabulary {vocab_size:,}")


def hf_bpe(lines: list[str], vocab_size: int, *, pre_tokenizer: Optional[Any] = None) -> Any:
    """``tokenizers``' BPE trained on ``lines``: the 256 bytes as its alphabet, GPT-2's byte-level
    pre-tokenizer unless ``pre_tokenizer`` is given."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer or pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(SPECIALS), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


@dataclass(frozen=True)
class Baselines:
    """``tokenizers``' byte-level BPE and ours on one split: seconds to train, held-out tokens."""

    hf_s: float
    hf_n: int
    bpe_s: float
    bpe_n: int

    @classmethod
    def measure(cls, split: Split, vocab_size: int) -> "Baselines":
        from tokenizer_core.options import TrainOptions
        from tokenizer_core.training import train

        hf_s, hf = timed(lambda: hf_bpe(split.train_lines, vocab_size))
        hf_n = len(hf.encode(split.held).ids)
        opts = TrainOptions(vocab_size=vocab_size, special_tokens=SPECIALS, byte_level=True, top_k=0)
        bpe_s, bpe = timed(lambda: train("bpe", split.train_lines, options=opts))
        return cls(hf_s, hf_n, bpe_s, len(bpe.encode(split.held).ids))

    def add_bpe(self, out: list[str], rows: list[list[str]], held_bytes: int, *, width: int) -> None:
        """Our BPE's report line (its name ``width`` wide) to ``out`` and its table row to ``rows``."""
        out.append(f"  {'plain BPE (ours)':{width}s} {self.bpe_s:6.2f} s ({self.bpe_s / self.hf_s:.2f}x tokenizers')  "
                   f"{self.bpe_n / held_bytes:.4f} tokens/byte")
        rows.append(["plain BPE (ours)", f"{self.bpe_s:.2f} s ({self.bpe_s / self.hf_s:.2f}x `tokenizers`)",
                     f"{self.bpe_n / held_bytes:.4f}", "", ""])

    def add_variant(self, out: list[str], rows: list[list[str]], held_bytes: int, *, width: int, name: str,
                    secs: float, n: int, said: str, shown: str) -> None:
        """A variant's report line (``said`` after its numbers) and table row (``shown`` in its last
        column): its time beside both baselines', its held-out tokens beside our BPE's."""
        out.append(f"  {name:{width}s} {secs:6.2f} s ({secs / self.bpe_s:.1f}x our BPE, {secs / self.hf_s:.1f}x "
                   f"tokenizers')  {n / held_bytes:.4f} tokens/byte ({n / self.bpe_n - 1:+.1%} tokens), {said}")
        rows.append([name, f"{secs:.2f} s ({secs / self.bpe_s:.1f}x ours, {secs / self.hf_s:.1f}x `tokenizers`)",
                     f"{n / held_bytes:.4f}", f"{n / self.bpe_n - 1:+.1%} tokens", shown])

    def add_hf(self, out: list[str], rows: list[list[str]], held_bytes: int, *, width: int) -> None:
        """``tokenizers``' report line to ``out`` and its table row to ``rows``."""
        out.append(f"  {'tokenizers BPE':{width}s} {self.hf_s:6.2f} s  {self.hf_n / held_bytes:.4f} tokens/byte")
        rows.append(["`tokenizers`' BPE, the same pre-tokenizer", f"{self.hf_s:.2f} s",
                     f"{self.hf_n / held_bytes:.4f}", f"{self.hf_n / self.bpe_n - 1:+.1%} tokens", ""])


def begin(mb: int, vocab_size: int, rows: list[list[str]], *, width: int) -> tuple[Split, Baselines, list[str]]:
    """The corpus split, both baselines measured, and the report begun: its header and our BPE's line
    (our BPE's row added to ``rows``)."""
    split = Split.load(mb)
    base = Baselines.measure(split, vocab_size)
    out = [split.header(vocab_size)]
    base.add_bpe(out, rows, split.held_bytes, width=width)
    return split, base, out


def bench_parser(doc: str, name: str, *, more: Optional[Callable[[argparse.ArgumentParser], None]] = None
                 ) -> argparse.ArgumentParser:
    """A benchmark's options: ``--mb``, ``--vocab``, what ``more`` adds, then ``--record`` (to
    ``docs/bench/<name>.json``); the description is the first line of ``doc``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--mb", type=int, default=10, help="corpus size in MB (default 10)")
    ap.add_argument("--vocab", type=int, default=8000, help="vocabulary size (default 8,000)")
    if more is not None:
        more(ap)
    ap.add_argument("--record", action="store_true", help=f"keep the table for the manual (docs/bench/{name}.json)")
    return ap


def report(name: str, columns: list[str], lines_of: Callable[[list[list[str]]], list[str]], *,
           note: Optional[str]) -> int:
    """Print a benchmark's report (``lines_of`` fills the table's rows as it goes) and, with a ``note``
    (its command line), keep the table for the manual as ``docs/bench/<name>.json``."""
    rows: list[list[str]] = []
    print("\n".join(lines_of(rows)))
    if note is not None:
        print("recorded in", record(name, {"columns": columns, "rows": rows}, note=note))
    return 0


def bench_main(doc: str, name: str, columns: list[str], run: Callable[[Any, list[list[str]]], list[str]],
               argv: Optional[list[str]], *, more: Optional[Callable[[argparse.ArgumentParser], None]] = None,
               more_note: Callable[[Any], str] = lambda args: "") -> int:
    """A benchmark's command: its options (:func:`bench_parser`), ``run(args, rows)``'s report printed,
    and with ``--record`` the table kept, noted with the command line (``more_note`` adds its own options)."""
    args = bench_parser(doc, name, more=more).parse_args(argv)
    note = f"bench_{name} --mb {args.mb} --vocab {args.vocab}{more_note(args)}" if args.record else None
    return report(name, columns, lambda rows: run(args, rows), note=note)
