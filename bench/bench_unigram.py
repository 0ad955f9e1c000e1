"""Unigram trainer vs SentencePiece, both with default settings: held-out tokens and whole-process
peak memory on five corpora, one table, measured in one run.

Each corpus (:mod:`bench.unigram_corpora`: English prose, scripture-style verses with numbers and
colons, Python code, Japanese, a nine-language mix; all built offline) is split the same way
(every tenth line held out); both trainers learn the same vocabulary size (4,000 by default, or
less where SentencePiece says the corpus cannot fill it) with the meta pieces ``<unk> <s> </s>``
and encode the held-out lines. SentencePiece runs with its defaults (``character_coverage``
0.9995 included), ours with its defaults (the same). Every trainer runs in a fresh subprocess and
reports its own peak resident memory, the kernel's high-water mark ``VmHWM`` (``ru_maxrss`` is no
good here: Linux carries it over from the parent across ``exec``). Both trainers read the
training file as they go: SentencePiece gets its path, ours iterates over the open file.

Targets: held-out tokens at most SentencePiece's; peak memory at most 1.5x.

Run: ``python -m bench.bench_unigram [--size-mb 1] [--vocab-size 4000] [--only NAME]``
(``--quick``: the same at 1 MB; ``--record``: keep the table for the manual, ``docs/bench/unigram.json``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.memory import peak_rss_mb

_SPECIALS = ("<unk>", "<s>", "</s>")
#: The manual's table (``--record``): ours / SentencePiece's in the same run, below 1 ours is fewer or smaller.
COLUMNS = ["corpus", "vocabulary", "held-out tokens: ours / SentencePiece's", "ratio",
           "peak memory: ours / SentencePiece's", "ratio", "training: ours / SentencePiece's", "ratio"]


def _split(lines: list[str]) -> tuple[list[str], list[str]]:
    train = [ln for i, ln in enumerate(lines) if i % 10 != 9]
    held = [ln.rstrip("\n") for i, ln in enumerate(lines) if i % 10 == 9]
    return train, [h for h in held if h.strip()]


def _worker(args: argparse.Namespace) -> int:
    """Train one trainer on ``args.train``, encode ``args.held``; print one JSON line of figures."""
    start_mb = peak_rss_mb()
    train_path, held = Path(args.train), Path(args.held).read_text(encoding="utf-8").splitlines()
    if args.worker == "sentencepiece":
        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            spm.SentencePieceTrainer.train(input=str(train_path), model_prefix=str(Path(tmp) / "sp"),
                                           vocab_size=args.vocab_size, model_type="unigram", minloglevel=2)
            seconds = time.perf_counter() - t0
            sp = spm.SentencePieceProcessor(model_file=str(Path(tmp) / "sp.model"))
        tokens, vocab = sum(len(ids) for ids in sp.encode(held)), sp.get_piece_size()
    else:
        import tokenizer_core.unigram.model  # noqa: F401  (registers the trainer)
        from tokenizer_core.options import UnigramOptions
        from tokenizer_core.training import TrainOptions, train

        unigram = UnigramOptions() if args.max_word_length is None else UnigramOptions(
            max_word_length=args.max_word_length)
        options = TrainOptions(vocab_size=args.vocab_size, special_tokens=_SPECIALS, unk_token="<unk>",
                               unigram=unigram)
        t0 = time.perf_counter()
        # Lines as the file gives them (split at "\n" only, as SentencePiece reads it), not a list.
        with train_path.open(encoding="utf-8", newline="") as fh:
            tok = train("unigram", fh, options=options)
        seconds = time.perf_counter() - t0
        tokens = sum(len(tok.encode(line, add_special_tokens=False)) for line in held)
        vocab = tok.vocab_size
    sys.stdout.write(json.dumps({"tokens": tokens, "seconds": seconds, "vocab": vocab, "peak_mb": peak_rss_mb(),
                                 "start_mb": start_mb}) + "\n")
    return 0


def _run_worker(kind: str, train: Path, held: Path, vocab_size: int, max_word_length: int | None) -> dict:
    cmd = [sys.executable, "-m", "bench.bench_unigram", "--worker", kind, "--train", str(train),
           "--held", str(held), "--vocab-size", str(vocab_size)]
    if max_word_length is not None:
        cmd += ["--max-word-length", str(max_word_length)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        raise SystemExit(f"{kind} worker failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _corpora(size_bytes: int) -> dict[str, list[str]]:
    from bench import unigram_corpora as uc

    english = uc.english_lines(size_bytes)
    return {"English prose": english, "scripture-style": uc.scripture_lines(english, size_bytes=size_bytes),
            "Python code": uc.code_lines(size_bytes), "Japanese": uc._cut(uc.japanese_lines(), size_bytes),
            "multilingual": uc.multilingual_lines(size_bytes)}


def _fitting_vocab(train_path: Path, vocab_size: int) -> int:
    """``vocab_size``, or the most SentencePiece says the corpus can fill (it refuses more)."""
    import sentencepiece as spm

    try:
        with tempfile.TemporaryDirectory() as tmp:
            spm.SentencePieceTrainer.train(input=str(train_path), model_prefix=str(Path(tmp) / "probe"),
                                           vocab_size=vocab_size, model_type="unigram", minloglevel=2)
        return vocab_size
    except RuntimeError as err:
        found = re.search(r"value <= (\d+)", str(err))
        if not found:
            raise
        return int(found.group(1))


def _measure(lines: list[str], vocab_size: int, max_word_length: int | None) -> tuple[int, dict, dict]:
    train, held = _split(lines)
    with tempfile.TemporaryDirectory() as tmp:
        train_path, held_path = Path(tmp) / "train.txt", Path(tmp) / "held.txt"
        train_path.write_text("".join(train), encoding="utf-8")
        held_path.write_text("\n".join(held) + "\n", encoding="utf-8")
        vocab = _fitting_vocab(train_path, vocab_size)
        sp = _run_worker("sentencepiece", train_path, held_path, vocab, None)
        ours = _run_worker("ours", train_path, held_path, vocab, max_word_length)
    return vocab, sp, ours


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 MB per corpus (the default)")
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--vocab-size", type=int, default=4000)
    ap.add_argument("--max-word-length", type=int, help="our UnigramOptions.max_word_length (default: its default)")
    ap.add_argument("--only", help="run the corpora whose name contains this only (e.g. japanese)")
    ap.add_argument("--record", action="store_true", help="keep the table for the manual (docs/bench/unigram.json)")
    ap.add_argument("--worker", choices=["sentencepiece", "ours"], help=argparse.SUPPRESS)
    ap.add_argument("--train", help=argparse.SUPPRESS)
    ap.add_argument("--held", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args)
    if args.quick:
        args.size_mb = 1.0
    out = sys.stdout
    out.write(f"{'corpus':17}{'vocab':>6}{'ours tok':>10}{'sp tok':>10}{'ratio':>8}"
              f"{'ours MB':>9}{'sp MB':>8}{'ratio':>7}{'ours s':>8}{'sp s':>7}\n")
    met = True
    rows: list[list[str]] = []
    for name, lines in _corpora(int(args.size_mb * 1_000_000)).items():
        if args.only and args.only.lower() not in name.lower():
            continue
        if not lines:
            out.write(f"{name:17} (no text installed: skipped)\n")
            continue
        vocab, sp, ours = _measure(lines, args.vocab_size, args.max_word_length)
        tok_ratio, mem_ratio = ours["tokens"] / sp["tokens"], ours["peak_mb"] / sp["peak_mb"]
        met &= tok_ratio <= 1.0 and mem_ratio <= 1.5
        out.write(f"{name:17}{vocab:>6,}{ours['tokens']:>10,}{sp['tokens']:>10,}{tok_ratio:>8.4f}"
                  f"{ours['peak_mb']:>9,.0f}{sp['peak_mb']:>8,.0f}{mem_ratio:>7.2f}"
                  f"{ours['seconds']:>8.2f}{sp['seconds']:>7.2f}\n")
        out.flush()
        rows.append([name, f"{vocab:,}", f"{ours['tokens']:,} / {sp['tokens']:,}", f"{tok_ratio:.4f}",
                     f"{ours['peak_mb']:,.0f} / {sp['peak_mb']:,.0f} MB", f"{mem_ratio:.2f}x",
                     f"{ours['seconds']:.2f} / {sp['seconds']:.2f} s", f"{ours['seconds'] / sp['seconds']:.2f}x"])
    out.write(f"targets (tokens at most SentencePiece's, peak memory at most 1.5x): {'met' if met else 'MISSED'}\n")
    if args.record:
        from bench.results import record

        note = f"bench_unigram --size-mb {args.size_mb:g} --vocab-size {args.vocab_size}"
        note += f" --max-word-length {args.max_word_length}" if args.max_word_length is not None else ""
        note += f" --only {args.only}" if args.only else ""
        out.write(f"recorded in {record('unigram', {'columns': COLUMNS, 'rows': rows}, note=note)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
