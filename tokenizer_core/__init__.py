"""tokenizer_core: from-scratch tokenization algorithms for Tokenizer Playground.

The public API, re-exported here; everything else is reachable through its module.

>>> from tokenizer_core import TrainOptions, load_sample, train
>>> tok = train("word", load_sample("sennrich-low-lower-newest-widest").lines(), options=TrainOptions())
>>> tok.encode("low newest lowest").tokens
['low', 'newest', '[UNK]']
"""

import importlib
from typing import Any

# Where each public name lives. The package loads a module only when one of its names is first
# used, so ``import tokenizer_core.corpus.loading`` (say, by the app's first page) does not also
# import numpy, the trainers and the analysis code: the app's cold start and every CLI call pay
# only for what they use.
_EXPORTS: dict[str, str] = {
    "compute_metrics": "tokenizer_core.analysis.metrics",
    "BatchEncoding": "tokenizer_core.batch.batching", "PaddingParams": "tokenizer_core.batch.batching",
    "TruncationParams": "tokenizer_core.batch.batching", "make_batch": "tokenizer_core.batch.batching",
    "TemplateProcessing": "tokenizer_core.batch.processors",
    "bucket_by_length": "tokenizer_core.batch.stats", "padding_waste": "tokenizer_core.batch.stats",
    "Corpus": "tokenizer_core.corpus.loading", "corpus_from_text": "tokenizer_core.corpus.loading",
    "list_samples": "tokenizer_core.corpus.loading", "load_corpus": "tokenizer_core.corpus.loading",
    "load_sample": "tokenizer_core.corpus.loading",
    "corpus_stats": "tokenizer_core.corpus.stats",
    "CorpusError": "tokenizer_core.errors", "FormatError": "tokenizer_core.errors",
    "TokenizerError": "tokenizer_core.errors",
    "import_tokenizer": "tokenizer_core.io.importers", "importer_names": "tokenizer_core.io.importers",
    "BpeOptions": "tokenizer_core.options", "TrainOptions": "tokenizer_core.options",
    "UnigramOptions": "tokenizer_core.options", "WordPieceOptions": "tokenizer_core.options",
    "Tokenizer": "tokenizer_core.pipeline",
    "train": "tokenizer_core.training", "trainer_names": "tokenizer_core.training",
    "Encoding": "tokenizer_core.types", "Sampling": "tokenizer_core.types", "Token": "tokenizer_core.types",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tokenizer_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "BatchEncoding", "BpeOptions", "UnigramOptions", "WordPieceOptions", "Corpus", "CorpusError", "Encoding", "FormatError", "PaddingParams", "Sampling",
    "TemplateProcessing", "Token", "Tokenizer", "TokenizerError", "TrainOptions", "TruncationParams",
    "bucket_by_length", "compute_metrics", "corpus_from_text", "corpus_stats", "import_tokenizer",
    "importer_names", "list_samples", "load_corpus", "load_sample", "make_batch", "padding_waste", "train",
    "trainer_names",
]
__version__ = "0.1.0"
