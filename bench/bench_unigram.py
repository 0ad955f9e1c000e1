"""Unigram trainer vs SentencePiece: held-out tokens, training time and peak memory, on English
and on Japanese, in one run.

Each corpus is split the same way (every tenth line held out); both trainers learn the same
vocabulary size and encode the held-out lines. SentencePiece runs with its defaults except
``character_coverage=1.0`` (our trainer keeps every character) and the three meta pieces
``<unk> <s> </s>``, which our tokenizer also gets, so both learn ``vocab_size - 3`` pieces.
Every trainer runs in a fresh subprocess and reports its own peak resident memory, the kernel's
high-water mark ``VmHWM`` (``ru_maxrss`` is no good here: Linux carries it over from the parent
across ``exec``, so every worker would report at least this process's peak); the table shows the
peak and its rise over the worker's start. Both trainers read the training file as they go:
SentencePiece gets its path, ours iterates over the open file.

Corpora, both offline:

* **English**: :func:`bench.corpus.bench_corpus_path` (Python's manual, docstrings, package docs).
* **Japanese**: the Japanese message catalogs installed on the machine
  (``/usr/share/locale/ja/LC_MESSAGES/*.mo``, about 1 M characters of real translated text)
  plus Vim's Japanese tutor. The messages are short, so consecutive messages of one catalog are
  joined into paragraphs of at least :data:`JA_PARAGRAPH_CHARS` characters, as Japanese prose is
  written: long lines with few or no spaces (the case a per-word length limit can drop).

Targets: held-out tokens at most SentencePiece's (within 2% counts as met), peak memory within 2x.

Run: ``python -m bench.bench_unigram [--quick] [--size-mb 10] [--vocab-size 8000] [--ja-vocab-size 8000]``
(``--quick``: 1 MB of English at 4000, Japanese at 4000).
"""

from __future__ import annotations

import argparse
import gettext
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.memory import peak_rss_mb

#: Shortest Japanese paragraph built from the catalogs' messages (characters).
JA_PARAGRAPH_CHARS = 300
_JA_SOURCES = ("/usr/share/locale/ja/LC_MESSAGES", "/usr/share/locale-langpack/ja/LC_MESSAGES")
_JA_TEXT_FILES = ("/usr/share/vim/vim90/tutor/tutor.ja.utf-8", "/usr/share/vim/vim91/tutor/tutor.ja.utf-8")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_SPECIALS = ("<unk>", "<s>", "</s>")


def _split(lines: list[str]) -> tuple[list[str], list[str]]:
    train = [ln for i, ln in enumerate(lines) if i % 10 != 9]
    held = [ln.rstrip("\n") for i, ln in enumerate(lines) if i % 10 == 9]
    return train, [h for h in held if h.strip()]


def japanese_lines() -> list[str]:
    """Paragraph lines of Japanese text from the installed catalogs (sorted files, sorted messages).

    Returns ``[]`` where no Japanese catalogs are installed.
    """
    paragraphs: list[str] = []
    for folder in _JA_SOURCES:
        for path in sorted(Path(folder).glob("*.mo")) if Path(folder).is_dir() else []:
            try:
                with path.open("rb") as fh:
                    catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
            except (OSError, UnicodeDecodeError, ValueError):
                continue  # a catalog in another encoding or a broken file: skip it
            current = ""
            for key in sorted(catalog, key=str):
                text = catalog[key]
                if not isinstance(text, str) or not _JAPANESE.search(text):
                    continue
                # Messages are wrapped for terminals; Japanese joins wrapped lines without a space.
                current += "".join(part.strip() for part in text.splitlines())
                if len(current) >= JA_PARAGRAPH_CHARS:
                    paragraphs.append(current)
                    current = ""
            if current:
                paragraphs.append(current)
    for name in _JA_TEXT_FILES:
        if Path(name).is_file():
            paragraphs.extend(ln for ln in Path(name).read_text(encoding="utf-8").splitlines() if ln.strip())
    return [p + "\n" for p in paragraphs]


