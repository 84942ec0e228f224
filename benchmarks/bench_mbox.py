"""A mailbox of a gigabyte through the command line: ``nbayes train --model spam`` and
``nbayes filter MODEL big.mbox`` against bogofilter, wall time and memory (issue 26: "streamed
in bounded memory (a 1 GB mbox)").

The mailboxes are written into a temporary folder from the SpamAssassin public corpus
(``../shared/data/spamassassin_public``, read in ``index.tsv`` order, repeated until the
size is reached; body lines starting with "From " quoted as mboxrd writes them):

* ``train/ham/ham.mbox`` and ``train/spam/spam.mbox`` (69 % and 31 % of ``--size-mb``),
  what ``nbayes train DIR -o MODEL --model spam`` reads, and bogofilter as
  ``bogofilter -M -n < ham.mbox`` and ``bogofilter -M -s < spam.mbox``;
* ``all.mbox`` (``--size-mb``, ham and spam alternating), what ``nbayes filter MODEL
  all.mbox`` and ``bogofilter -M -v -T < all.mbox`` score, one line per message.

Each round runs every command once, in turn (``--runs`` rounds: the machine's noise spreads
over all of them); the table gives the median wall time, messages a second and the peak
memory of the command's whole process tree (the proportional set sizes of the process and
its workers, summed: a page a forked worker shares with its parent counts once; sampled
every 250 ms from /proc). The memory is the claim: it is bounded by the model's vocabulary,
not by the mailbox (compare ``--size-mb 100`` with ``1024``).

    python benchmarks/bench_mbox.py --size-mb 1024 --runs 3

bogofilter is installed from Debian when missing (as ``bench_spam.py`` does); ``--no-bogofilter``
leaves it out.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_spam import ensure_bogofilter, find_corpus  # noqa: E402

_QUOTE = re.compile(rb"^(>*From )", re.M)
_POSTMARK = b"From nbayes-bench@example.com Mon Jul  1 10:00:00 2002\n"


def corpus_messages(corpus: Path) -> dict[str, list[bytes]]:
    """The corpus' messages as mbox entries (postmark, quoted body, blank line), by class."""
    rows = [line.split("\t") for line in (corpus / "index.tsv").read_text().splitlines()[1:]]
    out: dict[str, list[bytes]] = {"ham": [], "spam": []}
    for row in rows:
        data = (corpus / row[1]).read_bytes()
        if data.startswith(b"From "):  # its own postmark line
            data = data.split(b"\n", 1)[1] if b"\n" in data else b""
        data = _QUOTE.sub(rb">\1", data)
        if not data.endswith(b"\n"):
            data += b"\n"
        out[row[2]].append(_POSTMARK + data + b"\n")
    return out


