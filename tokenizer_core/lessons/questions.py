"""Question steps of a lesson: what the class is asked, and the answer the engines compute.

A step may carry one ``question`` (YAML, like the rest of the lesson)::

    question: {kind: count, prompt: "How many tokens?", text: strawberry, tokenizer: gpt2}
    question: {kind: split, text: " unbelievably", tokenizer: cl100k_base}
    question: {kind: next_merge, words: {aaabdaaabac: 1}, merges_done: 1}   # pick the second merge
    question: {kind: next_merge, words: {hug: 10, pug: 5}, algorithm: wordpiece}   # by WordPiece's score
    question: {kind: choice, text: " 2025", made_by: qwen, options: [gpt2, cl100k_base, qwen]}
    question: {kind: text, prompt: Why would a model miscount the r's in strawberry?}

The key is never written in the file: it is computed (:func:`answer_key`) by encoding the text with
the named reference tokenizer, by training BPE on the words, or by encoding the text with every
option of a multiple choice (every option that gives the shown tokens is right). Answers are kept as
canonical strings (:func:`canonical_answer`), so a class's answers are counted by plain equality.

>>> q = Question(kind="split", prompt="", text="strawberry", tokenizer="gpt2")
>>> key = answer_key(q)
>>> key.right, key.shown
('2,5', 'st|raw|berry')
>>> canonical_answer(q, [5, 2]), is_right(q, key, "2,5"), is_right(q, key, "3,5")
('2,5', True, False)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError

KINDS = ("count", "split", "next_merge", "choice", "text")
QUESTION_FIELDS = ("kind", "prompt", "text", "tokenizer", "options", "made_by", "words", "merges_done", "algorithm")
ALGORITHMS = ("bpe", "wordpiece")  # what a next_merge question trains
#: Limits of what a student may send (and a lesson may ask).
MAX_TEXT_ANSWER = 300
MAX_SPLIT_TEXT = 60
MAX_COUNT = 100_000
MAX_OPTIONS = 8
_PROMPTS = {
    "count": "How many tokens does {tokenizer} make of this text?",
    "split": "Where does {tokenizer} cut this text? Tap every boundary between two tokens.",
    "next_merge": "Which pair does {algorithm} merge next?",
    "choice": "Which tokenizer made these tokens?",
    "text": "",
}


class QuestionError(TokenizerError):
    """A question that cannot be asked, or an answer that cannot be taken; the message is for people."""


@dataclass(frozen=True)
class Question:
    """One question; which fields matter depends on ``kind`` (see the module's examples)."""

    kind: str
    prompt: str
    text: str = ""
    tokenizer: str = ""
    options: tuple[str, ...] = ()
    made_by: str = ""
    words: tuple[tuple[str, int], ...] = ()  # (word, count) pairs: a question is hashable content
    merges_done: int = 0
    algorithm: str = "bpe"

    @property
    def asked(self) -> str:
        """The prompt as shown: the lesson's, or the kind's usual one."""
        return self.prompt or _PROMPTS[self.kind].format(tokenizer=self.tokenizer or "the tokenizer",
                                                         algorithm="WordPiece" if self.algorithm == "wordpiece" else "BPE")


@dataclass(frozen=True)
class Key:
    """The engines' answer: ``right`` in canonical form ('' when any answer goes, for free text),
    ``shown`` as people read it, ``why`` a sentence of explanation, ``choices`` what a student picks
    from (pairs, tokenizer names; for a split, the text's characters), ``tokens`` the tokens shown
    with a multiple choice, and ``also_right`` other canonical answers that are right too."""

    right: str
    shown: str
    why: str
    choices: tuple[str, ...] = ()
    tokens: tuple[str, ...] = ()
    also_right: frozenset[str] = frozenset()


Loader = Callable[[str], Any]


def _reference(name: str) -> Any:
    if name in LESSON_MODELS:
        return LESSON_MODELS[name]()
    from tokenizer_core.io.references import load_reference

    return load_reference(name)


# One computation per question at a time: forty students reaching a step together on a cold server
# wait for one answer key rather than loading the same tokenizers forty times. Striped, so the locks
# stay few however many lessons people upload.
_KEY_LOCKS = tuple(threading.Lock() for _ in range(16))


def answer_key(q: Question, *, load: Loader = _reference) -> Key:
    """The right answer of ``q`` computed by the engines (``load(name)`` gives a tokenizer).

    >>> answer_key(Question(kind="text", prompt="Why?")).why
    'Free answers: there is no single right one.'
    """
    if load is not _reference:
        return _key(q, load)
    with _KEY_LOCKS[hash(q) % len(_KEY_LOCKS)]:
        return _cached_key(q)


def warm_keys(questions: Iterable[Question]) -> threading.Thread:
    """Work out the answer keys of ``questions`` in a background thread (a lesson's, as soon as it
    is open), so a step with a question shows at once when the class gets there; a question the
    engines cannot answer is left for its step to explain. Returns the started thread.

    >>> warm_keys([Question(kind="text", prompt="Why?")]).join()
    """
    todo = list(questions)

    def work() -> None:
        for q in todo:
            try:
                answer_key(q)
            except (TokenizerError, QuestionError, OSError):
                pass  # the step says why when it is shown

    thread = threading.Thread(target=work, name="answer-keys", daemon=True)
    thread.start()
    return thread


@lru_cache(maxsize=256)
def _cached_key(q: Question) -> Key:  # a question is frozen content: equal questions, equal keys
    return _key(q, _reference)


def _key(q: Question, load: Loader) -> Key:
    if q.kind == "text":
        return Key(right="", shown="", why="Free answers: there is no single right one.")
    if q.kind == "next_merge":
        return _merge_key(q)
    if q.kind == "choice":
        return _choice_key(q, load)
    tokens, offsets = _encode(load(q.tokenizer), q.text)
    pieces = [q.text[a:b] for a, b in offsets]
    if q.kind == "count":
        return Key(right=str(len(tokens)), shown=f"{len(tokens)}",
                   why=f"{q.tokenizer} makes {len(tokens)} token{'s' if len(tokens) != 1 else ''}: " + " | ".join(repr(p) for p in pieces))
    cuts = sorted({a for a, _ in offsets if 0 < a < len(q.text)})
    return Key(right=",".join(map(str, cuts)), shown=_with_cuts(q.text, cuts), choices=tuple(q.text),
               why=f"{q.tokenizer}'s tokens: " + " | ".join(repr(p) for p in pieces))


class _CourseUnigram:
    """The Hugging Face course's toy Unigram model as a question's tokenizer (its Viterbi split)."""

    def encode(self, text: str, *, add_special_tokens: bool = False) -> Any:  # noqa: ARG002 (no specials)
        from types import SimpleNamespace

        from tokenizer_core.unigram.explain import course_model

        pieces = list(course_model().lattice(text).viterbi().pieces) if text else []
        offsets, at = [], 0
        for piece in pieces:
            offsets.append((at, at + len(piece)))
            at += len(piece)
        return SimpleNamespace(tokens=pieces, offsets=offsets)


#: Tokenizers a question may name besides the reference ones: the lessons' own toy models.
LESSON_MODELS: dict[str, Callable[[], Any]] = {"course-unigram": _CourseUnigram}


def _encode(tok: Any, text: str) -> tuple[list[str], list[tuple[int, int]]]:
    enc = tok.encode(text, add_special_tokens=False)  # the text's own tokens, no BOS or CLS
    return list(enc.tokens), [(int(a), int(b)) for a, b in enc.offsets]


def _with_cuts(text: str, cuts: Iterable[int]) -> str:
    out, last = [], 0
    for c in cuts:
        out.append(text[last:c])
        last = c
    out.append(text[last:])
    return "|".join(out)


def _merge_key(q: Question) -> Key:
    if q.algorithm == "wordpiece":
        return _wordpiece_key(q)
    from tokenizer_core.bpe.trainer import train_bpe_counts

    trace = train_bpe_counts(dict(q.words), num_merges=q.merges_done + 1).trace
    if len(trace) <= q.merges_done:
        raise QuestionError(f"BPE makes only {len(trace)} merges on these words; merges_done must be smaller")
    rec = trace[q.merges_done]
    right = f"{rec.left} + {rec.right}"
    choices = sorted({right, *(f"{r.left} + {r.right}" for r in rec.runner_ups[:MAX_OPTIONS - 1])})
    why = (f"{right} occurs {rec.count} times; {rec.tie_break}." if rec.tie_break else
           f"{right} occurs {rec.count} times, more than any other pair.")
    return Key(right=right, shown=right, choices=tuple(choices), why=why)


def _wordpiece_key(q: Question) -> Key:
    from tokenizer_core.wordpiece.trainer import train_wordpiece

    r = train_wordpiece(dict(q.words), vocab_size=10_000, num_merges=q.merges_done + 1, special_tokens=(), top_k=64)
    if len(r.merges) <= q.merges_done:
        raise QuestionError(f"WordPiece makes only {len(r.merges)} merges on these words; merges_done must be smaller")
    m = r.merges[q.merges_done]
    right = f"{m.left} + {m.right}"
    others = [f"{u.left} + {u.right}" for u in m.runner_ups[:MAX_OPTIONS - 2]]
    if m.bpe_choice is not None:
        others.append(f"{m.bpe_choice.left} + {m.bpe_choice.right}")  # the frequent pair: the usual wrong pick
    why = f"score = count / (left count · right count) = {m.count} / ({m.left_count} · {m.right_count}) = {m.score:.4g}"
    if m.bpe_choice is not None and (m.bpe_choice.left, m.bpe_choice.right) != (m.left, m.right):
        why += f"; BPE would merge the most frequent pair, {m.bpe_choice.left} + {m.bpe_choice.right}"
    return Key(right=right, shown=right, choices=tuple(sorted({right, *others})), why=why + ".")


def _choice_key(q: Question, load: Loader) -> Key:
    shown, _ = _encode(load(q.made_by), q.text)
    same = [name for name in q.options if _encode(load(name), q.text)[0] == shown]
    if q.made_by not in same:
        raise QuestionError(f"made_by {q.made_by!r} must be one of the options")
    others = [name for name in same if name != q.made_by]
    why = f"{q.made_by} encodes {q.text!r} as " + " | ".join(repr(t) for t in shown)
    if others:
        why += f"; so does {', '.join(others)}, so that answer is right too"
    return Key(right=q.made_by, shown=q.made_by, why=why + ".", choices=q.options, tokens=tuple(shown),
               also_right=frozenset(others))


def canonical_answer(q: Question, raw: Union[str, int, Iterable[int], None]) -> str:
    """A student's answer in the one form it is stored and counted in; :class:`QuestionError` with
    a sentence for the student when it cannot be an answer to ``q``."""
    if raw is None:
        raise QuestionError("no answer given")
    if q.kind == "count":
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise QuestionError("a token count is a whole number") from None
        if not 0 <= value <= MAX_COUNT:
            raise QuestionError(f"a token count is between 0 and {MAX_COUNT:,}")
        return str(value)
    if q.kind == "split":
        if isinstance(raw, str):
            parts = [p.strip() for p in raw.split(",") if p.strip()]
            cuts: list[Any] = [int(p) if p.isdigit() else p for p in parts]
        else:
            cuts = [raw] if isinstance(raw, int) else list(raw)
        if not all(isinstance(c, int) and not isinstance(c, bool) and 0 < c < len(q.text) for c in cuts):
            raise QuestionError("a split is a set of positions inside the text")
        return ",".join(map(str, sorted(set(cuts))))
    text = str(raw).strip()
    if q.kind in ("choice", "next_merge"):
        choices = q.options if q.kind == "choice" else answer_key(q).choices
        if text not in choices:
            raise QuestionError("pick one of the choices")
        return text
    if not text:
        raise QuestionError("write an answer first")
    if len(text) > MAX_TEXT_ANSWER:
        raise QuestionError(f"an answer is at most {MAX_TEXT_ANSWER} characters")
    return text


def is_right(q: Question, key: Key, answer: str) -> Optional[bool]:
    """Whether a canonical answer is right (None for free text, which has no key)."""
    if q.kind == "text":
        return None
    return answer == key.right or answer in key.also_right


def distance(q: Question, key: Key, answer: str) -> Optional[int]:
    """How far a count is from the engine's (None for other kinds)."""
    if q.kind != "count":
        return None
    return abs(int(answer) - int(key.right))


def shown_answer(q: Question, answer: str) -> str:
    """A canonical answer as people read it (a split with its cuts drawn)."""
    if q.kind == "split":
        return _with_cuts(q.text, [int(c) for c in answer.split(",") if c])
    return answer


def parse_question(raw: Any, fail: Callable[[tuple, str], Exception], path: tuple,
                   known: Optional[Iterable[str]] = None) -> Optional[Question]:
    """Check a step's ``question`` mapping (``fail(path, message)`` builds the lesson's error;
    ``known`` are the tokenizer names it may use). A merge question's key is computed now, so a
    lesson asking for a merge its words never make fails when it is loaded."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail(path, f"a question is a mapping of fields ({', '.join(QUESTION_FIELDS)})")
    for name in raw:
        if name not in QUESTION_FIELDS:
            raise fail(path + (name,), f"unknown field; a question has {', '.join(QUESTION_FIELDS)}")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise fail(path + ("kind",), f"must be one of {', '.join(KINDS)}")
    text = _str(raw, "text", fail, path)
    options = raw.get("options") or []
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options) or len(options) > MAX_OPTIONS:
        raise fail(path + ("options",), f"must be a list of at most {MAX_OPTIONS} tokenizer names")
    words = raw.get("words") or {}
    if not isinstance(words, dict) or not all(isinstance(w, str) and isinstance(c, int) and c > 0
                                              for w, c in words.items()):
        raise fail(path + ("words",), "must map words to positive counts")
    algorithm = raw.get("algorithm", "bpe")
    if algorithm not in ALGORITHMS:
        raise fail(path + ("algorithm",), f"must be one of {', '.join(ALGORITHMS)}")
    merges_done = raw.get("merges_done", 0)
    if isinstance(merges_done, bool) or not isinstance(merges_done, int) or merges_done < 0:
        raise fail(path + ("merges_done",), "must be a whole number, 0 or more")
    q = Question(kind=kind, prompt=_str(raw, "prompt", fail, path), text=text,
                 tokenizer=_str(raw, "tokenizer", fail, path), options=tuple(options),
                 made_by=_str(raw, "made_by", fail, path), words=tuple(words.items()), merges_done=merges_done,
                 algorithm=algorithm)
    needs = {"count": ("text", "tokenizer"), "split": ("text", "tokenizer"), "next_merge": ("words",),
             "choice": ("text", "made_by", "options"), "text": ("prompt",)}[kind]
    for name in needs:
        if not getattr(q, name):
            raise fail(path, f"a {kind} question needs {name}:")
    if kind == "split" and len(text) > MAX_SPLIT_TEXT:
        raise fail(path + ("text",), f"a split question's text is at most {MAX_SPLIT_TEXT} characters")
    names = [q.tokenizer] if kind in ("count", "split") else list(q.options) if kind == "choice" else []
    known = set(known) | set(LESSON_MODELS) if known is not None else None
    for name in names:
        if known is not None and name not in known:
            raise fail(path, f"no reference tokenizer is called {name!r}; one of {', '.join(sorted(known))}")
    if kind == "next_merge":  # cheap, so checked now; tokenizers load when the step is first shown
        try:
            answer_key(q)
        except TokenizerError as err:
            raise fail(path, str(err)) from None
    return q


def _str(raw: Mapping[str, Any], name: str, fail: Callable[[tuple, str], Exception], path: tuple) -> str:
    value = raw.get(name)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail(path + (name,), "must be text")
    return str(value)
