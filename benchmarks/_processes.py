"""One command run as a process, measured: what the benchmarks that time whole commands
share."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
import time


def run_process(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, ``ru_maxrss`` in MiB (which counts this process's memory at the
    fork) and the output of one process; its PYTHONPATH left out (a command of another
    interpreter reads its own packages)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0)
        text = out.read().decode(errors="replace").strip()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{text}")
    return wall, usage.ru_maxrss / 1024, text


def start_server(cmd: list[str], wait: float = 300) -> tuple[subprocess.Popen[str], int]:
    """Start ``nbayes serve`` (``cmd``, with ``--port 0``) and wait for the port it says it
    serves on (SystemExit if it does not start within ``wait`` seconds)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port: list[int] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            m = re.search(r"on http://[^ ]+:(\d+)", line)
            if m and not port:
                port.append(int(m.group(1)))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(wait) or not port:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, port[0]
