"""Running the service: the lock, the journal's recovery, the socket, uvicorn, workers.

``serve()`` takes the model's lock (``MODEL.lock``: a second server on the same file
refuses to start), recovers the journal, binds the socket, and runs uvicorn on it:

* one worker (the default): in this process. SIGTERM (or Ctrl-C) stops taking
  connections, finishes the requests in flight, folds the journal and returns 0.
* ``workers > 1``: this process forks the workers after taking the lock (and says it
  serves once every one of them does), so they share
  it (the lock holds until the last of them exits, even if this one is killed) and the
  listening socket (the kernel spreads connections over them). Each worker loads the
  model and replays the journal; writes are serialized through the journal's write lock
  and every worker applies every journaled update before answering a request, so all of
  them serve the same model. SIGTERM is passed on to the workers (each finishes its
  requests; the first to stop folds the journal) and this process exits 0 when they
  have. A worker that dies is started again.
"""

from __future__ import annotations

import ipaddress
import os
import select
import signal
import socket
import sys
from typing import Any

from nbayes.io.lock import FileLock, LockedError
from nbayes.serve.journal import JournalError, locked, recover

__all__ = ["is_loopback", "serve"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _say(text: str) -> None:
    print(f"nbayes serve: {text}", file=sys.stderr, flush=True)


def serve(
    model: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    workers: int = 1,
    max_body: int = 10 * 1024 * 1024,
    fold_every: int = 1000,
    fold_seconds: float = 60.0,
    log_level: str = "warning",
) -> int:
    """Serve ``model`` until SIGTERM or SIGINT; returns the exit status."""
    if not os.path.isfile(model):
        _say(f"no model file {model!r}: train one first with `nbayes train`.")
        return 2
    model = os.path.abspath(model)
    lock = FileLock(model + ".lock", f"nbayes serve {model}")
    try:
        lock.acquire()
        _, n = recover(model)
    except (LockedError, JournalError) as exc:
        _say(str(exc))
        return 1
    except OSError as exc:  # e.g. a folder the server may not write to
        _say(f"cannot use the files beside {model!r} ({exc}); the server writes its journal "
             "and lock there.")  # fmt: skip
        return 1
    if n:
        _say(f"replaying {n:,} journaled update(s) of {os.path.basename(model)}.journal")
    try:
        sock = _bind(host, port)
    except OSError as exc:
        _say(f"cannot listen on {host}:{port} ({exc.strerror or exc}).")
        return 1
    bound = sock.getsockname()[1]
    needs_token = not is_loopback(host)
    if needs_token and token is None:
        _say("listening beyond loopback without --token: /update and /forget are refused.")
    options = dict(
        token=token, needs_token=needs_token, max_body=max_body, fold_every=fold_every,
        fold_seconds=fold_seconds, log_level=log_level,
    )  # fmt: skip
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown}:{bound}"
    if workers <= 1:
        return _run_worker(model, sock, url, options, parent=None)
    return _supervise(model, sock, url, options, workers)


def _run_worker(
    model: str, sock: socket.socket, url: str, options: dict[str, Any], parent: int | None,
    ready_fd: int | None = None,
) -> int:  # fmt: skip
    import uvicorn

    from nbayes.serve.app import create_app
    from nbayes.serve.state import ModelState

    try:
        # under the journal's lock no other worker appends or folds: the digest and the
        # journal stay each other's while this worker loads and replays (a worker started
        # again after a crash may find a fold it left half done: recover finishes it)
        with locked(model):
            digest, _ = recover(model)
            state = ModelState(model, digest, options["fold_every"], options["fold_seconds"])
    except Exception as exc:  # the model file or the journal: say it in one line
        _say(f"cannot serve {model!r}: {exc}")
        sock.close()
        return 2
    server: Any = None

    def watch() -> bool:
        if parent is not None and os.getppid() != parent:
            server.should_exit = True  # the supervisor died: stop, fold, exit
            return True
        return False

    def ready() -> None:
        if parent is None:
            _say(f"serving {os.path.basename(model)} on {url} (pid {os.getpid()})")
        if ready_fd is not None:  # tell the supervisor this worker started
            os.write(ready_fd, b"r")
            os.close(ready_fd)

    app = create_app(
        state, token=options["token"], writes_need_token=options["needs_token"],
        max_body=options["max_body"], on_ready=ready, watch=watch,
    )  # fmt: skip
    config = uvicorn.Config(
        app, log_level=options["log_level"], access_log=False, lifespan="on",
        timeout_graceful_shutdown=30, server_header=False,
    )  # fmt: skip
    server = uvicorn.Server(config)
    # uvicorn re-raises the signal it caught once it has shut down; a handler of our own
    # turns that into a normal return (exit status 0) instead of death by SIGTERM
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0 if server.started else 2


def _supervise(model: str, sock: socket.socket, url: str, options: dict[str, Any], n: int) -> int:
    me = os.getpid()
    children: dict[int, int] = {}  # pid -> the read end of its "started" pipe (-1: read)
    ready: set[int] = set()
    stopping = False

    def start() -> None:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(r)
            for other in children.values():
                if other >= 0:
                    os.close(other)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 1
            try:
                code = _run_worker(model, sock, url, options, parent=me, ready_fd=w)
            finally:
                os._exit(code)
        os.close(w)
        children[pid] = r

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(n):
        start()
    announced = False
    status = 0
    while children:
        pipes = {r: pid for pid, r in children.items() if r >= 0}
        if pipes:  # a worker writes "r" once it serves; end of file: it died first
            readable, _, _ = select.select(list(pipes), [], [], 0.2)
            for r in readable:
                pid = pipes[r]
                if os.read(r, 1) == b"r":
                    ready.add(pid)
                os.close(r)
                children[pid] = -1
            if not announced and len(ready) >= n:
                _say(f"serving {os.path.basename(model)} on {url} with {n} workers (pid {me})")
                announced = True
            pid, code = os.waitpid(-1, os.WNOHANG)
        else:
            try:
                pid, code = os.wait()
            except ChildProcessError:
                break
        if pid == 0:
            continue
        r = children.pop(pid, -1)
        if r >= 0:
            os.close(r)
        code = os.waitstatus_to_exitcode(code)
        if stopping:
            status = status or (code if code > 0 else 0)
            continue
        if pid not in ready:  # it could not start: neither will the others
            _say(f"worker {pid} exited at start (status {code}); stopping.")
            stop(signal.SIGTERM, None)
            status = code if code > 0 else 1
            continue
        ready.discard(pid)
        _say(f"worker {pid} exited (status {code}); starting another.")
        start()
    sock.close()
    return status
