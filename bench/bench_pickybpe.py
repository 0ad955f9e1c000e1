"""PickyBPE beside plain BPE, same corpus, same run: training time, held-out tokens per byte, removals.

On the benchmark corpus (built on first use, never tuned for): its first 90% trains our byte-level
BPE, ``tokenizers``' BPE with the same pre-tokenizer (GPT-2's regex) and alphabet (the 256 bytes),
and PickyBPE at the same vocabulary and each threshold (counting included for all); the last 10% is
the held-out text each encodes. PickyBPE trains in Python while our BPE runs the compiled kernel
when it is built, so the time ratio says what the removals cost only beside ``tokenizers``::

    python -m bench.bench_pickybpe                   # 8,000 tokens, the 10 MB corpus, thresholds 0.9 0.7 0.5
    python -m bench.bench_pickybpe --mb 2 --threshold 0.9
    python -m bench.bench_pickybpe --record          # keep the table for the manual (docs/bench/pickybpe.json)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import timed  # noqa: E402
from bench.held_out import SPECIALS, begin, bench_main  # noqa: E402

COLUMNS = ["tokenizer", "training", "held-out tokens per byte", "beside plain BPE", "removals"]


def run(mb: int, vocab_size: int, thresholds: list[float], rows: Optional[list[list[str]]] = None) -> list[str]:
    """The report's lines; ``rows`` (when given) gets the table the manual shows."""
    rows = [] if rows is None else rows
    from tokenizer_core.options import PickyBpeOptions, TrainOptions
    from tokenizer_core.training import train

    split, base, out = begin(mb, vocab_size, rows, width=24)
    for t in thresholds:
        opts = TrainOptions(vocab_size=vocab_size, special_tokens=SPECIALS, pickybpe=PickyBpeOptions(threshold=t))
        secs, tok = timed(lambda o=opts: train("pickybpe", split.train_lines, options=o))
        removals, gone, merges = tok.metadata["removals"], len(tok.model.removed_tokens()), tok.metadata["num_merges"]
        base.add_variant(out, rows, split.held_bytes, width=24, name=f"PickyBPE, threshold {t:g}", secs=secs,
                         n=len(tok.encode(split.held).ids),
                         said=f"{merges:,} merges, {removals:,} removals, {gone:,} tokens gone at the end",
                         shown=f"{removals:,} ({gone:,} gone at the end, {merges:,} merges)")
    base.add_hf(out, rows, split.held_bytes, width=24)
    return out


def _thresholds(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--threshold", type=float, nargs="+", default=[0.9, 0.7, 0.5],
                    help="IoS thresholds, one PickyBPE run each (default 0.9 0.7 0.5)")


def main(argv: Optional[list[str]] = None) -> int:
    return bench_main(__doc__, "pickybpe", COLUMNS, lambda a, rows: run(a.mb, a.vocab, a.threshold, rows), argv,
                      more=_thresholds, more_note=lambda a: f" --threshold {' '.join(map(str, a.threshold))}")


if __name__ == "__main__":
    raise SystemExit(main())
