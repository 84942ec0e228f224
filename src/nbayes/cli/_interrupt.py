"""Ctrl-C on the command line: stop within a second, print one line, and change no file.

SIGTERM (a mail delivery agent's timeout, ``kill``, a supervisor) and SIGHUP (the
terminal closed) are handled as Ctrl-C is, unless they are ignored (``nohup``): before,
their default ended the process at once, and a model file being written left its
temporary file, as large as the model, beside it. Their closing line names the signal,
and the exit status of a run that changed no file is 128 + the signal's number.

While a command runs, SIGINT raises ``KeyboardInterrupt`` in the main thread (as Python's
default handler does), which unwinds the command: a model file being written is never
replaced (``nbayes.save`` writes a temporary file and renames it over the old one only when
it is complete, and removes the temporary when interrupted). Python runs that handler only
when the main thread runs Python code, which a long compiled call, or a disk's ``fsync``,
can delay for seconds; so a watchdog thread learns of the signal at once (through
``signal.set_wakeup_fd``, written by the C-level handler) and ends the process
:data:`GRACE` seconds later if the main thread has not finished by then. Once Ctrl-C is
pending, the main thread can no longer reach the rename (the handler runs first), so what
the watchdog sees on disk is final; it removes the temporary file of the model being
written.

Every model file a command writes is registered (:meth:`Interrupts.writing`) with the
identity of the file it replaces (inode, size, modification time). The closing line, and the
exit status, follow from what is on disk: "no model file was changed" (exit 130), or, when
the rename had already happened, the new model is complete (exit 0).

A run that changed no file ends, after its closing line, by the signal itself (as Python
does after an unhandled Ctrl-C), so the shell reports 130, 143 or 129 and its parent knows
how it ended: a shell loop (``for f in *.eml; do nbayes filter ...; done``) stops at Ctrl-C
only when its command died by SIGINT (it takes an exit status as the command's own answer to
Ctrl-C, and goes on), and systemd counts a death by SIGTERM as a clean stop but exit 143 as
a failure. A library call of :func:`nbayes.cli.main` returns the status instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn, TextIO

__all__ = ["GRACE", "Interrupts"]

#: the signals handled as Ctrl-C is (SIGTERM and SIGHUP only where they are not ignored)
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: Seconds the main thread has to unwind after Ctrl-C before the watchdog ends the process.
GRACE = 0.5
#: Seconds the watchdog then waits for a model file being written to be finished or
#: abandoned by the main thread, before it ends the process anyway.
SAVE_WAIT = 0.2


def _temporaries(folder: str, name: str) -> set[str]:
    """The temporary files of saves of the model file ``name`` in ``folder``."""
    prefix = f".{name[:100]}."
    try:
        return {
            os.path.join(folder, e) for e in os.listdir(folder)
            if e.startswith(prefix) and e.endswith(".tmp")
        }  # fmt: skip
    except OSError:
        return set()


def _identity(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Interrupts:
    """The SIGINT handling of one run of :func:`nbayes.cli.main`.

    Parameters
    ----------
    err : text stream
        Where the closing line goes (stderr).
    """

    def __init__(self, err: TextIO | None) -> None:
        self.err = err
        self._targets: list[tuple[str, tuple[int, int, int, int] | None, set[str]]] = []
        self._saving = threading.RLock()  # held while a model file is written (nested: its log)
        self._claimed = threading.Lock()  # the closing line is written once
        self._said = threading.Event()  # the watchdog has written it
        self._finished = threading.Event()
        self._hit = False
        self._signum = signal.SIGINT  # the first signal handled
        self._signalled = threading.Event()  # seen by the watchdog
        self._previous: dict[int, Any] = {}
        self._previous_fd = -1
        self._wake: tuple[int, int] | None = None
        self._installed = False
        #: a command whose outcome is not its files' (``nbayes filter --update``, whose
        #: exit status is a verdict): ``override(first_words)`` gives the closing line and
        #: the exit status
        self.override: Callable[[str], tuple[str, int]] | None = None

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C was pressed (or SIGTERM or SIGHUP came) during this run."""
        return self._hit or self._signalled.is_set()

    # ------------------------------------------------------------------ handler
    def install(self, program: bool = True) -> None:
        """Handle SIGINT from now on, and, when nbayes is the ``program`` (not a library
        call of :func:`nbayes.cli.main` in another program, whose SIGTERM is its own),
        SIGTERM and SIGHUP; a signal inherited as ignored stays ignored (``nohup``, a
        script's background job). Only possible in the main thread; elsewhere, e.g.
        ``main`` called from a worker thread, Python's handling stays."""
        if threading.current_thread() is not threading.main_thread():
            return
        # installed (for uninstall) before the first handler: a signal from then on raises
        # KeyboardInterrupt here, which :func:`nbayes.cli.main` reports as any other
        self._installed = True
        for sig in SIGNALS if program else (signal.SIGINT,):
            previous = signal.getsignal(sig)
            if previous in (signal.SIG_DFL, signal.default_int_handler):
                self._previous[sig] = previous
                signal.signal(sig, self._on_signal)
        _forget_in_forks(self)
        try:
            r, w = os.pipe()
            self._wake = (r, w)  # (closed by uninstall, whatever happens from here)
            os.set_blocking(w, False)
            self._previous_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except (OSError, ValueError):  # no wakeup fd: the Python handler still works
            self._wake = None
            return
        threading.Thread(target=self._watch, args=(r,), name="nbayes-ctrl-c", daemon=True).start()

    def uninstall(self, program: bool) -> None:
        """Stop handling SIGINT: restore the previous handler, or, when the process ends
        right after (``program``), end it at once by a signal that comes now (the command's
        outcome is decided and written: its output is flushed first). Before, the signals
        were ignored from here on, and a shell loop went on after a Ctrl-C in a run's last
        tens of milliseconds (a review's)."""
        self._finished.set()
        if not self._installed:
            return
        for sig, previous in self._previous.items():
            signal.signal(sig, _end_by_signal if program else previous)
        self._installed = False
        if self._wake is not None:
            signal.set_wakeup_fd(self._previous_fd)
            os.close(self._wake[1])  # the watchdog reads the end of the pipe and stops
            self._wake = None

    def release(self, handler: Callable[[int, FrameType | None], Any]) -> dict[int, Any]:
        """The command handles the signals itself from now on (``nbayes serve``: its
        Ctrl-C is a clean stop that folds the journal): ``handler`` takes each signal this
        run handles, in place of this handling (no moment without one: before, the
        default came back first, and a SIGTERM then ended a starting server without a
        word), and the watchdog, which would end the process :data:`GRACE` seconds after
        Ctrl-C, stops. Returns the handlers this run replaced, for the command to restore.

        A signal already seen raises KeyboardInterrupt (reported as any other: the command
        stops): Python drops the KeyboardInterrupt of a handler that ran inside a weakref
        callback or a ``__del__``, and the signal was lost (a review's: a server then
        served on, deaf to the SIGTERM)."""
        if self.interrupted:
            raise KeyboardInterrupt
        replaced = dict(self._previous)
        if self._installed:
            for sig in replaced:
                signal.signal(sig, handler)
            self._previous = {}  # (left as the command set them)
        self.uninstall(program=False)
        return replaced

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._hit:  # a second Ctrl-C: the watchdog is already counting
            return
        if not self._signalled.is_set():
            self._signum = signal.Signals(signum)
        self._hit = True
        raise KeyboardInterrupt

    def in_fork(self) -> None:
        """In a process forked from this one (a worker): the signals' default handling
        again, and no wakeup fd. A worker that kept them would take SIGTERM (a pool's
        ``terminate``) as a KeyboardInterrupt, and write it into this process's wakeup
        pipe, which the watchdog would take for this process's own."""
        if not self._installed:
            return
        with contextlib.suppress(ValueError, OSError):  # (forked from another thread)
            signal.set_wakeup_fd(-1)
            for sig, previous in self._previous.items():
                signal.signal(sig, signal.SIG_DFL if sig != signal.SIGINT else previous)
        self._installed = False

    def _watch(self, fd: int) -> None:
        signalled = False
        try:
            while True:
                data = os.read(fd, 64)
                if not data:
                    return  # uninstalled
                handled = [sig for sig in data if sig in self._previous]
                if handled:
                    if not self._hit:
                        self._signum = signal.Signals(handled[0])
                    signalled = True
                    break
        except OSError:
            return
        finally:
            # the read end stays open once a signal came: closed, the next signal's write
            # into the pipe printed "Exception ignored ... BrokenPipeError" (a review's)
            if not signalled:
                os.close(fd)
        self._signalled.set()
        if self._finished.wait(GRACE):
            return
        # a model file being written is then written or abandoned, or still being written:
        # either way, what is left of its temporary is not the model
        self._saving.acquire(timeout=SAVE_WAIT)
        if not self._claimed.acquire(blocking=False):
            return  # the main thread is reporting it
        line, status = self.outcome()
        self._remove_temporaries()
        try:
            self._write(line)
        finally:
            self._said.set()
            self._end(status)

    def _remove_temporaries(self) -> None:
        """The temporary files ``nbayes.save`` was writing next to the registered model
        files (``.<name>.<random>.tmp``, created since the registration)."""
        for path, _, existing in self._targets:
            folder, name = os.path.split(path)
            for entry in _temporaries(folder, name) - existing:
                with contextlib.suppress(OSError):
                    os.unlink(entry)

    def _write(self, line: str) -> None:
        try:
            if self.err is not None:
                self.err.write(line + "\n")
                self.err.flush()
        except (OSError, ValueError):  # stderr closed: the status still tells
            pass

    # ------------------------------------------------------------------ outcome
    @contextmanager
    def writing(self, path: str) -> Iterator[None]:
        """Around the writing of the model file ``path``: registered with the identity of
        the file it replaces, so that the outcome can tell whether it was replaced."""
        with self._saving:
            full = os.path.abspath(path)
            folder, name = os.path.split(full)
            self._targets.append((full, _identity(full), _temporaries(folder, name)))
            try:
                yield
            except BaseException:
                # an interrupt can land between the creation of the temporary and the
                # code that removes it on failure: remove what this save left
                self._remove_temporaries()
                raise

    def saved(self) -> list[str]:
        """The registered model files that were replaced (each complete: the rename that
        replaces one is atomic)."""
        return [path for path, before, _ in self._targets if _identity(path) != before]

    def outcome(self) -> tuple[str, int]:
        """The closing line of an interrupted run, and its exit status."""
        from nbayes.io.pending import SUFFIX  # (a spam filter's log of registrations)

        if self.override is not None:
            return self.override(self._what())
        saved = self.saved()
        models = [p for p in saved if not p.endswith(SUFFIX)]
        if models:
            names = ", ".join(os.path.relpath(p) for p in models)
            return (
                f"{self._what()} after the model was saved: {names} is complete (the new model).",
                0,
            )
        if saved:  # (a registration appended to a spam filter's log, not yet folded)
            names = ", ".join(os.path.relpath(p) for p in saved)
            return (
                f"{self._what()} after the registration was written: {names} holds it, and "
                "the model counts it (do not register it again).",
                0,
            )
        return f"{self._what()}: no model file was changed.", 128 + self._signum

    def _what(self) -> str:
        """The closing line's first word: Ctrl-C's "Interrupted", or the signal's."""
        if self._signum == signal.SIGINT:
            return "Interrupted"
        return f"Stopped by {signal.Signals(self._signum).name}"

    def report(self, program: bool = False) -> int:
        """Write the closing line from the main thread (unless the watchdog is writing
        it); the exit status. With ``program`` (the process ends now), end it here: the
        interpreter's clean-up of a large run (its memory, its threads) takes longer than
        the second Ctrl-C is allowed."""
        line, status = self.outcome()
        if self._claimed.acquire(blocking=False):
            self._write(line)
        elif program:  # the watchdog writes it, then ends the process: ending it here first
            # lost the line (a race a loaded machine showed)
            self._said.wait(SAVE_WAIT + 1.0)
        if program:
            _flush_output()
            self._end(status)
        return status

    def _end(self, status: int) -> NoReturn:
        """End the process: by the signal handled when ``status`` says the run changed
        nothing (128 + its number), with ``status`` otherwise (a new model saved, a
        delivery's verdict)."""
        if status == 128 + self._signum:
            _die_by(self._signum)
        os._exit(status)