def _worker(args: argparse.Namespace) -> int:
    """Train one trainer on ``args.train``, encode ``args.held``; print one JSON line of figures."""
    start_mb = peak_rss_mb()
    train_path, held = Path(args.train), Path(args.held).read_text(encoding="utf-8").splitlines()
    if args.worker == "sentencepiece":
        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            spm.SentencePieceTrainer.train(input=str(train_path), model_prefix=str(Path(tmp) / "sp"),
                                           vocab_size=args.vocab_size, model_type="unigram",
                                           character_coverage=1.0, minloglevel=2)
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


def _compare(name: str, lines: list[str], vocab_size: int, max_word_length: int | None, out) -> dict:
    train, held = _split(lines)
    chars = sum(len(h) for h in held)
    long_chars = sum(len(w) for ln in train for w in ln.split() if len(w) + 1 > 256)
    train_chars = sum(len(ln) for ln in train)
    out.write(f"\n== {name}: {len(train):,} training lines ({train_chars:,} chars, "
              f"{long_chars / max(train_chars, 1):.1%} in words over 256 chars), {len(held):,} held out, "
              f"vocabulary {vocab_size:,}\n")
    with tempfile.TemporaryDirectory() as tmp:
        train_path, held_path = Path(tmp) / "train.txt", Path(tmp) / "held.txt"
        train_path.write_text("".join(train), encoding="utf-8")
        held_path.write_text("\n".join(held) + "\n", encoding="utf-8")
        sp = _run_worker("sentencepiece", train_path, held_path, vocab_size, None)
        ours = _run_worker("ours", train_path, held_path, vocab_size, max_word_length)
    out.write(f"{'':18}{'SentencePiece':>15}{'ours':>15}{'ours / sp':>12}\n")
    rows = [("held-out tokens", "tokens", "{:,}"), ("train time s", "seconds", "{:.2f}"),
            ("peak RSS MB", "peak_mb", "{:,.0f}")]
    for label, key, fmt in rows:
        out.write(f"{label:18}{fmt.format(sp[key]):>15}{fmt.format(ours[key]):>15}{ours[key] / sp[key]:>12.4f}\n")
    sp_rise, our_rise = sp["peak_mb"] - sp["start_mb"], ours["peak_mb"] - ours["start_mb"]
    out.write(f"{'RSS rise MB':18}{sp_rise:>15,.0f}{our_rise:>15,.0f}{our_rise / max(sp_rise, 1):>12.2f}\n")
    out.write(f"{'chars / token':18}{chars / sp['tokens']:>15.3f}{chars / ours['tokens']:>15.3f}\n")
    out.write(f"vocabulary: sentencepiece {sp['vocab']:,}, ours {ours['vocab']:,}\n")
    ok_q = ours["tokens"] <= sp["tokens"] * 1.02
    ok_m = ours["peak_mb"] <= 2 * sp["peak_mb"]
    out.write(f"tokens target (at most SentencePiece's, 2% slack): {'met' if ok_q else 'MISSED'}"
              f" ({ours['tokens'] / sp['tokens'] - 1:+.2%}); memory target (peak within 2x): "
              f"{'met' if ok_m else 'MISSED'}\n")
    return {"name": name, "sentencepiece": sp, "ours": ours}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 MB of English at 4000, Japanese at 4000")
    ap.add_argument("--size-mb", type=int, default=10)
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--ja-vocab-size", type=int, default=8000)
    ap.add_argument("--max-word-length", type=int, help="our UnigramOptions.max_word_length (default: its default)")
    ap.add_argument("--only", choices=["english", "japanese"], help="run one corpus only")
    ap.add_argument("--worker", choices=["sentencepiece", "ours"], help=argparse.SUPPRESS)
    ap.add_argument("--train", help=argparse.SUPPRESS)
    ap.add_argument("--held", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args)
    if args.quick:
        args.size_mb, args.vocab_size, args.ja_vocab_size = 1, 4000, 4000

    from bench.corpus import bench_corpus_path

    out = sys.stdout
    if args.only in (None, "english"):
        corpus = bench_corpus_path(args.size_mb)
        lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
        _compare(f"English ({corpus.name})", lines, args.vocab_size, args.max_word_length, out)
    if args.only in (None, "japanese"):
        ja = japanese_lines()
        if not ja:
            out.write("\n== Japanese: no Japanese message catalogs installed; skipped\n")
        else:
            _compare("Japanese (message catalogs as paragraphs)", ja, args.ja_vocab_size, args.max_word_length, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
