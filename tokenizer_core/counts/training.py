"""Training from a counts file: the header checked against the options, then the trainer's
counts entry point (the same merges and vocabulary as training on the files counted).

>>> from tokenizer_core.counts.spec import CountSpec
>>> from tokenizer_core.options import TrainOptions
>>> options = TrainOptions(vocab_size=40)
>>> spec = CountSpec("bpe", options)
>>> data = counts_file(spec, spec.count(["low lower lowest\\n"]))
>>> train_from_counts("bpe", data, options=options).encode("lowest").tokens
['lowest']
>>> check_header(data, CountSpec("bpe", TrainOptions(lowercase=True)))
Traceback (most recent call last):
...
tokenizer_core.errors.TokenizerError: these counts were made with normalizer none; the training options count with Lowercase: count again with the same options (or train with the options the header names)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional

from tokenizer_core.counts.spec import CountSpec, Partial, same_stage
from tokenizer_core.counts.tsv import CountsFile
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import TrainOptions
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer


def counts_file(spec: CountSpec, partial: Partial, *, extra: Optional[dict[str, str]] = None) -> CountsFile:
    """The counts file of ``partial`` counted by ``spec`` (header facts included)."""
    facts = spec.facts()
    if spec.model == "unigram":
        facts["last_piece"] = json.dumps(partial.last_piece, ensure_ascii=False)
        facts["columns"] = "piece count line_final"
    facts.update(extra or {})
    return CountsFile(partial.counts, partial.line_final, facts)


def check_header(data: CountsFile, spec: CountSpec) -> list[str]:
    """Refuse counts whose header names other counting stages than ``spec`` counts with (a
    TokenizerError); return notes on what the header leaves unsaid (a file from another tool)."""
    notes = []
    for fact, wanted in spec.facts().items():
        if fact == "model":
            continue
        written = data.facts.get(fact)
        if written is None:
            notes.append(f"the counts file does not say its {fact.replace('_', ' ')}; training assumes {wanted}")
            continue
        stage = fact in ("normalizer", "pre_tokenizer")
        same = same_stage(written, wanted) if stage else written == wanted
        if not same:
            shown, want = (describe_stage(written), describe_stage(wanted)) if stage else (written, wanted)
            raise TokenizerError(
                f"these counts were made with {fact.replace('_', ' ')} {shown}; the training options count with "
                f"{want}: count again with the same options (or train with the options the header names)")
    if spec.model == "unigram" and not data.has_line_final:
        notes.append("the counts file has no line_final column: Unigram's seed pieces treat every word end as "
                     "both a line end and a mid-line end (results may differ a little from training on the text)")
    return notes


def describe_stage(text: str) -> str:
    """A stage's JSON for people: its type (a sequence's types joined with +) and any setting of a
    lone stage (``none`` for null); the JSON itself if it is not a stage.

    >>> describe_stage('{"type": "Lowercase"}'), describe_stage('null')
    ('Lowercase', 'none')
    >>> describe_stage('{"pre_tokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace"}], "type": "Sequence"}')
    'WhitespaceSplit + Metaspace'
    >>> describe_stage('{"type": "BertNormalizer", "lowercase": true}')
    'BertNormalizer (lowercase: true)'
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    if data is None:
        return "none"
    if not isinstance(data, dict) or "type" not in data:
        return text
    inner = next((v for k, v in data.items() if k != "type" and isinstance(v, list)), None)
    if data["type"] == "Sequence" and inner is not None:
        return " + ".join(describe_stage(json.dumps(x)) for x in inner)
    rest = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(data.items()) if k != "type")
    return f"{data['type']} ({rest})" if rest else str(data["type"])


def _last_piece(data: CountsFile) -> Optional[str]:
    raw = data.facts.get("last_piece")
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        raise TokenizerError(f"the counts file's last_piece {raw[:40]!r} is not a JSON string") from None
    if value is not None and not isinstance(value, str):
        raise TokenizerError("the counts file's last_piece must be a JSON string or null")
    return value


def train_from_counts(model: str, data: CountsFile, *, options: TrainOptions,
                      progress: ProgressCallback = no_progress,
                      on_note: Optional[Callable[[str], None]] = None) -> Tokenizer:
    """Train ``model`` (``bpe``, ``wordpiece`` or ``unigram``) from ``data`` (left as it is): what
    training on the counted text with ``options`` gives. The header is checked first
    (:func:`check_header`); ``on_note`` gets each note on what it leaves unsaid."""
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.training import MAX_DISTINCT_WORDS

    spec = CountSpec(model, options)
    for note in check_header(data, spec):
        if on_note is not None:
            on_note(note)
    limit = MAX_DISTINCT_WORDS[model]
    if len(data.counts) > limit:
        raise TokenizerError(f"the counts file has {len(data.counts):,} distinct pieces, more than {model} training "
                             f"takes ({limit:,}; its memory grows with them); count with --min-count to drop rare ones")
    if model == "bpe":  # BPE and WordPiece only read the counts
        from tokenizer_core.bpe.trainer import train_bpe_from_counts

        parts = train_bpe_from_counts(data.counts, options=options, progress=progress)[0]
    elif model == "wordpiece":
        from tokenizer_core.wordpiece.bert import train_bert_wordpiece_from_counts

        parts = train_bert_wordpiece_from_counts(data.counts, options=options, progress=progress)[0]
    else:  # Unigram copies the counts, and empties the line-final counter it is given: a copy of its own
        from tokenizer_core.unigram.trainer import train_unigram_parts_from_counts

        final = Counter(data.line_final) if data.has_line_final else None
        parts = train_unigram_parts_from_counts(data.counts, line_final=final, last_word=_last_piece(data),
                                                options=options, progress=progress)
    return Tokenizer.from_parts(parts)
