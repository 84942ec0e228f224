"""Huge-page backed scratch arrays: same contents as numpy's, any size."""

from __future__ import annotations

import numpy as np
import pytest

from nbayes._memory import HUGE_MIN_BYTES, advise, huge_empty, huge_full


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


def test_advise_returns_the_same_array_unchanged() -> None:
    a = np.arange(HUGE_MIN_BYTES // 8 + 5, dtype=np.int64)
    out = advise(a)
    assert out is not None
    np.testing.assert_array_equal(out, np.arange(HUGE_MIN_BYTES // 8 + 5))
    assert out.ctypes.data == a.ctypes.data
