"""Every kind of lesson figure, checked before it is computed: a lesson naming a kind or an input
that does not exist is told which, with the line (see :func:`check_figure`).

>>> sorted(FIGURES)[:3]
['batching_strategies', 'bpe_dropout', 'bpe_merges']
>>> check_figure({"kind": "bpe_merge"}, ("steps", 0, "figure"), {})
Traceback (most recent call last):
...
tokenizer_core.lessons.yaml_lines.LessonError: field steps[1].figure.kind: there is no figure kind 'bpe_merge'; the kinds are batching_strategies, bpe_dropout, bpe_merges, entropy_patches, fewest_tokens, granularity, number_splits, padding_waste, pickybpe_events, superbpe_merges, unigram_partial_scores, unigram_pruning, unigram_viterbi, vocab_sweep, wordpiece_scores
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons import (
    figures_2024,
    figures_data,
    figures_numbers,
    figures_patches,
    figures_segment,
    figures_train,
)
from tokenizer_core.lessons.figure_types import Context, FigureKind, FigureResult
from tokenizer_core.lessons.yaml_lines import LessonError, Path, field_name

FIGURES: dict[str, FigureKind] = {k.name: k for k in (*figures_train.KINDS, *figures_data.KINDS, *figures_numbers.KINDS,
                                                      *figures_segment.KINDS, *figures_patches.KINDS,
                                                      *figures_2024.KINDS)}


def check_figure(figure: Mapping[str, Any], path: Path, lines: Mapping[Path, int]) -> dict[str, Any]:
    """The figure's inputs, each checked and defaulted; :class:`LessonError` naming the line and field
    of a kind or input that does not exist or does not fit."""
    def line(p: Path) -> Any:
        while p and p not in lines:
            p = p[:-1]
        return lines.get(p)

    kind = FIGURES.get(str(figure.get("kind")))
    if kind is None:
        raise LessonError(f"there is no figure kind {str(figure.get('kind'))[:60]!r}; the kinds are "
                          f"{', '.join(sorted(FIGURES))}", line=line(path + ("kind",)), field=field_name(path + ("kind",)))
    known = {p.name: p for p in kind.params}
    for name in figure:
        if name != "kind" and name not in known:
            raise LessonError(f"{kind.name} has no input {name[:60]!r}; its inputs are "
                              f"{', '.join(p.describe() for p in kind.params)}",
                              line=line(path + (name,)), field=field_name(path + (name,)))
    args: dict[str, Any] = {"kind": kind.name}
    for p in kind.params:
        try:
            args[p.name] = p.check(figure.get(p.name))
        except ValueError as err:
            where = path + (p.name,) if p.name in figure else path
            raise LessonError(f"{p.name} {err}", line=line(where), field=field_name(where)) from None
    return args


def compute_figure(args: Mapping[str, Any], context: Context) -> FigureResult:
    """Run the engines for a checked figure (:func:`check_figure`); bad input raises TokenizerError."""
    kind = FIGURES[args["kind"]]
    try:
        return kind.compute(args, context)
    except TokenizerError:
        raise
    except (ValueError, KeyError, IndexError, ZeroDivisionError) as err:  # an input the engines cannot use
        raise TokenizerError(f"the {kind.name} figure cannot be computed from these inputs ({err})") from err
