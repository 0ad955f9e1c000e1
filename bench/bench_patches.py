"""Entropy patching's cost beside our BPE's, same corpus, same run: what the Entropy patches page
waits for.

On the ~10 MB benchmark corpus (built on first use, never tuned for): counting the byte n-gram model
(orders 2, 4 and 6), the next-byte entropies of a 3,000-byte text (what the page draws), and our
byte-level BPE trained to 8,000 tokens (counting included), all in this process; then the patches of
the text at three thresholds beside GPT-2's token count::

    python -m bench.bench_patches            # the 10 MB corpus
    python -m bench.bench_patches --mb 2     # a smaller one
    python -m bench.bench_patches --record   # and keep the table for the manual (docs/bench/patches.json)
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
from bench.corpus import bench_corpus_path  # noqa: E402
from bench.results import record  # noqa: E402

COLUMNS = ["what", "on the 10 MB corpus", "beside"]


def run(mb: int, rows: Optional[list[list[str]]] = None) -> list[str]:
    """The report's lines; ``rows`` (when given) gets the table the manual shows."""
    rows = [] if rows is None else rows
    from tokenizer_core.bpe.trainer import train_bpe
    from tokenizer_core.io.references import load_reference
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.patches import ByteNgramModel, patch_starts

    data = bench_corpus_path(mb).read_bytes()
    lines = data.decode("utf-8").splitlines(keepends=True)  # as the command line reads a file
    text = data[len(data) // 2:][:3000].decode("utf-8", errors="ignore").encode("utf-8")
    out = [f"corpus: {len(data) / 1e6:.1f} MB, {len(lines):,} lines; text: {len(text):,} bytes"]
    bpe_s, _ = timed(lambda: train_bpe(lines, options=TrainOptions(vocab_size=8000, byte_level=True)))
    out.append(f"  our byte-level BPE, 8,000 tokens (counting included): {bpe_s:6.2f} s")
    rows.append(["our byte-level BPE trained to 8,000 tokens (counting included)", f"{bpe_s:.2f} s", "1.00x"])
    models = {}
    for order in (2, 4, 6):
        train_s, models[order] = timed(lambda o=order: ByteNgramModel.train(data, order=o))
        h_s, h = timed(lambda o=order: models[o].entropies(text), repeat=3)
        out.append(f"  byte {order}-gram model: count {train_s:6.2f} s ({train_s / bpe_s:.2f}x BPE), "
                   f"entropies of the text {h_s * 1000:5.0f} ms, mean {h.mean():.2f} bits")
        rows.append([f"byte {order}-gram model counted", f"{train_s:.2f} s", f"{train_s / bpe_s:.2f}x our BPE"])
        rows.append([f"its entropies of {len(text):,} bytes", f"{h_s * 1000:.0f} ms", f"mean {h.mean():.2f} bits"])
    gpt2 = len(load_reference("gpt2").encode(text.decode("utf-8"), add_special_tokens=False).ids)
    h = models[4].entropies(text).tolist()
    for theta in (2.0, 3.0, 4.0):
        n = len(patch_starts(h, threshold=theta))
        out.append(f"  4-gram, global {theta:g} bits: {n:,} patches, {len(text) / n:.2f} bytes each "
                   f"(GPT-2: {gpt2:,} tokens, {len(text) / gpt2:.2f} bytes each)")
        rows.append([f"4-gram patches, global rule at {theta:g} bits", f"{len(text) / n:.2f} bytes each",
                     f"GPT-2: {len(text) / gpt2:.2f} bytes per token"])
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=10, help="corpus size in MB (default 10)")
    ap.add_argument("--record", action="store_true", help="keep the table for the manual (docs/bench/patches.json)")
    args = ap.parse_args(argv)
    rows: list[list[str]] = []
    print("\n".join(run(args.mb, rows)))
    if args.record:
        columns = [*COLUMNS[:1], f"on the {args.mb} MB corpus", *COLUMNS[2:]]
        print("recorded in", record("patches", {"columns": columns, "rows": rows}, note=f"bench_patches --mb {args.mb}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
