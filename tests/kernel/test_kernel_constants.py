"""The integer codes Python passes into the kernel are the ones the kernel was compiled with.

kernels/src/codes.h defines them once; the module exports each under its C name, and
tokenizer_core/kernel/codes.py holds them as enums. A code changed on one side only fails
here, not silently in a split that counts the wrong pieces.
"""

from __future__ import annotations

import re

import pytest

from tokenizer_core.kernel import native
from tokenizer_core.kernel.codes import (
    CASELESS_SHIFT,
    CharClass,
    ChunkRule,
    PieceSplit,
    SplitPattern,
    kernel_constants,
)

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled kernel is not installed")
_CODE_NAME = re.compile(r"(PAT|SPLIT|RULE|C)_[A-Z0-9_]+")


def test_every_python_code_equals_the_kernels_constant() -> None:
    k = native.kernel()
    exported = {name: getattr(k, name, None) for name in kernel_constants()}
    assert exported == kernel_constants()


def test_the_kernel_exports_no_code_python_lacks() -> None:
    exported = {name for name in dir(native.kernel()) if _CODE_NAME.fullmatch(name)}
    assert exported == set(kernel_constants())


def test_every_member_is_named_after_its_c_constant() -> None:
    names = {m.c_name for enum in (SplitPattern, PieceSplit, ChunkRule, CharClass) for m in enum}
    assert names == set(kernel_constants()) - {"C_CASELESS_SHIFT"}
    assert kernel_constants()["C_CASELESS_SHIFT"] == CASELESS_SHIFT


def test_the_kernel_refuses_a_code_outside_the_enums() -> None:
    k = native.kernel()
    with pytest.raises(ValueError, match="how must be"):
        k.PieceCounter(native.class_table(), 1)  # 1 is a gap in PieceSplit
    for how in PieceSplit:
        k.PieceCounter(native.class_table(), how)  # an IntEnum goes in as its int


def test_the_class_table_uses_the_flags() -> None:
    table = native.class_table()
    assert table[ord("a")] & 7 == CharClass.LETTER
    assert table[ord("7")] & 7 == CharClass.DIGIT
    assert table[ord(" ")] == CharClass.SPACE
    assert table[ord("_")] == CharClass.WORD
    assert (table[ord("S")] >> CASELESS_SHIFT) & 15 == 1  # "S" matches the first of "sdmtlver"
