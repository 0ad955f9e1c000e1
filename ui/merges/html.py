"""HTML of the step-through page: the merge banner, segmented words, encode strips, merge trees.

Every token goes through :mod:`ui.widgets.tokens` (escaped chips, colour from the id,
visible whitespace, bytes shown as ``<0xNN>``); every other piece of text that
can come from the corpus is escaped here. No Streamlit here.

>>> from ui.merges.run import StepInfo, TreeNode
>>> html = tree_html(TreeNode("ab", 3, 1, TreeNode("a", 1), TreeNode("<b>", 2)), scheme="plain")
>>> "&lt;b&gt;" in html and "<b>" not in html
True
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Callable, Optional

from ui.merges.encode import EncodeView
from ui.merges.run import MergeRun, StepInfo, TreeNode
from ui.widgets.tokens import MAX_SHOWN, Scheme, chip_html, shown_text

IdOf = Callable[[str], Optional[int]]
#: A word's tokens are listed up to this many (a 200,000-letter word has 200,000 at step 0).
MAX_WORD_CHIPS = 40
#: Characters shown of a word or token in the word tables, and of a token in a merge tree.
WORD_CHARS = 24
TREE_CHARS = 16
_MUTED = "opacity:0.75;font-size:0.85em"  # follows the theme's text colour
_MONO = "font-family:ui-monospace,monospace"


def _chips(tokens: Sequence[str], id_of: IdOf, *, scheme: Scheme, translate: bool,
           highlight: frozenset[str] = frozenset(), limit: int = MAX_SHOWN) -> str:
    return "".join(chip_html(id_of(t), t, scheme=scheme, translate=translate, highlight=t in highlight, limit=limit)
                   for t in tokens)


def _text(token: str, *, scheme: Scheme, translate: bool, limit: int = MAX_SHOWN) -> str:
    """A token (or word) as escaped text (no chip), long ones cut."""
    return html.escape(shown_text(token, scheme=scheme, translate=translate, limit=limit) or "∅")


def merge_banner_html(left: str, right: str, token: str, id_of: IdOf, *, scheme: Scheme, translate: bool,
                      label: str = "") -> str:
    """``[left] + [right] → [token]`` in large chips; ``label`` (plain text) goes before it."""
    big = "font-size:1.6em;line-height:1.6"
    prefix = f'<span style="{_MUTED};margin-right:0.6em">{html.escape(label)}</span>' if label else ""
    return (
        f'<div class="tp-merge" style="{big}">{prefix}'
        f"{chip_html(id_of(left), left, scheme=scheme, translate=translate)}"
        f'<span style="margin:0 0.3em">+</span>'
        f"{chip_html(id_of(right), right, scheme=scheme, translate=translate)}"
        f'<span style="margin:0 0.3em">→</span>'
        f"{chip_html(id_of(token), token, scheme=scheme, translate=translate, highlight=True)}"
        f"</div>"
    )


def words_html(rows: Sequence[tuple[str, int, Sequence[str]]], id_of: IdOf, *, scheme: Scheme, translate: bool,
               highlight: frozenset[str] = frozenset()) -> str:
    """A table of words: the word, its count, its tokens (``highlight``-ed ones bold)."""
    return "".join(words_parts(rows, id_of, scheme=scheme, translate=translate, highlight=highlight))


def words_parts(rows: Sequence[tuple[str, int, Sequence[str]]], id_of: IdOf, *, scheme: Scheme, translate: bool,
                highlight: frozenset[str] = frozenset()) -> list[str]:
    """:func:`words_html` in whole elements (the table's opening, one ``<tr>`` per word, the end): a
    step changes few rows, so :func:`~ui.widgets.safe_html.render_html` parses only those again."""
    body = []
    for word, count, tokens in rows:
        shown = _text(word, scheme=scheme, translate=translate, limit=WORD_CHARS)
        chips = _chips(tokens[:MAX_WORD_CHIPS], id_of, scheme=scheme, translate=translate, highlight=highlight,
                       limit=WORD_CHARS)
        if len(tokens) > MAX_WORD_CHIPS:
            chips += f'<span style="{_MUTED};margin-left:0.4em">… +{len(tokens) - MAX_WORD_CHIPS:,} more tokens</span>'
        body.append(
            "<tr>"
            f'<td style="{_MONO};padding:2px 10px 2px 0;white-space:pre-wrap;overflow-wrap:anywhere">{shown}</td>'
            f'<td style="{_MUTED};text-align:right;padding:2px 10px">{count:,}</td>'
            f'<td style="padding:2px 0">{chips}</td>'
            "</tr>"
        )
    head = ('<table class="tp-words" style="border-collapse:collapse;border:none">'
            '<thead><tr><th style="text-align:left">word</th><th style="text-align:right;padding:0 10px">count</th>'
            '<th style="text-align:left">tokens</th></tr></thead><tbody>')
    return [head, *body, "</tbody></table>"]


def _sentence(pieces: Sequence[Sequence[str]], id_of: IdOf, *, scheme: Scheme, translate: bool,
              highlight: frozenset[str]) -> str:
    # Each word is one unbreakable box, so a line never ends in the middle of a word.
    gap = '<span style="display:inline-block;width:0.8em"></span>'
    word = '<span class="tp-word" style="display:inline-block;white-space:nowrap;max-width:100%;overflow-x:auto">'
    return gap.join(f"{word}{_chips(p, id_of, scheme=scheme, translate=translate, highlight=highlight)}</span>"
                    for p in pieces)


def strips_html(view: EncodeView, id_of: IdOf, *, scheme: Scheme, translate: bool) -> str:
    """One row per applied merge: ``#step left + right``, the number of tokens after it and the
    sentence after it; the rows scroll in a box of bounded height, the final ids below."""
    return "".join(strips_parts(view, id_of, scheme=scheme, translate=translate))


def strips_parts(view: EncodeView, id_of: IdOf, *, scheme: Scheme, translate: bool) -> list[str]:
    """:func:`strips_html` in whole elements (the table's opening, one ``<tr>`` per row, the rest):
    a step adds at most a row, so :func:`~ui.widgets.safe_html.render_html` checks only that one."""
    rows = [("start", view.initial, frozenset())]
    for s in view.strips:
        label = (f"#{s.step:,}  {shown_text(s.left, scheme=scheme, translate=translate)} + "
                 f"{shown_text(s.right, scheme=scheme, translate=translate)}")
        rows.append((label, s.pieces, frozenset([s.token])))
    label_style = f"{_MONO};{_MUTED};padding:2px 12px 2px 0;white-space:pre;vertical-align:top"
    count_style = f"{_MONO};{_MUTED};padding:2px 12px 2px 0;text-align:right;vertical-align:top"
    body = [
        "<tr>"
        f'<td style="{label_style}">{html.escape(label)}</td>'
        f'<td style="{count_style}" title="tokens">{sum(map(len, pieces)):,}</td>'
        f'<td style="padding:2px 0">{_sentence(pieces, id_of, scheme=scheme, translate=translate, highlight=hl)}</td>'
        "</tr>"
        for label, pieces, hl in rows
    ]
    more = ""
    if view.hidden:
        more = f'<div style="{_MUTED}">… and {view.hidden:,} more merges (not shown).</div>'
    head = (f'<tr><th style="{_MUTED};text-align:left;font-weight:400">merge</th>'
            f'<th style="{_MUTED};text-align:right;font-weight:400;padding-right:12px">tokens</th><th></th></tr>')
    final = [t for piece in view.final for t in piece]
    ids = ", ".join("?" if id_of(t) is None else f"{id_of(t)}" for t in final)
    return [
        '<div style="max-height:22rem;overflow-y:auto">'
        f'<table class="tp-strips" style="border-collapse:collapse;border:none"><thead>{head}</thead><tbody>',
        *body,
        f"</tbody></table></div>{more}"
        f'<div class="tp-ids" style="{_MONO};margin-top:6px">{len(final):,} tokens · ids [{html.escape(ids)}]</div>',
    ]


def sentence_html(pieces: Sequence[Sequence[str]], id_of: IdOf, *, scheme: Scheme, translate: bool) -> str:
    """The tokens of a sentence, a small gap between pieces."""
    body = _sentence(pieces, id_of, scheme=scheme, translate=translate, highlight=frozenset())
    return f'<div style="line-height:2">{body}</div>'


def tree_html(node: TreeNode, *, scheme: Scheme, translate: bool = True) -> str:
    """A merge tree drawn top-down: the token, and under it the two tokens it was merged from."""
    head = chip_html(node.token_id, node.token, scheme=scheme, translate=translate,
                     highlight=node.step is not None, limit=TREE_CHARS)
    if node.is_leaf or node.left is None or node.right is None:
        more = ""
        if node.step is not None:  # made by a merge, but the tree was too big to draw it out
            more = f'<div style="{_MUTED}">merge #{node.step:,} …</div>'
        return f'<div style="display:flex;flex-direction:column;align-items:center">{head}{more}</div>'
    step = f'<div style="{_MUTED}">merge #{node.step:,}</div>'
    kids = (tree_html(node.left, scheme=scheme, translate=translate)
            + tree_html(node.right, scheme=scheme, translate=translate))
    return (
        '<div style="display:flex;flex-direction:column;align-items:center">'
        f"{head}{step}"
        '<div style="display:flex;gap:14px;align-items:flex-start;border-top:2px solid #9ca3af;'
        f'padding-top:6px;margin-top:2px">{kids}</div></div>'
    )


def tree_block_html(node: TreeNode, *, scheme: Scheme, translate: bool = True) -> str:
    """:func:`tree_html` in a scrollable box."""
    return (f'<div class="tp-tree" style="overflow-x:auto;padding:6px 0">'
            f'<div style="display:inline-block">{tree_html(node, scheme=scheme, translate=translate)}</div></div>')


def tie_text(info: StepInfo, *, algorithm: str, tie_break: str, id_of: IdOf, scheme: Scheme,
             translate: bool) -> str:
    """How a tie was broken, in plain text (the caller escapes it), or "" when there was no tie.

    >>> from ui.merges.run import Candidate, StepInfo
    >>> info = StepInfo(1, "a", "b", "ab", 9, True, 2, None, None, None, (Candidate("c", "d", 2),),
    ...                 (Candidate("c", "d", 2),), "...", None, 10)
    >>> print(tie_text(info, algorithm="bpe", tie_break="ids", id_of={"a": 1, "b": 2, "c": 3, "d": 4}.get,
    ...                scheme="plain", translate=True))  # doctest: +NORMALIZE_WHITESPACE
    Tie: 2 pairs occur 2 times (a + b, c + d). The pair with the smallest ids wins,
    as in Hugging Face tokenizers: a + b is (1, 2), c + d is (3, 4).
    """
    if not info.tied:
        return ""

    def show(left: str, right: str) -> str:
        return (f"{shown_text(left, scheme=scheme, translate=translate) or '∅'} + "
                f"{shown_text(right, scheme=scheme, translate=translate) or '∅'}")

    pairs = [(info.left, info.right)] + [c.pair for c in info.tied]
    # The trace keeps a fixed number of runner-ups; when all of them tie, more may have.
    more = "+" if len(info.tied) == len(info.runner_ups) and len(info.runner_ups) >= 10 else ""
    listed = ", ".join(show(a, b) for a, b in pairs[:6]) + (", …" if len(pairs) > 6 else "")
    if algorithm == "wordpiece":
        return (f"Tie: {len(pairs)}{more} pairs have the score {info.score:.4g} ({listed}). "
                "The pair that occurs first in the corpus wins (reading the words in order, each left to right).")
    head = f"Tie: {len(pairs)}{more} pairs occur {info.count:,} times ({listed}). "
    if tie_break == "first":
        return head + "The pair seen first in the corpus wins (reading the words in order, each left to right)."
    ids = ", ".join(f"{show(a, b)} is ({id_of(a)}, {id_of(b)})" for a, b in pairs[:3])
    return head + f"The pair with the smallest ids wins, as in Hugging Face tokenizers: {ids}."


def stop_text(run: MergeRun) -> str:
    """Why training stopped, in the words of the page's settings (plain text; the caller escapes it).

    The engine's reason speaks of its options (``vocab_size``, ``min_frequency``); a student sees
    "Vocabulary size" and "Minimum pair frequency", so the common cases are said in those terms.
    """
    s, n = run.settings, run.num_steps
    base, final = run.base_vocab_size, run.vocab_size_at(run.num_steps)
    reason = run.stop_reason
    if s.budget_kind == "vocab" and n == 0 and s.budget <= base:
        start = "the 256 bytes" if s.level == "byte" and run.algorithm != "wordpiece" else "every character of the corpus"
        if run.token_id("[UNK]") is not None:
            start += " and [UNK]"
        return (f"the vocabulary size you asked for ({s.budget:,}) leaves no room for merges: the starting "
                f"vocabulary ({start}) already has {base:,} tokens. Choose a vocabulary size above {base:,}")
    if s.budget_kind == "vocab" and final >= s.budget:
        return f"the vocabulary reached the size you asked for ({s.budget:,} tokens)"
    if s.budget_kind == "merges" and n >= s.budget:
        return f"all {s.budget:,} merges you asked for are done"
    if s.min_frequency > 1 and ("min_frequency" in reason or "at least" in reason):
        return (f"no pair occurs at least {s.min_frequency:,} times (the minimum pair frequency)"
                f"{' any more' if n else ''}; lower the minimum to {'keep merging' if n else 'merge'}")
    if reason.startswith("no pair"):
        return "every word is a single token now: there is no pair left to merge"
    return reason
