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
  ``tokenizers`` trained.

Single text: the whole corpus in one ``encode`` (ours warm, as in a running app: the chunk caches
hold its pieces). Batch: ``encode_batch`` over its lines (``tokenizers`` on every core). Ratios are
ours / ``tokenizers`` (below 1: ours is faster), and for the Unigram model ours / ``sentencepiece`` too.

Run: ``python -m bench.bench_models [--mb 1]``.
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
    return out


def run(mb: int) -> list[tuple[str, float, float]]:
    """Print the table; return (name, single-text ratio, batch ratio) rows."""
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
            single, batch = _measure(name, ours, hf, sp, text, lines)
            rows.append((name, single, batch))
    return rows


def _measure(name: str, ours: Any, hf: Any, sp: Any, text: str, lines: list[str]) -> tuple[float, float]:
    """Print one row; return (single-text ratio to tokenizers, batch ratio)."""
    ours.encode(text)  # warm: a running app has met these chunks before
    t_ours, enc = timed(lambda: ours.encode(text, add_special_tokens=False), 3)
    t_hf, hf_enc = timed(lambda: hf.encode(text, add_special_tokens=False), 3)
    t_sp, sp_ids = timed(lambda: sp.encode(text), 3) if sp is not None else (float("nan"), None)
    b_ours, batch = timed(lambda: ours.encode_batch(lines, add_special_tokens=False), 3)
    b_hf, hf_batch = timed(lambda: hf.encode_batch(lines, add_special_tokens=False), 3)
    if sp is not None:  # tokenizers only approximates SentencePiece's normalizer: the reference is sentencepiece
        same = "identical" if [e.ids for e in batch.encodings] == sp.encode(lines) else "lines DIFFER"
        if enc.ids != sp_ids:  # one path score over the whole text: float32 rounding decides near ties
            first = next((k for k, (a, b) in enumerate(zip(enc.ids, sp_ids)) if a != b), min(len(enc.ids), len(sp_ids)))
            same += f" (whole text: {len(enc.ids):,} ids against {len(sp_ids):,}, first difference at id {first:,})"
    else:
        same = "identical" if enc.ids == hf_enc.ids and [e.ids for e in batch.encodings] == [
            e.ids for e in hf_batch] else "DIFFER"
    vs_sp = f"{t_ours / t_sp:5.2f}x sp" if sp is not None else ""
    print(f"{name:<40} {t_ours:10.3f} s {t_hf:9.3f} s {t_sp:12.3f} s {t_ours / t_hf:5.2f}x {vs_sp:>8} | "
          f"{b_ours:9.3f} s {b_hf:9.3f} s {b_ours / b_hf:5.2f}x | {same}", flush=True)
    return t_ours / t_hf, b_ours / b_hf


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=1, help="corpus size in MB (default 1)")
    run(ap.parse_args(argv).mb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
