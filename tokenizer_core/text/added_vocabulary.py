r"""Added tokens ("added_tokens" of a tokenizer.json): their ids, and finding them in text as ``tokenizers`` does.

An added token is matched in the text before the model sees it. Its flags say how:
``normalized`` tokens are looked for in the normalized text (as their own normalized form),
the others in the raw text; ``single_word`` only matches between non-word characters;
``lstrip``/``rstrip`` take the white space on that side into the token; ``special`` tokens are
left out of decoding with ``skip_special_tokens``. At one position the longest token wins,
and the leftmost match first (Aho-Corasick's leftmost-longest, as ``tokenizers``).

Ids follow ``tokenizers`` too (the ids written in a file are not read): a token the model
knows keeps the model's id; the others get the next free id after the model's vocabulary,
in the order they are listed.

>>> vocab = AddedVocabulary([AddedToken("<mask>", special=True, lstrip=True), AddedToken("yo")],
...                         model_ids={"a": 0, "b": 1}.get, model_size=2)
>>> [(a.content, i) for a, i in vocab.entries]
[('<mask>', 2), ('yo', 3)]
>>> [(s, e, m and m[0].content) for s, e, m in vocab.split("hi  <mask>yo", normalized=False)]
[(0, 2, None), (2, 10, '<mask>'), (10, 12, None)]
>>> [(s, e, m and m[0].content) for s, e, m in vocab.split("yo!", normalized=True)]
[(0, 2, 'yo'), (2, 3, None)]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from itertools import accumulate
from typing import Any, Optional

import regex

from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.patterns import WHITE_SPACE

_FLAGS = ("special", "single_word", "lstrip", "rstrip", "normalized")
# Word characters as tokenizers' single_word test counts them (Rust regex's \w).
_WORD = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")

Entry = tuple["AddedToken", int]
Split = tuple[int, int, Optional[Entry]]


@dataclass(frozen=True)
class AddedToken:
    """One added token and its matching flags (``normalized`` defaults to ``not special``).

    >>> AddedToken("[MASK]", special=True).normalized
    False
    """

    content: str
    special: bool = False
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: Optional[bool] = None

    def __post_init__(self) -> None:
        if not isinstance(self.content, str) or not self.content:
            raise TokenizerError(f"an added token needs a non-empty string content, got {self.content!r:.40}")
        for flag in _FLAGS:
            value = getattr(self, flag)
            if value is not None and not isinstance(value, bool):
                raise TokenizerError(f"added token {self.content!r}: {flag} must be true or false, got {value!r:.20}")
        if self.normalized is None:
            object.__setattr__(self, "normalized", not self.special)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AddedToken":
        """From a tokenizer.json ``added_tokens`` entry (its ``id`` is ignored, as tokenizers does)."""
        if not isinstance(data, Mapping):
            raise TokenizerError(f"an added token must be an object, got {data!r:.60}")
        return cls(data.get("content"), **{f: data[f] for f in _FLAGS if f in data})  # type: ignore[arg-type]


def _next_id(assigned: Iterable[int], model_size: int) -> int:
    # tokenizers: after the model's vocabulary, or after the largest added id when that is past it.
    top = max(assigned, default=None)
    if top is None:
        return model_size
    return top + 1 if top >= model_size or model_size == 0 else model_size


_TRIE_MAX = 200


def trie_pattern(words: Iterable[str]) -> str:
    """A regex matching the longest of ``words`` that starts at a position: the words as a trie of
    nested groups, each ending optional and greedy. At a position the text picks one path down the
    trie, so the match is the deepest word on it, as an alternation longest first would give; but
    Python's ``re`` walks a trie in a step per character, where an alternation of Gemma's 6,415 added
    tokens tried each one in turn (1.7 s for a MB of text, against 0.01 s).

    >>> [m.group() for m in re.finditer(trie_pattern(["ab", "abcd", "b", "x"]), "abcdabcxb")]
    ['abcd', 'ab', 'x', 'b']

    Words over :data:`_TRIE_MAX` characters (a trie that deep would nest past what the regex
    compiler takes) make the plain alternation, longest first.
    """
    words = list(words)
    if max(map(len, words), default=0) > _TRIE_MAX:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # the end of a word ("" is never a character)

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


class AddedVocabulary:
    """Added tokens with ids, and the splitting of text at them."""

    def __init__(self, tokens: Iterable[AddedToken], *, model_ids: Callable[[str], Optional[int]],
                 model_size: int) -> None:
        self._by_content: dict[str, Entry] = {}
        for tok in tokens:
            old = self._by_content.get(tok.content)
            if old is not None:  # listed again: the new flags win, the id stays
                self._by_content[tok.content] = (tok, old[1])
                continue
            tid = model_ids(tok.content)
            if tid is None:
                tid = _next_id((i for _, i in self._by_content.values()), model_size)
            self._by_content[tok.content] = (tok, tid)
        self.entries: list[Entry] = list(self._by_content.values())
        self._by_id = {i: t.content for t, i in self.entries}
        self.special_ids = frozenset(i for t, i in self.entries if t.special)
        #: Decoding skips tokens whose text is one of these (tokenizers compares text, not ids).
        self.special_contents = frozenset(t.content for t, _ in self.entries if t.special)
        self._forms: dict[int, tuple[Any, dict[int, str]]] = {}  # id(normalizer) -> (normalizer, id -> form)
        # (normalized?, skip special?, id(normalizer)) -> (normalizer, matcher)
        self._matchers: dict[tuple[bool, bool, int], tuple[Any, Any]] = {}
        self._cutters: dict[tuple[bool, bool], Any] = {}
        self._has: dict[tuple[bool, bool], bool] = {}  # has_tokens' answers
        self._nul: dict[int, tuple[Any, bool]] = {}  # id(matcher table) -> (table, does a token hold NUL?)  # (normalized?, skip special?) -> cutter or None

    def _matcher(self, *, normalized: bool, skip_special: bool,
                 normalizer: Any) -> Optional[tuple[Any, dict[str, Entry]]]:
        key = (normalized, skip_special, id(normalizer) if normalized else 0)
        cached = self._matchers.get(key)
        if cached is not None and (not normalized or cached[0] is normalizer):
            return cached[1]
        table: dict[str, Entry] = {}
        forms = self._normalized_forms(normalizer) if normalized else {}
        for tok, tid in self.entries:
            if tok.normalized != normalized or (skip_special and tok.special):
                continue
            # Normalized tokens are looked for as the normalizer writes them ("BAR" -> "bar").
            pattern = forms.get(tid, tok.content)
            if pattern:
                table.setdefault(pattern, (tok, tid))
        matcher = None
        if table:
            matcher = (re.compile(trie_pattern(table)), table)
        self._matchers[key] = (normalizer, matcher)
        return matcher

    def _holds_nul(self, matcher: tuple[Any, dict[str, Entry]]) -> bool:
        """Whether a token of ``matcher`` holds NUL (then texts joined by NUL are searched one by one)."""
        table = matcher[1]
        cached = self._nul.get(id(table))
        if cached is None or cached[0] is not table:
            cached = self._nul[id(table)] = (table, any("\0" in t for t in table))
        return cached[1]

    def _normalized_forms(self, normalizer: Any) -> dict[int, str]:
        """id -> the normalized text of each ``normalized`` token (what is matched and shown)."""
        if normalizer is None:
            return {}
        cached = self._forms.get(id(normalizer))
        if cached is None or cached[0] is not normalizer:
            forms = {i: normalizer.normalize_str(t.content) for t, i in self.entries if t.normalized}
            cached = self._forms[id(normalizer)] = (normalizer, forms)
        return cached[1]

    # ------------------------------------------------------------------ lookups
    def id_to_token(self, token_id: int, *, normalizer: Any = None) -> Optional[str]:
        """The token text of an added id; a ``normalized`` token reads as the normalizer writes
        it ("NEWWORD" as "newword"), as in tokenizers."""
        content = self._by_id.get(token_id)
        if content is None or normalizer is None:
            return content
        return self._normalized_forms(normalizer).get(token_id, content)

    def token_to_id(self, token: str) -> Optional[int]:
        entry = self._by_content.get(token)
        return None if entry is None else entry[1]

    def __len__(self) -> int:
        return len(self.entries)

    def to_hf(self) -> list[dict[str, Any]]:
        """The ``added_tokens`` list of a tokenizer.json (sorted by id, as tokenizers writes it)."""
        return [{"id": i, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                 "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special}
                for t, i in sorted(self.entries, key=lambda e: e[1])]

    # ---------------------------------------------------------------- splitting
    def has_tokens(self, *, normalized: bool, skip_special: bool = False) -> bool:
        """Whether any added token of that kind exists (``normalized``: matched in normalized text).

        >>> AddedVocabulary([AddedToken("<|x|>", special=True)], model_ids=lambda t: None,
        ...                 model_size=5).has_tokens(normalized=True)
        False
        """
        key = (normalized, skip_special)
        found = self._has.get(key)
        if found is None:  # asked on every encoding call; Gemma 3 has 6,415 added tokens
            found = self._has[key] = any(t.normalized == normalized and not (skip_special and t.special)
                                         for t, _ in self.entries)
        return found

    def may_match(self, texts: list[str], *, normalized: bool, normalizer: Any = None,
                  skip_special: bool = False) -> bool:
        """Whether any added token (of the kind :meth:`split` looks for) occurs in any of ``texts``:
        one search over them all, so that a batch without added tokens skips :meth:`split`.

        >>> v = AddedVocabulary([AddedToken("<|x|>", special=True)], model_ids=lambda t: None, model_size=5)
        >>> v.may_match(["a", "b<|x|>"], normalized=False), v.may_match(["a <|", "x|>"], normalized=False)
        (True, False)
        """
        matcher = self._matcher(normalized=normalized, skip_special=skip_special, normalizer=normalizer)
        if matcher is None:
            return False
        # No added token spans a separator between two texts: a token holding NUL is looked for per text.
        if self._holds_nul(matcher):
            return any(matcher[0].search(t) for t in texts)
        return matcher[0].search("\0".join(texts)) is not None

    def texts_matching(self, texts: list[str], *, normalized: bool, normalizer: Any = None,
                       skip_special: bool = False) -> set[int]:
        """The indices of ``texts`` in which an added token (of that kind) occurs: one search over them
        all, each match placed by where its text starts (a batch's few lines holding a special token
        are found without a search per line).

        >>> v = AddedVocabulary([AddedToken("<|x|>", special=True)], model_ids=lambda t: None, model_size=5)
        >>> sorted(v.texts_matching(["a", "b<|x|>", "", "<|x|><|x|>", "<|", "x|>"], normalized=False))
        [1, 3]
        """
        matcher = self._matcher(normalized=normalized, skip_special=skip_special, normalizer=normalizer)
        if matcher is None:
            return set()
        if self._holds_nul(matcher):
            return {i for i, t in enumerate(texts) if matcher[0].search(t)}
        found = [m.start() for m in matcher[0].finditer("\0".join(texts))]
        if not found:  # the usual batch: no line holds one, and no line's start is needed
            return set()
        starts = list(accumulate(map(len, texts[:-1]), lambda total, n: total + n + 1, initial=0))
        return {bisect_right(starts, at) - 1 for at in found}

    def split(self, text: str, *, normalized: bool, normalizer: Any = None,
              skip_special: bool = False) -> list[Split]:
        """``(start, end, entry)`` pieces covering ``text``: added-token matches (with the white
        space they strip) and the text between them (entry None). ``normalized`` picks the
        tokens matched in normalized text; ``skip_special`` ignores special tokens."""
        matcher = self._matcher(normalized=normalized, skip_special=skip_special, normalizer=normalizer)
        if matcher is None or not text:
            return [(0, len(text), None)] if text else []
        compiled, table = matcher
        out: list[Split] = []
        prev = 0
        for m in compiled.finditer(text):
            entry = table[m.group()]
            tok = entry[0]
            start, stop = m.span()
            if tok.single_word and ((start > 0 and _WORD.match(text[start - 1]))
                                    or (stop < len(text) and _WORD.match(text[stop]))):
                continue
            if tok.lstrip:
                while start > prev and text[start - 1] in WHITE_SPACE:
                    start -= 1
            if tok.rstrip:
                while stop < len(text) and text[stop] in WHITE_SPACE:
                    stop += 1
            start = max(start, prev)  # the previous token's rstrip may have taken our start
            if stop <= start:
                continue
            if start > prev:
                out.append((prev, start, None))
            out.append((start, stop, entry))
            prev = stop
        if prev < len(text):
            out.append((prev, len(text), None))
        return out

    def cut(self, text: str, *, normalized: bool, skip_special: bool = False) -> Optional[tuple[list[str], list[int]]]:
        """:meth:`split` as two lists, for a kernel that takes the parts whole: the text cut at its
        added tokens (text, token, text, ..., text, the texts possibly empty) and the tokens' ids.
        None where a token strips white space or matches single words (only :meth:`split` knows
        those), for ``normalized`` tokens (they need the normalizer) or with no token to look for.

        >>> vocab = AddedVocabulary([AddedToken("\\n", normalized=False), AddedToken("<b>", special=True)],
        ...                         model_ids={"a": 0}.get, model_size=1)
        >>> vocab.cut("a\\n\\n<b>", normalized=False)
        (['a', '\\n', '', '\\n', '', '<b>', ''], [1, 1, 2])
        """
        key = (normalized, skip_special)
        if key not in self._cutters:
            self._cutters[key] = None
            matcher = None if normalized else self._matcher(normalized=False, skip_special=skip_special,
                                                             normalizer=None)
            if matcher is not None and not any(t.lstrip or t.rstrip or t.single_word for t, _ in matcher[1].values()):
                # One group around the matcher: re.split then keeps the tokens (the same leftmost-longest
                # matches as split's finditer), and the loop runs in C.
                self._cutters[key] = (re.compile(f"({matcher[0].pattern})"),
                                      {text: tid for text, (_, tid) in matcher[1].items()})
        cutter = self._cutters[key]
        if cutter is None:
            return None
        parts = cutter[0].split(text)
        return parts, list(map(cutter[1].__getitem__, parts[1::2]))
