"""The classic models: one token per word, per character or per byte, over a fixed vocabulary."""

from tokenizer_core.classic.byte import ByteModel, train_byte_level
from tokenizer_core.classic.char import CharLevel, train_char_level
from tokenizer_core.classic.vocabulary import Vocabulary
from tokenizer_core.classic.word import WordLevel, train_word_level

__all__ = ["ByteModel", "CharLevel", "Vocabulary", "WordLevel", "train_byte_level", "train_char_level",
           "train_word_level"]
