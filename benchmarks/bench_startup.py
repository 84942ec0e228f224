"""Install, startup and memory goals of issue 12, each measured in fresh processes.

(a) Fresh install: a new venv, a fresh ``git clone`` of ``--repo`` (default: the repository
    this script is in; ``--ref`` to check out a commit, branch or tag), ``pip install .``
    (timed; pip's cache and the configured indexes are reported: the cache may be warm),
    then the first ``nbayes demo`` of that venv. Goal: <= 3 s. The second ``nbayes demo``
    is reported too. A clone holds committed code only: uncommitted changes of ``--repo``
    are not measured (the script says so when there are some).
(b) One ``nbayes predict MODEL --text "..."`` process, MODEL trained once with
    ``nbayes train`` on the SMS Spam Collection. Goal: <= 0.3 s (median).
(c) Peak RSS of a fresh process that runs ``import nbayes`` and a four-document
    ``TextClassifier`` fit + predict: VmHWM of the child (its own address space) and, as a
    cross-check, ``ru_maxrss`` from ``os.wait4`` (Linux counts the parent's size at the
    ``exec`` in it, so it is slightly higher). Goal: <= 200 MiB (median).
Also reported, no goal: ``python -c pass`` (the interpreter's floor), ``import nbayes`` (as a
process and in process, with the heavy modules it pulled in), ``nbayes.TextClassifier``.

(b), (c) and the import measures run in the venv of (a), or in ``--python`` (an installed
nbayes, not reinstalled), interleaved: one warm-up round (reported, not counted: that is where
a first call may compile), then ``--runs`` rounds of every measure in turn; the table gives
the median, min and max. This script needs only the standard library; PYTHONPATH is removed
from the children's environment so that they import the installed nbayes.

Usage::

    python benchmarks/bench_startup.py                              # (a), then (b), (c) in it
    python benchmarks/bench_startup.py --repo /work/baseline --python /work/venv-numba/bin/python
    python benchmarks/bench_startup.py --skip-install --python /work/venv-numba/bin/python
    python benchmarks/bench_startup.py --ref HEAD~1 --fresh-installs 2 --runs 9 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from _machine import machine

HERE = Path(__file__).resolve().parent
SMS = Path("/work/shared/data/sms_spam_collection/sms_spam_collection.csv")
TEXT = "WINNER!! You have been selected to receive a free prize. Call now to claim your cash"
GOAL_DEMO_S = 3.0
GOAL_PREDICT_S = 0.3
GOAL_RSS_MIB = 200.0

# in-process import time and what the import pulled in
IMPORT_CODE = """\
import json, sys, time
t = time.perf_counter()
import nbayes
t1 = time.perf_counter()
nbayes.TextClassifier
t2 = time.perf_counter()
heavy = ["numba", "llvmlite", "scipy", "sklearn", "pandas", "matplotlib", "dask", "pyarrow"]
print(json.dumps({"import_s": t1 - t, "text_s": t2 - t1, "n_modules": len(sys.modules),
                  "loaded": [m for m in heavy if m in sys.modules]}))
"""

# (c): import + a four-document fit + predict; VmHWM is this process's own peak RSS
RSS_CODE = """\
import json, time
t = time.perf_counter()
import nbayes
t1 = time.perf_counter()
clf = nbayes.TextClassifier().fit(
    ["win a free prize now", "free cash call now", "see you at lunch", "meeting moved to noon"],
    ["spam", "spam", "ham", "ham"])
pred = clf.predict(["free lunch prize"]).tolist()
t2 = time.perf_counter()
hwm = next(int(line.split()[1]) for line in open("/proc/self/status")
           if line.startswith("VmHWM:"))
print(json.dumps({"import_s": t1 - t, "fit_predict_s": t2 - t1, "vmhwm_kib": hwm,
                  "pred": pred}))
"""

IMPORT_ONLY_RSS_CODE = """\
import json
import nbayes
hwm = next(int(line.split()[1]) for line in open("/proc/self/status")
           if line.startswith("VmHWM:"))
