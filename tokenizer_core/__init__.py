"""tokenizer_core: from-scratch tokenization algorithms for Tokenizer Playground.

The public API, re-exported here; everything else is reachable through its module.

>>> from tokenizer_core import TrainOptions, load_sample, train
>>> tok = train("word", load_sample("sennrich-low-lower-newest-widest").lines(), options=TrainOptions())
>>> tok.encode("low newest lowest").tokens
['low', 'newest', '[UNK]']
"""

from tokenizer_core.analysis.metrics import compute_metrics
from tokenizer_core.batch.batching import BatchEncoding, PaddingParams, TruncationParams, make_batch
from tokenizer_core.batch.processors import TemplateProcessing
from tokenizer_core.batch.stats import bucket_by_length, padding_waste
from tokenizer_core.corpus.loading import Corpus, corpus_from_text, list_samples, load_corpus, load_sample
from tokenizer_core.corpus.stats import corpus_stats
from tokenizer_core.errors import CorpusError, FormatError, TokenizerError
from tokenizer_core.io.importers import import_tokenizer, importer_names
from tokenizer_core.options import BpeOptions, TrainOptions, UnigramOptions, WordPieceOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train, trainer_names
from tokenizer_core.types import Encoding, Sampling, Token

__all__ = [
    "BatchEncoding", "BpeOptions", "UnigramOptions", "WordPieceOptions", "Corpus", "CorpusError", "Encoding", "FormatError", "PaddingParams", "Sampling",
    "TemplateProcessing", "Token", "Tokenizer", "TokenizerError", "TrainOptions", "TruncationParams",
    "bucket_by_length", "compute_metrics", "corpus_from_text", "corpus_stats", "import_tokenizer",
    "importer_names", "list_samples", "load_corpus", "load_sample", "make_batch", "padding_waste", "train",
    "trainer_names",
]
__version__ = "0.1.0"
