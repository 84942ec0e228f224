"""Type stubs of nbayes._native, the compiled text kernels (src/native/module.cpp)."""

from collections.abc import Sequence
from typing import Any, NewType

import numpy as np

DocSet = NewType("DocSet", object)
Run = NewType("Run", object)
Lookup = NewType("Lookup", object)
_A = np.ndarray[Any, Any]

def doc_set(docs: Sequence[str], lowercase: bool, /) -> tuple[DocSet, _A]: ...
def run_new(n_classes: int, small: bool, expect: int = ..., /) -> Run: ...
def run_count(
    run: Run, docs: DocSet, lo: int, hi: int, y: _A, tlow: _A, tid: _A, binary: bool, /
) -> None: ...
def run_reserve(run: Run, expect: int, /) -> None: ...
def run_terms(run: Run, /) -> int: ...
def run_finish(run: Run, /) -> tuple[_A, _A, _A, _A, _A, _A, _A, int, _A, _A]: ...
def sort_terms(pool: _A, tstart: _A, tlen: _A, /) -> tuple[_A, _A, int, _A, _A]: ...
def prefix_keys(pool: _A, tstart: _A, tlen: _A, /) -> _A: ...
def split_sorted(
    pool: _A, tstart: _A, tlen: _A, keys: _A, order: _A, bounds: _A, n_pieces: int, /
) -> _A: ...
def merge_piece(
    pool: _A,
    tstart: _A,
    tlen: _A,
    keys: _A,
    order: _A,
    starts: _A,
    ends: _A,
    pkeys: _A,
    plen: _A,
    low: int,
    /,
) -> tuple[_A, int]: ...
def fill_blob(pool: _A, tstart: _A, tlen: _A, sel: _A, blob: _A, o: int, sep: int, /) -> None: ...
def fill_counts(
    counts: tuple[_A, ...],
    df: tuple[_A, ...],
    sel: _A,
    n_classes: int,
    out: _A,
    out_df: _A,
    col0: int,
    /,
) -> None: ...
def build_lookup(docs: DocSet, cols: _A, tid: _A, /) -> Lookup: ...
def build_lookup_blob(blob: _A, cols: _A, tid: _A, /) -> Lookup: ...
def lookup_size(lookup: Lookup, /) -> tuple[int, int]: ...
def transform_run(
    docs: DocSet,
    lo: int,
    hi: int,
    tlow: _A,
    tid: _A,
    lookup: Lookup,
    n_cols: int,
    track: bool = ...,
    /,
) -> tuple[_A, _A, _A, _A]: ...
def count_one(doc: str, t: _A, lowercase: bool, lookup: Lookup, /) -> tuple[bool, _A, _A]: ...
def hash_run(
    docs: DocSet,
    rows: _A,
    tlow: _A,
    tid: _A,
    binary: bool,
    n_features: int,
    fc: _A,
    aux: _A,
    stop: Lookup | None,
    /,
) -> int: ...
def hash_transform_run(
    docs: DocSet,
    lo: int,
    hi: int,
    tlow: _A,
    tid: _A,
    n_features: int,
    alternate: bool,
    stop: Lookup | None,
    /,
) -> tuple[_A, _A, _A]: ...
def intern_run(
    buf: _A,
    spans: _A,
    is_word: _A,
    slots: _A,
    thash: _A,
    tstart: _A,
    tlen: _A,
    is_stop: _A,
    pool: _A,
    counters: _A,
    tok: _A,
    ptr: _A,
    pos: _A,
    /,
) -> int: ...
def rehash(slots: _A, thash: _A, n_terms: int, /) -> None: ...
def pair_ids(tok: _A, ptr: _A, /) -> tuple[_A, _A, _A, _A]: ...
def first_occurrence(
    tok: _A,
    ptr: _A,
    ptok: _A,
    pptr: _A,
    n_uni: int,
    n_pair: int,
    use_uni: bool,
    use_pair: bool,
    /,
) -> tuple[_A, int]: ...
def build_rows(
    tok: _A,
    ptr: _A,
    ptok: _A,
    pptr: _A,
    n_uni: int,
    use_uni: bool,
    use_pair: bool,
    col: _A,
    n_cols: int,
    /,
) -> tuple[_A, _A, _A]: ...
def stream_class_sums(
    tok: _A,
    ptr: _A,
    ptok: _A,
    pptr: _A,
    n_uni: int,
    use_uni: bool,
    use_pair: bool,
    col: _A,
    n_cols: int,
    y: _A,
    n_classes: int,
    binary: bool,
    as_float: bool,
    /,
) -> tuple[_A, _A]: ...
def ngram_blob(
    pool: _A, tstart: _A, tlen: _A, n_uni: int, first: _A, second: _A, ids: _A, /
) -> _A: ...
def order_rows(indptr: _A, indices: _A, values: _A, key: _A, lo: int, hi: int, /) -> None: ...
def rows_dot(indptr: _A, indices: _A, data: _A, W: _A, out: _A, lo: int, hi: int, /) -> None: ...
def word_table() -> _A: ...
def char_table(lowercase: bool, /) -> _A: ...
def cancel() -> None: ...
def reset_cancel() -> None: ...
