"""SuperBPE: byte-level BPE in two stages, the second across spaces (superword tokens)."""
