"""Encoding every other kind of tokenizer the app loads, against ``tokenizers`` (and ``sentencepiece``).

``bench_speed``'s encoding table covers the byte-level BPE references that ``tiktoken`` also encodes;
this one covers the rest of issue 29's list, each built offline from the benchmark corpus and loaded
by both sides from the same file:

* **SentencePiece BPE**: Mistral v1's ``tokenizer.model`` (``mistral-common``), ``tokenizers`` from
  our ``tokenizer.json`` export of it;
* **SentencePiece Unigram**: trained by ``sentencepiece`` (vocabulary 8,000, its defaults: nmt_nfkc),
  compared with ``sentencepiece`` itself and with ``tokenizers`` on our export (whose normalizer is
  the nearest ``tokenizers`` chain, so its ids may differ: the ids column checks ours against
  ``sentencepiece``, line by line, and says how many ids of the whole text differ: over a whole MB
  the path score is large enough for float32 rounding to settle near ties);
* **BERT WordPiece**: ``tokenizers``' ``BertWordPieceTokenizer`` trained on the corpus (lowercase);
* **a tokenizer.json chain**: ``Digits`` + ``Punctuation`` + ``Metaspace`` before a BPE model that
  ``tokenizers`` trained;
* three more tokenizer.json files ``tokenizers`` trains (vocabulary 8,000): a BPE behind
  ``ByteLevel(use_regex=False)`` (each text one piece), ``NFKC`` + ``Metaspace`` + Unigram (the shape
  this app's Unigram trainer makes), and ``Split(\\w+|[^\\w\\s]+, isolated)`` + BPE.

Single text: the whole corpus in one ``encode`` (ours warm, as in a running app: the chunk caches
hold its pieces). Batch: ``encode_batch`` over its lines (``tokenizers`` on every core). Ratios are
ours / ``tokenizers`` (below 1: ours is faster), and for the Unigram model ours / ``sentencepiece`` too.

Run: ``python -m bench.bench_models [--mb 1] [--record]`` (``--record``: keep the table for the manual,
``docs/bench/models.json``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import timed  # noqa: E402
from bench.corpus import bench_corpus_path  # noqa: E402
from bench.results import record  # noqa: E402


def columns(lines: int) -> list[str]:
    """The manual's table (``--record``): ours / theirs in the same run, below 1 ours is faster."""
    return ["tokenizer", "single text: ours / `tokenizers`", "ratio", "`sentencepiece`: its time, ours / it",
            f"`encode_batch` over {lines:,} lines: ours / `tokenizers`", "ratio", "ids"]


def _models(corpus: Path, workdir: Path) -> list[tuple[str, Any, Any, Any]]:
    """(name, ours, tokenizers' Tokenizer, sentencepiece processor or None) for each kind."""
    import sentencepiece as spm
    import tokenizers
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from tokenizer_core.io.importers import import_tokenizer
    from tokenizer_core.io.references import load_reference

    out = []
    mistral = load_reference("mistral_v1")
    mistral.save_hf(workdir / "mistral.json")
    out.append(("SentencePiece BPE (Mistral v1)", mistral, tokenizers.Tokenizer.from_file(str(workdir / "mistral.json")),
                None))
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(workdir / "uni"), vocab_size=8000,
                                   model_type="unigram", minloglevel=2)
    unigram = import_tokenizer("sentencepiece", workdir / "uni.model")
    unigram.save_hf(workdir / "uni.json")
    out.append(("SentencePiece Unigram (8k, nmt_nfkc)", unigram, tokenizers.Tokenizer.from_file(str(workdir / "uni.json")),
                spm.SentencePieceProcessor(model_file=str(workdir / "uni.model"))))
    bert = tokenizers.BertWordPieceTokenizer(lowercase=True)
    bert.train([str(corpus)], vocab_size=8000, show_progress=False)
    bert.save(str(workdir / "bert.json"))
    out.append(("BERT WordPiece (8k, lowercase)", import_tokenizer("hf", workdir / "bert.json"),
                tokenizers.Tokenizer.from_file(str(workdir / "bert.json")), None))
    chain = tokenizers.Tokenizer(models.BPE())
    chain.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                   pre_tokenizers.Punctuation(), pre_tokenizers.Metaspace()])
    chain.decoder = decoders.Metaspace()
    chain.train([str(corpus)], trainers.BpeTrainer(vocab_size=8000, show_progress=False))
    chain.save(str(workdir / "chain.json"))
    out.append(("Digits+Punctuation+Metaspace, BPE", import_tokenizer("hf", workdir / "chain.json"), chain, None))
    for name, hf in _more_files(corpus):
        hf.save(str(workdir / "more.json"))
        out.append((name, import_tokenizer("hf", workdir / "more.json"), hf, None))
    return out


