"""Ctrl-C during ``nbayes train`` (issue 14, item 4), with real SIGINTs sent to a real
process at several moments: start-up, reading the data, counting, saving the model.

Whatever the moment, the process ends within a second with one line on stderr and exit
status 130, and the old model file is byte for byte as it was (no temporary left); if
the new model file was already complete, it says so and exits 0. The moments are found
from outside, in ``/proc``: start-up once numpy is being loaded (nbayes's code runs) and
before the data file is open, reading while it is open, counting once it is closed,
saving while the model's temporary file exists.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from nbayes.io.persist import load

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir() or sys.platform != "linux",
    reason="finds the moments of the run in /proc (Linux)",
)

#: the bound of the issue: Ctrl-C stops within 1 s
LIMIT = 1.0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 40 MB of CSV (200,000 documents of 30 words): a few seconds to read and count
    on a loaded machine, a model of 50,000 terms to save."""
    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(0)
    words = [f"w{i}" for i in range(50_000)]
    path = root / "big.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("text,label\n")
        for i in range(200_000):
            f.write(
                " ".join(rng.choices(words, k=30)) + ("," + ("spam" if i % 3 else "ham")) + "\n"
            )
    return path


@pytest.fixture
def old_model(tmp_path: Path) -> Path:
    small = tmp_path / "small.csv"
    small.write_text("text,label\nfree prize,spam\nlunch at noon,ham\n", encoding="utf-8")
    out = tmp_path / "model.nbayes"
    proc = subprocess.run([sys.executable, "-m", "nbayes", "train", str(small), "-o", str(out),
                           "-q"], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


def _open_files(pid: int) -> set[str]:
    found = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
    except OSError:
        pass
    return found


def _wait_for(proc: subprocess.Popen[str], condition: Callable[[], bool], what: str) -> bool:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.002)
    raise AssertionError(f"never saw the moment: {what}")


def _temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def _interrupt(
    corpus: Path, model: Path, moment: str, sig: int = signal.SIGINT
) -> tuple[int, str, float] | None:
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "nbayes", "train", str(corpus), "-o", str(model)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    data = str(corpus.resolve())
    seen_open = False

    def reading() -> bool:
        return data in _open_files(proc.pid)

    def counting() -> bool:
        nonlocal seen_open
        is_open = data in _open_files(proc.pid)
        seen_open = seen_open or is_open
        return seen_open and not is_open and not _temporaries(model.parent)

    def saving() -> bool:
        return bool(_temporaries(model.parent))

    def starting() -> bool:  # importing numpy (nbayes code runs), the data not yet open
        try:
            maps = Path(f"/proc/{proc.pid}/maps").read_text()
        except OSError:
            return False
        return "numpy" in maps and not reading()

    moments = {"start-up": starting, "reading": reading, "counting": counting, "saving": saving}
    reached = _wait_for(proc, moments[moment], moment)
    if not reached and moment == "saving":  # a fast disk: the save was over before seen
        proc.communicate(timeout=60)
        assert proc.returncode == 0
        return None
    assert reached, f"the run ended before the moment {moment!r}"
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err, time.monotonic() - sent


@pytest.mark.parametrize("moment", ["start-up", "reading", "counting"])
def test_ctrl_c_leaves_the_old_model_as_it_was(corpus: Path, old_model: Path, moment: str) -> None:
    before = old_model.read_bytes()
    got = _interrupt(corpus, old_model, moment)
    assert got is not None
    code, err, took = got
    assert code == -signal.SIGINT, err  # ended by the signal (the shell's 130)
    assert err == "Interrupted: no model file was changed.\n", err
    assert took < LIMIT, f"{took:.2f} s after Ctrl-C"
    assert old_model.read_bytes() == before
    assert not _temporaries(old_model.parent)


def test_sigterm_is_handled_as_ctrl_c(corpus: Path, old_model: Path) -> None:
    """SIGTERM (a mail delivery agent's timeout, ``kill``): before, it ended the process at
    once, and a save left its temporary file, as large as the model, beside it."""
    before = old_model.read_bytes()
    got = _interrupt(corpus, old_model, "counting", signal.SIGTERM)
    assert got is not None
    code, err, took = got
    assert (code, err) == (-signal.SIGTERM, "Stopped by SIGTERM: no model file was changed.\n")
    assert took < LIMIT, f"{took:.2f} s after SIGTERM"
    assert old_model.read_bytes() == before


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_while_saving_says_what_is_on_disk(
    corpus: Path, old_model: Path, sig: signal.Signals
) -> None:
    before = old_model.read_bytes()
    word = "Interrupted" if sig == signal.SIGINT else "Stopped by SIGTERM"
    for _ in range(5):  # the save is short: try again if it was over before it was seen
        got = _interrupt(corpus, old_model, "saving", sig)
        if got is not None:
            break
        old_model.write_bytes(before)
    else:
        pytest.skip("every save was over before its temporary file could be seen")
    code, err, took = got
    assert took < LIMIT, f"{took:.2f} s after Ctrl-C"
    assert not _temporaries(old_model.parent)
    assert len(err.strip().splitlines()) == 1, err
    if code == -sig:  # the rename had not happened: the old model, as it was
        assert err == f"{word}: no model file was changed.\n"
        assert old_model.read_bytes() == before
    else:  # it had: the new model, complete
        assert code == 0, err
        assert err.startswith(f"{word} after the model was saved: ") and "complete" in err
        assert load(old_model).class_count_.sum() == 200_000


