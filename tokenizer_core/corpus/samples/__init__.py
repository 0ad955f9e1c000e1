"""The bundled sample corpora: their names, descriptions, files and (where defined) word counts.

Samples defined by word counts in the literature are stored as text with one
word per line, each word repeated as many times as its count, so training on
the text reproduces the published examples; the counts are kept here as well.
The files live next to this module and are read with :mod:`importlib.resources`,
so they work from a wheel or a zip too. Use :func:`tokenizer_core.corpus.loading.load_sample`
rather than this module.

>>> [s.name for s in SAMPLES]
['default', 'wikipedia-aaabdaaabac', 'sennrich-low-lower-newest-widest', 'hf-course-hug-pug', 'multilingual']
>>> read_text(get("wikipedia-aaabdaaabac"))
'aaabdaaabac'
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Optional

from tokenizer_core.errors import CorpusError


@dataclass(frozen=True)
class Sample:
    """One bundled corpus. ``filename`` is None for the generated default corpus."""

    name: str
    title: str
    description: str
    source: str
    filename: Optional[str] = None
    word_counts: Optional[tuple[tuple[str, int], ...]] = None


SAMPLES: tuple[Sample, ...] = (
    Sample(
        name="default",
        title="English prose (Python docs, about 2 MB)",
        description=(
            "Prose paragraphs from the documentation that ships with Python: the language "
            "reference topics used by help() and the docstrings and comments of the standard "
            "library. "
            "Large enough that vocabularies from 256 to 16k tokens behave realistically."
        ),
        source="Python documentation: pydoc_data.topics and standard-library docstrings and comments (PSF License)",
    ),
    Sample(
        name="wikipedia-aaabdaaabac",
        title="Wikipedia: aaabdaaabac",
        description=(
            "The byte-pair-encoding example from Wikipedia's article 'Byte pair encoding': "
            "the single string aaabdaaabac, whose most frequent pair 'aa' is merged first."
        ),
        source="Wikipedia, 'Byte pair encoding' (worked example)",
        filename="wikipedia-aaabdaaabac.txt",
        word_counts=(("aaabdaaabac", 1),),
    ),
    Sample(
        name="sennrich-low-lower-newest-widest",
        title="Sennrich et al.: low, lower, newest, widest",
        description=(
            "The toy vocabulary of Sennrich, Haddow and Birch (2016), 'Neural Machine Translation "
            "of Rare Words with Subword Units': low ×5, lower ×2, newest ×6, widest ×3."
        ),
        source="Sennrich, Haddow & Birch (ACL 2016), Algorithm 1",
        filename="sennrich-low-lower-newest-widest.txt",
        word_counts=(("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)),
    ),
    Sample(
        name="hf-course-hug-pug",
        title="Hugging Face course: hug, pug, pun, bun, hugs",
        description=(
            "The word counts used by the Hugging Face NLP course to explain BPE, WordPiece and "
            "Unigram: hug ×10, pug ×5, pun ×12, bun ×4, hugs ×5."
        ),
        source="Hugging Face NLP course, chapter 6 (tokenization algorithms)",
        filename="hf-course-hug-pug.txt",
        word_counts=(("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5)),
    ),
    Sample(
        name="multilingual",
        title="Multilingual sampler (many scripts, emoji, combining marks)",
        description=(
            "Short original sentences in about twenty languages and a dozen scripts (Latin, Greek, "
            "Cyrillic, Arabic, Hebrew, Devanagari, Thai, Han, kana, Hangul, ...), plus emoji "
            "sequences, decomposed accents and compatibility characters for normalization demos."
        ),
        source="written for this project",
        filename="multilingual.txt",
    ),
)


def get(name: str) -> Sample:
    """Find a sample by name, or raise a :class:`CorpusError` listing the names."""
    for sample in SAMPLES:
        if sample.name == name:
            return sample
    names = ", ".join(s.name for s in SAMPLES)
    raise CorpusError(f"There is no sample corpus called {name!r}; choose one of: {names}.")


def read_text(sample: Sample) -> str:
    """Read a file-backed sample's text exactly as stored (UTF-8, no newline translation)."""
    if sample.filename is None:
        raise CorpusError(f"The sample {sample.name!r} is generated, not stored; use load_sample().")
    data = resources.files(__name__).joinpath(sample.filename).read_bytes()
    return data.decode("utf-8")
