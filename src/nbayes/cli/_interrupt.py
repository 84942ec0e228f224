"""Ctrl-C on the command line: stop within a second, print one line, and change no file.

While a command runs, SIGINT raises ``KeyboardInterrupt`` in the main thread (as Python's
default handler does), which unwinds the command: a model file being written is never
replaced (``nbayes.save`` writes a temporary file and renames it over the old one only when
it is complete, and removes the temporary when interrupted). A watchdog thread, started by
the first Ctrl-C, ends the process :data:`GRACE` seconds later if the main thread is still
busy (a long compiled call, or a library that swallowed the interrupt), after any model file
being written is complete or abandoned.

Every model file a command writes is registered (:meth:`Interrupts.writing`) with the
identity of the file it replaces (inode, size, modification time). The closing line, and the
exit status, follow from what is on disk: "no model file was changed" (exit 130), or, when
the rename had already happened, the new model is complete (exit 0).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

__all__ = ["GRACE", "Interrupts"]

#: Seconds the main thread has to unwind after Ctrl-C before the watchdog ends the process.
GRACE = 0.7


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
        self._targets: list[tuple[str, tuple[int, int, int, int] | None]] = []
        self._saving = threading.Lock()  # held while a model file is written
        self._claimed = threading.Lock()  # the closing line is written once
        self._finished = threading.Event()
        self._hit = False
        self._previous: Any = None
        self._installed = False

    # ------------------------------------------------------------------ handler
    def install(self) -> None:
        """Handle SIGINT from now on (only possible in the main thread; elsewhere, e.g.
        ``main`` called from a worker thread, Python's handling stays)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self._previous = signal.signal(signal.SIGINT, self._on_signal)
        self._installed = True

    def uninstall(self, program: bool) -> None:
        """Stop handling SIGINT: restore the previous handler, or, when the process ends
        right after (``program``), ignore SIGINT (the command's outcome is decided)."""
        self._finished.set()
        if self._installed:
            signal.signal(signal.SIGINT, signal.SIG_IGN if program else self._previous)
            self._installed = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._hit:  # a second Ctrl-C: the watchdog is already counting
            return
        self._hit = True
        threading.Thread(target=self._watchdog, name="nbayes-ctrl-c", daemon=True).start()
        raise KeyboardInterrupt

    def _watchdog(self) -> None:
        if self._finished.wait(GRACE):
            return
        with self._saving:  # a model file being written is complete or abandoned first
            if not self._claimed.acquire(blocking=False):
                return  # the main thread is reporting it
            line, status = self.outcome()
            try:
                self._write(line)
            finally:
                os._exit(status)

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
            self._targets.append((os.path.abspath(path), _identity(path)))
            yield

    def saved(self) -> list[str]:
        """The registered model files that were replaced (each complete: the rename that
        replaces one is atomic)."""
        return [path for path, before in self._targets if _identity(path) != before]

    def outcome(self) -> tuple[str, int]:
        """The closing line of an interrupted run, and its exit status."""
        saved = self.saved()
        if saved:
            names = ", ".join(os.path.relpath(p) for p in saved)
            return (
                f"Interrupted after the model was saved: {names} is complete (the new model).",
                0,
            )
        return "Interrupted: no model file was changed.", 130

    def report(self) -> int:
        """Write the closing line from the main thread (unless the watchdog is writing
        it); the exit status."""
        line, status = self.outcome()
        if self._claimed.acquire(blocking=False):
            self._write(line)
        return status
