"""The step-through page on a counts file (the active corpus is a
:class:`~ui.corpus.counts.CountsCorpus`). The page already trains from word counts (it counts a text
corpus once and hands the counts to the trainer), so a counts file's pieces are those counts, once
its header names the stages the settings count with (:mod:`ui.corpus.counts_fit`).

>>> from ui.corpus.counts import counts_from_text
>>> c = counts_from_text("c.tsv", "# tokenizer-playground counts 1\\n# model: bpe\\n# normalizer: null\\n"
...                      '# pre_tokenizer: {"type": "Whitespace"}\\nlow\\t5\\nlower\\t2\\n')
>>> file_counts(c, MergeSettings(budget=2)) == {"low": 5, "lower": 2}
True
>>> settings_that_fit(c)
['BPE · characters · Words and punctuation']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.errors import TokenizerError
from tokenizer_core.training import MAX_DISTINCT_WORDS
from ui.corpus import counts_fit
from ui.corpus.counts import CountsCorpus
from ui.merges.settings import ALGORITHMS, MergeSettings, pre_tokenizer_choices


def header_notes(corpus: CountsCorpus, settings: MergeSettings) -> list[str]:
    """What the header leaves unsaid; a TokenizerError when the file cannot train ``settings``."""
    s = settings.effective()
    try:
        notes = counts_fit.header_notes(corpus, s.count_spec())
    except TokenizerError as err:
        fits = settings_that_fit(corpus)
        hint = ("Settings that fit it: " + "; ".join(fits) + "." if fits else
                "None of this page's settings counts that way (the file may be for Unigram).")
        raise TokenizerError(f"The counts file does not fit these settings: {err}. {hint}") from None
    limit = MAX_DISTINCT_WORDS[s.algorithm]
    if corpus.distinct > limit:
        raise TokenizerError(f"the counts file has {corpus.distinct:,} distinct pieces, more than {s.algorithm} "
                             f"training takes ({limit:,}); count with --min-count to drop rare ones")
    return notes


def file_counts(corpus: CountsCorpus, settings: MergeSettings) -> Mapping[str, int]:
    """The file's counts, to train ``settings`` from (a TokenizerError when the header does not fit).
    Never to be changed: the session's corpus holds them (the trainers only read them)."""
    header_notes(corpus, settings)
    return corpus.counts.counts


def settings_that_fit(corpus: CountsCorpus) -> list[str]:
    """The settings (algorithm, symbols, pre-tokenizer, lowercase) this file's header fits, for people."""
    return counts_fit.fitting(corpus, _choices())


def _choices() -> Iterator[tuple[str, CountSpec]]:
    """Every choice of the page's settings that counts differently, labelled as people read it."""
    for algorithm in ALGORITHMS:
        if algorithm == "superbpe":  # trains on the text itself (whole lines), never on a counts file
            continue
        for level in (("char", "byte") if algorithm == "bpe" else ("char",)):
            for pre, pre_label in pre_tokenizer_choices(algorithm, level).items():
                for lowercase in (False, True):
                    settings = MergeSettings(algorithm=algorithm, level=level, pre_tokenizer=pre, lowercase=lowercase)
                    parts = [ALGORITHMS[algorithm], "bytes" if level == "byte" else "characters", pre_label]
                    yield " · ".join(parts + (["Lowercase"] if lowercase else [])), settings.count_spec()
