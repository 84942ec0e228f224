"""Fuzz the compiled text kernels (nbayes._native) through their public entry points and
raw bindings, comparing every result with a pure-Python reference.

Not collected by pytest (no ``test_`` prefix). See tests/fuzz/README.md for the commands
(atheris under AddressSanitizer, or the ``--random`` driver that needs no atheris).

One fuzz input (bytes) is read as a recipe: which target, the documents (decoded so that
any code point U+0000-U+10FFFF appears, lone surrogates and NUL included), the settings,
and for the raw bindings which arguments to corrupt. A crash (ASan report, abort, signal)
is a finding; so is a result that differs from the reference (an AssertionError), a
SystemError, or a raw binding that raises anything but TypeError / ValueError /
OverflowError / MemoryError. RuntimeErrors from raw bindings are "soft findings": logged to
``$NBAYES_FUZZ_LOG`` (default ./fuzz_soft_findings.log) and the run goes on.

Known findings (tests/fuzz/repro_findings.py) are skipped unless ``--no-guards`` is given,
so that a long run keeps looking for new ones.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import random
import re
import sys
import time
import traceback
import types
from collections import Counter

import numpy as np

TOKEN = re.compile(r"(?u)\b\w\w+\b")
GUARDS = True
SOFT_LOG = os.environ.get("NBAYES_FUZZ_LOG", "fuzz_soft_findings.log")

# Characters that matter to the scanners: ASCII word/non-word, the latin-1 range (1-byte
# strings), the two code points the lowering table cannot handle, final sigma, titlecase,
# characters whose lowercase leaves their block, astral letters (4-byte strings), lone
# surrogates, NUL, the "\n" document separator of the copying path, noncharacters.
ALPHABET = list(
    "aAbBzZ09_ \t\n\x00-.'\u00b5\u00df\u00e0\u00c0\u00ff\u00aa\u00ba\u00d7\u00f7\u00a0"
    "\u0130\u0131\u03a3\u03c3\u03c2\u1e9e\u212a\u2126\u01c5\u01c4\u0345\u0300\u0301"
    "\u0660\u0669\u3000\u4e00\u00bd\u2160\u0101\u0178\u1f88\uff21\ufb03\ufffe\uffff"
    "\ud800\udbff\udc00\udfff"
) + [
    "\U00010400",
    "\U00010428",
    "\U0001d400",
    "\U0001f600",
    "\U0010ffff",
    "\U000e0001",
    "\U0001e900",
    "\U00020000",
]
SEPARATORS = [" ", "\x00", "\ud800", "\n", "-", "\u3000", "\U0001f600", "\udfff", "  "]
WORDCHARS = {
    "ascii": "abcXYZ019_",
    "latin1": "\u00e0\u00c0\u00df\u00ff\u00b5aZ",
    "bmp": "\u0101\u0100\u4e00\u03a3\u03c3\u0130\u1e9e\u212aa",
    "astral": "\U00010400\U00010428\U0001d400\U0001e900a\U00020000",
}


class Src:
    """Deterministic choices read from the fuzz input (zeros once it runs out)."""

    def __init__(self, data: bytes) -> None:
        self.d = data
        self.i = 0

    def left(self) -> int:
        return len(self.d) - self.i

    def byte(self) -> int:
        if self.i < len(self.d):
            self.i += 1
            return self.d[self.i - 1]
        return 0

    def int(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        span = hi - lo + 1
        nbytes = 1 if span <= 256 else 2 if span <= 65536 else 4
        v = 0
        for _ in range(nbytes):
            v = (v << 8) | self.byte()
        return lo + v % span

    def bool(self) -> bool:
        return self.byte() & 1 == 1

    def take(self, n: int) -> bytes:
        n = max(0, min(n, self.left()))
        out = self.d[self.i : self.i + n]
        self.i += n
        return out

    def choice(self, seq):
        return seq[self.int(0, len(seq) - 1)]


class Sub(str):
    """A str subclass (read in place by the kernels, skipped by exact-str fast paths)."""


# ---------------------------------------------------------------------------- documents


def make_doc(src: Src) -> str:
    mode = src.int(0, 6)
    if mode == 0:  # any code point: 4 bytes -> cp mod 0x110000 (surrogates included)
        b = src.take(4 * src.int(0, 64))
        raw = np.frombuffer(b[: len(b) // 4 * 4], dtype="<u4") % 0x110000
        return raw.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    if mode == 1:  # UTF-16 code units: lone surrogates everywhere
        b = src.take(2 * src.int(0, 64))
        return b[: len(b) // 2 * 2].decode("utf-16-le", "surrogatepass")
    if mode == 2:  # the hostile alphabet
        return "".join(src.choice(ALPHABET) for _ in range(src.int(0, 80)))
    if mode == 3:  # a short pattern repeated: long documents, > 4096 tokens per block
        pat = "".join(src.choice(ALPHABET) for _ in range(src.int(1, 12)))
        return pat * src.int(1, 6000)
    if mode == 4:  # token lengths around the packing limits (8, 16 code points)
        parts = []
        for _ in range(src.int(1, 12)):
            chars = WORDCHARS[src.choice(list(WORDCHARS))]
            L = src.choice([1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 64])
            parts.append("".join(src.choice(chars) for _ in range(L)))
            parts.append(src.choice(SEPARATORS))
        return "".join(parts)
    if mode == 5:  # 1-byte strings with high latin-1 characters
        return src.take(src.int(0, 80)).decode("latin-1")
    # mode 6: UTF-8 with surrogateescape (lone low surrogates U+DC80-U+DCFF)
    return src.take(src.int(0, 80)).decode("utf-8", "surrogateescape")


def make_docs(src: Src, lo: int = 1, hi: int = 10, subclass: bool = False) -> list[str]:
    """Documents; with ``subclass``, some are a str subclass (the public API takes exact
    str only, the kernels read any str)."""
    docs = [make_doc(src) for _ in range(src.int(lo, hi))]
    if subclass and src.int(0, 7) == 0:
        docs = [Sub(d) if src.bool() else d for d in docs]
    return docs


def toks(d: str, lowercase: bool) -> list[str]:
    return TOKEN.findall(str.lower(d) if lowercase else str(d))


# ------------------------------------------------------------------------------ targets


def t_direct_count(src: Src) -> None:
    from nbayes.text import _tokenize as tk

    docs = make_docs(src, subclass=True)
    C = src.int(1, 4)
    y = np.array([src.int(0, C - 1) for _ in docs], dtype=np.int64)
    lowercase, binary = src.bool(), src.bool()
    n_threads = src.int(1, 3)
    dtype = np.float64 if src.bool() else np.int64
    got = tk.direct_count(docs, y, C, lowercase, binary, n_threads=n_threads, dtype=dtype)
    assert got is not None
    want = [Counter() for _ in range(C)]
    df: Counter[str] = Counter()
    for d, c in zip(docs, y.tolist(), strict=True):
        row = Counter(toks(d, lowercase))
        df.update(row.keys())
        want[c].update({t: 1 for t in row} if binary else row)
    terms = sorted(df)
    assert list(got.terms) == terms, (list(got.terms)[:5], terms[:5])
    assert got.counts.shape == (C, len(terms))
    expect = np.array([[want[c][t] for t in terms] for c in range(C)]).reshape(C, len(terms))
    np.testing.assert_array_equal(got.counts, expect)
    np.testing.assert_array_equal(got.df, [df[t] for t in terms])


def t_direct_transform(src: Src) -> None:
    from nbayes.text import _tokenize as tk

    docs = make_docs(src, subclass=True)
    lowercase = src.bool()
    seen = sorted({t for d in docs for t in toks(d, lowercase)})
    keys = [t for t in seen if src.int(0, 3) != 0]
    for _ in range(src.int(0, 4)):  # strings no token can equal, and near misses
        keys.append(
            src.choice(
                [
                    "",
                    "a",
                    "a b",
                    "AB",
                    "x\x00y",
                    "\ud800",
                    "ab\n",
                    " ab",
                    "\u0130x",
                    "ΣΣ",
                    "\U0010ffff\U0010ffff",
                    "xx",
                ]
            )
        )
        if seen:
            keys.append(src.choice(seen).upper())
    keys = list(dict.fromkeys(keys))
    cols = list(range(len(keys)))
    random.Random(src.int(0, 1 << 16)).shuffle(cols)
    vocab: dict = dict(zip(keys, cols, strict=True))
    if src.int(0, 3) == 0:
        vocab = tk.FrozenVocabulary(vocab)
    stop = frozenset(t for t in seen if src.int(0, 5) == 0) if src.bool() else None
    first: list | None = [] if src.bool() else None
    n_threads = src.int(1, 3)
    for rnd in range(2 if type(vocab) is dict else 1):
        if rnd == 1:  # a mutated plain dict must not reuse the cached lookup table
            if not vocab:
                break
            victim = src.choice(list(vocab))
            col = vocab.pop(victim)
            if col != len(vocab):  # keep the columns 0..n-1
                moved = next(k for k, v in vocab.items() if v == len(vocab))
                vocab[moved] = col
            first = [] if first is not None else None
        got = tk.direct_transform(docs, vocab, lowercase, stop, n_threads=n_threads, first=first)
        assert got is not None
        indptr, indices, values = got
        assert len(indptr) == len(docs) + 1 and indptr[0] == 0
        order: list[int] = []
        done: set[int] = set()
        for i, d in enumerate(docs):
            row: Counter[int] = Counter()
            for t in toks(d, lowercase):
                if t in vocab and not (stop and t in stop):
                    c = vocab[t]
                    row[c] += 1
                    if c not in done:
                        done.add(c)
                        order.append(c)
            a, b = int(indptr[i]), int(indptr[i + 1])
            assert indices[a:b].tolist() == sorted(row), (i, indices[a:b].tolist(), sorted(row))
            assert values[a:b].tolist() == [row[c] for c in sorted(row)]
        if first is not None:
            got_first = np.concatenate(first).tolist() if first else []
            assert got_first == order, (got_first, order)


def t_hashing(src: Src) -> None:
    from sklearn.feature_extraction.text import HashingVectorizer

    from nbayes.text import hash_into, hashing_transform

    docs = make_docs(src)
    plain = [str(d) for d in docs]
    nf = src.choice([1, 2, 3, 7, 64, 1000, 2**16 + 1, 2**20])
    lowercase, binary, alt = src.bool(), src.bool(), src.bool()
    stop = src.choice([None, None, "english", ["ab", "the", "\u00e0\u00e0"]])
    X = hashing_transform(docs, n_features=nf, alternate_sign=alt, norm=None, binary=binary,
                          lowercase=lowercase, stop_words=stop)  # fmt: skip
    R = HashingVectorizer(n_features=nf, alternate_sign=alt, norm=None, binary=binary,
                          lowercase=lowercase, stop_words=stop).transform(plain)  # fmt: skip
    assert X.shape == R.shape
    assert abs(X - R).sum() == 0, "hashing_transform differs from HashingVectorizer"
    n_rows = src.int(1, 3)
    rows = np.array([src.int(0, n_rows - 1) for _ in docs], dtype=np.int64)
    sums = np.zeros((n_rows, nf))
    df = np.zeros(nf, dtype=np.int64)
    ok = hash_into(plain, rows, sums, df, n_features=nf, binary=binary, lowercase=lowercase,
                   stop_words=stop)  # fmt: skip
    assert ok
    R1 = HashingVectorizer(n_features=nf, alternate_sign=False, norm=None, binary=binary,
                           lowercase=lowercase, stop_words=stop).transform(plain)  # fmt: skip
    want = np.zeros((n_rows, nf))
    for i, r in enumerate(rows.tolist()):
        want[r] += R1[i].toarray()[0]
    np.testing.assert_array_equal(sums, want)
    np.testing.assert_array_equal(df, np.asarray((R1 > 0).sum(axis=0)).ravel())


def _ref_classifier(docs, y, ngram, lowercase):
    from sklearn.feature_extraction.text import CountVectorizer as SkCV
    from sklearn.naive_bayes import MultinomialNB

    cv = SkCV(lowercase=lowercase, ngram_range=ngram)
    X = cv.fit_transform([str(d) for d in docs])
    return cv, MultinomialNB(alpha=1.0).fit(X, y)


def t_classifier(src: Src) -> None:
    from nbayes.text import TextClassifier

    docs = [str(d) for d in make_docs(src, 2, 10)]  # TextClassifier takes exact str only
    test = [str(d) for d in make_docs(src, 1, 4)]
    ngram = src.choice([(1, 1), (1, 2), (1, 1), (2, 2)])
    lowercase = src.bool()
    n_cls = min(src.int(2, 3), len(docs))  # every class present
    y = np.array([i % n_cls for i in range(len(docs))])
    random.Random(src.int(0, 255)).shuffle(y)
    try:
        cv, nb = _ref_classifier(docs, y, ngram, lowercase)
    except ValueError:  # empty vocabulary: ours must fail cleanly or fit an empty one
        try:
            TextClassifier(ngram_range=ngram, lowercase=lowercase).fit(docs, y).predict(test)
        except ValueError:
            pass
        return
    clf = TextClassifier(ngram_range=ngram, lowercase=lowercase).fit(docs, y)
    names = cv.get_feature_names_out().tolist()
    assert clf.get_feature_names_out().tolist() == names
    np.testing.assert_array_equal(clf.feature_count_, nb.feature_count_)
    Xt = cv.transform([str(d) for d in test])
    np.testing.assert_allclose(clf.predict_log_proba(test), nb.predict_log_proba(Xt),
                               rtol=1e-9, atol=1e-9)  # fmt: skip
    one = clf.predict_log_proba(test[:1])  # the single-document path (count_one)
    np.testing.assert_allclose(one, nb.predict_log_proba(Xt[:1]), rtol=1e-9, atol=1e-9)
    # partial_fit in two batches = fit on everything (open vocabulary)
    k = src.int(1, len(docs) - 1)
    inc = TextClassifier(ngram_range=ngram, lowercase=lowercase)
    try:
        inc.partial_fit(docs[:k], y[:k], classes=np.arange(n_cls))
    except ValueError:
        return  # first batch without a term
    inc.partial_fit(docs[k:], y[k:])
    got = dict(zip(inc.get_feature_names_out().tolist(), inc.feature_count_.T.tolist(),
                   strict=True))  # fmt: skip
    want = dict(zip(names, nb.feature_count_.T.tolist(), strict=True))
    assert got == want, "partial_fit differs from fit"


def t_count_vectorizer(src: Src) -> None:
    from sklearn.feature_extraction.text import CountVectorizer as SkCV

    from nbayes.text import CountVectorizer

    docs = [str(d) for d in make_docs(src, 1, 10)]
    test = [str(d) for d in make_docs(src, 1, 3)]
    kw = dict(
        ngram_range=src.choice([(1, 1), (1, 2), (2, 2)]),
        lowercase=src.bool(),
        binary=src.bool(),
        stop_words=src.choice([None, None, "english", ["ab", "\u00e0\u00e0", "x"]]),
    )
    try:
        R = SkCV(**kw).fit(docs)
    except ValueError:
        try:
            CountVectorizer(**kw).fit_transform(docs)
        except ValueError:
            return
        raise AssertionError("sklearn found an empty vocabulary, nbayes did not") from None
    Xr = R.transform(docs)
    cv = CountVectorizer(**kw)
    X = cv.fit_transform(docs)
    assert cv.vocabulary_ == R.vocabulary_
    assert X.shape == Xr.shape and abs(X - Xr).sum() == 0
    assert abs(cv.transform(test) - R.transform(test)).sum() == 0


# ------------------------------------------------------------------ raw bindings

ALLOWED = (TypeError, ValueError, OverflowError, MemoryError)
# Integer arguments (many count or size something): extremes only. A value in
# 2**31..2**60 makes several bindings allocate (and zero) that many words: an ASan
# out-of-memory abort, and in a normal build the OOM killer (finding F7). INDEXES are
# for the elements of index arrays, which the bindings check against lengths.
SIZES = [-(2**63), -(2**31), -1, 0, 1, 2, 3, 5, 17, 255, 4096, 2**20, 2**62, 2**63 - 1]
INDEXES = [-(2**63), -(2**62), -(2**31), -1, 0, 1, 2, 3, 2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 1]


def mutate_array(a: np.ndarray, src: Src, others: list) -> object:
    k = src.int(0, 13)
    if k == 0:
        return a.astype(src.choice([np.float64, np.int32, np.uint8, np.int64, np.uint64,
                                    np.uint32, np.int8, bool]))  # fmt: skip
    if k == 1:
        return a[: src.int(0, max(0, a.shape[0] - 1))] if a.ndim and a.shape[0] else a
    if k == 2:
        return np.concatenate([a, a[:1]]) if a.ndim == 1 and a.size else a.ravel()
    if k == 3:
        return a[::2] if a.ndim else a
    if k == 4:
        return a.reshape(1, -1) if a.ndim == 1 else a.ravel()
    if k == 5:
        return src.choice([None, [1, 2], 3, "ab", object(), np.array(5), np.zeros((0, 0))])
    if k == 6 and a.size and a.dtype.kind in "iu":
        b = a.copy()
        idx = src.int(0, b.size - 1)
        info = np.iinfo(b.dtype)
        b.flat[idx] = max(info.min, min(info.max, src.choice(INDEXES)))
        return b
    if k == 7 and a.size and a.dtype.kind in "iuf":
        b = a.copy()
        b.flat[src.int(0, b.size - 1)] = -1 if b.dtype.kind != "u" else np.iinfo(b.dtype).max
        return b
    if k == 8 and a.size:
        b = a.copy()
        b.setflags(write=False)
        return b
    if k == 9 and others:
        return src.choice(others)  # aliasing another argument
    if k == 10 and a.size and a.dtype.kind in "iu":
        b = a.copy()
        rng = np.random.default_rng(src.int(0, 1 << 16))
        hi = max(2, int(abs(b.astype(np.float64)).max()) + 3) if b.size else 4
        b[...] = rng.integers(-2, min(hi, np.iinfo(b.dtype).max, 2**62), size=b.shape,
                              dtype=np.int64).astype(b.dtype, copy=False)  # fmt: skip
        return b
    if k == 11:
        return np.zeros(0, dtype=a.dtype)
    if k == 12 and a.ndim == 1:
        return np.lib.stride_tricks.as_strided(a, shape=(a.shape[0],), strides=(0,),
                                               writeable=False)  # fmt: skip
    return a[::-1] if a.ndim else a


def mutate(v: object, src: Src, others: list, caps: list) -> object:
    if isinstance(v, np.ndarray):
        return mutate_array(v, src, others)
    if isinstance(v, bool):
        return src.choice([not v, 2, None, "x"])
    if isinstance(v, int):  # no 2**31..2**60: see SIZES (and F7)
        return src.choice(SIZES + [2**64, -(2**64) - 1, 1.5, None])
    if isinstance(v, str):
        return src.choice([make_doc(src), b"ab", None, 3])
    if type(v).__name__ == "PyCapsule":
        return src.choice(caps + [None, 3, "x"])
    if isinstance(v, list | tuple):
        return src.choice([[1, 2], ["a", 3], None, (), [b"ab"], [make_doc(src)] * 3])
    return None


def baselines(docs: list[str], src: Src):
    """Valid arguments for every binding, from real outputs on ``docs``."""
    from nbayes import _native as N
    from nbayes.text import _tokenize as tk

    low = src.bool()
    tlow, tid = tk.char_table(low), tk.char_table(False)
    ds, lengths = N.doc_set(docs, low)
    n = len(docs)
    C = src.int(1, 3)
    y = np.array([i % C for i in range(n)], dtype=np.int64)
    run = N.run_new(C, True)
    N.run_count(run, ds, 0, n, y, tlow, tid, False)
    pool, tstart, tlen, counts, df, order, first, per, skeys, slen = N.run_finish(run)
    nt = len(tstart)
    bounds = np.array([0, nt], dtype=np.int64)
    cuts = N.split_sorted(pool, tstart, tlen, first, order, bounds, 2)
    sel, chars = N.merge_piece(pool, tstart, tlen, first, order, cuts[0], cuts[2], skeys, slen,
                               (1 << {8: 8, 4: 16, 3: 21}[per]) - 1)  # fmt: skip
    blob = np.zeros(chars, dtype=np.uint32)
    N.fill_blob(pool, tstart, tlen, sel, blob, 0, 10)
    out = np.zeros((len(sel), C), dtype=np.int64)
    out_df = np.zeros(len(sel), dtype=np.int64)
    cols = np.arange(nt, dtype=np.int64)
    lk = N.build_lookup_blob(blob[:-1] if len(blob) else blob, cols, tid)
    lk2 = N.build_lookup(ds, np.arange(n, dtype=np.int64), tid)
    _, buf, spans = tk.encode_corpus([str(d) for d in docs], low)
    st = tk.InternState(16)
    tok, ptr = st.scan(buf, spans)
    nu = st.n_terms
    ptok, pptr, f1, f2 = N.pair_ids(tok, ptr)
    col, ncols = N.first_occurrence(tok, ptr, ptok, pptr, nu, len(f1), True, True)
    ip, ind, val = N.build_rows(tok, ptr, ptok, pptr, nu, True, True, col, ncols)
    W = np.ones((max(ncols, 1), 2))
    it = st._table
    caps = [ds, lk, lk2, N.run_new(1, True), it]
    k_tok = np.zeros(max(16, len(buf)), dtype=np.int32)
    from nbayes.text._vocabulary import PackedTerms

    packed = PackedTerms.from_strings([str(d)[:8] for d in docs])  # maybe repeated terms
    pd_, po_ = np.ascontiguousarray(packed.data), packed.offsets
    pcols = np.arange(len(po_) - 1, dtype=np.int64)
    calls = {
        "packed_check": (N.packed_check, [pd_, po_]),
        "packed_sort": (N.packed_sort, [pd_, po_, pcols]),
        "build_lookup_packed": (N.build_lookup_packed, [pd_, po_, pcols, tid]),
        "doc_set": (N.doc_set, [docs, low]),
        "run_new": (N.run_new, [C, True, 0]),
        "run_count": (N.run_count, [N.run_new(C, src.bool()), ds, 0, n, y, tlow, tid, src.bool()]),
        "run_reserve": (N.run_reserve, [N.run_new(C, True), src.choice([0, 10, 5000])]),
        "run_terms": (N.run_terms, [run]),
        "run_finish": (N.run_finish, [N.run_new(C, True)]),
        "sort_terms": (N.sort_terms, [pool, tstart, tlen]),
        "prefix_keys": (N.prefix_keys, [pool, tstart, tlen]),
        "split_sorted": (N.split_sorted, [pool, tstart, tlen, first, order, bounds, 3]),
        "merge_piece": (
            N.merge_piece,
            [pool, tstart, tlen, first, order, cuts[0], cuts[2], skeys, slen, 255],
        ),
        "fill_blob": (N.fill_blob, [pool, tstart, tlen, sel, blob.copy(), 0, 10]),
        "fill_counts": (
            N.fill_counts,
            [(counts,), (df,), sel, C, out, out_df, 0, np.zeros(len(sel))],
        ),
        "build_lookup": (N.build_lookup, [ds, np.arange(n, dtype=np.int64), tid]),
        "build_lookup_blob": (N.build_lookup_blob, [blob, cols, tid]),
        "lookup_size": (N.lookup_size, [lk]),
        "transform_run": (N.transform_run, [ds, 0, n, tlow, tid, lk, max(nt, 1), src.bool()]),
        "count_one": (N.count_one, [str(docs[0]), tlow, low, lk]),
        "hash_run": (
            N.hash_run,
            [
                ds,
                y,
                tlow,
                tid,
                False,
                64,
                np.zeros((C, 64)),
                np.zeros(64, np.uint64),
                src.choice([None, lk2]),
            ],
        ),
        "hash_transform_run": (
            N.hash_transform_run,
            [ds, 0, n, tlow, tid, 64, src.bool(), src.choice([None, lk2])],
        ),
        "intern_run": (
            N.intern_run,
            [
                N.intern_new(16),
                buf,
                spans,
                tk.word_table(),
                k_tok,
                np.zeros(len(spans) + 1, np.int64),
                np.zeros(3, np.int64),
            ],
        ),
        "intern_stop": (N.intern_stop, [it, tok[:4]]),
        "intern_terms": (N.intern_terms, [it, src.choice([0, nu])]),
        "intern_arrays": (N.intern_arrays, [it]),
        "pair_ids": (N.pair_ids, [tok, ptr]),
        "first_occurrence": (
            N.first_occurrence,
            [tok, ptr, ptok, pptr, nu, len(f1), True, src.bool()],
        ),
        "build_rows": (N.build_rows, [tok, ptr, ptok, pptr, nu, True, True, col, ncols]),
        "stream_class_sums": (
            N.stream_class_sums,
            [tok, ptr, ptok, pptr, nu, True, True, col, ncols, y, C, src.bool(), src.bool()],
        ),
        "ngram_blob": (
            N.ngram_blob,
            [
                *st.arrays(),
                nu,
                f1,
                f2,
                np.arange(nu + len(f1), dtype=np.int64),
            ],
        ),
        "order_rows": (
            N.order_rows,
            [
                ip,
                ind.copy(),
                val.astype(np.int64),
                np.arange(max(ncols, 1), dtype=np.int64)[::-1].copy(),
                0,
                n,
            ],
        ),
        "rows_dot": (N.rows_dot, [ip, ind, val.astype(np.float64), W, np.zeros((n, 2)), 0, n]),
        "word_table": (N.word_table, []),
    }
    return calls, caps


def known_bug(name: str, args: list) -> str | None:
    """Arguments that trigger an already reported finding (tests/fuzz/repro_findings.py)."""
    try:
        if name == "fill_counts" and len(args) >= 7:
            v = args[6]
            if isinstance(v, int) and not isinstance(v, bool) and v > 2**62:
                return "F8 fill_counts col0 + n overflows"
        size_arg = F7_SIZES.get(name)
        if size_arg is not None and len(args) > size_arg:
            v = args[size_arg]
            if isinstance(v, int) and not isinstance(v, bool) and v > 2**30:
                return "F7 a dense buffer of that many words (ASan aborts in operator new)"
    except Exception:  # noqa: BLE001 - a guard must never hide the call itself
        return None
    return None


# Size arguments the bindings allocate dense buffers for, unchecked (F7): argument index.
F7_SIZES = {
    "transform_run": 6,
    "hash_transform_run": 5,
    "build_rows": 8,
    "stream_class_sums": 8,
    "first_occurrence": 5,
}


# Bindings with an error path that returns NULL without setting an exception (F5).
F5 = {"split_sorted", "stream_class_sums", "class_sums", "order_rows"}


def soft(name: str, exc: BaseException, data: bytes) -> None:
    with open(SOFT_LOG, "a") as fh:
        fh.write(f"{name}: {type(exc).__name__}: {exc} | input sha1 "
                 f"{hashlib.sha1(data).hexdigest()}\n")  # fmt: skip


def t_raw(src: Src, data: bytes = b"") -> None:
    from nbayes import _native as N

    docs = make_docs(src, 1, 5, subclass=True)
    calls, caps = baselines(docs, src)
    names = sorted(calls)
    name = names[src.int(0, len(names) - 1)]
    fn, args = calls[name]
    args = list(args)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    for _ in range(src.int(0, 3)):
        if not args:
            break
        i = src.int(0, len(args) - 1)
        args[i] = mutate(args[i], src, arrays, caps)
    if src.int(0, 15) == 0 and args:  # wrong number of arguments
        args = args[:-1] if src.bool() else [*args, 0]
    if GUARDS and known_bug(name, args):
        return
    try:
        fn(*args)
    except MemoryError as exc:  # fine for absurd sizes; logged to see which ask for what
        soft(name + " (info)", exc, data)
    except ALLOWED:
        pass
    except RuntimeError as exc:
        soft(name, exc, data)
    except SystemError as exc:  # F5: an error path returns NULL without an exception
        if not (GUARDS and name in F5 and "without setting an exception" in str(exc)):
            raise
        soft(name + " (known F5)", exc, data)
    finally:
        N.reset_cancel()


TARGETS = [
    t_direct_count,
    t_direct_transform,
    t_hashing,
    t_classifier,
    t_count_vectorizer,
    t_raw,
    t_raw,
    t_direct_count,
]
COUNTS = Counter()


def one_input(data: bytes) -> None:
    src = Src(data)
    target = TARGETS[src.int(0, len(TARGETS) - 1)]
    COUNTS[target.__name__] += 1
    if target is t_raw:
        t_raw(src, data)
    else:
        target(src)


def setup_fast_paths() -> None:
    """Force the compiled path where a heuristic would pick scikit-learn's for tiny input."""
    from nbayes.text import _chars, _routes

    _routes._small = lambda docs: False

    _chars.ZERO_COPY = True


