"""tokenizer_core: from-scratch tokenization algorithms for Tokenizer Playground."""

from .errors import CorpusError, FormatError, TokenizerError
from .types import Encoding, Sampling, Token

__all__ = ["CorpusError", "Encoding", "FormatError", "Sampling", "Token", "TokenizerError"]
__version__ = "0.1.0"
