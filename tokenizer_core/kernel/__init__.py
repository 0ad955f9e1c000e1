"""The bindings of the compiled kernel ``tokenizer_kernel`` (C in ``kernels/src``): loading it and the
character classes it reads (:mod:`tokenizer_core.kernel.native`), and the integer codes Python passes in
(:mod:`tokenizer_core.kernel.codes`, the enums of ``kernels/src/codes.h``).

The kernel is optional: without it every caller takes its Python path, which stays the reference. The
glue that speaks an algorithm's own types lives beside that algorithm, on top of these bindings:
``bpe/kernel.py`` and ``bpe/merge_engines.py`` (BPE encoding and training), ``unigram/native_lattice.py``,
``text/native_counting.py`` (word counts), ``text/regex_program.py`` (split patterns compiled for the
kernel's matcher) and ``fast/chunk_table.py`` (the chunk table of the fast paths);
``kernels/README.md`` names the C file behind each.

>>> from tokenizer_core.kernel import codes
>>> int(codes.ChunkRule.SPACES) >= 0
True
"""