def test_the_outcome_follows_what_is_on_disk(tmp_path: Path) -> None:
    """In-process: an interrupt after the rename reports the new model (exit 0)."""
    import io

    from nbayes.cli._interrupt import Interrupts

    path = tmp_path / "m.nbayes"
    path.write_bytes(b"old")
    err = io.StringIO()
    interrupts = Interrupts(err)
    with interrupts.writing(str(path)):
        pass  # nothing written
    assert interrupts.outcome() == ("Interrupted: no model file was changed.", 130)
    with interrupts.writing(str(path)):
        new = tmp_path / "new"
        new.write_bytes(b"new")
        os.replace(new, path)
    line, status = interrupts.outcome()
    assert status == 0 and "m.nbayes is complete" in line
    assert interrupts.report() == 0 and err.getvalue() == line + "\n"


def _run(script: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``script`` run by Python in ``folder``, its output captured."""
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=folder)  # fmt: skip


def _stuck_in_compiled_code(folder: Path) -> subprocess.Popen[str]:
    """``nbayes train`` whose run is seconds inside one compiled call (np.sort), from the
    moment this returns."""
    script = (
        "import signal, sys, numpy as np\n"
        "signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (a terminal's: not inherited ignored)\n"
        "from nbayes.cli import main, train\n"
        "def stuck(args, ui):\n"
        "    x = np.random.default_rng(0).random(40_000_000)\n"
        "    print('ready', flush=True)\n"
        "    for _ in range(50):\n"
        "        np.sort(x)  # seconds in C, the handler waits\n"
        "    return 0\n"
        "train.run = stuck\n"
        "sys.argv = ['nbayes', 'train', 'x.csv', '-o', 'm.nbayes']\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=folder, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    time.sleep(0.3)  # inside np.sort
    return proc


def test_the_watchdog_ends_a_run_stuck_in_compiled_code(tmp_path: Path) -> None:
    """Python runs its SIGINT handler only between bytecodes: a command stuck in one long
    compiled call still ends within a second (the watchdog), with the same line."""
    proc = _stuck_in_compiled_code(tmp_path)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == -signal.SIGINT, err
    assert err == "Interrupted: no model file was changed.\n", err
    assert took < LIMIT, f"{took:.2f} s after Ctrl-C"


def test_forked_workers_do_not_take_the_signals_for_the_command(tmp_path: Path) -> None:
    """A worker forked during a command (the spam filter's pools) gets the signals' default
    handling back: a pool's ``terminate`` (SIGTERM) ends it, and does not reach the
    command's watchdog through the inherited wakeup pipe (which would end the command)."""
    script = (
        "import os, signal, sys, time, warnings\n"
        "from nbayes.cli._interrupt import Interrupts\n"
        "i = Interrupts(sys.stderr)\n"
        "i.install()\n"
        # (Python 3.12+ warns of fork() beside the watchdog's thread, in __main__ only: the
        # pools fork in multiprocessing, where the warning is not shown)
        "warnings.filterwarnings('ignore', 'This process .* is multi-threaded')\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        time.sleep(5)\n"
        "    finally:\n"
        "        os._exit(7)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "time.sleep(1.0)  # past the watchdog's grace\n"
        "print(os.waitstatus_to_exitcode(status), i.interrupted, flush=True)\n"
        "i.uninstall(False)\n"
    )
    proc = _run(script, tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "-15 False\n", "")


def test_ignored_signals_stay_ignored() -> None:
    """``nohup nbayes train ...``: SIGHUP stays ignored (the terminal may close); a
    script's background job (``nbayes train ... &``) inherits SIGINT ignored: a Ctrl-C
    meant for the foreground stopped it (a review's)."""
    from nbayes.cli._interrupt import Interrupts

    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGHUP, signal.SIGINT)}
    try:
        interrupts = Interrupts(None)
        interrupts.install()
        try:
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
        finally:
            interrupts.uninstall(False)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_a_program_calling_main_keeps_its_sigterm() -> None:
    """``nbayes.cli.main([...])`` called by another program: its SIGTERM is its own (it was
    taken for the command's, and the host program kept running)."""
    from nbayes.cli._interrupt import Interrupts

    interrupts = Interrupts(None)
    interrupts.install(program=False)
    try:
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) not in (signal.SIG_DFL, signal.default_int_handler)
    finally:
        interrupts.uninstall(False)


def test_a_second_signal_prints_nothing_more(tmp_path: Path) -> None:
    """Two signals close together (SIGHUP then SIGTERM as a terminal closes, a double
    Ctrl-C): the second one's wakeup byte met a closed pipe, and Python printed five lines
    of "Exception ignored ... BrokenPipeError" before the closing line (a review's)."""
    proc = _stuck_in_compiled_code(tmp_path)
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.05)  # the watchdog has read the first byte
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (
        -signal.SIGHUP,
        "Stopped by SIGHUP: no model file was changed.\n",
    )


