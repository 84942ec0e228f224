"""Do the compiled kernels leak? LeakSanitizer, asked mid-run (not at exit).

CPython is not instrumented and does not free everything at exit, so LSan's exit-time
check (detect_leaks=1) reports the interpreter's own allocations. Instead this script
runs every public text entry point (and the raw bindings' error paths) ``--rounds``
times, collects garbage, calls ``__lsan_do_recoverable_leak_check()`` while the
interpreter is alive (so everything Python still references is reachable), prints the
report, and leaves with ``os._exit`` (no exit-time check). Leaks whose allocation stack
passes through ``_native`` are the kernels'; the rest is CPython/NumPy. Run under ASan
(tests/fuzz/README.md):

    LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=report_objects=0 \
        /work/venv-asan/bin/python tests/fuzz/leak_check.py --rounds 3
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys

import numpy as np


def workload() -> None:
    from nbayes import _native as N
    from nbayes.text import CountVectorizer, TextClassifier, _routes, hash_into, hashing_transform
    from nbayes.text import _tokenize as tk
    from nbayes.text.vectorizers import transform_counts

    _routes._small = lambda docs: False
    docs = [
        "Alpha beta \u0130stanbul \u03a3\u03a3 gamma",
        "beta \x00\ud800 \U00010400\U00010428 x",
        "delta " * 5000,
        "\u00e0\u00c0 \u00df\u00df alpha_1 " * 50,
        "",
    ] * 3
    y = np.arange(len(docs)) % 2
    for threads in (1, 2, 3):
        got = tk.direct_count(docs, y, 2, True, False, n_threads=threads)
        _ = list(got.terms), got.counts, got.df
        tk.direct_transform(docs, {t: i for i, t in enumerate(got.terms)}, True, None,
                            n_threads=threads, first=[])  # fmt: skip
    for ngram in ((1, 1), (1, 2)):
        clf = TextClassifier(ngram_range=ngram).fit(docs, y)
        clf.predict(docs)
        clf.predict(docs[:1])
        inc = TextClassifier(ngram_range=ngram)
        inc.partial_fit(docs[:5], y[:5], classes=[0, 1])
        inc.partial_fit(docs[5:], y[5:])
        CountVectorizer(ngram_range=ngram, stop_words="english").fit_transform(docs)
    TextClassifier(hashing=True, n_features=2**10).fit(docs, y).predict(docs)
    hashing_transform(docs, n_features=64)
    hash_into(docs, y, np.zeros((2, 64)), np.zeros(64, dtype=np.int64), n_features=64)
    transform_counts(docs, {"alpha": 0, "beta": 1})
    # error paths of the raw bindings (their cleanup must free what they allocated)
    ds, _ = N.doc_set(docs, True)
    bad = [
        lambda: N.doc_set([1, "a"], True),
        lambda: N.run_count(
            N.run_new(2, True), ds, 0, 99, y, tk.char_table(True), tk.char_table(False), False
        ),  # fmt: skip
        lambda: N.run_new(2**31, True),  # MemoryError
        lambda: N.transform_run(
            ds,
            0,
            1,
            tk.char_table(True),
            tk.char_table(False),
            N.build_lookup_blob(np.array([97, 98], np.uint32), np.array([3]), tk.char_table(False)),
            2,
        ),
        lambda: N.pair_ids(np.array([0, 1], np.int32), np.array([0, 5])),
    ]
    for call in bad:
        try:
            call()
        except (TypeError, ValueError, MemoryError):
            pass


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    for _ in range(rounds):
        workload()
    gc.collect()
    lsan = ctypes.CDLL(None)
    check = getattr(lsan, "__lsan_do_recoverable_leak_check", None)
    if check is None:
        print("not running under ASan/LSan: nothing checked", file=sys.stderr)
        os._exit(2)
    sys.stderr.flush()
    leaked = check()
    print(f"leak check after {rounds} rounds: {'leaks reported' if leaked else 'no leak'}",
          file=sys.stderr, flush=True)  # fmt: skip
    os._exit(0)


if __name__ == "__main__":
    main()
