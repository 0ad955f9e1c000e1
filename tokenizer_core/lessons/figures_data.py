"""Lesson figures of data and sizes: a toy Unigram model fitted to a slide's partial probabilities,
padding waste, batching strategies, the vocabulary-size sweep and one sentence at four granularities.

>>> r = padding_waste({"batches": {"chars": [10, 50, 500]}, "pad_to": None}, Context())
>>> r.values["wasted:chars"], round(r.values["percent:chars"], 1)
(940, 62.7)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tokenizer_core.analysis.compare import granularity_tokenizer, unk_id
from tokenizer_core.analysis.sweep import knee, split_lines, sweep
from tokenizer_core.batch.packing import pack
from tokenizer_core.batch.stats import bucket_by_length
from tokenizer_core.batch.stats import padding_waste as waste_of
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons.figure_types import Chart, Context, FigureKind, FigureResult, Param, Table, TokenRow
from tokenizer_core.options import TrainOptions
from tokenizer_core.unigram.explain import exact_distribution
from tokenizer_core.unigram.model import Unigram


def _fit(text: str, slide: Mapping[str, float]) -> tuple[dict[str, float], list[str]]:
    """Piece probabilities that reproduce the slide's path scores where they can, and a sentence for
    each number that cannot hold with the others. A path ``e/mail`` scores P(e)·P(mail); each path
    with one unknown piece fixes it, in the order the slide lists them."""
    known: dict[str, float] = {}
    conflicts: list[str] = []
    pending = dict(slide)
    while pending:
        progressed = False
        for key, score in list(pending.items()):
            pieces = key.split("/")
            unknown = {p for p in pieces if p not in known}
            if len(unknown) > 1:
                continue
            del pending[key]
            progressed = True
            rest = math.prod(known[p] for p in pieces if p in known)
            if not unknown:
                if not math.isclose(rest, score, rel_tol=1e-9):
                    conflicts.append(f"S({key}) = {score:g} but the other numbers already give {rest:.4g}")
                continue
            (piece,) = unknown
            need = (score / rest) ** (1 / pieces.count(piece))
            if need > 1:
                prefix = "/".join(p for p in pieces if p != piece)
                conflicts.append(f"S({key}) = {score:g} would need P({piece}) = {need:.3g}, more than 1: a path "
                                 f"cannot be more likely than its part S({prefix}) = {rest:g}")
                continue
            known[piece] = need
        if not progressed:
            conflicts.extend(f"S({k}) has more than one unknown piece; it was left out of the fit" for k in pending)
            break
    total = sum(known.values())
    if total > 1:
        conflicts.append(f"the pieces' probabilities add up to {total:.3g}, more than 1")
    # Every character of the text and every piece named gets some probability (the rest of the
    # mass, shared), so every segmentation of the text exists in the model.
    needed = [c for c in dict.fromkeys(text)] + [p for k in slide for p in k.split("/")]
    free = [p for p in dict.fromkeys(needed) if p not in known]
    share = max(1.0 - total, 0.01) / max(len(free), 1)
    return {**known, **{p: share for p in free}}, conflicts


def unigram_partial_scores(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """Fit a toy Unigram model to a slide's partial path probabilities and score every path with it."""
    text, slide = args["text"], args["slide"]
    for key in slide:
        if not text.startswith(key.replace("/", "")) or "" in key.split("/"):
            raise TokenizerError(f"the path {key!r} is not a segmentation of the start of {text!r} (pieces split by /)")
    probs, conflicts = _fit(text, slide)
    model = Unigram([(p, math.log(q)) for p, q in probs.items()])
    lattice = model.lattice(text)
    log_of = {e.piece: e.log_prob for e in lattice.edges}
    values: dict[str, Any] = {"conflicts": [c.split(" ", 1)[0] for c in conflicts]}
    rows = []
    for key, printed in slide.items():
        computed = math.exp(sum(log_of[p] for p in key.split("/")))
        values[f"S({key})"] = computed
        rows.append((key.replace("/", " | "), printed, round(computed, 6),
                     "agrees" if math.isclose(computed, printed, rel_tol=1e-6) else "cannot hold"))
    best = lattice.viterbi()
    values.update(viterbi=list(best.pieces), probability=math.exp(best.log_prob))
    paths = exact_distribution(lattice, limit=8)
    tables = (Table("The slide's numbers and the fitted model's", ("path", "slide", "model", "verdict"), tuple(rows)),
              Table("The fitted model's pieces", ("piece", "probability"),
                    tuple((p, round(q, 6)) for p, q in sorted(probs.items(), key=lambda kv: -kv[1]))),
              Table(f"Most likely segmentations of “{text}”", ("segmentation", "score P", "share of all"),
                    tuple((" | ".join(p.pieces), round(math.exp(p.score), 8), round(p.probability, 4)) for p in paths)))
    return FigureResult(f"A toy Unigram model for “{text}”", values, tables,
                        (TokenRow(f"Viterbi of “{text}”", tuple(best.pieces)),), (), tuple(conflicts))