@pytest.mark.parametrize("where", ["python", "compiled"])
def test_ctrl_c_stops_a_shell_loop(tmp_path: Path, where: str) -> None:
    """``for f in *.eml; do nbayes ...; done`` and Ctrl-C: a shell goes on with its loop
    when the command exits with a status, even 130 (the command's own answer to Ctrl-C);
    it stops only when the command died by SIGINT, as nbayes now does once it has written
    its line. Both ways a run ends: the main thread's handler (``python``: a run in
    Python code) and the watchdog's (``compiled``: a run stuck in one compiled call)."""
    busy = "time.sleep(30)" if where == "python" else "\n    ".join([
        "x = np.random.default_rng(0).random(40_000_000)",
        "for _ in range(50):",
        "    np.sort(x)  # seconds in C, the handler waits",
    ])  # fmt: skip
    (tmp_path / "run.py").write_text(
        "import sys, time, numpy as np\n"
        "from nbayes.cli import main, train\n"
        "def busy(args, ui):\n"
        "    print('ready', flush=True)\n"
        f"    {busy}\n"
        "    return 0\n"
        "train.run = busy\n"
        "sys.argv = ['nbayes', 'train', 'x.csv', '-o', 'm.nbayes']\n"
        "sys.exit(main())\n"
    )
    loop = f'for i in 1 2; do "{sys.executable}" run.py; echo "next $?"; done'
    proc = subprocess.Popen(["bash", "-c", loop], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the loop's process group
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (-signal.SIGINT, ""), (out, err)
    assert err == "Interrupted: no model file was changed.\n", err


def test_a_signal_while_the_handling_is_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal that lands while :func:`nbayes.cli.main` installs its handling (here: at
    once after the handler, where the fork hook is set) is reported as any other: it
    escaped as a bare KeyboardInterrupt (a review's)."""
    from nbayes import cli
    from nbayes.cli import _interrupt

    def signalled(interrupts: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1.0)  # the handler raises in here

    monkeypatch.setattr(_interrupt, "_forget_in_forks", signalled)
    assert cli.main(["info", "no-such-model.nbayes"]) == 130
    assert capsys.readouterr().err == "Interrupted: no model file was changed.\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_hand_over_to_a_command_s_own_handling() -> None:
    """``release(handler)`` (``nbayes serve`` once it has loaded): the command's handler
    takes the signals at once, with no moment of the default between the two (a SIGTERM
    there ended a starting server without a word: a review's); and a signal already seen,
    whose KeyboardInterrupt Python dropped (raised in a weakref callback), is not lost."""
    from nbayes.cli._interrupt import Interrupts

    def handler(signum: int, frame: object) -> None:
        pass

    interrupts = Interrupts(None)
    interrupts.install(program=False)
    try:
        replaced = interrupts.release(handler)
        assert signal.getsignal(signal.SIGINT) is handler
        assert replaced == {signal.SIGINT: signal.default_int_handler}
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupts = Interrupts(None)
    interrupts.install(program=False)
    try:
        try:  # the handler ran where its KeyboardInterrupt is swallowed
            interrupts._on_signal(signal.SIGINT, None)
        except KeyboardInterrupt:
            pass
        with pytest.raises(KeyboardInterrupt):
            interrupts.release(handler)
    finally:
        interrupts.uninstall(False)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_ctypes_the_watchdog_still_ends_the_process(tmp_path: Path) -> None:
    """``_die_by`` from the watchdog thread needs the C library's ``signal()``: without
    ctypes it raised ModuleNotFoundError, the watchdog died with a traceback and the
    process lived on (a review's). It now returns, and the caller exits with the status."""
    script = (
        "import signal, sys, threading\n"
        "sys.modules['ctypes'] = None  # (a Python built without _ctypes)\n"
        "from nbayes.cli._interrupt import _die_by\n"
        "t = threading.Thread(target=_die_by, args=(signal.SIGTERM,))\n"
        "t.start(); t.join()\n"
        "print('returned')\n"
    )
    proc = _run(script, tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "returned\n", "")


def test_a_signal_after_the_outcome_still_ends_the_process_by_it(tmp_path: Path) -> None:
    """A Ctrl-C in a run's last moments, after its outcome is written: the signals were
    ignored from there on, and a shell loop went on (a review's: 2 loops of 20). The
    process now ends by it, its output flushed."""
    script = (
        "import os, signal, sys, time\n"
        "from nbayes.cli import main\n"
        "sys.argv = ['nbayes', 'info', 'no-such-model.nbayes']\n"
        "code = main()\n"
        "print('decided', code)\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(5)\n"
        "sys.exit(code)\n"
    )
    proc = _run(script, tmp_path)
    assert (proc.returncode, proc.stdout) == (-signal.SIGINT, "decided 1\n"), proc.stderr
    assert proc.stderr.startswith("Error: No model file")
