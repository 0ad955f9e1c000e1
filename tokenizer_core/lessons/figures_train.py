"""Lesson figures of training and segmenting: BPE merges, WordPiece scores, the Unigram Viterbi walk
and pruning step, and BPE-dropout draws. Each runs the real engine on the figure's inputs.

>>> r = bpe_merges({"words": {"aaabdaaabac": 1}, "merges": 3, "step": 3, "text": "aaabdaaabac",
...                 "symbols": ["Z", "Y", "X"], "sample": None, "end_of_word_suffix": "",
...                 "suffix_as_symbol": False, "tie_break": "ids"}, Context())
>>> r.values["named"], r.values["merges"]
('XdXac', [['a', 'a'], ['a', 'b'], ['aa', 'ab']])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tokenizer_core.bpe.dropout import dropout_frequencies
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons.figure_types import Chart, Context, FigureKind, FigureResult, Param, Table, TokenRow
from tokenizer_core.unigram.explain import COURSE_WORDS, course_model, pruning_losses, viterbi_table
from tokenizer_core.wordpiece.trainer import train_wordpiece


def word_counts(args: Mapping[str, Any]) -> dict[str, int]:
    """The figure's words: ``words`` as given, or a bundled sample's word counts."""
    if args.get("words"):
        return dict(args["words"])
    if args.get("sample"):
        counts = load_sample(args["sample"]).word_counts
        if not counts:
            raise TokenizerError(f"the sample {args['sample']!r} has no word counts; give words: instead")
        return dict(counts)
    raise TokenizerError("this figure needs words: {word: count} or sample: <a bundled sample>")


def _named(tokens: list[str], names: dict[str, str]) -> str:
    # A token named by the source (Wikipedia's Z for "aa") is shown by its name; others as they are.
    return "".join(names.get(t, t) for t in tokens)


def bpe_merges(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """Train BPE on the words and show the state after ``step`` merges."""
    counts = word_counts(args)
    suffix = args["end_of_word_suffix"] or None
    r = train_bpe_counts(counts, num_merges=args["merges"], special_tokens=(), end_of_word_suffix=suffix,
                         suffix_as_symbol=bool(args["suffix_as_symbol"] and suffix), tie_break=args["tie_break"], top_k=3)
    step = len(r.merges) if args["step"] is None else min(args["step"], len(r.merges))
    names = {rec.token: s for rec, s in zip(r.trace, args["symbols"] or [])}
    values: dict[str, Any] = {
        "merges": [[a, b] for a, b in r.merges], "tokens": r.trace.tokens_at(step), "step": step,
        "vocab_size": len(r.vocab) - sum(1 for rec in list(r.trace)[step:] if rec.token_is_new),
    }
    rows = []
    for rec in r.trace:
        ups = ", ".join(f"{u.left} + {u.right} ({u.count})" for u in rec.runner_ups)
        rows.append((rec.step, f"{rec.left} + {rec.right}", rec.token, names.get(rec.token, ""), rec.count,
                     "yes" if rec.tie else "", ups))
    if step:
        rec = r.trace[step - 1]
        values.update(merge=[rec.left, rec.right], new_token=rec.token, count=rec.count, tie=rec.tie)
    token_rows = []
    if args["text"]:
        words = args["text"].split()
        tokens = [t for w in words for t in r.trace.segment(w, step)]
        values.update(segmentation=tokens, text_tokens=len(tokens), named=_named(tokens, names))
        token_rows.append(TokenRow(f"“{args['text']}” after {step} merge{'s' * (step != 1)}", tuple(tokens),
                                   scheme="suffix" if suffix else "plain"))
    curve = r.trace.compression_curve()
    chart = Chart("Corpus length after each merge", "merges", "tokens in the corpus",
                  tuple({"x": i, "y": n, "series": "tokens"} for i, n in enumerate(curve)), mark_x=step)
    table = Table("Merges", ("step", "pair", "new token", "named", "count", "tie", "runner-ups"), tuple(rows))
    return FigureResult(f"BPE after {step} of {len(r.merges)} merges", values, (table,), tuple(token_rows), (chart,),
                        (r.trace.stop_reason,) if step == len(r.merges) and args["step"] is None else ())


def wordpiece_scores(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """Train WordPiece on the words; show the pairs' scores just before merge ``step``."""
    counts = word_counts(args)
    r = train_wordpiece(counts, vocab_size=10_000, num_merges=args["merges"], special_tokens=(), top_k=64)
    step = min(args["step"], len(r.merges))
    values: dict[str, Any] = {"merges": [[m.left, m.right] for m in r.merges],
                              "tokens": [m.new_token for m in r.merges]}
    tables = [Table("Merges", ("step", "pair", "new token", "count", "left count", "right count", "score",
                               "BPE would merge"),
                    tuple((m.step, f"{m.left} + {m.right}", m.new_token, m.count, m.left_count, m.right_count,
                           round(m.score, 6), "" if m.bpe_choice is None else f"{m.bpe_choice.left} + {m.bpe_choice.right}")
                          for m in r.merges))]
    token_rows = []
    if step:
        m = r.merges[step - 1]
        candidates = [(m.left, m.right, m.count, m.left_count, m.right_count, m.score)] + [
            (u.left, u.right, u.count, u.left_count, u.right_count, u.score) for u in m.runner_ups]
        for left, right, _count, _lc, _rc, score in candidates:
            values[f"score:{left} {right}"] = score
        values.update(pair=[m.left, m.right], score=m.score, new_token=m.new_token, tie=m.tie_break is not None)
        tables.insert(0, Table(f"Scores before merge {step}", ("pair", "count", "left count", "right count", "score"),
                               tuple((f"{a} + {b}", c, lc, rc, round(s, 6)) for a, b, c, lc, rc, s in candidates)))
        for word in list(counts)[:8]:
            token_rows.append(TokenRow(f"{word} after {step}", tuple(r.segment(word, step=step)), scheme="wordpiece"))
    return FigureResult(f"WordPiece scores at merge {step}", values, tuple(tables), tuple(token_rows),
                        notes=(r.merges[step - 1].tie_break,) if step and r.merges[step - 1].tie_break else ())