def _flush_output() -> None:
    """Flush standard output and error before the process ends without Python's clean-up
    (whatever they are now: closed, gone)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()


def _end_by_signal(signum: int, frame: FrameType | None) -> None:
    """A signal after the command's outcome: its output flushed, the process ends by it."""
    _flush_output()
    _die_by(signum)
    os._exit(128 + signum)


def _die_by(signum: int) -> None:
    """End the process by the signal ``signum``, its default action (nothing written after,
    no clean-up: the caller has done both); returns only where that cannot be done."""
    try:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signum, signal.SIG_DFL)
        else:  # (the watchdog) Python sets handlers in the main thread only: the C library's
            import ctypes

            set_handler = ctypes.CDLL(None).signal
            set_handler.argtypes = (ctypes.c_int, ctypes.c_void_p)
            set_handler.restype = ctypes.c_void_p
            if set_handler(signum, None) == ctypes.c_void_p(-1).value:  # SIG_DFL; SIG_ERR
                return
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os.kill(os.getpid(), signum)
        time.sleep(1.0)  # (delivered at once; this thread waits for it)
    except Exception:  # (no C library to call, no ctypes): the status then
        return


_FORK_HOOKED: list[Interrupts] = []  # the latest installed (os.register_at_fork has no undo)


def _forget_in_forks(interrupts: Interrupts) -> None:
    """Processes forked from now on drop ``interrupts``' handling (see
    :meth:`Interrupts.in_fork`)."""
    if not _FORK_HOOKED:
        os.register_at_fork(after_in_child=lambda: _FORK_HOOKED[-1].in_fork())
    _FORK_HOOKED[:] = [interrupts]
