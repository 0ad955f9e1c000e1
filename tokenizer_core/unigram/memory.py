"""Give large freed arrays back to the operating system at once (glibc only), for training's peak.

Unigram training makes and frees many numpy arrays of a few MB. glibc's malloc serves a block
of 128 KiB or more with its own ``mmap`` (returned to the system on ``free``), but after such a
block is freed it raises that threshold to the block's size, up to 32 MiB, so later arrays of a
few MB come from the heap, whose freed middle is kept by the process: resident memory keeps the
high-water mark of every phase (about 10 MB more on 1 MB of Japanese). Fixing the threshold at
4 MiB keeps the large arrays on ``mmap`` (1 MiB saves a few MB more but its extra ``mmap`` calls
cost 10% more training time; 4 MiB costs about 0.3 s in 8); small objects are unaffected. The setting is process-wide
and stays (glibc cannot go back to its sliding threshold), which only means that big blocks keep
being returned when freed. Elsewhere (macOS, Windows, musl) this does nothing.

Arrays under that threshold come from the heap, whose freed pages stay resident until
:func:`return_free_memory` hands them back (``malloc_trim``): training calls it between phases
and EM steps, where the next phase would otherwise start on top of the last one's garbage.

>>> keep_large_blocks_returnable() in (True, False)
True
>>> return_free_memory() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_MMAP_THRESHOLD = -3  # mallopt parameter number in glibc's malloc.h
_THRESHOLD_BYTES = 4 << 20
_done: list[bool] = []
_trim: list = []  # glibc's malloc_trim, once found (an empty list: not looked up yet)


def keep_large_blocks_returnable() -> bool:
    """Fix glibc's ``mmap`` threshold at 4 MiB (once per process); whether it is set."""
    if _done:
        return _done[0]
    ok = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            mallopt = getattr(libc, "mallopt", None)  # glibc has it; musl has none
            ok = bool(mallopt is not None and mallopt(_M_MMAP_THRESHOLD, _THRESHOLD_BYTES) == 1)
        except OSError:
            ok = False
    _done.append(ok)
    return ok


def return_free_memory() -> bool:
    """Give the heap's free pages back to the operating system now (glibc); whether it could.

    Costs about a millisecond on training's heap of some 50 MB: cheap between phases.
    """
    if not _trim:
        trim = None
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                trim = getattr(libc, "malloc_trim", None)
            except OSError:
                trim = None
        _trim.append(trim)
    trim = _trim[0]
    if trim is None:
        return False
    trim(0)
    return True
