"""Vocabulary-size sweep benchmark: BPE at 8 log-spaced sizes vs one training at the largest size.

The sweep (:func:`tokenizer_core.analysis.sweep.sweep`) trains BPE once at the largest size, reads
every smaller size off its merge list and scores all of them on the held-out lines; the reference
is one plain training at the largest size on the same training lines. Both run in this process,
best of ``--repeat`` runs each, on the bundled default corpus (90% training, 10% held out). The
target is a ratio of at most 1.5x. With ``--check`` it also trains each size separately and
checks that the held-out token counts are the same (and prints what that naive sweep costs).

Run from the repository root (offline)::

    python -m bench.bench_sweep             # char-level and byte-level BPE, sizes 256 .. 8000
    python -m bench.bench_sweep --check     # also train every size on its own and compare
    python -m bench.bench_sweep --quick     # a quarter of the corpus, one run each
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tokenizer_core.analysis.metrics import compute_metrics  # noqa: E402
from tokenizer_core.analysis.sweep import log_sizes, split_lines, sweep  # noqa: E402
from tokenizer_core.corpus.loading import load_sample  # noqa: E402
from tokenizer_core.options import TrainOptions  # noqa: E402
from tokenizer_core.training import train  # noqa: E402

TARGET = 1.5
SETUPS = {
    "char-level": TrainOptions(),
    "byte-level": TrainOptions(byte_level=True, special_tokens=("<|endoftext|>",), unk_token=None),
}


def best_of(repeat: int, fn):
    """(fastest wall seconds, last result) of ``repeat`` calls."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def separate_trainings(train_lines: list[str], heldout: list[str], sizes: list[int],
                       options: TrainOptions) -> tuple[float, list[int]]:
    """The naive sweep: train each size on its own and encode the held-out lines; (seconds, tokens)."""
    start = time.perf_counter()
    tokens = []
    for size in sizes:
        tok = train("bpe", train_lines, options=replace(options, vocab_size=size))
        encs = [tok.encode(line, add_special_tokens=False) for line in heldout]
        tokens.append(compute_metrics(encs, heldout).tokens)
    return time.perf_counter() - start, tokens


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (the fastest counts)")
    ap.add_argument("--quick", action="store_true", help="a quarter of the corpus, one run each")
    ap.add_argument("--check", action="store_true", help="also train every size separately and compare")
    ap.add_argument("--max-size", type=int, default=8000)
    args = ap.parse_args(argv)
    lines = list(load_sample("default").lines())
    repeat = 1 if args.quick else args.repeat
    if args.quick:
        lines = lines[: len(lines) // 4]
    train_lines, heldout = split_lines(lines, heldout_fraction=0.1, seed=0)
    sizes = log_sizes(256, args.max_size, 8)
    mb = sum(len(line.encode()) for line in lines) / 1e6
    print(f"default corpus: {mb:.1f} MB, {len(train_lines):,} training lines, {len(heldout):,} held out; "
          f"cpus: {os.cpu_count()}; load average at start: {os.getloadavg()[0]:.2f}")
    print(f"sizes: {', '.join(map(str, sizes))}; best of {repeat}\n")
    print(f"{'BPE':<11} {'1 training s':>13} {'sweep s':>8} {'ratio':>7} {'target':>7}")
    worst = 0.0
    for name, options in SETUPS.items():
        one, _ = best_of(repeat, lambda o=options: train("bpe", train_lines, options=replace(o, vocab_size=sizes[-1])))
        swept, rows = best_of(repeat, lambda o=options: sweep("bpe", train_lines, heldout, sizes=sizes, options=o))
        ratio = swept / one
        worst = max(worst, ratio)
        print(f"{name:<11} {one:13.2f} {swept:8.2f} {ratio:6.2f}x {'≤ ' + str(TARGET) + 'x':>7}", flush=True)
        if args.check:
            naive, tokens = separate_trainings(train_lines, heldout, sizes, options)
            same = tokens == [r.heldout_tokens for r in rows]
            print(f"{'':<11} each size trained alone and encoded: {naive:.2f} s ({naive / swept:.1f}x the sweep); "
                  f"held-out tokens identical: {same}", flush=True)
            if not same:
                raise RuntimeError(f"held-out tokens differ: sweep {[r.heldout_tokens for r in rows]} vs {tokens}")
    print(f"\nworst ratio: {worst:.2f}x ({'within' if worst <= TARGET else 'OVER'} the {TARGET}x target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
