# mypy: disallow-untyped-defs=False
"""Large scratch arrays for the compiled kernels, backed by transparent huge pages.

A kernel that allocates a table of several MB and then touches every page of it pays
one page fault per 4 KiB: ~1.5 us each on the virtual machines we measured, i.e. ~15 ms
for 40 MB (a first 20 Newsgroups fit in a fresh process made 17k faults). Asking the
kernel for huge pages (``madvise(MADV_HUGEPAGE)``, as numpy does for its own arrays of
4 MB or more) makes that 2 MiB per fault: 40 MB then cost 4 ms.

:func:`huge_empty` is :func:`numpy.empty` for such arrays: from :data:`HUGE_MIN_BYTES` on,
the array starts on a 2 MiB boundary of a slightly longer buffer and its pages are advised
before anything touches them. Elsewhere than Linux the advice is compiled to nothing.
"""

from __future__ import annotations

import sys

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["huge_empty", "huge_full"]

#: Arrays from this size on are placed on huge pages.
HUGE_MIN_BYTES = 1 << 20
_HUGE_PAGE = 1 << 21
_MADV_HUGEPAGE = 14
_LINUX = sys.platform.startswith("linux")


@intrinsic
def _advise_huge(typingctx, addr, length):  # pragma: no cover - compiled
    """``madvise(addr, length, MADV_HUGEPAGE)`` on Linux; nothing elsewhere."""
    sig = types.void(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        if _LINUX:
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(i32, [i8p, ir.IntType(64), i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "madvise")
            builder.call(fn, [builder.inttoptr(args[0], i8p), args[1], i32(_MADV_HUGEPAGE)])
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(cache=True, nogil=True)
def huge_empty(n, like):
    """An uninitialised 1-d array of ``n`` elements of ``like``'s dtype. From
    :data:`HUGE_MIN_BYTES` on it starts on a 2 MiB boundary and all its pages are huge
    (it is a view of a buffer up to 4 MiB longer; the padding is never touched)."""
    isz = like.itemsize
    if n * isz < HUGE_MIN_BYTES:
        return np.empty(n, dtype=like.dtype)
    pad = 2 * _HUGE_PAGE // isz
    buf = np.empty(n + pad, dtype=like.dtype)
    start = (buf.ctypes.data + _HUGE_PAGE - 1) & ~(_HUGE_PAGE - 1)
    span = (n * isz + _HUGE_PAGE - 1) & ~(_HUGE_PAGE - 1)
    _advise_huge(start, span)
    off = (start - buf.ctypes.data) // isz
    return buf[off : off + n]


@nb.njit(cache=True, nogil=True)
def huge_full(n, value, like):
    """:func:`huge_empty` with every element set to ``value``."""
    a = huge_empty(n, like)
    a[:] = value
    return a
