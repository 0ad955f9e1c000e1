"""tokenizer_core: from-scratch tokenization algorithms for Tokenizer Playground.

The public API, re-exported here; everything else is reachable through its module.

>>> from tokenizer_core import TrainOptions, load_sample, train
>>> tok = train("word", load_sample("sennrich-low-lower-newest-widest").lines(), options=TrainOptions())
>>> tok.encode("low newest lowest").tokens
['low', 'newest', '[UNK]']
"""

from .batching import BatchEncoding, PaddingParams, TruncationParams, make_batch
from .corpus import Corpus, corpus_from_text, list_samples, load_corpus, load_sample
from .corpus_stats import corpus_stats
from .errors import CorpusError, FormatError, TokenizerError
from .formats import import_tokenizer, importer_names
from .metrics import compute_metrics
from .padding_stats import bucket_by_length, padding_waste
from .pipeline import Tokenizer
from .processors import TemplateProcessing
from .training import TrainOptions, train, trainer_names
from .types import Encoding, Sampling, Token

__all__ = [
    "BatchEncoding", "Corpus", "CorpusError", "Encoding", "FormatError", "PaddingParams", "Sampling",
    "TemplateProcessing", "Token", "Tokenizer", "TokenizerError", "TrainOptions", "TruncationParams",
    "bucket_by_length", "compute_metrics", "corpus_from_text", "corpus_stats", "import_tokenizer",
    "importer_names", "list_samples", "load_corpus", "load_sample", "make_batch", "padding_waste", "train",
    "trainer_names",
]
__version__ = "0.1.0"