def unigram_viterbi(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """The course's toy Unigram model: the Viterbi walk of a word, position by position."""
    model = course_model()
    lattice = model.lattice(args["word"])
    best = lattice.viterbi()
    rows = viterbi_table(lattice)
    values: dict[str, Any] = {"segmentation": list(best.pieces), "probability": math.exp(best.log_prob),
                              "score": best.log_prob}
    for row in rows:
        values[f"probability_at:{row.position}"] = math.exp(row.best_score)
    table = Table(f"Viterbi walk of “{args['word']}”", ("position", "character", "best last piece", "starts at",
                                                       "best probability", "candidates"),
                  tuple((row.position, row.char, row.best_piece, row.best_start, round(math.exp(row.best_score), 6),
                         ", ".join(f"{c.piece} ({math.exp(c.score):.6f})" for c in row.candidates)) for row in rows))
    return FigureResult(f"Viterbi: {' | '.join(best.pieces)}", values, (table,),
                        (TokenRow(f"“{args['word']}”", tuple(best.pieces)),))


def unigram_pruning(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """The course's pruning step: the corpus loss, and what removing each piece would add."""
    losses = pruning_losses(course_model(), dict(args["words"] or COURSE_WORDS))
    values: dict[str, Any] = {"loss": losses[0].loss_with if losses else 0.0,
                              "pruned_first": [x.piece for x in losses if x.increase == losses[0].increase]}
    for x in losses:
        values[f"increase:{x.piece}"] = x.increase
    table = Table("Loss without each piece", ("piece", "loss without it", "increase", "words split differently"),
                  tuple((x.piece, round(x.loss_without, 2), round(x.increase, 2), ", ".join(x.changed)) for x in losses))
    chart = Chart("What removing each piece adds to the loss", "piece", "loss increase",
                  tuple({"x": x.piece, "y": round(x.increase, 3), "series": "increase"} for x in losses), mark="bar")
    return FigureResult(f"Pruning: loss {values['loss']:.1f}", values, (table,), (), (chart,))


def bpe_dropout(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """BPE-dropout draws of a word with an offline reference BPE, against its deterministic merge."""
    from tokenizer_core.io.references import load_reference  # the reference files load on first use

    tok = load_reference(args["reference"])
    word, p = args["word"], args["p"]
    pieces = [pc.text for pc in tok.explain(word).pieces] or [word]
    deterministic = [t for pc in pieces for t in tok.model.segment(pc)]
    values: dict[str, Any] = {"deterministic": deterministic}
    ids = tok.token_to_id  # chip colours follow GPT-2's ids, as on the other pages

    def row(label: str, tokens: Sequence[str]) -> TokenRow:
        return TokenRow(label, tuple(tokens), scheme="byte-level", ids=tuple(ids(t) for t in tokens))

    token_rows = [row("deterministic (no dropout)", deterministic)]
    for seed in args["seeds"]:
        draw = next(iter(dropout_frequencies(tok.model, pieces, dropout=p, draws=1, seed=seed)))
        values[f"draw:{seed}"] = list(draw)
        token_rows.append(row(f"seed {seed}, p = {p:g}", draw))
    counts = dropout_frequencies(tok.model, pieces, dropout=p, draws=args["draws"], seed=args["seeds"][0])
    share = counts.get(tuple(deterministic), 0) / args["draws"]
    values.update(distinct=len(counts), deterministic_share=share,
                  all_deterministic_at_p0=set(dropout_frequencies(tok.model, pieces, dropout=0.0, draws=50, seed=0))
                  == {tuple(deterministic)},
                  characters_at_p1=list(next(iter(dropout_frequencies(tok.model, pieces, dropout=1.0, draws=1, seed=0)))))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    table = Table(f"{args['draws']} draws (seed {args['seeds'][0]})", ("segmentation", "draws", "share"),
                  tuple((" | ".join(seg), n, round(n / args["draws"], 4)) for seg, n in top))
    chart = Chart("Most frequent segmentations", "segmentation", "share of draws",
                  tuple({"x": " | ".join(seg), "y": round(n / args["draws"], 4), "series": "share"} for seg, n in top),
                  mark="bar")
    return FigureResult(f"BPE-dropout of “{word}”", values, (table,), tuple(token_rows), (chart,))


_WORDS = (Param("words", "counts", default=None, lo=1, hi=10**9, max_len=60),
          Param("sample", "str", default=None, choices=("wikipedia-aaabdaaabac", "sennrich-low-lower-newest-widest",
                                                        "hf-course-hug-pug")))
KINDS = (
    FigureKind("bpe_merges", (*_WORDS, Param("merges", "int", default=10, lo=1, hi=200),
                              Param("step", "int", default=None, lo=0, hi=200), Param("text", "str", default=""),
                              Param("end_of_word_suffix", "str", default="", max_len=10),
                              Param("suffix_as_symbol", "bool", default=False),
                              Param("tie_break", "str", default="ids", choices=("ids", "first")),
                              Param("symbols", "strs", default=None, max_len=10)),
               bpe_merges, "BPE training merge by merge: merges, counts, ties, a text's tokens, the corpus length"),
    FigureKind("wordpiece_scores", (*_WORDS, Param("merges", "int", default=6, lo=1, hi=200),
                                    Param("step", "int", default=1, lo=1, hi=200)),
               wordpiece_scores, "WordPiece training: every candidate pair's score count(ab)/(count(a)·count(b))"),
    FigureKind("unigram_viterbi", (Param("word", "str", max_len=40), Param("model", "str", default="course",
                                                                           choices=("course",))),
               unigram_viterbi, "the Viterbi walk of a word with the course's toy Unigram model"),
    FigureKind("unigram_pruning", (Param("words", "counts", default=None, lo=1, hi=10**6, max_len=40),
                                   Param("model", "str", default="course", choices=("course",))),
               unigram_pruning, "the course's pruning step: corpus loss and each piece's increase"),
    FigureKind("bpe_dropout", (Param("word", "str", max_len=40), Param("reference", "str", default="gpt2",
                                                                       choices=("gpt2",)),
                               Param("p", "float", default=0.1, lo=0.0, hi=1.0),
                               Param("seeds", "ints", default=[1, 2, 3], lo=0, hi=2**31 - 1),
                               Param("draws", "int", default=1000, lo=1, hi=20_000)),
               bpe_dropout, "seeded BPE-dropout draws of a word against the deterministic merge"),
)
