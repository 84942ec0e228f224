"""The compiled merge of text statistics (merge_cells.hpp): the union of sorted
vocabularies in Python's str order, the sum of count tables given as cells, and the
argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import _native


def _packed(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in raw], out=offsets[1:])
    return np.frombuffer(b"".join(raw), dtype=np.uint8), offsets


def _union(*vocabularies: list[str]) -> tuple[list[str], list[int]] | None:
    packed = [_packed(v) for v in vocabularies]
    got = _native.union_terms([p[0] for p in packed], [p[1] for p in packed])
    if got is None:
        return None
    data, offsets, cols = got
    raw = data.tobytes()
    terms = [
        raw[a:b].decode("utf-8", "surrogatepass")
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
    ]
    return terms, cols.tolist()


_TERM = st.text(st.characters(blacklist_categories=()), min_size=0, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sets(_TERM, max_size=30), min_size=1, max_size=9))
def test_the_union_is_pythons_sorted_union(sets: list[set[str]]) -> None:
    """Any code points (astral, lone surrogates, NUL, newlines, the empty term): UTF-8
    byte order is str order, and each term's column is its rank in the union."""
    vocabularies = [sorted(s) for s in sets]
    got = _union(*vocabularies)
    assert got is not None
    terms, cols = got
    expect = sorted(set().union(*sets))
    assert terms == expect
    rank = {t: i for i, t in enumerate(expect)}
    assert cols == [rank[t] for v in vocabularies for t in v]


def test_a_vocabulary_that_is_not_strictly_sorted_is_declined() -> None:
    assert _union(["a", "c"], ["b", "a"]) is None
    assert _union(["a", "a"]) is None  # a repeated term
    assert _union(["ab", "a"]) is None  # a prefix sorts first
    assert _union(["a", "b"], []) == (["a", "b"], [0, 1])
    assert _union([""], ["", "a"]) == (["", "a"], [0, 0, 1])  # the empty term


def test_union_terms_checks_its_arguments() -> None:
    data, offsets = _packed(["a", "bc"])
    with pytest.raises(ValueError, match="as many offsets"):
        _native.union_terms([data], [])
    with pytest.raises(ValueError, match="do not pack its 3 bytes"):
        _native.union_terms([data], [np.array([0, 1, 4])])
    with pytest.raises(ValueError, match="do not pack"):
        _native.union_terms([data], [np.array([], dtype=np.int64)])
    with pytest.raises(ValueError, match="decrease"):
        _native.union_terms([data], [np.array([0, 2, 1, 3])])
    with pytest.raises(ValueError, match="1-dimensional"):
        _native.union_terms([data.reshape(1, 3)], [offsets])


def test_sum_cells_adds_in_table_order_over_the_layout() -> None:
    # table 0: 2 rows x 2 columns, table 1: 1 row x 3 columns, into 3 rows x 4 columns
    t0 = (np.array([0, 3]), np.array([0.1, 2.0]), np.array([0, 2]), np.array([1, 3]))
    t1 = (np.array([0, 2]), np.array([0.2, 5.0]), np.array([0]), np.array([1, 2, 3]))
    t2 = (np.array([0]), np.array([0.3]), np.array([0]), np.array([1]))
    dense, index, values = _native.sum_cells([t0, t1, t2], 3, 4)
    table = dense.reshape(4, 3).T
    expect = np.zeros((3, 4))
    expect[0, 1] = (0.1 + 0.2) + 0.3  # the order of adding the tables one by one
    expect[2, 3] = 2.0
    expect[0, 3] = 5.0
    np.testing.assert_array_equal(table, expect)
    assert table[0, 1] == (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3)
    np.testing.assert_array_equal(index, [3, 9, 11])
    np.testing.assert_array_equal(values, dense[[3, 9, 11]])


def test_sum_cells_checks_its_arguments() -> None:
    rows, cols = np.array([0]), np.array([0, 1])
    ok = (np.array([0, 1]), np.array([1.0, 2.0]), rows, cols)
    _native.sum_cells([ok], 1, 2)
    with pytest.raises(ValueError, match="do not increase"):
        _native.sum_cells([(np.array([1, 0]), np.array([1.0, 2.0]), rows, cols)], 1, 2)
    with pytest.raises(ValueError, match="out of range"):
        _native.sum_cells([(np.array([0, 2]), np.array([1.0, 2.0]), rows, cols)], 1, 2)
    with pytest.raises(ValueError, match="out of range"):
        _native.sum_cells([(np.array([0, 1]), np.array([1.0, 2.0]), rows, np.array([0, 2]))], 1, 2)
    with pytest.raises(ValueError, match="2 indices and 1 values"):
        _native.sum_cells([(np.array([0, 1]), np.array([1.0]), rows, cols)], 1, 2)
    with pytest.raises(ValueError, match="bad shape"):
        _native.sum_cells([], -1, 2)
    with pytest.raises(TypeError):
        _native.sum_cells([(np.array([0]),)], 1, 2)
    dense, index, values = _native.sum_cells([], 2, 3)
    assert dense.shape == (6,) and not dense.any() and index.size == values.size == 0


def test_nonzero_cells_is_flatnonzero() -> None:
    rng = np.random.default_rng(0)
    flat = rng.integers(0, 3, 10_000) * rng.random(10_000)
    flat[5] = np.nan
    index, values = _native.nonzero_cells(flat)
    np.testing.assert_array_equal(index, np.flatnonzero(flat))
    np.testing.assert_array_equal(values, flat[np.flatnonzero(flat)])
    with pytest.raises(ValueError, match="1-dimensional"):
        _native.nonzero_cells(np.zeros((2, 2)))
