"""The bundled sample corpora: listing them and loading one as a :class:`Corpus`.

>>> load_sample("hf-course-hug-pug").name
'hf-course-hug-pug'
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenizer_core.corpus.documents import Corpus


@dataclass(frozen=True)
class SampleInfo:
    """A bundled sample corpus: its ``name`` for :func:`load_sample`, a title and a description."""

    name: str
    title: str
    description: str


def list_samples() -> list[SampleInfo]:
    """The bundled sample corpora, default first (all offline).

    >>> [s.name for s in list_samples()][:2]
    ['default', 'wikipedia-aaabdaaabac']
    """
    from tokenizer_core.corpus import samples

    return [SampleInfo(s.name, s.title, s.description) for s in samples.SAMPLES]


def load_sample(name: str) -> Corpus:
    """Load a bundled sample by name (see :func:`list_samples`).

    ``"default"`` is built from Python's own documentation on first use and
    cached on disk (see :mod:`tokenizer_core.corpus.default`).

    >>> c = load_sample("hf-course-hug-pug")
    >>> c.word_counts
    {'hug': 10, 'pug': 5, 'pun': 12, 'bun': 4, 'hugs': 5}
    """
    from tokenizer_core.corpus import samples

    sample = samples.get(name)
    if sample.name == "default":
        from tokenizer_core.corpus.default import default_corpus_text

        text = default_corpus_text()
    else:
        text = samples.read_text(sample)
    counts = dict(sample.word_counts) if sample.word_counts is not None else None
    return Corpus(sample.name, (text,), source=sample.source, word_counts=counts)