def instrument_nbayes(atheris) -> int:
    """Python coverage for the drivers (the editable install's custom loader defeats
    atheris.instrument_imports, and instrument_all takes minutes under ASan)."""
    import nbayes.text._hashing  # noqa: F401
    import nbayes.text._scoring  # noqa: F401

    import nbayes.text  # noqa: F401

    n = 0
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and (obj.__module__ or "").startswith("nbayes"):
            try:
                atheris.instrument_func(obj)
                n += 1
            except Exception:  # noqa: BLE001, S112
                continue
    return n


def random_driver(n: int, seed: int, max_len: int, seconds: float) -> None:
    rng = random.Random(seed)
    t0 = time.time()
    i = 0
    while (n <= 0 or i < n) and (seconds <= 0 or time.time() - t0 < seconds):
        data = rng.randbytes(rng.randint(0, max_len))
        if True:  # a hard crash (signal, OOM kill) leaves the input here
            with open("current-input.bin", "wb") as fh:
                fh.write(data)
        try:
            one_input(data)
        except BaseException:
            name = f"crash-{hashlib.sha1(data).hexdigest()}"
            with open(name, "wb") as fh:
                fh.write(data)
            print(f"finding after {i} inputs; input written to {name}", file=sys.stderr)
            raise
        i += 1
        if i % 1000 == 0:
            print(f"#{i} {time.time() - t0:.0f}s {dict(COUNTS)}", file=sys.stderr, flush=True)
    print(f"DONE {i} inputs in {time.time() - t0:.0f}s {dict(COUNTS)}", file=sys.stderr)


def main() -> None:
    global GUARDS
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--no-guards", action="store_true")
    ap.add_argument(
        "--random",
        type=int,
        default=None,
        metavar="N",
        help="no atheris: N random inputs (0: until --seconds)",
    )
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-len", type=int, default=4096)
    ap.add_argument("--replay", nargs="+", default=None, help="no atheris: run these inputs")
    ns, rest = ap.parse_known_args()
    GUARDS = not ns.no_guards
    setup_fast_paths()
    if ns.replay:
        for path in ns.replay:
            with open(path, "rb") as fh:
                data = fh.read()
            print(f"replaying {path} ({len(data)} bytes)", file=sys.stderr)
            one_input(data)
        print("replay: no finding", file=sys.stderr)
        return
    if ns.random is not None:
        random_driver(ns.random, ns.seed, ns.max_len, ns.seconds)
        return
    import atheris

    print(f"instrumented {instrument_nbayes(atheris)} functions", file=sys.stderr)

    def target(data: bytes) -> None:
        try:
            one_input(data)
        except BaseException:
            traceback.print_exc()
            raise

    atheris.Setup([sys.argv[0], *rest], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
