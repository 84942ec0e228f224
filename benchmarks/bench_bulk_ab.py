"""Bulk scoring of the SpamAssassin corpus (``classify_many``, raw bytes in), the Python
code of an earlier revision against the working tree's, in interleaved runs.

Each side is a copy of ``src/nbayes`` (the revision's from ``git archive``, the working
tree's as it is) with the compiled extensions of the installed package beside it, imported
by ``python -S`` (the editable install's import hook left out): so compare revisions whose
C++ is the same (``git diff REV -- src/native`` empty), or give the old side the compiled
extensions built from the revision's C++ (``--old-extensions DIR``: a folder holding its
``_native`` and ``_mail_native`` files, e.g. copied from an install of that revision). Each
side trains its own model on the whole corpus, once, with its own code: a model file keeps
its recipe, which an older nbayes may not read (``seen_words``, ``cjk_bigrams``), and each
side scores with the recipe it tokenizes by default.

Usage::

    python benchmarks/bench_bulk_ab.py --old 2a3392d --jobs 2 --runs 5
    python benchmarks/bench_bulk_ab.py --old 99a9dee --old-extensions /tmp/ext_99a9dee
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_spam import find_corpus  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

RUN = r"""
import sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from pathlib import Path
import nbayes
from nbayes.spam import classify_many
from nbayes.mail._tokenizer import _forget_memos
root = Path(sys.argv[3])
raw = [p.read_bytes() for d in ("ham", "spam") for p in sorted((root / d).iterdir())]
model = nbayes.load(sys.argv[4])
_forget_memos()
t0 = time.perf_counter()
n = sum(1 for _ in classify_many(model, raw, n_jobs=int(sys.argv[5])))
print(n / (time.perf_counter() - t0))
"""

TRAIN = r"""
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from pathlib import Path
import nbayes
from nbayes.mail import iter_classes
from nbayes.spam import SpamFilter
nbayes.save(SpamFilter().fit_stream(iter_classes(Path(sys.argv[3]))), sys.argv[4])
"""


def _package(src: Path | None, rev: str | None, into: Path, extensions: Path | None = None) -> Path:
    """A copy of ``src/nbayes`` (the working tree's, or ``rev``'s) with the installed
    package's compiled extensions, or those in the folder ``extensions``."""
    from nbayes import _mail_native, _native

    into.mkdir(parents=True)
    if rev is None:
        assert src is not None
        shutil.copytree(src, into / "nbayes")
    else:
        tar = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "src/nbayes"], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            t.extractall(into / "_rev", filter="data")
        shutil.move(str(into / "_rev" / "src" / "nbayes"), str(into / "nbayes"))
    for ext in (_native, _mail_native):
        assert ext.__file__ is not None
        name = Path(ext.__file__).name
        shutil.copy2(
            ext.__file__ if extensions is None else extensions / name, into / "nbayes" / name
        )
    return into


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the earlier revision (git)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--old-extensions", type=Path, default=None,
        help="a folder of the old side's compiled extensions (default: the installed ones)",
    )  # fmt: skip
    args = ap.parse_args()
    corpus = find_corpus()
    site = next(p for p in sys.path if p.endswith("site-packages"))  # (the dependencies)
    with tempfile.TemporaryDirectory(prefix="bulk-ab-") as tmp:
        old = _package(None, args.old, Path(tmp) / "old", args.old_extensions)
        new = _package(ROOT / "src" / "nbayes", None, Path(tmp) / "new")
        models = {name: Path(tmp) / f"{name}.nbayes" for name in ("old", "new")}
        for name, pkg in (("old", old), ("new", new)):
            subprocess.run(
                [sys.executable, "-S", "-c", TRAIN, str(pkg), site, str(corpus),
                 str(models[name])],
                check=True,
            )  # fmt: skip
        rates: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(args.runs):
            for name, pkg in (("old", old), ("new", new)):
                out = subprocess.run(
                    [sys.executable, "-S", "-c", RUN, str(pkg), site, str(corpus),
                     str(models[name]), str(args.jobs)],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                rates[name].append(float(out.stdout.split()[-1]))
    for name, r in rates.items():
        print(
            f"{name}: {', '.join(f'{x:,.0f}' for x in r)} msg/s; median {statistics.median(r):,.0f}"
        )
    pairs = [n / o for n, o in zip(rates["new"], rates["old"], strict=True)]
    print(
        f"new / old, median of the pairs: {statistics.median(pairs):.3f}x ({args.jobs} process(es))"
    )


if __name__ == "__main__":
    main()
