"""Corpora: loading and sniffing files, the bundled samples, the default corpus, statistics."""

from tokenizer_core.corpus.bundled import list_samples, load_sample
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.corpus.loading import corpus_from_text, load_corpus
from tokenizer_core.corpus.stats import corpus_stats

__all__ = ["Corpus", "corpus_from_text", "corpus_stats", "list_samples", "load_corpus",
           "load_sample"]
