"""``nbayes filter`` as one process per message, as a mail delivery agent runs it (issue 26:
<= 0.15 s), against the floors of any Python program and against bogofilter.

Medians of ``--runs`` interleaved runs of, each on one message of the SpamAssassin public
corpus on stdin:

* ``python -c pass`` and ``python -c "import numpy"`` (the interpreter's floor; numpy's
  import alone is what the filter path avoids);
* ``nbayes filter MODEL`` (the installed console script; the model: a SpamFilter of the
  whole corpus, trained by ``nbayes train CORPUS -o MODEL --model spam`` unless ``--model``
  names one), which hashes the model file on its first run only (the record of checked
  files, ``nbayes.io._modelfile.verified``, kept in a folder of this run);
* the same with ``NBAYES_CACHE_DIR=off`` (the SHA-256 of the whole file at every run, as
  before the record);
* ``nbayes filter MODEL --register spam`` then ``--unregister spam`` (a registration:
  lock, full load, learn, save);
* ``bogofilter -T`` on a wordlist of the same corpus (``-B``; Debian's bogofilter,
  installed by this script if missing, see bench_spam.py).

Usage::

    python benchmarks/bench_spam_cli.py --runs 9
    python benchmarks/bench_spam_cli.py --model /tmp/sa.nbayes --skip-bogofilter
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402
from bench_spam import ensure_bogofilter, find_corpus  # noqa: E402

#: the children run with compiled bytecode cached, as an installed package has it (this
#: machine's environment sets PYTHONDONTWRITEBYTECODE, which would make every run of an
#: editable install compile nbayes from source)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: the CPU time (user + system) of the last command timed, in seconds
CPU: list[float] = [0.0]


def timed(argv: list[str], data: bytes, env: dict[str, str] | None = None) -> tuple[float, int]:
    """A command's wall time (and, in CPU[0], its CPU time: on a busy machine the wall time
    counts the waits for a core, the CPU time hardly)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, input=data, capture_output=True, env={**ENV, **(env or {})})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--model", type=Path, default=None, help="a spam model (default: train one)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-bogofilter", action="store_true")
    args = ap.parse_args()
    corpus = args.corpus or find_corpus()
    print(machine())
    work = Path(tempfile.mkdtemp(prefix="bench_spam_cli_"))
    nbayes_exe = shutil.which("nbayes") or str(Path(sys.executable).parent / "nbayes")
    try:
        model = args.model
        if model is None:
            model = work / "sa.nbayes"
            print(f"training {model} on {corpus} ...", flush=True)
            subprocess.run(
                [nbayes_exe, "train", str(corpus), "-o", str(model), "--model", "spam", "-q"],
                check=True,
            )
        messages = sorted((corpus / "spam").iterdir())[:1] + sorted((corpus / "ham").iterdir())[:1]
        data = [m.read_bytes() for m in messages]
        ENV["NBAYES_CACHE_DIR"] = str(work / "cache")
        commands: dict[str, list[str]] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
            "nbayes filter MODEL < message": [nbayes_exe, "filter", str(model)],
            "  the same, NBAYES_CACHE_DIR=off": [nbayes_exe, "filter", str(model)],
        }
        envs = {"  the same, NBAYES_CACHE_DIR=off": {"NBAYES_CACHE_DIR": "off"}}
        if not args.skip_bogofilter:
            exe = ensure_bogofilter()
            home = work / "bogo"
            home.mkdir()
            for flag, label in (("-s", "spam"), ("-n", "ham")):
                files = [str(p) for p in sorted((corpus / label).iterdir())]
                subprocess.run([exe, flag, "-d", str(home), "-B", *files], check=True)
            commands["bogofilter -T < message"] = [exe, "-T", "-d", str(home)]
        time.sleep(max(0.0, model.stat().st_ctime + 2.5 - time.time()))  # (see verified.py)
        for name, argv in commands.items():  # warm up (bytecode caches; the model checked)
            timed(argv, data[0], envs.get(name))
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        register: list[float] = []
        for run in range(args.runs):
            for name, argv in commands.items():
                seconds, status = timed(argv, data[run % len(data)], envs.get(name))
                if "python -c" not in name and status not in (0, 1, 2):
                    raise SystemExit(f"{name} failed with exit status {status}")
                times[name].append(seconds)
                cpu[name].append(CPU[0])
        for _ in range(min(3, args.runs)):  # each registration undone
            seconds, status = timed(
                [nbayes_exe, "filter", str(model), "--register", "spam"], data[1]
            )
            undo, status2 = timed(
                [nbayes_exe, "filter", str(model), "--unregister", "spam"], data[1]
            )
            if status or status2:
                raise SystemExit("a registration failed")
            register.extend([seconds, undo])
        size = model.stat().st_size / 1e6
        print(f"\nmodel: {model} ({size:.1f} MB); medians of {args.runs} interleaved runs")
        load = os.getloadavg()[0]
        print(f"{'command':<36} {'median':>9} {'min':>9} {'CPU':>9}   (load average {load:.1f})")
        for name, values in times.items():
            med, low, c = statistics.median(values), min(values), statistics.median(cpu[name])
            print(f"{name:<36} {med * 1000:7.0f} ms {low * 1000:7.0f} ms {c * 1000:7.0f} ms")
        if register:
            med = statistics.median(register)
            name = "nbayes filter --register/--unregister"
            print(f"{name:<36} {med * 1000:7.0f} ms {min(register) * 1000:7.0f} ms")
        if "bogofilter -T < message" in times:
            bogo = statistics.median(times["bogofilter -T < message"])
            ours = statistics.median(times["nbayes filter MODEL < message"])
            print(f"nbayes filter / bogofilter (wall): {ours / bogo:.1f}x")
        nb = statistics.median(times["nbayes filter MODEL < message"])
        floor = statistics.median(times["python -c pass"])
        print(
            f"\nnbayes filter: {nb * 1000:.0f} ms (goal <= 150 ms: "
            f"{'met' if nb <= 0.15 else 'NOT met'}); above python's floor: "
            f"{(nb - floor) * 1000:.0f} ms"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
