"""Hashed word n-grams: the route before (the token streams, each distinct n-gram made a
string and hashed in numpy) against the compiled kernels that hash them while scanning,
in the same run, on the IMDB training reviews (25,000, 33 MB).

Two workloads, each in a fresh process per run (so each peak RSS is that run's alone):

* ``train``: ``nbayes train DATA --hashing --ngrams N -o TMP -q`` (what the user trial
  timed): wall time of the whole process, and its peak RSS (``VmHWM``, read when ``main``
  returns);
* ``transform``: ``HashingVectorizer(ngram_range=R, alternate_sign=False,
  norm=None).transform(docs)`` of the documents read beforehand: the call's wall time,
  the process's peak RSS and its growth during the call.

``old`` runs the same interpreter and tree with ``nbayes.text._drivers.hashing.NGRAMS =
False`` (n-grams through the token streams, unigrams by the kernel either way: (1, 1) is
the control, its ratio should be 1). The rounds interleave old and new (the order
alternating), and the table gives the medians and the ratios new / old; each run's
matrix (``transform``) or model file (``train``) must be the other side's (the script
stops otherwise).

Usage::

    python benchmarks/bench_hashed_ngrams.py                 # 5 rounds, (1,1) (1,2) (1,3)
    python benchmarks/bench_hashed_ngrams.py --runs 3 --ngrams 1-2 --data other.csv.gz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine  # noqa: E402
from _processes import run_process  # noqa: E402

DATA = Path("/work/shared/data/imdb/imdb_train.csv.gz")

#: ``python -c`` prelude: the route (old: NGRAMS = False) and the peak RSS in MiB
_PRELUDE = """
import json, sys
import nbayes.text._drivers.hashing as _h
_h.NGRAMS = {new}
def vm_hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

_TRAIN = (
    _PRELUDE
    + """
from nbayes.cli import main
code = main(sys.argv[1:])
print(json.dumps({{"code": code, "rss": vm_hwm()}}))
"""
)

_TRANSFORM = (
    _PRELUDE
    + """
import csv, gzip, hashlib, time
import numpy as np
from nbayes.text import HashingVectorizer
csv.field_size_limit(sys.maxsize)
opener = gzip.open if sys.argv[1].endswith(".gz") else open
with opener(sys.argv[1], "rt", encoding="utf-8", newline="") as f:
    docs = [row[0] for row in list(csv.reader(f))[1:]]
vec = HashingVectorizer(ngram_range=(int(sys.argv[2]), int(sys.argv[3])), alternate_sign=False,
                        norm=None)
before = vm_hwm()
t = time.perf_counter()
X = vec.transform(docs)
seconds = time.perf_counter() - t
digest = hashlib.sha256()
for a in (X.indptr, X.indices, X.data):
    digest.update(np.ascontiguousarray(a).tobytes())
print(json.dumps({{"seconds": seconds, "rss": vm_hwm(), "growth": vm_hwm() - before,
                  "digest": digest.hexdigest()}}))
"""
)


def _train(new: bool, data: Path, ngram: tuple[int, int], out: Path) -> dict:
    code = _TRAIN.format(new=new)
    span = f"{ngram[0]}-{ngram[1]}"
    wall, _, text = run_process([sys.executable, "-c", code, "train", str(data), "--hashing",
                                 "--ngrams", span, "-o", str(out), "-q"])  # fmt: skip
    got = json.loads(text.splitlines()[-1])
    if got["code"] != 0:
        raise SystemExit(f"nbayes train failed:\n{text}")
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    return {"seconds": wall, "rss": got["rss"], "digest": digest}


def _transform(new: bool, data: Path, ngram: tuple[int, int]) -> dict:
    code = _TRANSFORM.format(new=new)
    _, _, text = run_process([sys.executable, "-c", code, str(data), str(ngram[0]),
                              str(ngram[1])])  # fmt: skip
    return json.loads(text.splitlines()[-1])


def _span(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="rounds of old and new (default 5)")
    ap.add_argument("--data", type=Path, default=DATA, help="a CSV (text, label), may be .gz")
    ap.add_argument("--ngrams", nargs="+", type=_span, default=[(1, 1), (1, 2), (1, 3)],
                    help="n-gram ranges as MIN-MAX (default 1-1 1-2 1-3)")  # fmt: skip
    args = ap.parse_args()
    print(machine())
    print(f"{args.data} ({args.data.stat().st_size / 2**20:.1f} MiB on disk), {args.runs} rounds")
    got: dict[tuple, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.runs):
            for ngram in args.ngrams:
                sides = (False, True) if r % 2 == 0 else (True, False)
                for new in sides:
                    out = Path(tmp) / f"{new}.nbayes"
                    got.setdefault(("train", ngram, new), []).append(
                        _train(new, args.data, ngram, out)
                    )
                    got.setdefault(("transform", ngram, new), []).append(
                        _transform(new, args.data, ngram)
                    )
                for what in ("train", "transform"):
                    old, new_ = got[(what, ngram, False)][-1], got[(what, ngram, True)][-1]
                    if old["digest"] != new_["digest"]:
                        raise SystemExit(f"{what} {ngram}: old and new results differ")
            print(f"round {r + 1} of {args.runs} done", file=sys.stderr)

    def med(what: str, ngram: tuple, new: bool, key: str) -> float:
        return statistics.median(run[key] for run in got[(what, ngram, new)])

    print(f"\n{'':<20}{'old s':>8}{'new s':>8}{'new/old':>9}"
          f"{'old MiB':>10}{'new MiB':>10}{'new/old':>9}")  # fmt: skip
    for what in ("train", "transform"):
        for ngram in args.ngrams:
            t0, t1 = med(what, ngram, False, "seconds"), med(what, ngram, True, "seconds")
            m0, m1 = med(what, ngram, False, "rss"), med(what, ngram, True, "rss")
            print(f"{what + ' ' + str(ngram):<20}{t0:>8.2f}{t1:>8.2f}{t1 / t0:>9.3f}"
                  f"{m0:>10.0f}{m1:>10.0f}{m1 / m0:>9.3f}")  # fmt: skip
    print("\ntransform: the call's growth of the peak RSS (MiB; the documents read before)")
    for ngram in args.ngrams:
        g0, g1 = med("transform", ngram, False, "growth"), med("transform", ngram, True, "growth")
        print(f"{str(ngram):<20}{g0:>8.0f}{g1:>8.0f}")
    print("\n(results identical old vs new in every run: model file bytes, CSR arrays)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
