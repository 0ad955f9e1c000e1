"""Residue and glitch tokens: which tokens a corpus uses as tokens, and which only as steps of merges.

A BPE vocabulary holds every token a merge made, including ones that mostly exist on the way to
longer tokens: on the corpus they are made and merged again, seldom left standing (the LiteToken
paper calls them intermediate merge residues). :func:`residue_rows` counts, for each token, how often
encoding the corpus leaves it as a final token and how often it is made and then merged away, and
says which tokens cannot come back: a token the model never outputs for its own text (no merge
order reaches it) and a token that does not survive ``encode(decode([id]))`` through the whole
pipeline (normalizer, pre-tokenizer, added tokens). GPT-2's tokens known to make its models
misbehave ("SolidGoldMagikarp" and kin: tokens of its tokenizer's training data that its model
hardly saw) are marked.

Why counting the final tokens is enough. With rank-ordered BPE, the merges that build a final token
stay inside its span, and at every moment the lowest-ranked pair inside the span was merged first
(a lower-ranked pair across the span's edge would have crossed it, and the token would not be
final), so they are exactly the merges of encoding the token's own text alone. One trace per
distinct final token, weighted by its count, gives every intermediate on the corpus.

>>> from tokenizer_core.training import train
>>> from tokenizer_core.options import TrainOptions
>>> tok = train("bpe", ["aaabdaaabac\\n"], options=TrainOptions(num_merges=3, special_tokens=()))
>>> rows = {r.token: (r.final, r.intermediate) for r in residue_rows(tok, ["aaabdaaabac"])}
>>> rows["aaab"], rows["aa"], rows["ab"]
((2, 0), (0, 2), (0, 2))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.analysis.vocabulary import DEFAULT_USAGE_CHARS, token_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer

#: Tokens of GPT-2's vocabulary that made GPT-2 and GPT-3 models misbehave (reported by Rumbelow and
#: Watkins, 2023, "SolidGoldMagikarp"): frequent in the tokenizer's training text (Reddit user names,
#: a game's log), nearly absent from the model's. Only those in a tokenizer's vocabulary are marked.
GPT2_GLITCH_TOKENS = (
    " SolidGoldMagikarp", " TheNitromeFan", " davidjl", " petertodd", " RandomRedditorWithNo",
    " Smartstocks", " attRot", "StreamerBot", "TPPStreamerBot", " guiActiveUn", " externalToEVA",
    " TheNitrome", " srfN", " largeDownload", "embedreportprint", "rawdownloadcloneembedreportprint",
)


@dataclass(frozen=True)
class ResidueRow:
    """One token: its uses on the corpus and whether it can come back."""

    id: int
    token: str
    final: int  # times encoding the corpus leaves it as a token
    intermediate: int  # times it is made by a merge and merged again
    reachable: Optional[bool]  # the model outputs it for its own text (None: not a merge model)
    round_trips: bool  # encode(decode([id])) == [id]
    glitch: bool  # one of GPT-2's known glitch tokens

    @property
    def residue(self) -> float:
        """Share of the token's appearances that are only steps of merges (0 when never seen)."""
        seen = self.final + self.intermediate
        return self.intermediate / seen if seen else 0.0


def _model_text(token: str, model: Any) -> Optional[str]:
    """The word to trace for ``token``: the token itself, unless the model adds markers to words
    (a continuing-subword prefix or an end-of-word suffix), where a token's text is not a word."""
    if getattr(model, "continuing_subword_prefix", None) or getattr(model, "end_of_word_suffix", None):
        return None
    return token


def _merge_steps(model: Any, token: str) -> Optional[list[str]]:
    """The tokens each merge made while encoding ``token`` alone (the last is the token itself when
    the model reaches it), or None when the model cannot say."""
    word = _model_text(token, model)
    if word is None or not hasattr(model, "encode_trace"):
        return None
    trace = model.encode_trace(word, max_rank=1 << 40)  # merges, even where a whole word is in the vocabulary
    return [step.token for step in trace.steps] + ["" if len(trace.tokens) != 1 else trace.tokens[0].text]


def residue_rows(tok: Tokenizer, lines: Iterable[str], *, max_chars: int = DEFAULT_USAGE_CHARS,
                 check_round_trips: bool = True) -> list[ResidueRow]:
    """Every non-special token of ``tok`` with its final and intermediate uses on the first
    ``max_chars`` characters of ``lines``, known glitch tokens first, then
    the most residual (and, among equals, the most often merged away).

    Raises :class:`~tokenizer_core.errors.TokenizerError` for a tokenizer without a vocabulary.
    """
    vocab = tok.get_vocab()
    if not vocab:
        raise TokenizerError("this tokenizer has no vocabulary to inspect")
    finals = token_counts(tok, lines, max_chars=max_chars)
    model = tok.model
    merges = hasattr(model, "encode_trace")
    intermediate: Counter[str] = Counter()
    reachable: dict[str, bool] = {}
    by_id = {i: t for t, i in vocab.items()}
    if merges:
        for token_id, count in finals.items():
            token = by_id.get(token_id)
            steps = None if token is None or tok.is_special_id(token_id) else _merge_steps(model, token)
            if not steps:
                continue
            for made in steps[:-2] if steps[-1] == token else steps[:-1]:
                intermediate[made] += count
    glitches = set(GPT2_GLITCH_TOKENS)
    ids = [i for i in sorted(by_id) if not tok.is_special_id(i)]
    texts = tok.decode_batch([[i] for i in ids], skip_special_tokens=False)
    back = ([e.ids for e in tok.encode_batch(texts, add_special_tokens=False).encodings]
            if check_round_trips else [[i] for i in ids])
    rows = []
    for token_id, text, again in zip(ids, texts, back):
        token = by_id[token_id]
        if merges:
            steps = _merge_steps(model, token)
            reachable[token] = None if steps is None else steps[-1] == token
        rows.append(ResidueRow(token_id, token, finals.get(token_id, 0), intermediate.get(token, 0),
                               reachable.get(token), again == [token_id], token in glitches or text in glitches))
    rows.sort(key=lambda r: (not r.glitch, -r.residue, -r.intermediate, r.final, r.id))
    return rows
