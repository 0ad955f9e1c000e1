"""Post-processing and batching: templates (BERT, RoBERTa, GPT), truncation with stride and
overflow, padding, batch encodings with masks, and padding-waste statistics.

Importing the package registers every post-processor for saved files (the modules
``templates`` and ``builtin_processors`` register them; ``processors`` gathers them).
"""

from tokenizer_core.batch import builtin_processors, processors, templates
from tokenizer_core.batch.batching import BatchEncoding, make_batch
from tokenizer_core.batch.padding import PaddingParams
from tokenizer_core.batch.stats import bucket_by_length, padding_waste
from tokenizer_core.batch.templates import TemplateProcessing
from tokenizer_core.batch.truncation import TruncationParams

__all__ = ["BatchEncoding", "PaddingParams", "TemplateProcessing", "TruncationParams", "bucket_by_length",
           "builtin_processors", "make_batch", "padding_waste", "processors", "templates"]
