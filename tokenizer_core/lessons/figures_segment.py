"""Lesson figures of segmenting with the fewest tokens (PathPiece): a word's Viterbi path, its
fewest-token paths and greedy longest match, on the course's toy Unigram model or a vocabulary the
lesson gives, and optionally the same over counted words (:mod:`tokenizer_core.min_tokens`).

>>> r = fewest_tokens_figure({"word": "abcd", "vocab": {"a": 0.2, "b": 0.2, "c": 0.2, "d": 0.2, "ab": 0.1,
...                                                     "bcd": 0.1}, "words": None}, Context())
>>> r.values["greedy"], r.values["fewest"], r.values["viterbi"]
(['ab', 'c', 'd'], ['a', 'bcd'], ['a', 'bcd'])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tokenizer_core.lessons.figure_types import Context, FigureKind, FigureResult, Param, Table, TokenRow
from tokenizer_core.min_tokens import all_fewest, compare_on_pieces, fewest_count, fewest_tokens, longest_match
from tokenizer_core.unigram.explain import course_model
from tokenizer_core.unigram.model import Unigram


def _model(vocab: Any) -> Unigram:
    """The course's toy model, or one whose pieces have the given probabilities (made to sum to 1)."""
    return Unigram.from_frequencies(vocab) if vocab else course_model()


def fewest_tokens_figure(args: Mapping[str, Any], ctx: Context) -> FigureResult:  # noqa: ARG001
    """A word cut three ways (Viterbi, fewest tokens, greedy longest match), every fewest-token path
    with its probability, and, given ``words``, the tokens and likelihood over them."""
    model = _model(args.get("vocab"))
    word = args["word"]
    lattice = model.lattice(word)
    best, fewest, greedy = lattice.viterbi(), fewest_tokens(lattice), longest_match(lattice)
    count = fewest_count(lattice)
    values: dict[str, Any] = {
        "viterbi": best.pieces, "viterbi_tokens": len(best.edges), "fewest": fewest.pieces,
        "fewest_tokens": count.tokens, "paths": count.paths, "greedy": greedy.pieces,
        "greedy_tokens": len(greedy.edges), "viterbi_is_fewest": len(best.edges) == count.tokens,
        "nats_given_up": best.log_prob - fewest.log_prob,
    }
    shortest = all_fewest(lattice, limit=20)
    tables = [Table(f"The paths of “{word}” with {count.tokens} tokens", ("segmentation", "probability"),
                    tuple((" | ".join(p.pieces), round(math.exp(p.log_prob), 6)) for p in shortest))]
    if args.get("words"):
        report = compare_on_pieces(model, args["words"].items(), examples=10)
        values.update(tokens_saved=report.tokens_saved * 100, words_differing=report.pieces_differing,
                      corpus_viterbi_tokens=report.viterbi_tokens, corpus_fewest_tokens=report.fewest_tokens)
        tables.append(Table("Words the two cut differently", ("word", "count", "Viterbi", "fewest tokens"),
                            tuple((d.piece, d.count, " | ".join(d.viterbi), " | ".join(d.fewest))
                                  for d in report.examples)))
    rows = (TokenRow("Viterbi (most likely)", tuple(best.pieces)),
            TokenRow("Fewest tokens (longest last token on ties)", tuple(fewest.pieces)),
            TokenRow("Greedy longest match", tuple(greedy.pieces)))
    return FigureResult(f"“{word}”: {len(best.edges)} tokens by Viterbi, {count.tokens} at fewest, "
                        f"{len(greedy.edges)} by longest match", values, tuple(tables), rows)


KINDS = (
    FigureKind("fewest_tokens", (Param("word", "str", max_len=40),
                                 Param("vocab", "numbers", default=None, lo=0.0, hi=1e9, max_len=40),
                                 Param("words", "counts", default=None, lo=1, hi=10**6, max_len=40)),
               fewest_tokens_figure, "a word's Viterbi, fewest-token (PathPiece) and longest-match paths"),
)
