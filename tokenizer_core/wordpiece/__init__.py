"""WordPiece: the greedy longest-match model, the likelihood-scored trainer with its trace, and
the BERT pipeline around them."""

from tokenizer_core.wordpiece.bert import bert_parts, train_bert_wordpiece
from tokenizer_core.wordpiece.model import WordPiece, read_vocab_txt
from tokenizer_core.wordpiece.trainer import BERT_SPECIAL_TOKENS, WordPieceTraining, train_wordpiece

__all__ = ["BERT_SPECIAL_TOKENS", "WordPiece", "WordPieceTraining", "bert_parts", "read_vocab_txt",
           "train_bert_wordpiece", "train_wordpiece"]
