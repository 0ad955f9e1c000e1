"""The fast paths: the general path's encodings, field for field, from cached chunks and the kernel.

:mod:`~tokenizer_core.fast.protocol` is the contract, :mod:`~tokenizer_core.fast.registry` the
ordered list of kinds and the report of which one a tokenizer runs on; each kind is a module
(:mod:`~tokenizer_core.fast.byte_level`, :mod:`~tokenizer_core.fast.chunked`,
:mod:`~tokenizer_core.fast.split`, :mod:`~tokenizer_core.fast.chain`,
:mod:`~tokenizer_core.fast.sentencepiece`, :mod:`~tokenizer_core.fast.replaced_spaces`) over shared records: chunk entries
(:mod:`~tokenizer_core.fast.assembly`), the kernel's chunk table
(:mod:`~tokenizer_core.fast.chunk_table`), its packed columns (:mod:`~tokenizer_core.fast.columns`,
:mod:`~tokenizer_core.fast.packed`) and the proofs that stages stay inside chunks
(:mod:`~tokenizer_core.fast.locality`).
"""
