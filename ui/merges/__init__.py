"""The BPE step-through page (with a WordPiece mode): settings, cached training, stepping, views."""
