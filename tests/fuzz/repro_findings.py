"""Minimal reproducers of the fuzzing findings in the raw bindings of nbayes._native.

Each case runs in its own subprocess (most of them crash, abort or hang the
interpreter) and is reported as FIXED (the binding raised a Python exception) or STILL
FAILS (with what happened). Not collected by pytest. Run:

    python tests/fuzz/repro_findings.py            # every case
    python tests/fuzz/repro_findings.py F1 F3      # some
    python tests/fuzz/repro_findings.py --inline F1   # run one case in this process

Under ASan (the precise report), see tests/fuzz/README.md; set
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 (F6 needs the failing allocation
to fail, not to abort).

None of these is reachable through the public API (nbayes.text.*, TextClassifier,
CountVectorizer): the drivers always pass consistent arguments. They break the binding's
contract ("every entry point validates what it is given ... raises TypeError/ValueError").
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CASES: dict[str, tuple[str, str]] = {}


ASAN_ONLY = {"F1", "F3", "F8"}  # out-of-bounds accesses that only ASan reports
MUST_SUCCEED: set[str] = set()  # cases that are fixed when the call simply works


def case(name: str, what: str, must_succeed: bool = False):
    def deco(fn):
        CASES[name] = (what, textwrap.dedent(fn.__doc__))
        if must_succeed:
            MUST_SUCCEED.add(name)
        return fn

    return deco


@case(
    "F3",
    "intern_run: the check 'tstart[t] + tlen[t] > used' (module.cpp:942) overflows "
    "for tstart near 2**63, so a term outside the pool passes and the kernel reads "
    "pool[tstart + k] (intern.hpp:73): SEGV. Since issue 25 the table is a capsule (the "
    "call below, with its arrays, is refused: TypeError)",
)
def f3():
    """
    import numpy as np, nbayes._native as N
    from nbayes.text._tokenize import word_table
    M = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for c in b"ab":
        h = ((h ^ c) * 0x100000001B3) & M
    h ^= h >> 33; h = (h * 0xFF51AFD7ED558CCD) & M; h ^= h >> 33   # nbk::mix
    slots = np.full(4, -1, np.int32); slots[h & 3] = 0     # the probe lands on term 0
    N.intern_run(np.frombuffer(b"ab", np.uint8), np.array([[0, 2]]), word_table(), slots,
                 np.array([h, 0], np.uint64),               # thash: matches "ab"
                 np.array([2**63 - 1, 0], np.int64),        # tstart: far outside the pool
                 np.array([2, 0], np.int32),                # tlen: 2 ("ab")
                 np.zeros(2, np.uint8), np.zeros(8, np.uint32),
                 np.array([1, 0], np.int64),                # counters: 1 term, pool empty
                 np.zeros(4, np.int32), np.zeros(2, np.int64), np.zeros(3, np.int64))
    """


@case(
    "F4",
    "intern_run: a slot table without an empty (-1) slot is accepted (module.cpp:"
    "939-941 check the range only); the probe loop (intern.hpp:68-86) then never "
    "ends, with the GIL released and no poll inside: the call hangs, Ctrl-C does "
    "not stop it. Since issue 25 the table is a capsule (the call below, with its arrays, "
    "is refused: TypeError)",
)
def f4():
    """
    import numpy as np, nbayes._native as N
    from nbayes.text._tokenize import word_table
    N.intern_run(np.frombuffer(b"ab", np.uint8), np.array([[0, 2]]), word_table(),
                 np.zeros(2, np.int32),                     # both slots hold term 0
                 np.zeros(1, np.uint64), np.zeros(1, np.int64), np.array([2], np.int32),
                 np.zeros(1, np.uint8), np.array([120, 121], np.uint32),   # term 0 = "xy"
                 np.array([1, 2], np.int64), np.zeros(4, np.int32), np.zeros(2, np.int64),
                 np.zeros(3, np.int64))
    """


@case(
    "F5",
    "four error paths return NULL without setting an exception -> SystemError: "
    "split_sorted bounds.n < 2 (module.cpp:596), stream_class_sums y too short or "
    "n_classes < 1 (1053), "
    "order_rows lo/hi out of range (1134)",
    must_succeed=True,
)
def f5():
    """
    import numpy as np, nbayes._native as N
    z64, z32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
    calls = {
        "split_sorted": lambda: N.split_sorted(np.zeros(0, np.uint32), z64, z64,
                                               np.zeros(0, np.uint64), z64,
                                               np.array([0]), 1),
        "stream_class_sums": lambda: N.stream_class_sums(z32, np.array([0, 0]), z32,
                                                         np.array([0, 0]), 0, True, False,
                                                         z64, 0, z64, 1, False, False),
        "order_rows": lambda: N.order_rows(np.array([0]), z64.copy(), z64.copy(), z64, 0, 5),
    }
    bad = []
    for name, call in calls.items():
        try:
            call()
            bad.append(name + ": no error")
        except SystemError as e:
            bad.append(f"{name}: SystemError: {e}")
        except (TypeError, ValueError):
            pass
    if bad:
        raise SystemExit("\\n".join(bad))
    """


@case(
    "F6",
    "run_reserve: Run::reserve (table.hpp:71-83) grows tstart/tlen before the "
    "counts and the slot table; a bad_alloc in between (MemoryError) leaves "
    "capacity() larger than the counts buffer, and the next run_count writes past it "
    "(table.hpp:149, heap-buffer-overflow; with more terms the probe loop at "
    "table.hpp:102 would never end: the slot table was not grown)",
    must_succeed=True,
)
def f6():
    """
    import numpy as np, nbayes._native as N
    from nbayes.text._tokenize import char_table
    C = 2**20
    run = N.run_new(C, True)                  # counts for 1024 terms x 2**20 classes (lazy)
    try:
        N.run_reserve(run, 2**21)             # tstart/tlen grow, counts (8 TB) cannot
    except MemoryError:
        pass
    ds, _ = N.doc_set([" ".join(f"w{i}" for i in range(1100))], False)
    N.run_count(run, ds, 0, 1, np.array([C - 1]), char_table(False), char_table(False), False)
    """


@case(
    "F8",
    "fill_counts: the check 'col0 + n > PyArray_DIM(out, 0) || col0 + n > out_df.n' "
    "(module.cpp:697) overflows for col0 near 2**63, so the kernel writes "
    "out_df[col0 + j] and out[(col0 + j) * n_classes] (sort_merge.hpp:325-327) 8 bytes "
    "before the arrays: heap-buffer-overflow under ASan; in a normal build silent heap "
    "corruption (found as 'munmap_chunk(): invalid pointer' aborts later)",
)
def f8():
    """
    import numpy as np, nbayes._native as N
    out, out_df = np.zeros((1, 1), np.int64), np.zeros(1, np.int64)
    N.fill_counts((np.zeros(2, np.int32),), (np.zeros(2, np.int64),), np.array([[0]], np.int64), 1,
                  out, out_df, 2**63 - 1)
    """


@case(
    "F7",
    "public API: hashing_transform / HashingVectorizer allocate dense per-call "
    "buffers of n_features words (RowBits in lookup.hpp:116-124, built by doc_rows for "
    "every span): n_features=2**31-1, valid and cheap in scikit-learn, needs ~17 GB per "
    "thread (MemoryError under this 8 GB address-space limit; OOM-killed without one). "
    "The raw bindings transform_run (n_cols), hash_transform_run (n_features <= 2**40), "
    "build_rows/stream_class_sums (n_cols) take such sizes unchecked too",
    must_succeed=True,
)
def f7():
    """
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))  # never OOM the machine
    from nbayes.text import hashing_transform
    X = hashing_transform(["ab cd"], n_features=2**31 - 1)  # scikit-learn: a few MB
    assert X.nnz == 2
    """


def run_case(name: str, timeout: float) -> tuple[bool, str]:
    what, code = CASES[name]
    wrapped = code + "\nprint('RAISED-NOTHING')\n"
    try:
        p = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True,
                           timeout=timeout, env=os.environ.copy())  # fmt: skip
    except subprocess.TimeoutExpired:
        return False, f"hung (killed after {timeout:.0f} s)"
    err = p.stderr.strip().splitlines()
    tail = "\n      ".join(err[-3:]) if err else ""
    asan = next((ln for ln in err if "ERROR: AddressSanitizer" in ln), None)
    if p.returncode < 0:
        return False, f"killed by signal {-p.returncode} {asan or ''}\n      {tail}"
    if asan:
        return False, asan
    if "terminate called" in p.stderr:
        return False, "std::terminate: " + tail
    if name in MUST_SUCCEED:
        ok = p.returncode == 0 and "RAISED-NOTHING" in p.stdout
        return ok, "works" if ok else (err[-1] if err else f"exit {p.returncode}")
    if p.returncode == 1 and "Traceback" in p.stderr:
        last = err[-1]
        if last.startswith(("ValueError", "TypeError", "MemoryError", "OverflowError")):
            return True, last
        return False, last
    if "RAISED-NOTHING" in p.stdout:
        return False, "no error raised (silent)"
    return False, f"exit {p.returncode}: {tail}"


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--inline"]:
        exec(CASES[args[1]][1], {})  # noqa: S102 - the reproducer, in this process
        return
    names = args or list(CASES)
    still = 0
    for name in names:
        ok, how = run_case(name, timeout=20 if name == "F4" else 120)
        if ok and name in ASAN_ONLY and "libasan" not in os.environ.get("LD_PRELOAD", ""):
            how += " (without ASan an out-of-bounds access is silent: confirm under ASan)"
        still += not ok
        print(f"{name}: {'FIXED' if ok else 'STILL FAILS'} - {how}\n    ({CASES[name][0]})")
    print(f"{still} of {len(names)} still fail")
    sys.exit(1 if still else 0)


if __name__ == "__main__":
    main()
