"""Entropy patching (the Byte Latent Transformer's patches): a byte n-gram model of the corpus and
the patches that start where it is unsure of the next byte.

>>> from tokenizer_core.patches import ByteNgramModel, patch_text
>>> model = ByteNgramModel.train(b"the cat sat on the mat. " * 20, order=3)
>>> patches = patch_text(model, "the cat", threshold=1.0)
>>> "".join(p.text for p in patches)
'the cat'
"""

from tokenizer_core.patches.ngram import MAX_ORDER, ByteNgramModel, joined_bytes
from tokenizer_core.patches.patching import Patch, PatchMode, patch_starts, patch_text, patches_of

__all__ = ["MAX_ORDER", "ByteNgramModel", "joined_bytes", "Patch", "PatchMode", "patch_starts", "patch_text", "patches_of"]
