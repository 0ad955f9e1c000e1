"""SuperBPE beside plain BPE, same corpus, same run: training time, and tokens per byte of held-out text.

On the ~10 MB benchmark corpus (built on first use, never tuned for): its first 90% trains our
byte-level BPE with SuperBPE's stage-1 pre-tokenizer (the paper's baseline) and SuperBPE at the same
vocabulary (counting included), at transitions of 50%, 80% and 90% of it (the paper's best is 90%);
the last 10% is the held-out text each encodes. Also ``tokenizers`` training the baseline, as the
reference for the time::

    python -m bench.bench_superbpe              # 8,000 tokens, the 10 MB corpus
    python -m bench.bench_superbpe --mb 2       # a smaller corpus
    python -m bench.bench_superbpe --record     # keep the table for the manual (docs/bench/superbpe.json)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import timed  # noqa: E402
from bench.held_out import SPECIALS, Split, bench_main, hf_bpe  # noqa: E402

COLUMNS = ["tokenizer", "training", "held-out tokens per byte", "beside plain BPE"]


def _hf_baseline(lines: list[str], vocab_size: int) -> object:
    from tokenizers import Regex, pre_tokenizers

    from tokenizer_core.superbpe.stages import STAGE1_PATTERN

    return hf_bpe(lines, vocab_size, pre_tokenizer=pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=False),
        pre_tokenizers.Split(Regex(STAGE1_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]))


def run(mb: int, vocab_size: int, rows: Optional[list[list[str]]] = None) -> list[str]:
    """The report's lines; ``rows`` (when given) gets the table the manual shows."""
    rows = [] if rows is None else rows
    from tokenizer_core.options import SuperBpeOptions, TrainOptions
    from tokenizer_core.training import train

    split = Split.load(mb)
    train_lines, held, held_bytes = split.train_lines, split.held, split.held_bytes
    out = [split.header(vocab_size)]
    specials = SPECIALS
    hf_s, _ = timed(lambda: _hf_baseline(train_lines, vocab_size))
    runs = [("plain BPE (transition 100%)", 1.0)] + [(f"SuperBPE, transition {s:.0%}", s) for s in (0.9, 0.8, 0.5)]
    base_tokens = base_s = None
    for name, share in runs:
        opts = TrainOptions(vocab_size=vocab_size, special_tokens=specials, unk_token=None,
                            superbpe=SuperBpeOptions(transition_share=share), top_k=0)
        secs, tok = timed(lambda o=opts: train("superbpe", train_lines, options=o))
        n = len(tok.encode(held).ids)
        base_tokens = base_tokens or n
        base_s = base_s or secs
        out.append(f"  {name:30s} {secs:6.2f} s ({secs / hf_s:.2f}x tokenizers' BPE)  {n / held_bytes:.4f} tokens/byte "
                   f"({n / base_tokens - 1:+.1%} tokens), {tok.metadata['superwords']:,} superwords")
        rows.append([name, f"{secs:.2f} s ({secs / hf_s:.2f}x `tokenizers`)", f"{n / held_bytes:.4f}",
                     f"{n / base_tokens - 1:+.1%} tokens, {tok.metadata['superwords']:,} superword tokens"])
    out.append(f"  tokenizers' BPE (same pre-tokenizer)  {hf_s:6.2f} s")
    rows.append(["`tokenizers`' BPE, the same stage-1 pre-tokenizer", f"{hf_s:.2f} s", "", ""])
    return out


def main(argv: Optional[list[str]] = None) -> int:
    return bench_main(__doc__, "superbpe", COLUMNS, lambda a, rows: run(a.mb, a.vocab, rows), argv)


if __name__ == "__main__":
    raise SystemExit(main())
