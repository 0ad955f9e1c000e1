"""BoundlessBPE beside plain BPE, same corpus, same run: training time, held-out tokens per byte, superwords.

On the benchmark corpus (built on first use, never tuned for): its first 90% trains our byte-level
BPE, ``tokenizers``' BPE with the same pre-tokenizer (GPT-2's regex) and alphabet (the 256 bytes),
and BoundlessBPE at the same vocabulary, with the paper's removals (IoS threshold 0.9) and without
(counting included for all); the last 10% is the held-out text each encodes. BoundlessBPE trains in
Python while our BPE runs the compiled kernel when it is built, so the time ratio says what
superwords cost only beside ``tokenizers``::

    python -m bench.bench_boundless                   # 8,000 tokens, the 10 MB corpus
    python -m bench.bench_boundless --mb 2
    python -m bench.bench_boundless --record          # keep the table for the manual (docs/bench/boundless.json)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import timed  # noqa: E402
from bench.held_out import SPECIALS, begin, bench_main  # noqa: E402

COLUMNS = ["tokenizer", "training", "held-out tokens per byte", "beside plain BPE", "superword merges"]
#: The BoundlessBPE settings compared: the paper's (removals at 0.9) and superwords alone.
SETTINGS = [("BoundlessBPE, removals at 0.9", 0.9), ("BoundlessBPE, no removals", None)]


def run(mb: int, vocab_size: int, rows: Optional[list[list[str]]] = None) -> list[str]:
    """The report's lines; ``rows`` (when given) gets the table the manual shows."""
    rows = [] if rows is None else rows
    from tokenizer_core.options import BoundlessOptions, TrainOptions
    from tokenizer_core.training import train

    split, base, out = begin(mb, vocab_size, rows, width=30)
    for name, threshold in SETTINGS:
        opts = TrainOptions(vocab_size=vocab_size, special_tokens=SPECIALS,
                            boundless=BoundlessOptions(threshold=threshold))
        secs, tok = timed(lambda o=opts: train("boundless", split.train_lines, options=o))
        meta = tok.metadata
        across, removals, merges = meta["superword_merges"], meta["removals"], meta["num_merges"]
        base.add_variant(out, rows, split.held_bytes, width=30, name=name, secs=secs, n=len(tok.encode(split.held).ids),
                         said=f"{across:,} superword merges of {merges:,}, {removals:,} removals",
                         shown=f"{across:,} of {merges:,} merges ({removals:,} removals)")
    base.add_hf(out, rows, split.held_bytes, width=30)
    return out


def main(argv: Optional[list[str]] = None) -> int:
    return bench_main(__doc__, "boundless", COLUMNS, lambda a, rows: run(a.mb, a.vocab, rows), argv)


if __name__ == "__main__":
    raise SystemExit(main())
