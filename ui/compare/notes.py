"""Notes the Compare page adds under its rows: why a WordPiece trained here splits common words into
letters where ``tokenizers``' WordPieceTrainer keeps them whole.

Our WordPiece trainer merges by the likelihood score ``count(ab) / (count(a) × count(b))``, which
favours pairs whose parts are rare (a pair seen once, of two parts seen once each, scores 1, the
highest there is); ``tokenizers``' WordPieceTrainer trains BPE (the most frequent pair) and only
encodes WordPiece-style. So at a few thousand tokens ours has spent its merges on rare pairs and
common words stay in letters. The note quotes the model's own trace: its last merge and the pair BPE
would have merged at that step.

>>> from tokenizer_core.wordpiece.trace import ScoredPair
>>> pair_text(ScoredPair("##A", "##I", count=7, left_count=83, right_count=336))
'##A + ##I (together 7 times; ##A 83 times, ##I 336 times: score 7 / (83 × 336) = 0.000251)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from tokenizer_core.analysis.compare import Segment
from tokenizer_core.wordpiece.trace import ScoredPair, WordPieceTraining
from ui.widgets.text import escape_markdown

#: Words shown as examples of a split into letters.
MAX_EXAMPLES = 4


def pair_text(pair: ScoredPair) -> str:
    """A pair with the counts behind its WordPiece score."""
    return (f"{pair.left} + {pair.right} (together {pair.count:,} times; {pair.left} {pair.left_count:,} times, "
            f"{pair.right} {pair.right_count:,} times: score {pair.count:,} / ({pair.left_count:,} × "
            f"{pair.right_count:,}) = {pair.score:.3g})")


def lettered_words(text: str, segs: Sequence[Segment]) -> list[str]:
    """Words of ``text`` (letters only, three or more) that ``segs`` cut into single characters.

    >>> lettered_words("see it", [Segment(0, 1, "s", 1), Segment(1, 2, "##e", 2), Segment(2, 3, "##e", 2),
    ...                          Segment(4, 6, "it", 3)])
    ['see']
    """
    out: list[str] = []
    word: list[Segment] = []

    def flush() -> None:
        lo, hi = (word[0].start, word[-1].end) if word else (0, 0)
        shown = text[lo:hi]
        if len(shown) >= 3 and shown.isalpha() and all(s.end - s.start == 1 for s in word) and shown not in out:
            out.append(shown)
        word.clear()

    for s in segs:
        if word and (s.start != word[-1].end or not s.token.startswith("##")):
            flush()
        word.append(s)
    flush()
    return out


def wordpiece_note(name: str, training: object, text: str, segs: Sequence[Segment]) -> Optional[str]:
    """Markdown (escaped) explaining a WordPiece row trained with the likelihood score, or None for
    any other tokenizer."""
    if not isinstance(training, WordPieceTraining) or not training.merges:
        return None
    last = training.merges[-1]
    scored = ScoredPair(last.left, last.right, count=last.count, left_count=last.left_count,
                        right_count=last.right_count)
    words = lettered_words(text, segs)[:MAX_EXAMPLES]
    split = (f"so “{'”, “'.join(words)}” stay split into letters here. " if words
             else "so common words can stay split into letters. ")
    bpe = training.merges[-1].bpe_choice
    frequent = (f" At that step the most frequent pair, {bpe.left} + {bpe.right} ({bpe.count:,} times), "
                f"was still not merged." if bpe is not None and (bpe.left, bpe.right) != last.pair else "")
    return escape_markdown(
        f"{name} merges by the WordPiece likelihood score count(ab) / (count(a) × count(b)), which favours "
        f"pairs whose parts are rare: its last merge was {pair_text(scored)}.{frequent} With "
        f"{len(training.merges):,} merges spent that way, common pairs wait, {split}"
        f"Hugging Face tokenizers' WordPieceTrainer merges the most frequent pair instead (it trains BPE and "
        f"only encodes WordPiece-style), so at the same size frequent words come out whole or in a few pieces.")
