"""Word counts made once, anywhere, and trained from: the counts file, the corpus readers that
stream any number of large files, and the engines that count them (this process, or a Dask cluster).

The expensive pass over a corpus (normalize, pre-tokenize, count) is the same for every trainer
that learns from distinct pieces (BPE, WordPiece, Unigram), so it can run where the corpus is and
spread over many machines; the merge or EM loop then runs on one machine over the distinct pieces.

- :mod:`.tsv`: the counts file (``piece<TAB>count`` with a ``#`` header stating how it was counted);
- :mod:`.inputs`: files, directories and globs expanded, split into partitions (byte ranges of
  large plain files, lines never cut);
- :mod:`.readers`: the lines of a partition (plain, ``.gz``/``.bz2``/``.xz``/``.zst``, JSONL, CSV/TSV,
  Parquet), streamed;
- :mod:`.spec`: how a model counts (its normalizer, pre-tokenizer and extras), partial counts and
  their sum;
- :mod:`.engines` and :mod:`.dask_engine`: count in this process or on a Dask cluster;
- :mod:`.training`: train from a counts file, refusing one counted another way.
"""
