"""Whether a counts file can train what a page's Train panel asks, in one shape for every page.

A choice is a label and the :class:`~tokenizer_core.counts.spec.CountSpec` it trains with (the
trainer's name and options): both pages' settings give theirs (``count_spec()``). The file's header
must name the stages that spec counts with; :func:`header_notes` says what the header leaves unsaid
or raises the :class:`~tokenizer_core.errors.TokenizerError` that names the difference.

>>> from tokenizer_core.options import TrainOptions
>>> from ui.corpus.counts import counts_from_text
>>> c = counts_from_text("c.tsv", "# tokenizer-playground counts 1\\n# model: bpe\\n# normalizer: null\\n"
...                      '# pre_tokenizer: {"type": "Whitespace"}\\nlow\\t5\\nlower\\t2\\n')
>>> fitting(c, [("plain", CountSpec("bpe", TrainOptions())), ("lower", CountSpec("bpe", TrainOptions(lowercase=True)))])
['plain']
>>> max_sentence_length(c)
4192
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.counts.training import check_header
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_MAX_SENTENCE_LENGTH
from ui.corpus.counts import CountsCorpus

__all__ = ["CountSpec", "fitting", "header_notes", "max_sentence_length"]


def header_notes(corpus: CountsCorpus, spec: CountSpec) -> list[str]:
    """What the file's header leaves unsaid (notes for people); a TokenizerError when the stages it
    names are not those ``spec`` counts with."""
    return check_header(corpus.counts, spec)


def fitting(corpus: CountsCorpus, choices: Iterable[tuple[str, CountSpec]]) -> list[str]:
    """The labels of the ``(label, spec)`` choices this file's header fits, in order."""
    found = []
    for label, spec in choices:
        try:
            check_header(corpus.counts, spec)
        except TokenizerError:
            continue
        found.append(label)
    return found


def max_sentence_length(corpus: CountsCorpus) -> int:
    """The Unigram line limit the file was counted with (its header's ``max_sentence_length``)."""
    raw = corpus.counts.facts.get("max_sentence_length", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_SENTENCE_LENGTH
