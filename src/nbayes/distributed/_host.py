"""A local Dask cluster in a process of its own, in a session of its own: ``fit_source(...,
workers=N)`` and the CLI's ``--workers N``.

A ``LocalCluster`` started in the calling process puts its scheduler, nannies and worker
processes in the terminal's process group: Ctrl-C reached every one of them, and each
printed its ``KeyboardInterrupt`` traceback over the command's one-line answer, and the
nannies' semaphores, left behind by a process that ended at once, drew a "leaked
semaphore objects" warning (a trial's findings). Here the cluster runs in a child process
started in a new session (``setsid``): Ctrl-C reaches the caller only. The child prints
the scheduler's address, then waits for its standard input to close, which happens when
the caller closes it or ends in any way (even killed), and closes the cluster cleanly.
Its log (the workers' too: a task that failed, a worker restarted) goes to a temporary
file, shown only if the cluster does not start.

Run as ``python -P -m nbayes.distributed._host N``.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["local_cluster"]

#: seconds the cluster may take to start (a loaded machine: a process per worker)
START_TIMEOUT = 120.0
#: seconds a finished run waits for the cluster to close before ending its processes
CLOSE_TIMEOUT = 20.0


@contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A local cluster of ``workers`` single-threaded worker processes, in a process of
    its own; yields its scheduler's address. Interrupted (Ctrl-C), it returns at once and
    the cluster closes by itself; otherwise the cluster is closed before it returns."""
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        # -P: not the working directory first on sys.path (a data folder named "dask"
        # or "distributed" would be imported instead)
        [sys.executable, "-P", "-m", "nbayes.distributed._host", str(int(workers))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
        start_new_session=True, close_fds=True,
    )  # fmt: skip
    interrupted = False
    try:
        yield _address(proc, log)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        _close(proc, wait=not interrupted)
        log.close()


def _address(proc: subprocess.Popen[bytes], log: Any) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    fd = proc.stdout.fileno()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(
                f"The local Dask cluster did not start in {START_TIMEOUT:g} s.{_tail(log)}"
            )
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if ready:
            line = proc.stdout.readline().decode(errors="replace").strip()
            if line.startswith("tcp://") or "://" in line:
                return line
            proc.wait(timeout=5)
            raise OSError(f"The local Dask cluster did not start.{_tail(log)}")


def _tail(log: Any, lines: int = 12) -> str:
    try:
        log.seek(0)
        text = log.read().decode(errors="replace").strip().splitlines()[-lines:]
    except (OSError, ValueError):
        return ""
    return ("\nIts log ends with:\n" + "\n".join(text)) if text else ""


def _close(proc: subprocess.Popen[bytes], wait: bool) -> None:
    """Close the cluster: its process closes it when its standard input closes. ``wait``:
    until it has (its processes are ended if it takes too long)."""
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    if not wait:
        return
    try:
        proc.wait(timeout=CLOSE_TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the session's leader: its workers too
        except OSError:
            pass
        proc.wait()


def main(argv: list[str]) -> int:
    """The cluster's process: start it, print its address, close it at end of input."""
    workers = int(argv[0])
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        # no dashboard; its HTTP server on any free port, not on a busy 8787
        scheduler_kwargs={"dashboard_address": ":0"},
    ) as cluster:  # fmt: skip
        try:
            sys.stdout.write(cluster.scheduler_address + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):  # the caller is gone already
            return 0
        try:
            while sys.stdin.buffer.read(1 << 16):  # until the caller closes it, or ends
                pass
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