print(json.dumps({"vmhwm_kib": hwm}))
"""


@dataclass
class Proc:
    cmd: list[str]
    wall: float
    rc: int
    out: str
    err: str
    maxrss_kib: int

    def json(self) -> dict:
        for line in reversed(self.out.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"no JSON from {shlex.join(self.cmd)}:\n{self.out}\n{self.err}")

    def check(self) -> Proc:
        if self.rc != 0:
            raise RuntimeError(
                f"{shlex.join(self.cmd)} exited with {self.rc}:\n{self.out[-2000:]}\n"
                f"{self.err[-4000:]}"
            )
        return self


def run(cmd: list[str], env: dict[str, str], cwd: Path | str, timeout: float = 1800.0) -> Proc:
    """Run ``cmd``; wall time from spawn to reaping, and the child's rusage (os.wait4)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        return Proc(
            cmd,
            wall,
            p.returncode,
            fo.read().decode(errors="replace"),
            fe.read().decode(errors="replace"),
            usage.ru_maxrss,
        )


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def git(*args: str, cwd: Path | str | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def dir_mb(path: Path) -> float:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += (Path(root) / f).lstat().st_size
            except OSError:
                pass
    return total / 1e6


def pip_cache_note(py: str, env: dict[str, str]) -> str:
    """Where pip's cache is and how full, and the configured indexes / find-links."""
    r = subprocess.run([py, "-m", "pip", "cache", "dir"], capture_output=True, text=True, env=env)
    cache = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else ""
    if cache and Path(cache).is_dir():
        mb = dir_mb(Path(cache))
        state = f"{cache}: {mb:.1f} MB ({'warm' if mb > 1 else 'empty'})"
    else:
        state = f"{cache or '?'}: absent"
    cfg = subprocess.run(
        [py, "-m", "pip", "config", "list"], capture_output=True, text=True, env=env
    ).stdout
    where = [ln for ln in cfg.splitlines() if "index" in ln or "find-links" in ln]
    local = any("file://" in ln or "find-links='/" in ln for ln in where)
    return (
        f"pip cache {state}"
        + (
            "; local indexes / find-links configured: wheels may come from disk, no download"
            if local
            else ""
        )
        + (f"; pip config: {'; '.join(where)}" if where else "")
    )


@dataclass
class Row:
    label: str
    values: list[float]
    unit: str
    command: str
    goal: float | None = None
    extra: str = ""
    warmup: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def met(self) -> str:
        if self.goal is None:
            return "-"
        return "yes" if self.median <= self.goal else "NO"


def fmt(v: float, unit: str) -> str:
    if unit == "s":
        return f"{v:.3f} s" if v < 10 else f"{v:.1f} s"
    return f"{v:.1f} {unit}"


def fresh_install(args: argparse.Namespace, work: Path, env: dict[str, str], tag: str) -> dict:
    """venv + clone + pip install . + first and second ``nbayes demo``; returns timings."""
    venv, clone, cwd = work / f"venv{tag}", work / f"clone{tag}", work / f"cwd{tag}"
    cwd.mkdir()
    res: dict = {"venv": str(venv)}
    t = time.perf_counter()
    git("clone", "--quiet", "--no-local", str(args.repo), str(clone))
    if args.ref:
        git("checkout", "--quiet", args.ref, cwd=clone)
    res["clone_s"] = time.perf_counter() - t
    res["commit"] = git("log", "-1", "--format=%h %s", cwd=clone)
    p = run([args.base_python, "-m", "venv", str(venv)], env, cwd).check()
    res["venv_s"] = p.wall
    py = str(venv / "bin" / "python")
    res["pip_version"] = subprocess.run(
        [py, "-m", "pip", "--version"], capture_output=True, text=True, env=env
    ).stdout.split(" from ")[0]
    res["cache_note"] = pip_cache_note(py, env)
    pip = [py, "-m", "pip", "install", "--quiet", "."]
    if args.no_pip_cache:
        pip.insert(4, "--no-cache-dir")
    print(f"  pip install . in {clone} ...", flush=True)
    p = run(pip, env, clone).check()
    res["pip_s"] = p.wall
    res["pip_cmd"] = "$VENV/bin/python " + shlex.join(pip[1:])
    nb = str(venv / "bin" / "nbayes")
    for key in ("demo1", "demo2"):
        p = run([nb, "demo"], env, cwd).check()
        res[f"{key}_s"] = p.wall
        res[f"{key}_rc"] = p.rc
    res["demo_tail"] = p.out.strip().splitlines()[-1] if p.out.strip() else ""
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repo",
        type=Path,
        default=None,
        help="repository to clone for (a) (default: the one of this script)",
    )
    ap.add_argument("--ref", default=None, help="commit/branch/tag to check out in the clone")
    ap.add_argument(
        "--python",
        default=None,
        help="interpreter with nbayes installed for (b), (c) and the import rows "
        "(default: the venv of (a); with --skip-install, this interpreter)",
    )
    ap.add_argument("--skip-install", action="store_true", help="skip (a)")
    ap.add_argument(
        "--base-python",
        default=sys.executable,
        help="interpreter that creates the fresh venv (default: this one)",
    )
    ap.add_argument(
        "--fresh-installs",
        type=int,
        default=1,
        help="how many fresh venv + clone + install + demo sequences (median)",
    )
    ap.add_argument("--no-pip-cache", action="store_true", help="pip install --no-cache-dir")
    ap.add_argument("--runs", type=int, default=5, help="rounds for (b), (c) and the imports")
    ap.add_argument("--data", type=Path, default=SMS, help="CSV (text,label) to train MODEL")
    ap.add_argument("--text", default=TEXT, help="the document of (b)")
    ap.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where venvs, clones and the model go (default: a temporary folder)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    args = ap.parse_args()
    if args.repo is None:
        args.repo = Path(git("rev-parse", "--show-toplevel", cwd=HERE))
    args.repo = args.repo.resolve()

    env = child_env()
    print(machine())
    if "PYTHONPATH" in os.environ:
        print(f"(PYTHONPATH={os.environ['PYTHONPATH']} is removed from the children's environment)")
    notes = [
        f"{k}={os.environ[k]}"
        for k in (
            "PYTHONDONTWRITEBYTECODE",
            "NUMBA_CACHE_DIR",
            "NBAYES_NUM_THREADS",
            "OMP_NUM_THREADS",
        )
        if k in os.environ
    ]
    if notes:
        print("environment: " + ", ".join(notes))

    work = args.workdir or Path(tempfile.mkdtemp(prefix="nbayes-startup-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    raw: dict = {"machine": machine(), "repo": str(args.repo), "ref": args.ref}
    try:
        py = args.python
        if not args.skip_install:
            dirty = git("status", "--porcelain", "--untracked-files=no", cwd=args.repo)
            print(
                f"\n== (a) fresh install: clone of {args.repo}"
                f"{' at ' + args.ref if args.ref else ''} =="
            )
            if dirty:
                print("  note: the repository has uncommitted changes; the clone does not")
            installs = []
            for i in range(args.fresh_installs):
                res = fresh_install(args, work, env, str(i))
                installs.append(res)
                print(
                    f"  [{i + 1}/{args.fresh_installs}] commit {res['commit']}; "
                    f"{res['pip_version']}; {res['cache_note']}"
                )
                print(
                    f"  clone {res['clone_s']:.2f} s, venv {res['venv_s']:.2f} s, pip install "
                    f"{res['pip_s']:.1f} s, first demo {res['demo1_s']:.2f} s, second demo "
                    f"{res['demo2_s']:.2f} s  (demo's last line: {res['demo_tail'][:60]!r})",
                    flush=True,
                )
            raw["installs"] = installs
            cache = ";".join(installs[0]["cache_note"].split(";")[:2])
            base = shlex.quote(args.base_python)
            rows += [
                Row(
                    "(a) git clone (+ checkout)",
                    [r["clone_s"] for r in installs],
                    "s",
                    f"git clone --no-local {args.repo} $CLONE"
                    + (f" && git checkout {args.ref}" if args.ref else ""),
                ),
                Row(
                    "(a) python -m venv",
                    [r["venv_s"] for r in installs],
                    "s",
                    f"{base} -m venv $VENV",
                ),
                Row(
                    "(a) pip install .",
                    [r["pip_s"] for r in installs],
                    "s",
                    f"cd $CLONE && {installs[0]['pip_cmd']}",
                    extra=cache,
                ),
                Row(
                    "(a) first nbayes demo after install",
                    [r["demo1_s"] for r in installs],
                    "s",
                    "$VENV/bin/nbayes demo",
                    GOAL_DEMO_S,
                ),
                Row(
                    "(a) second nbayes demo",
                    [r["demo2_s"] for r in installs],
                    "s",
                    "$VENV/bin/nbayes demo",
                ),
            ]
            if py is None:
                py = installs[-1]["venv"] + "/bin/python"
        if py is None:
            py = sys.executable

        py_dir = Path(py).parent
        nb_exe = py_dir / "nbayes"
        nb_cmd = [str(nb_exe)] if nb_exe.exists() else [py, "-m", "nbayes"]
        where = (
            run(
                [
                    py,
                    "-c",
                    "import nbayes, sys; print(nbayes.__version__, nbayes.__file__, "
                    "sys.version.split()[0])",
                ],
                env,
                work,
            )
            .check()
            .out.strip()
        )
        print(f"\n== (b), (c), imports: PY = {py} ==\n  nbayes {where}")
        model = work / "sms.nbayes"
        p = run([*nb_cmd, "train", str(args.data), "-o", str(model), "-q"], env, work).check()
        print(
            f"  trained MODEL = {model} in {p.wall:.2f} s: "
            f"{shlex.join(['nbayes', 'train', str(args.data), '-o', 'MODEL'])}"
        )

        nb_show = "$NBAYES" if nb_exe.exists() else "$PY -m nbayes"
        measures: list[tuple[str, list[str], str, float | None]] = [
            ("python -c pass (interpreter floor)", [py, "-c", "pass"], "$PY -c pass", None),
            (
                "import nbayes, as a process",
                [py, "-c", "import nbayes"],
                "$PY -c 'import nbayes'",
                None,
            ),
            (
                "(b) nbayes predict MODEL --text",
                [*nb_cmd, "predict", str(model), "--text", args.text],
                f"{nb_show} predict MODEL --text {shlex.quote(args.text[:20] + '...')}",
                GOAL_PREDICT_S,
            ),
            ("in-process import", [py, "-c", IMPORT_CODE], "$PY -c '<IMPORT_CODE>'", None),
            ("(c) import + 4-doc fit + predict", [py, "-c", RSS_CODE], "$PY -c '<RSS_CODE>'", None),
            (
                "import nbayes, peak RSS",
                [py, "-c", IMPORT_ONLY_RSS_CODE],
                "$PY -c '<IMPORT_ONLY_RSS_CODE>'",
                None,
            ),
        ]
        samples: dict[str, list[Proc]] = {m[0]: [] for m in measures}
        warm: dict[str, Proc] = {}
        for rnd in range(args.runs + 1):
            for name, cmd, _, _ in measures:
                p = run(cmd, env, work).check()
                if rnd == 0:
                    warm[name] = p
                else:
                    samples[name].append(p)
            print(f"  round {rnd}/{args.runs}{' (warm-up)' if rnd == 0 else ''} done", flush=True)

        def walls(name: str) -> list[float]:
            return [p.wall for p in samples[name]]

        def field_of(name: str, key: str, scale: float = 1.0) -> list[float]:
            return [p.json()[key] * scale for p in samples[name]]

        imp = samples["in-process import"][-1].json()
        rows += [
            Row(
                "python -c pass (interpreter floor)",
                walls("python -c pass (interpreter floor)"),
                "s",
                "$PY -c pass",
                warmup=[warm["python -c pass (interpreter floor)"].wall],
            ),
            Row(
                "import nbayes (process wall)",
                walls("import nbayes, as a process"),
                "s",
                "$PY -c 'import nbayes'",
                warmup=[warm["import nbayes, as a process"].wall],
            ),
            Row(
                "import nbayes (in process)",
                field_of("in-process import", "import_s"),
                "s",
                "$PY -c '<IMPORT_CODE>'",
                extra=f"{imp['n_modules']} modules; loaded: {', '.join(imp['loaded']) or '-'}",
            ),
            Row(
                "  then nbayes.TextClassifier",
                field_of("in-process import", "text_s"),
                "s",
                "$PY -c '<IMPORT_CODE>'",
            ),
            Row(
                "(b) nbayes predict MODEL --text (process)",
                walls("(b) nbayes predict MODEL --text"),
                "s",
                measures[2][2],
                GOAL_PREDICT_S,
                warmup=[warm["(b) nbayes predict MODEL --text"].wall],
            ),
            Row(
                "(c) peak RSS: import + 4-doc fit + predict",
                field_of("(c) import + 4-doc fit + predict", "vmhwm_kib", 1 / 1024),
                "MiB",
                "$PY -c '<RSS_CODE>'",
                GOAL_RSS_MIB,
                extra="VmHWM of the child",
                warmup=[warm["(c) import + 4-doc fit + predict"].json()["vmhwm_kib"] / 1024],
            ),
            Row(
                "  same, ru_maxrss (os.wait4)",
                [p.maxrss_kib / 1024 for p in samples["(c) import + 4-doc fit + predict"]],
                "MiB",
                "$PY -c '<RSS_CODE>'",
                extra="includes the parent's size at exec",
            ),
            Row(
                "  its process wall",
                walls("(c) import + 4-doc fit + predict"),
                "s",
                "$PY -c '<RSS_CODE>'",
                warmup=[warm["(c) import + 4-doc fit + predict"].wall],
            ),
            Row(
                "  its 4-doc fit + predict (in process)",
                field_of("(c) import + 4-doc fit + predict", "fit_predict_s"),
                "s",
                "$PY -c '<RSS_CODE>'",
                warmup=[warm["(c) import + 4-doc fit + predict"].json()["fit_predict_s"]],
            ),
            Row(
                "peak RSS of import nbayes alone",
                field_of("import nbayes, peak RSS", "vmhwm_kib", 1 / 1024),
                "MiB",
                "$PY -c '<IMPORT_ONLY_RSS_CODE>'",
                extra="VmHWM of the child",
            ),
        ]
        raw["python"] = py
        raw["samples"] = {
            k: [
                {
                    "wall": p.wall,
                    "maxrss_kib": p.maxrss_kib,
                    "json": p.json() if p.out.strip().startswith("{") else None,
                }
                for p in v
            ]
            for k, v in samples.items()
        }
        raw["warmup"] = {k: p.wall for k, p in warm.items()}

        print(f"\n{machine()}")
        if not args.skip_install:
            print(
                f"$VENV, $CLONE = fresh venv and clone under {work}; fresh installs: "
                f"{args.fresh_installs}"
            )
        print(f"$PY = {py}; $NBAYES = {nb_exe}; MODEL = nbayes train {args.data} -o MODEL")
        print(
            f"medians of {args.runs} interleaved rounds after one warm-up round (shown, not "
            f"counted); (a): of {args.fresh_installs} fresh install(s)"
        )
        head = (
            f"{'measure':<44} {'median':>10} {'min':>10} {'max':>10} {'warm-up':>10} "
            f"{'goal':>11} {'met':<4} command / note"
        )
        print(head)
        print("-" * (len(head) + 30))
        for r in rows:
            goal = f"<= {fmt(r.goal, r.unit)}" if r.goal is not None else "-"
            wu = fmt(r.warmup[0], r.unit) if r.warmup else ""
            note = r.command + (f"   [{r.extra}]" if r.extra else "")
            print(
                f"{r.label:<44} {fmt(r.median, r.unit):>10} {fmt(min(r.values), r.unit):>10} "
                f"{fmt(max(r.values), r.unit):>10} {wu:>10} {goal:>11} {r.met():<4} {note}"
            )
        print("\ncode run with -c:")
        for name, code in (
            ("IMPORT_CODE", IMPORT_CODE),
            ("RSS_CODE", RSS_CODE),
            ("IMPORT_ONLY_RSS_CODE", IMPORT_ONLY_RSS_CODE),
        ):
            print(f"  {name}:")
            print("".join(f"    {ln}\n" for ln in code.splitlines()), end="")
        print("\ngoals:")
        for r in rows:
            if r.goal is not None:
                print(
                    f"  [{'met' if r.met() == 'yes' else 'NOT met'}] {r.label.strip()}: "
                    f"{fmt(r.median, r.unit)} (goal <= {fmt(r.goal, r.unit)})"
                )
        raw["rows"] = [
            {
                "label": r.label,
                "values": r.values,
                "unit": r.unit,
                "goal": r.goal,
                "median": r.median,
                "met": r.met(),
                "command": r.command,
            }
            for r in rows
        ]
        if args.json:
            args.json.write_text(json.dumps(raw, indent=1))
    finally:
        if args.keep:
            print(f"(kept {work})")
        elif args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
