"""What the many-sessions bench gives each session and expects back (:mod:`bench.bench_sessions`): the
made-up word of each session, the text it pastes, the tokenizer.json it uploads, the names and counts
its pages must show, and the record of what it saw.

>>> session_word(0), session_word(1)
('zqaaahlf', 'zqaabhlg')
>>> corpus_text("zqx").count("zqx")
50
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

TIMEOUT_MS = 240_000  # 20 sessions on 2 cores queue for the one server
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
PHASES = ("open", "corpus", "page", "train", "step", "shelf_train", "shelf_search", "upload", "upload_search",
          "batch", "compare", "lattice")
#: A made-up word no session uses (``session_word`` words start with "zq"): searching for it must find nothing.
FOREIGN_WORD = "plimwhistle"
#: Vocabulary size of the uploaded tokenizers: byte-level BPE on one repeated 8-letter word stops at
#: 256 bytes + 12 merges (the word and " word"), whatever the word (checked by :func:`tokenizer_json`).
UPLOAD_VOCAB = 268
TRAIN_VOCAB = 300  # what the Tokenizers page trains (the 300)
#: The default names, the same for every session: the corpus of one 8-letter word reaches 265 of the
#: 300 tokens asked (256 bytes, <|endoftext|> and 8 merges), and the upload names its model and size.
TRAINED_LABEL = "BPE on bytes 300 → 265 · trained here"
UPLOADED_LABEL = f"tokenizer.json · BPE {UPLOAD_VOCAB} · imported"
#: The counts every session's pages must show: its corpus is 50 words and 5 line ends, and its word is
#: one token of both its tokenizers (another session's tokenizer cuts it into several).
EXPECTED_COUNTS = {
    "tokenizers " + TRAINED_LABEL: 55,
    "tokenizers " + UPLOADED_LABEL: 55,
    "batch padded length": 1,
    "compare " + TRAINED_LABEL: 1,
    "compare " + UPLOADED_LABEL: 1,
}
COUNT_CAPTION = re.compile(r"^([\d,]+) tokens(;.*)?$")  # the caption under the vocabulary table


def session_word(index: int) -> str:
    """A made-up word of 8 letters, different for every index below 26**3, never a substring of another."""
    a, b, c = index // 676 % 26, index // 26 % 26, index % 26
    return "zq" + "".join(chr(97 + n) for n in (a, b, c, (a + 7) % 26, (b + 11) % 26, (c + 5) % 26))


def corpus_text(word: str) -> str:
    """The text a session pastes: its word, ten to a line, five lines."""
    return (" ".join([word] * 10) + "\n") * 5


def tokenizer_json(word: str) -> bytes:
    """A ``tokenizer.json`` (byte-level BPE, :data:`UPLOAD_VOCAB` tokens) trained on ``word`` alone:
    same type and size for every word, different content, and ``word`` is one of its tokens."""
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.training import train

    tok = train("bpe", corpus_text(word).splitlines(keepends=True),
                options=TrainOptions(vocab_size=UPLOAD_VOCAB, byte_level=True))
    if tok.vocab_size != UPLOAD_VOCAB or tok.token_to_id(word) is None:
        raise RuntimeError(f"{word}: {tok.vocab_size} tokens, not {UPLOAD_VOCAB} with the word among them")
    return json.dumps(tok.to_hf_json()).encode("utf-8")


@dataclass
class Search:
    """One vocabulary search on the Tokenizers page: which tokenizer, what was typed, the count shown."""

    tokenizer: str
    query: str
    count: int


@dataclass
class SessionResult:
    """What one session saw on each page (``stMain``'s text), its searches, the token counts pages
    showed for its own tokenizers (:data:`EXPECTED_COUNTS`), and how long each phase took (seconds).
    ``other`` is the word of another session it searched for."""

    word: str
    other: str = ""
    heading: str = ""
    seen: dict[str, str] = field(default_factory=dict)
    searches: list[Search] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str = ""
