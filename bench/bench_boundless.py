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

COLUMNS = ["tokenizer", "training", "held-out tokens per byte", "beside plain BPE", "superword merges"]
SPECIALS = ("<|endoftext|>",)
#: The BoundlessBPE settings compared: the paper's (removals at 0.9) and superwords alone.
SETTINGS = [("BoundlessBPE, removals at 0.9", 0.9), ("BoundlessBPE, no removals", None)]


def _hf_bpe(lines: list[str], vocab_size: int) -> object:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(SPECIALS), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def run(mb: int, vocab_size: int, rows: Optional[list[list[str]]] = None) -> list[str]:
    """The report's lines; ``rows`` (when given) gets the table the manual shows."""
    rows = [] if rows is None else rows
    from tokenizer_core.options import BoundlessOptions, TrainOptions
    from tokenizer_core.training import train

    data = bench_corpus_path(mb).read_text(encoding="utf-8")
    lines = data.splitlines(keepends=True)
    cut = len(lines) * 9 // 10
    train_lines, held = lines[:cut], "".join(lines[cut:])
    held_bytes = len(held.encode("utf-8"))
    out = [f"corpus: {len(data.encode()) / 1e6:.1f} MB, {cut:,} lines to train on, {held_bytes:,} bytes held out; "
           f"vocabulary {vocab_size:,}"]
    hf_s, hf = timed(lambda: _hf_bpe(train_lines, vocab_size))
    hf_n = len(hf.encode(held).ids)  # type: ignore[attr-defined]
    bpe_opts = TrainOptions(vocab_size=vocab_size, special_tokens=SPECIALS, byte_level=True, top_k=0)
    bpe_s, bpe = timed(lambda: train("bpe", train_lines, options=bpe_opts))
    bpe_n = len(bpe.encode(held).ids)
    out.append(f"  {'plain BPE (ours)':30s} {bpe_s:6.2f} s ({bpe_s / hf_s:.2f}x tokenizers')  "
               f"{bpe_n / held_bytes:.4f} tokens/byte")
    rows.append(["plain BPE (ours)", f"{bpe_s:.2f} s ({bpe_s / hf_s:.2f}x `tokenizers`)", f"{bpe_n / held_bytes:.4f}",
                 "", ""])
    for name, threshold in SETTINGS:
        opts = TrainOptions(vocab_size=vocab_size, special_tokens=SPECIALS,
                            boundless=BoundlessOptions(threshold=threshold))
        secs, tok = timed(lambda o=opts: train("boundless", train_lines, options=o))
        n = len(tok.encode(held).ids)
        meta = tok.metadata
        across, removals, merges = meta["superword_merges"], meta["removals"], meta["num_merges"]
        out.append(f"  {name:30s} {secs:6.2f} s ({secs / bpe_s:.1f}x our BPE, {secs / hf_s:.1f}x tokenizers')  "
                   f"{n / held_bytes:.4f} tokens/byte ({n / bpe_n - 1:+.1%} tokens), {across:,} superword merges "
                   f"of {merges:,}, {removals:,} removals")
        rows.append([name, f"{secs:.2f} s ({secs / bpe_s:.1f}x ours, {secs / hf_s:.1f}x `tokenizers`)",
                     f"{n / held_bytes:.4f}", f"{n / bpe_n - 1:+.1%} tokens",
                     f"{across:,} of {merges:,} merges ({removals:,} removals)"])
    out.append(f"  {'tokenizers BPE':30s} {hf_s:6.2f} s  {hf_n / held_bytes:.4f} tokens/byte")
    rows.append(["`tokenizers`' BPE, the same pre-tokenizer", f"{hf_s:.2f} s", f"{hf_n / held_bytes:.4f}",
                 f"{hf_n / bpe_n - 1:+.1%} tokens", ""])
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=10, help="corpus size in MB (default 10)")
    ap.add_argument("--vocab", type=int, default=8000, help="vocabulary size (default 8,000)")
    ap.add_argument("--record", action="store_true", help="keep the table for the manual (docs/bench/boundless.json)")
    args = ap.parse_args(argv)
    rows: list[list[str]] = []
    print("\n".join(run(args.mb, args.vocab, rows)))
    if args.record:
        note = f"bench_boundless --mb {args.mb} --vocab {args.vocab}"
        print("recorded in", record("boundless", {"columns": COLUMNS, "rows": rows}, note=note))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
