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
* ``nbayes filter MODEL --register spam``: a registration, appended to MODEL.pending (the
  model file is not rewritten: nbayes.io.pending), with its maximum resident memory;
* ``nbayes filter MODEL`` with a full log (MODEL.pending just under its 512 KiB, ~100
  messages: what a verdict pays at most for the registrations not yet folded);
* ``nbayes filter MODEL --fold`` of that full log (the file written again, what one
  registration in ~100 pays) and ``--unregister spam`` (which writes the file at once);
* with ``--baseline NBAYES``, the ``nbayes`` executable of another install (e.g. the version
  before MODEL.pending), its verdict, and its ``--register spam`` and ``--unregister spam``
  on a copy of the model, interleaved with the runs above (compare installs of one kind: an
  editable install's import hook costs a few milliseconds a process);
* ``bogofilter -T`` on a wordlist of the same corpus (``-B``; Debian's bogofilter,
  installed by this script if missing, see bench_spam.py).

Usage::

    python benchmarks/bench_spam_cli.py --runs 9
    python benchmarks/bench_spam_cli.py --runs 9 --baseline /work/venv_old/bin/nbayes
    python benchmarks/bench_spam_cli.py --model /tmp/sa.nbayes --skip-bogofilter
"""

from __future__ import annotations

import argparse
import os
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
#: the CPU time (user + system, seconds) and the maximum resident memory (MB) of the last
#: command timed
CPU: list[float] = [0.0]
RSS: list[float] = [0.0]
#: GNU time, for each command's peak memory (the column is nan without it)
TIME = "/usr/bin/time"


def timed(argv: list[str], data: bytes, env: dict[str, str] | None = None) -> tuple[float, int]:
    """A command's wall time (and, in CPU[0], its CPU time: on a busy machine the wall time
    counts the waits for a core, the CPU time hardly; in RSS[0] its peak memory), the
    message on its standard input from a file."""
    with tempfile.TemporaryFile() as stdin, tempfile.NamedTemporaryFile("r") as peak:
        stdin.write(data)
        stdin.seek(0)
        # /usr/bin/time forks the command from its own small process: the peak is the
        # command's (a child forked from this script counts the script's pages it shared)
        timer = ["/usr/bin/time", "-f", "%M", "-o", peak.name] if os.path.exists(TIME) else []
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*timer, *argv], stdin=stdin, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env={**ENV, **(env or {})},
        )  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)  # (this child's own resource usage)
        wall = time.perf_counter() - t0
        text = peak.read().strip().splitlines()
    proc.returncode = os.waitstatus_to_exitcode(status)
    CPU[0] = usage.ru_utime + usage.ru_stime
    RSS[0] = int(text[-1]) / 1024 if timer and text and text[-1].isdigit() else float("nan")
    return wall, proc.returncode


def fill_log(model: Path, messages: list[Path], nbayes_exe: str) -> None:
    """MODEL.pending grown to just under the size at which a registration folds it."""
    from nbayes.io.pending import FOLD_BYTES, pending_path

    log = Path(pending_path(model))
    for m in messages:
        if log.exists() and log.stat().st_size > FOLD_BYTES - 12_000:
            return
        subprocess.run([nbayes_exe, "filter", str(model), "--register", "ham"], stdin=m.open("rb"),
                       check=True, capture_output=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--model", type=Path, default=None, help="a spam model (default: train one)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-bogofilter", action="store_true")
    ap.add_argument("--baseline", default=None, help="another install's nbayes executable")
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
        # the model in four more copies: with a full log, its template, the baseline's and
        # one to fold
        from nbayes.io.pending import pending_path

        full, template, base = work / "full.nbayes", work / "template.nbayes", work / "b.nbayes"
        folded = work / "folded.nbayes"  # (folded at each run, then given its log again)
        for copy in (full, template, base, folded):  # (with its times: the log names them)
            shutil.copy2(model, copy)
        fill_log(template, sorted((corpus / "ham").iterdir())[100:400], nbayes_exe)
        shutil.copy(pending_path(template), pending_path(full))
        commands["nbayes filter MODEL, 512 KiB pending"] = [nbayes_exe, "filter", str(full)]
        if args.baseline:  # (its verdict on the same model: the file is not changed)
            commands["baseline filter MODEL < message"] = [args.baseline, "filter", str(model)]
        time.sleep(max(0.0, model.stat().st_ctime + 2.5 - time.time()))  # (see verified.py)
        for name, argv in commands.items():  # warm up (bytecode caches; the model checked)
            timed(argv, data[0], envs.get(name))
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        changes: dict[str, tuple[list[str], Path | None]] = {
            "nbayes filter --register spam": ([nbayes_exe, "filter", str(model), "--register",
                                               "spam"], None),
            "nbayes filter --fold (512 KiB log)": ([nbayes_exe, "filter", str(folded),
                                                    "--fold"], folded),
            "nbayes filter --unregister spam": ([nbayes_exe, "filter", str(model),
                                                 "--unregister", "spam"], None),
        }  # fmt: skip
        if args.baseline:
            changes["baseline --register spam"] = (
                [args.baseline, "filter", str(base), "--register", "spam"],
                None,
            )
            changes["baseline --unregister spam"] = (
                [args.baseline, "filter", str(base), "--unregister", "spam"], None)  # fmt: skip
        rss: dict[str, list[float]] = {name: [] for name in [*commands, *changes]}
        for name in changes:
            times[name], cpu[name] = [], []
        for run in range(args.runs):
            for name, argv in commands.items():
                seconds, status = timed(argv, data[run % len(data)], envs.get(name))
                if "python -c" not in name and status not in (0, 1, 2):
                    raise SystemExit(f"{name} failed with exit status {status}")
                times[name].append(seconds)
                cpu[name].append(CPU[0])
                rss[name].append(RSS[0])
            for name, (argv, refill) in changes.items():  # (each registration undone after)
                if refill is not None:  # the full log put back (not timed)
                    shutil.copy2(template, refill)
                    shutil.copy(pending_path(template), pending_path(refill))
                seconds, status = timed(argv, data[0])
                if status:
                    raise SystemExit(f"{name} failed with exit status {status}")
                times[name].append(seconds)
                cpu[name].append(CPU[0])
                rss[name].append(RSS[0])
        size = model.stat().st_size / 1e6
        print(f"\nmodel: {model} ({size:.1f} MB); medians of {args.runs} interleaved runs")
        load = os.getloadavg()[0]
        print(f"{'command':<38} {'median':>9} {'min':>9} {'CPU':>9} {'memory':>8}   "
              f"(load average {load:.1f})")  # fmt: skip
        for name, values in times.items():
            med, low, c = statistics.median(values), min(values), statistics.median(cpu[name])
            mem = statistics.median(rss[name])
            print(f"{name:<38} {med * 1000:7.0f} ms {low * 1000:7.0f} ms {c * 1000:7.0f} ms "
                  f"{mem:5.0f} MB")  # fmt: skip
        if args.baseline:
            rows = (
                ("filter", "nbayes filter MODEL < message", "baseline filter MODEL < message"),
                ("--register", "nbayes filter --register spam", "baseline --register spam"),
            )
            for what, mine, theirs in rows:
                ratio = statistics.median(times[mine]) / statistics.median(times[theirs])
                print(f"{what}: this install / the baseline (wall): {ratio:.2f}x")
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
