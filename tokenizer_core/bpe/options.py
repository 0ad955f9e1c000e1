"""The options of a BPE model as types: the merge rank rule (:class:`MergeRanks`) and every
setting of the encoder in one frozen value (:class:`BpeModelOptions`), read from and written to
JSON in one place.

``MergeRanks`` is a ``str`` enum, so saved files keep the strings ``"merges"``/``"tokens"`` and
code comparing with those strings keeps working.

>>> MergeRanks("tokens") is MergeRanks.TOKENS, MergeRanks.TOKENS == "tokens"
(True, True)
>>> opts = BpeModelOptions.from_json({"unk_token": "[UNK]", "merge_ranks": "merges", "fuse_unk": 1})
>>> opts.merge_ranks, opts.fuse_unk, opts.continuing_subword_prefix
(<MergeRanks.MERGES: 'merges'>, True, None)
>>> BpeModelOptions(end_of_word_suffix="</w>", suffix_as_symbol=True).to_json()["merge_ranks"]
'merges'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError


class MergeRanks(str, Enum):
    """How a BPE model ranks the pairs it may merge.

    ``MERGES``: a pair's rank is its position in the merge list (GPT-2 files, ``tokenizers``,
    our trainer). ``TOKENS``: a pair's rank is the id of the token it spells, and any two tokens
    whose concatenation is a token may merge (``tiktoken``'s rule).
    """

    MERGES = "merges"
    TOKENS = "tokens"

    @classmethod
    def parse(cls, value: Union["MergeRanks", str]) -> "MergeRanks":
        """The member for ``value`` (a member or its string), or a :class:`TokenizerError` naming the choices.

        >>> MergeRanks.parse("merges")
        <MergeRanks.MERGES: 'merges'>
        """
        try:
            return cls(value)
        except ValueError:
            choices = " or ".join(repr(m.value) for m in cls)
            raise TokenizerError(f"merge_ranks must be {choices}, got {value!r}") from None


def _flag(name: str, value: object) -> bool:
    # JSON files written by hand hold 0/1 as often as false/true; anything else is a mistake.
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise TokenizerError(f"{name} must be true or false, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class BpeModelOptions:
    """Everything besides vocabulary and merges that decides how a BPE model encodes.

    ``unk_token`` replaces characters missing from the vocabulary (without one they are
    dropped, as ``tokenizers`` does); ``fuse_unk`` joins runs of unknowns; ``byte_fallback``
    spells unknown characters as ``<0xNN>`` byte tokens when those exist; ``ignore_merges``
    returns a piece found whole in the vocabulary as one token (tiktoken does this).
    ``continuing_subword_prefix``/``end_of_word_suffix`` decorate the first symbols of a word
    as in training (``##a``, ``w</w>``; an empty string means none); with ``suffix_as_symbol``
    the suffix is a symbol of its own after the last character (``l o w </w>``, Sennrich et
    al.'s Algorithm 1), which ``tokenizers`` cannot express. ``merge_ranks``: see :class:`MergeRanks`.

    >>> BpeModelOptions(merge_ranks="tokens", ignore_merges=True).merge_ranks
    <MergeRanks.TOKENS: 'tokens'>
    """

    unk_token: Optional[str] = None
    continuing_subword_prefix: Optional[str] = None
    end_of_word_suffix: Optional[str] = None
    fuse_unk: bool = False
    byte_fallback: bool = False
    ignore_merges: bool = False
    merge_ranks: MergeRanks = MergeRanks.MERGES
    suffix_as_symbol: bool = False

    def __post_init__(self) -> None:
        # Frozen: normalised values are written once, here, so every reader sees one spelling.
        set_ = object.__setattr__
        for name in ("unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TokenizerError(f"{name} must be a string or None, got {value!r}")
        set_(self, "continuing_subword_prefix", self.continuing_subword_prefix or None)
        set_(self, "end_of_word_suffix", self.end_of_word_suffix or None)
        for name in ("fuse_unk", "byte_fallback", "ignore_merges", "suffix_as_symbol"):
            set_(self, name, _flag(name, getattr(self, name)))
        set_(self, "merge_ranks", MergeRanks.parse(self.merge_ranks))
        if self.merge_ranks is MergeRanks.TOKENS and (self.continuing_subword_prefix or self.end_of_word_suffix):
            raise TokenizerError("merge_ranks='tokens' derives merges from the vocabulary; give no prefix or suffix")
        if self.suffix_as_symbol and self.end_of_word_suffix is None:
            raise TokenizerError("suffix_as_symbol needs an end_of_word_suffix such as '</w>'")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "BpeModelOptions":
        """The options stored in a model's JSON (ours or ``tokenizers``' ``"model"`` object);
        missing keys take their defaults, so older files without ``merge_ranks`` still load."""
        return cls(
            unk_token=data.get("unk_token"),
            continuing_subword_prefix=data.get("continuing_subword_prefix"),
            end_of_word_suffix=data.get("end_of_word_suffix"),
            fuse_unk=data.get("fuse_unk") or False,
            byte_fallback=data.get("byte_fallback") or False,
            ignore_merges=data.get("ignore_merges") or False,
            merge_ranks=data.get("merge_ranks", MergeRanks.MERGES.value),
            suffix_as_symbol=data.get("suffix_as_symbol") or False,
        )

    def hf_json(self) -> dict[str, Any]:
        """The keys ``tokenizers``' BPE model shares with us, as its ``tokenizer.json`` writes them."""
        return {
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
        }

    def to_json(self) -> dict[str, Any]:
        """Every option, for our own format (the rank rule as its plain string)."""
        return {"merge_ranks": self.merge_ranks.value, "suffix_as_symbol": self.suffix_as_symbol, **self.hf_json()}
