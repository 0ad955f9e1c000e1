"""Comparing tokenizers: metrics on a text or a corpus."""

from tokenizer_core.analysis.compare import compare_rows, disagreements, granularity_tokenizer, segments
from tokenizer_core.analysis.languages import fertility_by_language
from tokenizer_core.analysis.metrics import compute_metrics
from tokenizer_core.analysis.sweep import knee, log_sizes, split_lines, sweep

__all__ = ["compare_rows", "compute_metrics", "disagreements", "fertility_by_language", "granularity_tokenizer",
           "knee", "log_sizes", "segments", "split_lines", "sweep"]