def padding_waste(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """Each named batch padded to its longest sequence (or ``pad_to``): positions wasted and their share."""
    values: dict[str, Any] = {}
    rows, bars = [], []
    for name, lengths in args["batches"].items():
        w = waste_of(lengths, padded_length=args["pad_to"] if args["pad_to"] else None)
        width = w.total_positions // max(w.sequences, 1)
        values.update({f"wasted:{name}": w.padded_positions, f"percent:{name}": 100 * w.pad_fraction,
                       f"positions:{name}": w.total_positions, f"real:{name}": w.real_tokens,
                       f"attention_percent:{name}": 100 * w.wasted_attention_fraction, f"padded_to:{name}": width})
        rows.append((name, ", ".join(map(str, lengths)), width, w.total_positions, w.real_tokens, w.padded_positions,
                     round(100 * w.pad_fraction, 2), round(100 * w.wasted_attention_fraction, 2)))
        for i, n in enumerate(lengths):
            bars += [{"x": f"{name} #{i + 1}", "y": n, "series": "real tokens"},
                     {"x": f"{name} #{i + 1}", "y": width - n, "series": "padding"}]
    table = Table("Padding waste", ("batch", "lengths", "padded to", "positions", "real", "padding", "padding %",
                                    "attention wasted %"), tuple(rows))
    chart = Chart("Real tokens and padding per sequence", "sequence", "positions", tuple(bars), mark="bar")
    return FigureResult("Padding waste", values, (table,), (), (chart,))


def batching_strategies(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """The same sequences batched in their order, sorted, bucketed, and packed into rows."""
    lengths, size, row = args["lengths"], args["batch_size"], args["max_length"]
    values: dict[str, Any] = {}
    rows, bars = [], []
    for strategy in ("none", "sort", "bucket"):
        report = bucket_by_length(lengths, batch_size=size, strategy=strategy)
        rows.append((strategy if strategy != "none" else "as they come", len(report.batches),
                     report.after.total_positions, report.after.padded_positions, round(100 * report.after.pad_fraction, 2)))
    clipped = [min(n, row) for n in lengths]  # packing truncates first: a row holds at most max_length
    packed = pack(clipped, max_length=row)
    padded = len(packed) * row - sum(clipped)
    rows.append((f"packed into rows of {row}", len(packed), len(packed) * row, padded, round(100 * padded / (len(packed) * row), 2)))
    for name, batches, _total, pad, pct in rows:
        key = name.split(" ")[0] if not name.startswith("as") else "none"
        values.update({f"wasted:{key}": pad, f"percent:{key}": pct, f"batches:{key}": batches})
        bars.append({"x": name, "y": pct, "series": "padding %"})
    table = Table(f"{len(lengths)} sequences, batches of {size}", ("strategy", "batches or rows", "positions",
                                                                    "padding", "padding %"), tuple(rows))
    chart = Chart("Share of positions that are padding", "strategy", "padding %", tuple(bars), mark="bar")
    return FigureResult("Sorting, bucketing, packing", values, (table,), (), (chart,))


def _corpus_lines(args: Mapping[str, Any], ctx: Context) -> tuple[list[str], str]:
    source = args.get("vocabulary_from", "active")
    lines = list(ctx.corpus_lines()) if source == "active" else list(load_sample(source).lines())
    name = ctx.corpus_name if source == "active" else f"the sample {source}"
    kept, size = [], 0
    for line in lines:  # the first max_chars characters: a lesson answers in seconds on any corpus
        if size >= args["max_chars"]:
            break
        kept.append(line)
        size += len(line)
    if not any(line.strip() for line in kept):
        raise TokenizerError(f"{name} has no text to learn a vocabulary from; pick a corpus of running text")
    return kept, f"{name} (first {size:,} characters)" if size >= args["max_chars"] else name


def vocab_sweep(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """Train at several vocabulary sizes on the corpus minus held-out lines; score the held-out lines."""
    lines, name = _corpus_lines({**args, "vocabulary_from": "active"}, ctx)
    train, heldout = split_lines(lines, heldout_fraction=args["heldout_fraction"])
    rows = sweep(args["model"], train, heldout, sizes=args["sizes"], options=TrainOptions(byte_level=args["model"] == "bpe"),
                 progress=ctx.progress)
    k = knee(rows)
    values: dict[str, Any] = {"knee": k, "sizes": [r.vocab_size for r in rows]}
    for r in rows:
        values[f"chars_per_token:{r.requested_size}"] = r.chars_per_token
    table = Table(f"Sweep on {name}", ("vocabulary", "held-out tokens", "characters per token", "tokens per word",
                                        "vocabulary used", "embedding parameters"),
                  tuple((r.vocab_size, r.heldout_tokens, None if r.chars_per_token is None else round(r.chars_per_token, 3),
                         None if r.fertility is None else round(r.fertility, 3),
                         None if r.utilization is None else round(r.utilization, 3), r.embedding_params) for r in rows))
    chart = Chart("Characters per token against vocabulary size", "vocabulary size", "characters per token",
                  tuple({"x": r.vocab_size, "y": r.chars_per_token, "series": args["model"]} for r in rows),
                  log_x=True, mark_x=k)
    notes = tuple(r.note for r in rows if r.note)
    return FigureResult(f"Vocabulary-size sweep ({args['model']})", values, (table,), (), (chart,), notes)


def granularity(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """One sentence as words, characters, bytes (vocabularies from the corpus) and subwords (GPT-2)."""
    from tokenizer_core.io.references import load_reference  # the reference files load on first use

    lines, name = _corpus_lines(args, ctx)
    text, d_model = args["text"], args["d_model"]
    toks = {kind: granularity_tokenizer(kind, lines, vocab_size=args["max_vocab"] if kind == "word" else None)
            for kind in ("word", "char", "byte")}
    toks["subword"] = load_reference("gpt2")
    values: dict[str, Any] = {}
    rows, token_rows = [], []
    for kind, tok in toks.items():
        enc = tok.encode(text)
        unk = unk_id(tok)
        unks = sum(1 for i in enc.ids if unk is not None and i == unk)
        values.update({f"tokens:{kind}": len(enc.ids), f"unk:{kind}": unks, f"vocab:{kind}": tok.vocab_size,
                       f"params:{kind}": tok.vocab_size * d_model})
        rows.append((kind, len(enc.ids), unks, tok.vocab_size, tok.vocab_size * d_model))
        token_rows.append(TokenRow(f"{kind}: {len(enc.ids)} tokens", tuple(enc.tokens), ids=tuple(enc.ids),
                                   scheme="byte-level" if kind in ("byte", "subword") else "plain"))
    table = Table(f"“{text}” (vocabularies from {name}; subwords: GPT-2)",
                  ("granularity", "tokens", "unknown", "vocabulary", f"embedding parameters (d_model {d_model})"), tuple(rows))
    chart = Chart("Tokens for the sentence", "granularity", "tokens",
                  tuple({"x": kind, "y": values[f"tokens:{kind}"], "series": "tokens"} for kind in toks), mark="bar")
    return FigureResult("Words, characters, bytes, subwords", values, (table,), tuple(token_rows), (chart,))


_CORPUS = (Param("vocabulary_from", "str", default="active", choices=("active", "default", "multilingual")),
           Param("max_chars", "int", default=300_000, lo=1000, hi=5_000_000))
KINDS = (
    FigureKind("unigram_partial_scores", (Param("text", "str", max_len=40),
                                          Param("slide", "numbers", lo=0.0, hi=1000.0, max_len=40)),
               unigram_partial_scores, "a toy Unigram model fitted to a slide's path probabilities S(a/b)"),
    FigureKind("padding_waste", (Param("batches", "batches", lo=0, hi=10**6, max_len=40),
                                 Param("pad_to", "int", default=None, lo=1, hi=10**6)),
               padding_waste, "named batches padded to their longest: padding positions and share"),
    FigureKind("batching_strategies", (Param("lengths", "ints", lo=0, hi=10**6), Param("batch_size", "int", default=4, lo=1,
                                                                                        hi=64),
                                       Param("max_length", "int", default=512, lo=1, hi=10**6)),
               batching_strategies, "padding as they come, sorted, bucketed, and packed"),
    FigureKind("vocab_sweep", (Param("model", "str", default="bpe", choices=("bpe", "wordpiece", "unigram")),
                               Param("sizes", "ints", default=[300, 500, 1000, 2000, 4000, 8000], lo=100, hi=50_000),
                               Param("heldout_fraction", "float", default=0.1, lo=0.05, hi=0.5), _CORPUS[1]),
               vocab_sweep, "vocabulary-size sweep on the active corpus, with its knee", uses_corpus=True),
    FigureKind("granularity", (Param("text", "str", max_len=300), *_CORPUS,
                               Param("max_vocab", "int", default=30_000, lo=10, hi=1_000_000),
                               Param("d_model", "int", default=768, lo=1, hi=65_536)),
               granularity, "a sentence as words, characters, bytes and subwords", uses_corpus=True),
)
