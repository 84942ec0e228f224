"""Where a command writes: results on stdout, messages and progress on stderr, and the
one-line error a command reports (:class:`CLIError`)."""

from __future__ import annotations

import errno
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

__all__ = ["CLIError", "UI", "isatty", "json_text"]


def _finite_or_null(value: Any) -> Any:
    """``value`` with every NaN or infinity (at any depth) replaced by ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_or_null(v) for v in value]
    return value


def json_text(value: Any) -> str:
    """``value`` as strict JSON: a figure that is not a finite number (a share of an empty
    class, an infinite log loss) is ``null``, since ``NaN`` and ``Infinity`` are not JSON
    (``JSON.parse`` and other strict parsers refuse them)."""
    return json.dumps(_finite_or_null(value), ensure_ascii=False, allow_nan=False)


class CLIError(Exception):
    """A problem to report as one ``Error: ...`` line (exit status 1)."""


class _Progress:
    """A one-line progress bar on a terminal's stderr: of a known total, or of the share
    of the input read (files streamed a chunk at a time: their bytes), with the time left
    at this pace; a counter when neither is known (standard input). Silent when stderr is
    not a terminal."""

    WIDTH = 30

    def __init__(self, ui: UI, desc: str, unit: str, total: int | None = None) -> None:
        self.ui, self.desc, self.unit, self.total = ui, desc, unit, total
        self.count = 0
        self.share: float | None = None
        self.enabled = ui.interactive
        self._last = 0.0
        self._start = time.monotonic()
        self._drawn = 0  # the length of the line drawn last

    def line(self) -> str:
        if self.total:
            done = min(self.count / self.total, 1.0)
            counted = f"{self.count:,}/{self.total:,} {self.unit}"
        elif self.share is not None:
            done = self.share
            counted = f"{self.count:,} {self.unit}{self._left(done)}"
        else:
            return f"{self.desc}: {self.count:,} {self.unit}"
        filled = int(round(done * self.WIDTH))
        bar = "#" * filled + "." * (self.WIDTH - filled)
        return f"{self.desc}: [{bar}] {done:4.0%} {counted}"

    def _left(self, done: float) -> str:
        """``, ~2 min left`` at the pace so far (once there is a pace to tell)."""
        spent = time.monotonic() - self._start
        if done >= 1.0 or done < 0.01 or spent < 2.0:
            return ""
        left = spent * (1.0 - done) / done
        return f", ~{left:.0f} s left" if left < 90 else f", ~{left / 60:.0f} min left"

    def advance(self, n: int = 1, share: float | None = None) -> None:
        """``n`` more done; ``share``: the share of the input read now, if known."""
        self.count += n
        if share is not None:
            self.share = share
        now = time.monotonic()
        if self.enabled and now - self._last > 0.1:
            self._last = now
            self._draw("")

    def close(self) -> None:
        if self.enabled:
            self._draw("\n")

    def _draw(self, end: str) -> None:
        """The line over the last one (spaces where the last was longer: the time left
        comes and goes)."""
        line = self.line()
        pad = " " * max(0, self._drawn - len(line))
        self._drawn = len(line)
        self.ui.err.write("\r" + line + pad + end)
        self.ui.err.flush()


class _Closed:
    """Stands for a standard stream the shell closed (``>&-``): writing to it is an
    OSError (one line, exit 1, as other tools say "write error"), not a crash."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError(f"{self.name} is closed: nothing can be written to it (redirect it to a file "
                      "or to /dev/null instead of closing it)")  # fmt: skip

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _Terminal:
    """stderr on a terminal, which may go away while a command runs (an ssh session
    dropped under ``nbayes train ... & disown``, or ``setsid``: no SIGHUP comes, and every
    write fails with EIO). Its messages and progress are for the person who left: dropped
    from then on, and the command goes on to its end. Before, the next progress write
    ended a long training with exit 1, its model unsaved."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except OSError as exc:
                self._hung_up(exc)
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError as exc:
                self._hung_up(exc)

    def _hung_up(self, exc: OSError) -> None:
        if exc.errno != errno.EIO:
            raise exc
        self.gone = True

    def isatty(self) -> bool:
        return not self.gone and isatty(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _stream(stream: TextIO | None, name: str) -> TextIO:
    if stream is None:
        return cast(TextIO, _Closed(name))
    if name == "standard error" and isatty(stream):
        return cast(TextIO, _Terminal(stream))
    return stream


class UI:
    """Where a command writes: results on stdout, messages on stderr.

    Parameters
    ----------
    quiet : bool
        Only results and errors (no progress, no notes).
    verbose : bool
        Also details (timings, settings).
    """

    def __init__(
        self,
        quiet: bool = False,
        verbose: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.quiet = quiet
        self.verbose = verbose and not quiet
        self.out: TextIO = _stream(sys.stdout, "standard output") if out is None else out
        self.err: TextIO = _stream(sys.stderr, "standard error") if err is None else err

    @property
    def interactive(self) -> bool:
        """True when progress may be drawn: stderr is a terminal and not ``-q``."""
        return not self.quiet and isatty(self.err)

    def print(self, text: str = "") -> None:
        """A result line (stdout). A character the stream cannot encode (a term with
        accents on an ASCII stdout, a lone surrogate a model file may hold) is written as
        its backslash escape, as Python writes stderr, instead of ending the command."""
        line = text + "\n"
        try:
            self.out.write(line)
        except UnicodeEncodeError:
            encoding = getattr(self.out, "encoding", None) or "utf-8"
            self.out.write(line.encode(encoding, "backslashreplace").decode(encoding))

    def note(self, text: str) -> None:
        """A message for people (stderr), hidden by ``-q``."""
        if not self.quiet:
            self.err.write(text + "\n")

    def detail(self, text: str) -> None:
        """A message shown with ``-v`` only (stderr)."""
        if self.verbose:
            self.err.write(text + "\n")

    def warn(self, text: str) -> None:
        if not self.quiet:
            self.err.write(f"Warning: {text}\n")

    @contextmanager
    def progress(self, desc: str, unit: str, total: int | None = None) -> Iterator[_Progress]:
        bar = _Progress(self, desc, unit, total)
        start = time.perf_counter()
        done = False
        try:
            yield bar
            done = True
        finally:
            bar.close()
            # stopped (Ctrl-C, an error): said so, for the count is not the whole ("Training:
            # 380,000 documents in 14.39 s" read as a run that had finished: a trial's)
            how = "" if done else ", stopped"
            self.detail(f"{desc}: {bar.count:,} {unit} in {time.perf_counter() - start:.2f} s{how}")

    def color(self, mode: str = "auto") -> bool:
        """Whether to colour stdout: ``always``, ``never``, or ``auto`` (a terminal, and
        the ``NO_COLOR`` environment variable unset)."""
        if mode == "always":
            return True
        if mode == "never":
            return False
        return isatty(self.out) and not os.environ.get("NO_COLOR")


def isatty(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or detached stream)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
