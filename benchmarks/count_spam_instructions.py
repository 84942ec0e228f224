"""Instructions a message costs a spam filter's bulk scoring (``SpamFilter.classify`` of raw
messages: MIME, tokens, clues, verdict), counted by valgrind's callgrind, for an earlier
revision and the working tree: a figure the machine's noise does not move (the wall-clock
rates of ``bench_bulk_ab.py`` swing by 10-30 % here), for changes too small to time.

Each side is a package tree as ``bench_bulk_ab.py`` makes it (the revision's Python with
the compiled extensions in ``--old-extensions``, or the installed ones; the working tree's
with the installed ones). A run loads the corpus' model, scores the first N messages of
``index.tsv`` once (memos cleared), and the count of a run of 0 messages is taken away.
Needs valgrind (``apt-get install valgrind``); a run of 400 messages takes ~2 minutes.

Usage::

    python benchmarks/count_spam_instructions.py --old 99a9dee --old-extensions DIR -n 400
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_bulk_ab import ROOT, _package  # noqa: E402
from bench_spam import find_corpus  # noqa: E402

RUN = r"""
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from pathlib import Path
import nbayes
from nbayes.mail._tokenizer import _forget_memos
root = Path(sys.argv[3])
rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
raw = [(root / r[1]).read_bytes() for r in rows][: int(sys.argv[5])]
model = nbayes.load(sys.argv[4])
model.classify([b"Subject: warm up\n\nthe first call builds the index"])
_forget_memos()
model.classify(raw)
"""


def instructions(pkg: Path, site: str, corpus: Path, model: Path, n: int, tmp: Path) -> int:
    out = tmp / "callgrind.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-S",
         "-c", RUN, str(pkg), site, str(corpus), str(model), str(n)],
        capture_output=True, check=True,
    )  # fmt: skip
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the earlier revision (git)")
    ap.add_argument("--old-extensions", type=Path, default=None)
    ap.add_argument("-n", type=int, default=400, help="messages scored")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed: apt-get install valgrind")
    import nbayes
    from nbayes.mail import iter_classes
    from nbayes.spam import SpamFilter

    corpus = find_corpus()
    site = next(p for p in sys.path if p.endswith("site-packages"))
    with tempfile.TemporaryDirectory(prefix="spam-instr-") as name:
        tmp = Path(name)
        old = _package(None, args.old, tmp / "old", args.old_extensions)
        new = _package(ROOT / "src" / "nbayes", None, tmp / "new")
        model = tmp / "corpus.nbayes"
        nbayes.save(SpamFilter().fit_stream(iter_classes(corpus)), model)
        per = {}
        for side, pkg in (("old", old), ("new", new)):
            base = instructions(pkg, site, corpus, model, 0, tmp)
            per[side] = (instructions(pkg, site, corpus, model, args.n, tmp) - base) / args.n
            print(f"{side}: {per[side]:,.0f} instructions a message ({args.n} messages)")
    print(f"new / old: {per['new'] / per['old']:.3f}x")


if __name__ == "__main__":
    main()