def _more_files(corpus: Path) -> list[tuple[str, Any]]:
    """tokenizer.json shapes beyond the four above, each trained by ``tokenizers`` on the corpus."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    one_piece = Tokenizer(models.BPE())
    one_piece.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    one_piece.decoder = decoders.ByteLevel()
    one_piece.train([str(corpus)], trainers.BpeTrainer(vocab_size=8000, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    unigram = Tokenizer(models.Unigram())
    unigram.normalizer = normalizers.NFKC()
    unigram.pre_tokenizer = pre_tokenizers.Metaspace()
    unigram.decoder = decoders.Metaspace()
    unigram.train([str(corpus)], trainers.UnigramTrainer(vocab_size=8000, unk_token="<unk>", special_tokens=["<unk>"],
                                                         show_progress=False))
    split = Tokenizer(models.BPE())
    split.pre_tokenizer = pre_tokenizers.Split(Regex(r"\w+|[^\w\s]+"), behavior="isolated")
    split.train([str(corpus)], trainers.BpeTrainer(vocab_size=8000, show_progress=False))
    return [("ByteLevel(use_regex=False), BPE", one_piece), ("NFKC+Metaspace, Unigram", unigram),
            (r"Split(\w+|[^\w\s]+), BPE", split)]


def run(mb: int, table: list[list[str]] | None = None) -> list[tuple[str, float, float]]:
    """Print the table; return (name, single-text ratio, batch ratio) rows; ``table`` (when given) gets
    the manual's rows (:func:`columns`)."""
    corpus = bench_corpus_path(mb)
    text = corpus.read_text(encoding="utf-8")
    lines = text.split("\n")
    rows = []
    print(f"\n== encoding other tokenizers, {len(text.encode()) / 1e6:.1f} MB ({len(lines):,} lines); "
          f"{os.cpu_count()} cores ==")
    print(f"{'tokenizer':<40} {'single: ours':>12} {'tokenizers':>11} {'sentencepiece':>14} {'ratios':>13} | "
          f"{'batch: ours':>11} {'tokenizers':>11} {'ratio':>6} | ids")
    with tempfile.TemporaryDirectory() as tmp:
        for name, ours, hf, sp in _models(corpus, Path(tmp)):
            single, batch, cells = _measure(name, ours, hf, sp, text, lines)
            rows.append((name, single, batch))
            if table is not None:
                table.append(cells)
    return rows


def _measure(name: str, ours: Any, hf: Any, sp: Any, text: str, lines: list[str]) -> tuple[float, float, list[str]]:
    """Print one row; return (single-text ratio to tokenizers, batch ratio, the manual's row)."""
    ours.encode(text)  # warm: a running app has met these chunks before
    t_ours, enc = timed(lambda: ours.encode(text, add_special_tokens=False), 3)
    t_hf, hf_enc = timed(lambda: hf.encode(text, add_special_tokens=False), 3)
    t_sp, sp_ids = timed(lambda: sp.encode(text), 3) if sp is not None else (float("nan"), None)
    b_ours, batch = timed(lambda: ours.encode_batch(lines, add_special_tokens=False), 3)
    b_hf, hf_batch = timed(lambda: hf.encode_batch(lines, add_special_tokens=False), 3)
    if sp is not None:  # tokenizers only approximates SentencePiece's normalizer: the reference is sentencepiece
        same = "lines identical" if [e.ids for e in batch.encodings] == sp.encode(lines) else "lines DIFFER"
        if enc.ids != sp_ids:  # one path score over the whole text: float32 rounding decides near ties
            first = next((k for k, (a, b) in enumerate(zip(enc.ids, sp_ids)) if a != b), min(len(enc.ids), len(sp_ids)))
            same += f" (whole text: {len(enc.ids):,} ids against {len(sp_ids):,}, first difference at id {first:,})"
    else:
        same = "identical" if enc.ids == hf_enc.ids and [e.ids for e in batch.encodings] == [
            e.ids for e in hf_batch] else "DIFFER"
    vs_sp = f"{t_ours / t_sp:5.2f}x sp" if sp is not None else ""
    print(f"{name:<40} {t_ours:10.3f} s {t_hf:9.3f} s {t_sp:12.3f} s {t_ours / t_hf:5.2f}x {vs_sp:>8} | "
          f"{b_ours:9.3f} s {b_hf:9.3f} s {b_ours / b_hf:5.2f}x | {same}", flush=True)
    cells = [name, f"{t_ours:.3f} / {t_hf:.3f} s", f"{t_ours / t_hf:.2f}x",
             f"{t_sp:.3f} s, {t_ours / t_sp:.2f}x" if sp is not None else "-",
             f"{b_ours:.3f} / {b_hf:.3f} s", f"{b_ours / b_hf:.2f}x",
             same if sp is None else f"against sentencepiece: {same}"]
    return t_ours / t_hf, b_ours / b_hf, cells


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=1, help="corpus size in MB (default 1)")
    ap.add_argument("--record", action="store_true", help="keep the table for the manual (docs/bench/models.json)")
    args = ap.parse_args(argv)
    table: list[list[str]] = []
    run(args.mb, table)
    if args.record:
        lines = len(bench_corpus_path(args.mb).read_text(encoding="utf-8").split("\n"))
        print("recorded in", record("models", {"columns": columns(lines), "rows": table},
                                    note=f"bench_models --mb {args.mb}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
