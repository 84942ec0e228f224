"""Big hostile corpora through the compiled kernels: results checked against a cheap exact
reference, wall time and peak RSS measured per case.

Not collected by pytest. Each case runs in its own process under ``/usr/bin/time -v``
(peak RSS is per process):

    python tests/fuzz/hostile_corpora.py --all            # every case, then a table
    python tests/fuzz/hostile_corpora.py big_doc          # one case, in this process
    NBAYES_HOSTILE_SCALE=0.01 python tests/fuzz/hostile_corpora.py --all   # a quick try

Cases (sizes at scale 1):

* ``big_doc``: one 100 MB document (ASCII words, a 1 kB chunk of ~150 distinct words
  repeated 100,000 times), plus a 200 MB (2-byte) variant with non-ASCII letters;
* ``distinct_1e7``: 10**7 distinct tokens ``w0 .. w9999999`` in 1,000 documents;
* ``nul_surrogates``: one document of 50 M characters alternating NUL and lone surrogates
  (no token), and one with ``ab`` between them (12.5 M tokens);
* ``token_200mb``: one token of 200 M characters (``"a" * 200_000_000``), 1-byte and
  through the copying path.

Every step asserts the exact result (vocabulary, counts, document frequencies); a wrong
result raises AssertionError and the case fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections import Counter

import numpy as np

SCALE = float(os.environ.get("NBAYES_HOSTILE_SCALE", "1"))
TOKEN = re.compile(r"(?u)\b\w\w+\b")


def step(name: str):
    """Time a step; print ``name: seconds``."""

    class _T:
        def __enter__(self):
            self.t0 = time.perf_counter()
            return self

        def __exit__(self, *exc):
            dt = time.perf_counter() - self.t0
            print(f"  {name}: {dt:.2f} s{'' if exc[0] is None else ' (FAILED)'}", flush=True)
            return False

    return _T()


def direct_count(docs, y, C, lowercase=True, n_threads=None):
    from nbayes.text import _tokenize as tk

    got = tk.direct_count(docs, np.asarray(y, dtype=np.int64), C, lowercase, False,
                          n_threads=n_threads)  # fmt: skip
    assert got is not None, "the compiled path refused the corpus"
    return got


# -------------------------------------------------------------------------------- cases


def case_big_doc() -> None:
    from nbayes.text import TextClassifier, hashing_transform

    words = [f"{a}{b}" for a in ("alpha", "Beta", "GAMMA", "delta_", "e9", "zz") for b in
             ("", "x", "yy", "Qz", "123", "_a", "lorem", "ipsum", "dolor", "s", "t", "u",
              "v", "w", "k", "m", "n", "o", "p", "q", "r", "h", "i", "j", "l")]  # fmt: skip
    parts: list[str] = []
    while len(" ".join(parts)) < 980:
        i = len(parts)
        parts.append(words[(7 * i) % len(words)] + ("," if i % 7 == 0 else ""))
    chunk = " ".join(parts[:-1]).ljust(1000)  # 1,000 characters, ends with spaces
    assert len(chunk) == 1000 and chunk.endswith(" ")
    reps = int(100_000 * SCALE)
    base = Counter(TOKEN.findall(chunk.lower()))
    for label, ch in (
        ("ascii 100 MB", chunk),
        ("2-byte 200 MB", chunk.replace("e", "\u0113").replace("Q", "\u0100")),
    ):
        base = Counter(TOKEN.findall(ch.lower()))
        with step(f"{label}: build"):
            doc = ch * reps
        print(
            f"  {label}: {len(doc):,} characters, {sum(base.values()) * reps:,} tokens, "
            f"{len(base)} distinct"
        )
        with step(f"{label}: direct_count"):
            got = direct_count([doc], [0], 1)
        assert list(got.terms) == sorted(base)
        np.testing.assert_array_equal(got.counts[0], [base[t] * reps for t in sorted(base)])
        np.testing.assert_array_equal(got.df, np.ones(len(base)))
        with step(f"{label}: TextClassifier.fit + predict"):
            clf = TextClassifier().fit([doc, "other words here"], ["a", "b"])
            pred = clf.predict([ch, "other"])
        assert pred.tolist() == ["a", "b"]
        names = clf.get_feature_names_out().tolist()
        fc = dict(zip(names, clf.feature_count_[0].tolist(), strict=True))
        assert all(fc[t] == base[t] * reps for t in base)
        with step(f"{label}: TextClassifier(ngram_range=(1, 2)).fit"):
            clf2 = TextClassifier(ngram_range=(1, 2)).fit([doc, "other words"], ["a", "b"])
        assert clf2.feature_count_[0].sum() == (2 * sum(base.values()) * reps - 1)
        with step(f"{label}: hashing_transform"):
            X = hashing_transform([doc], n_features=2**18, alternate_sign=False, norm=None)
        assert X.sum() == sum(base.values()) * reps
        del doc, got, clf, clf2, X


def case_distinct_1e7() -> None:
    from nbayes.text import TextClassifier

    n = int(10**7 * SCALE)
    per = max(1, n // 1000)
    with step("build 1,000 documents"):
        docs = [" ".join(f"w{i}" for i in range(d, min(d + per, n))) for d in range(0, n, per)]
    y = np.arange(len(docs)) % 2
    print(f"  {n:,} distinct tokens, {len(docs):,} documents, {sum(map(len, docs)):,} characters")
    with step("reference: sorted terms"):
        want = sorted(f"w{i}" for i in range(n))
    for threads in (1, 2):
        with step(f"direct_count ({threads} thread{'s' if threads > 1 else ''})"):
            got = direct_count(docs, y, 2, n_threads=threads)
            terms = list(got.terms)
        assert terms == want
        cls = np.array([(int(t[1:]) // per) % 2 for t in want])
        np.testing.assert_array_equal(got.counts[1], cls)
        np.testing.assert_array_equal(got.counts[0], 1 - cls)
        np.testing.assert_array_equal(got.df, np.ones(n, dtype=np.int64))
        del got, terms
    with step("TextClassifier().fit"):
        clf = TextClassifier().fit(docs, y)
    with step("TextClassifier: feature names + predict 1,000 documents"):
        names = clf.get_feature_names_out()
        assert len(names) == n and names[0] == want[0] and names[-1] == want[-1]
        assert clf.feature_count_.sum() == n
        pred = clf.predict(docs)
    assert (pred == y).all()
    del clf, names


def case_nul_surrogates() -> None:
    from nbayes.text import CountVectorizer, TextClassifier, hashing_transform

    n = int(25_000_000 * SCALE)
    with step("build 50 M NUL / lone surrogates"):
        doc = "\x00\ud800" * n
    with step("direct_count (no token)"):
        got = direct_count([doc], [0], 1)
    assert len(got.terms) == 0
    with step("TextClassifier.fit (must refuse: empty vocabulary)"):
        try:
            TextClassifier().fit([doc, "\udfff\x00"], ["a", "b"])
        except ValueError as exc:
            assert "vocabulary" in str(exc) or "terms" in str(exc), exc
        else:
            raise AssertionError("fit without a single term did not fail")
    with step("hashing_transform (no token)"):
        assert hashing_transform([doc], n_features=64).nnz == 0
    del doc, got
    m = int(12_500_000 * SCALE)
    with step("build 50 M characters: NUL, surrogate, 'ab' repeated"):
        doc = "\x00\udfffab" * m
    with step("direct_count (12.5 M 'ab')"):
        got = direct_count([doc], [0], 1)
    assert list(got.terms) == ["ab"] and got.counts.tolist() == [[m]]
    with step("TextClassifier(ngram_range=(1, 2)).fit (copying path)"):
        clf = TextClassifier(ngram_range=(1, 2)).fit([doc, "cd"], ["a", "b"])
    fc = dict(zip(clf.get_feature_names_out().tolist(), clf.feature_count_[0].tolist(),
                  strict=True))  # fmt: skip
    assert fc == {"ab": m, "ab ab": m - 1, "cd": 0}, fc
    with step("CountVectorizer(ngram_range=(1, 2)).fit_transform"):
        X = CountVectorizer(ngram_range=(1, 2)).fit_transform([doc])
    assert X.toarray().tolist() == [[m, m - 1]]


def case_token_200mb() -> None:
    from nbayes.text import TextClassifier, hashing_transform

    L = int(200_000_000 * SCALE)
    with step("build one token of 200 M characters"):
        doc = "a" * L
    with step("direct_count"):
        got = direct_count(["x " + doc + " x yy", "yy"], [0, 0], 1)
        terms = list(got.terms)
    assert len(terms) == 2 and terms[1] == "yy" and len(terms[0]) == L and terms[0] == doc
    assert got.counts.tolist() == [[1, 2]]
    del got, terms
    with step("TextClassifier(ngram_range=(1, 2)).fit (copying path)"):
        clf = TextClassifier(ngram_range=(1, 2)).fit([doc + " b2", "cc"], ["a", "b"])
    names = clf.get_feature_names_out().tolist()
    assert [len(t) for t in names] == [L, L + 3, 2, 2], [len(t) for t in names]
    del clf, names
    with step("hashing_transform"):
        X = hashing_transform([doc], n_features=2**20, alternate_sign=False, norm=None)
    from sklearn.utils import murmurhash3_32

    assert X.indices.tolist() == [abs(murmurhash3_32(doc, seed=0)) % 2**20]
    assert X.data.tolist() == [1.0]


CASES = {
    "big_doc": case_big_doc,
    "distinct_1e7": case_distinct_1e7,
    "nul_surrogates": case_nul_surrogates,
    "token_200mb": case_token_200mb,
}


def run_all(names: list[str]) -> None:
    rows = []
    for name in names:
        print(f"== {name} (scale {SCALE})", flush=True)
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v", sys.executable, __file__, name],
                           capture_output=True, text=True)  # fmt: skip
        wall = time.perf_counter() - t0
        sys.stdout.write(p.stdout)
        rss = next((int(ln.split(":")[1]) for ln in p.stderr.splitlines()
                    if "Maximum resident set size" in ln), 0)  # fmt: skip
        status = "exact" if p.returncode == 0 else f"FAILED (exit {p.returncode})"
        if p.returncode != 0:
            sys.stdout.write("\n".join(p.stderr.splitlines()[-25:]) + "\n")
        rows.append((name, wall, rss / 1024, status))
    print("\n| case | wall time | peak RSS | result |\n|---|---|---|---|")
    for name, wall, rss, status in rows:
        print(f"| {name} | {wall:.1f} s | {rss:,.0f} MB | {status} |")
    sys.exit(0 if all(r[3] == "exact" for r in rows) else 1)


def main() -> None:
    args = sys.argv[1:]
    if not args or args[0] == "--all":
        run_all(args[1:] or list(CASES))
        return
    for name in args:
        print(f"== {name}", flush=True)
        CASES[name]()
    print("exact", flush=True)


if __name__ == "__main__":
    main()