def write_mbox(path: Path, entries: list[bytes], size: int) -> int:
    """``entries`` repeated into ``path`` until ``size`` bytes; the number written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = written = 0
    with open(path, "wb") as fh:
        while written < size:
            for entry in entries:
                fh.write(entry)
                written += len(entry)
                n += 1
                if written >= size:
                    break
    return n


def write_mixed_mbox(path: Path, msgs: dict[str, list[bytes]], size: int) -> int:
    """``all.mbox``: ham and spam alternating, repeated to ``size`` bytes; the number written."""
    mixed = [m for pair in zip(msgs["ham"], msgs["spam"], strict=False) for m in pair]
    return write_mbox(path, mixed, size)


def _pss_kb(pid: int) -> int:
    """The proportional set size of ``pid`` (kB): its resident pages, a page shared by k
    processes (a forked worker's copy of its parent's model) counted 1/k in each."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_memory_kb(root: int) -> int:
    """The memory of ``root`` and its descendants (kB): their proportional set sizes,
    summed (from /proc): what the command holds, shared pages once."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kb(pid)
        todo.extend(children.get(pid, []))
    return total


def timed(argv: list[str], stdin: Path | None = None, stdout: Path | None = None) -> dict[str, Any]:
    """Run ``argv``; its wall time and the peak memory of its process tree."""
    peak = [0]
    with open(stdin or os.devnull, "rb") as fin, open(stdout or os.devnull, "wb") as fout:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _tree_memory_kb(proc.pid))
                done.wait(0.25)

        watcher = threading.Thread(target=sample, daemon=True)
        watcher.start()
        _, err = proc.communicate()
        wall = time.perf_counter() - start
        done.set()
        watcher.join()
    if proc.returncode not in (0, 1, 2):  # (bogofilter and nbayes filter: 0/1/2 verdicts)
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-500:]}")
    return {"wall": wall, "rss_mb": peak[0] / 1024}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mb", type=float, default=1024, help="mailbox size (default 1024)")
    p.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--no-bogofilter", action="store_true", help="leave bogofilter out")
    p.add_argument("--folder", help="write the mailboxes here (default: a temporary folder)")
    args = p.parse_args()
    nbayes = shutil.which("nbayes") or str(Path(sys.executable).parent / "nbayes")
    bogofilter = None if args.no_bogofilter else ensure_bogofilter()
    size = int(args.size_mb * 2**20)
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        root = Path(tmp)
        msgs = corpus_messages(find_corpus())
        n_ham = write_mbox(root / "train" / "ham" / "ham.mbox", msgs["ham"], int(size * 0.69))
        n_spam = write_mbox(root / "train" / "spam" / "spam.mbox", msgs["spam"], int(size * 0.31))
        n_all = write_mixed_mbox(root / "all.mbox", msgs, size)
        print(
            f"mailboxes of {args.size_mb:g} MB: train {n_ham:,} ham + {n_spam:,} spam, "
            f"filter {n_all:,} messages",
            flush=True,
        )
        model = root / "model.nbayes"
        train = [nbayes, "train", str(root / "train"), "-o", str(model), "--model", "spam"]
        jobs: dict[str, Any] = {
            "nbayes train --jobs 1": lambda: timed([*train, "--force", "--jobs", "1"]),
            "nbayes train (every core)": lambda: timed([*train, "--force"]),
            "nbayes filter MODEL all.mbox": lambda: timed(
                [nbayes, "filter", str(model), str(root / "all.mbox")], stdout=root / "nb.out"
            ),
        }
        if bogofilter is not None:
            home = root / "bogo"

            def bogo_train() -> dict[str, Any]:
                shutil.rmtree(home, ignore_errors=True)
                home.mkdir()
                a = timed([bogofilter, "-d", str(home), "-M", "-n"], root / "train/ham/ham.mbox")
                b = timed([bogofilter, "-d", str(home), "-M", "-s"], root / "train/spam/spam.mbox")
                return {"wall": a["wall"] + b["wall"], "rss_mb": max(a["rss_mb"], b["rss_mb"])}

            jobs["bogofilter -M -n / -s (train)"] = bogo_train
            jobs["bogofilter -M -v -T < all.mbox"] = lambda: timed(
                [bogofilter, "-d", str(home), "-M", "-v", "-T"], root / "all.mbox", root / "bo.out"
            )
        got: dict[str, list[dict[str, Any]]] = {name: [] for name in jobs}
        for r in range(args.runs):
            for name, job in jobs.items():
                got[name].append(job())
                print(
                    f"  round {r + 1}: {name}: {got[name][-1]['wall']:.1f} s, "
                    f"{got[name][-1]['rss_mb']:.0f} MB",
                    flush=True,
                )
        lines = sum(1 for _ in open(root / "nb.out", "rb"))
        if lines != n_all:
            raise SystemExit(f"nbayes filter printed {lines} lines for {n_all} messages")
    print(f"\n| command | messages | wall (median of {args.runs}) | messages/s | peak memory |")
    print("|---|---|---|---|---|")
    for name, runs in got.items():
        wall = statistics.median(x["wall"] for x in runs)
        n = n_ham + n_spam if "train" in name else n_all
        rss = max(x["rss_mb"] for x in runs)
        print(f"| `{name}` | {n:,} | {wall:.1f} s | {n / wall:,.0f} | {rss:.0f} MB |")


if __name__ == "__main__":
    main()
