"""Huge-page backed scratch arrays: same contents as numpy's, any size."""

from __future__ import annotations

import numpy as np
import pytest

from nbayes._memory import HUGE_MIN_BYTES, huge_empty, huge_full


@pytest.mark.parametrize(
    "n_bytes", [0, 8, 4096, HUGE_MIN_BYTES - 8, HUGE_MIN_BYTES, 3 * HUGE_MIN_BYTES + 24]
)
@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.uint32, np.int32, np.float64])
def test_huge_arrays_hold_what_numpy_would(n_bytes: int, dtype: type) -> None:
    like = np.zeros(0, dtype=dtype)
    n = n_bytes // like.itemsize
    a = huge_full(n, 7, like)
    assert a.dtype == like.dtype and a.shape == (n,) and a.flags.c_contiguous
    assert (a == 7).all()
    b = huge_empty(n, like)
    assert b.dtype == like.dtype and b.shape == (n,)
    b[:] = np.arange(n, dtype=dtype)  # writable, every page
    np.testing.assert_array_equal(b, np.arange(n, dtype=dtype))


def test_big_arrays_start_on_a_huge_page_boundary() -> None:
    like = np.zeros(0, dtype=np.uint32)
    a = huge_empty(HUGE_MIN_BYTES // 4 + 3, like)
    assert a.ctypes.data % (1 << 21) == 0
    small = huge_empty(100, like)
    assert small.shape == (100,)
