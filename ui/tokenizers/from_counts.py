"""Training from a counts file (the active corpus is a :class:`~ui.corpus.counts.CountsCorpus`): the
header checked against the Train panel's choice first, said clearly when it does not match (with
the choices that do), then :func:`~tokenizer_core.counts.training.train_from_counts`, which gives
what training on the counted text with the same options gives.

>>> from ui.corpus.counts import counts_from_text
>>> from ui.tokenizers.add import Algorithm, TrainRequest
>>> c = counts_from_text("c.tsv", "# tokenizer-playground counts 1\\n# model: bpe\\n# normalizer: null\\n"
...                      '# pre_tokenizer: {"type": "Whitespace"}\\nlow\\t5\\nlower\\t2\\n')
>>> matching(c, [("chars", TrainRequest(Algorithm.BPE_CHARS, 300)), ("bytes", TrainRequest(Algorithm.BPE_BYTES, 300))])
['chars']
>>> train_counts(TrainRequest(Algorithm.BPE_CHARS, 300), c).encode("lower").tokens
['lower']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.counts.training import check_header, train_from_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_MAX_SENTENCE_LENGTH
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.types import ProgressCallback, no_progress
from ui.corpus.counts import CountsCorpus

if TYPE_CHECKING:
    from ui.tokenizers.add import TrainRequest


def header_notes(request: TrainRequest, corpus: CountsCorpus) -> list[str]:
    """What the file's header leaves unsaid (notes for people); a TokenizerError when its stages
    contradict the options of ``request``."""
    return check_header(corpus.counts, CountSpec(request.trainer, request.options()))


def train_counts(request: TrainRequest, corpus: CountsCorpus, *, progress: ProgressCallback = no_progress) -> Tokenizer:
    """The tokenizer ``request`` trains from the counts of ``corpus`` (whose data is left as it was)."""
    return train_from_counts(request.trainer, corpus.counts, options=request.options(), progress=progress)


def file_max_sentence(corpus: CountsCorpus) -> int:
    """The Unigram line limit the file was counted with (its header's ``max_sentence_length``)."""
    raw = corpus.counts.facts.get("max_sentence_length", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_SENTENCE_LENGTH


def matching(corpus: CountsCorpus, choices: Iterable[tuple[str, TrainRequest]]) -> list[str]:
    """The labels of the ``(label, request)`` choices whose options this file's header matches."""
    found = []
    for label, request in choices:
        try:
            header_notes(request, corpus)
        except TokenizerError:
            continue
        found.append(label)
    return found


def refusal(err: TokenizerError, fits: list[str]) -> str:
    """The header's refusal, with the choices (``fits``, from :func:`matching`) that train from the file."""
    hint = ("This file can train: " + "; ".join(fits) + "." if fits else
            "None of this page's choices counts that way: count the text again with "
            "`python -m tokenizer_core count --model ...` and the options you want.")
    return f"The counts file does not fit these options: {err}. {hint}"
