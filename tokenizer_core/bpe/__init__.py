"""Byte-pair encoding: the model (rank-ordered merges, dropout), its trainer with a step trace,
and merge trees.

``model`` encodes (with ``merging``, ``merge_tree``, ``tables``, ``formats`` and the fast
``byte_encoder``), ``trainer`` learns merges exactly as ``tokenizers``' BpeTrainer does (its
core: ``symbols`` -> ``pair_stats`` -> ``merge_loop``), ``trace`` replays a training run
step by step for the app. ``sentencepiece_bpe`` encodes SentencePiece BPE models (merges by piece
score).
"""

from tokenizer_core.bpe.model import BPE, ByteLevelBPEEncoder
from tokenizer_core.bpe.sentencepiece_bpe import SentencePieceBPE
from tokenizer_core.bpe.trace import BpeTrace
from tokenizer_core.bpe.trainer import BpeTrainResult, train_bpe, train_bpe_counts, train_bpe_parts

__all__ = ["BPE", "BpeTrace", "BpeTrainResult", "ByteLevelBPEEncoder", "SentencePieceBPE", "train_bpe",
           "train_bpe_counts", "train_bpe_parts"]
