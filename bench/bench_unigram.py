"""Unigram trainer vs SentencePiece: quality (tokens on held-out text) and training time.

Both train on the same ~10 MB benchmark corpus (every tenth line held out) at
vocabulary 8000 in the same run, then encode the held-out lines. SentencePiece runs
with its defaults except ``character_coverage=1.0`` (our trainer keeps every
character) and the three meta pieces ``<unk> <s> </s>``, which our tokenizer also
gets, so both have 7997 learned pieces. Prints the figures and the ratios; the
targets are tokens within 2% and time within 3x of SentencePiece's.

Run: ``python -m bench.bench_unigram [--size-mb 10] [--vocab-size 8000]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def _split(path: Path) -> tuple[list[str], list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    train = [ln for i, ln in enumerate(lines) if i % 10 != 9]
    held = [ln.rstrip("\n") for i, ln in enumerate(lines) if i % 10 == 9]
    return train, [h for h in held if h.strip()]


def main(argv: list[str] | None = None) -> int:
    import sentencepiece as spm

    import tokenizer_core.unigram.model  # noqa: F401  (registers the trainer)
    from bench.corpus import bench_corpus_path
    from tokenizer_core.training import TrainOptions, train

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=10)
    ap.add_argument("--vocab-size", type=int, default=8000)
    args = ap.parse_args(argv)

    corpus = bench_corpus_path(args.size_mb)
    train_lines, held = _split(corpus)
    out = sys.stdout
    out.write(f"corpus {corpus.name}: {len(train_lines):,} training lines, {len(held):,} held-out lines\n")

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "train.txt"
        src.write_text("".join(train_lines), encoding="utf-8")
        t0 = time.perf_counter()
        spm.SentencePieceTrainer.train(
            input=str(src), model_prefix=str(Path(tmp) / "sp"), vocab_size=args.vocab_size,
            model_type="unigram", character_coverage=1.0, minloglevel=2,
        )
        sp_time = time.perf_counter() - t0
        sp = spm.SentencePieceProcessor(model_file=str(Path(tmp) / "sp.model"))

    t0 = time.perf_counter()
    tok = train("unigram", iter(train_lines),
                options=TrainOptions(vocab_size=args.vocab_size, special_tokens=("<unk>", "<s>", "</s>"),
                                     unk_token="<unk>"))
    our_time = time.perf_counter() - t0

    sp_tokens = sum(len(ids) for ids in sp.encode(held))
    our_tokens = sum(len(tok.encode(line, add_special_tokens=False)) for line in held)
    chars = sum(len(h) for h in held)

    out.write(f"{'':14}{'SentencePiece':>15}{'ours':>15}{'ours / sp':>12}\n")
    out.write(f"{'train time s':14}{sp_time:>15.2f}{our_time:>15.2f}{our_time / sp_time:>12.2f}\n")
    out.write(f"{'held-out tok':14}{sp_tokens:>15,}{our_tokens:>15,}{our_tokens / sp_tokens:>12.4f}\n")
    out.write(f"{'chars / token':14}{chars / sp_tokens:>15.3f}{chars / our_tokens:>15.3f}\n")
    out.write(f"vocabulary: sentencepiece {sp.get_piece_size()}, ours {tok.vocab_size}\n")
    ok_q = abs(our_tokens / sp_tokens - 1) <= 0.02 or our_tokens < sp_tokens
    ok_t = our_time <= 3 * sp_time
    out.write(f"quality target (within 2%): {'met' if ok_q else 'MISSED'}; "
              f"time target (within 3x): {'met' if ok_t else 'MISSED'}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
