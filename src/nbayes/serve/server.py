"""Running the service: the model's lock, the journal's recovery, the socket, uvicorn, workers.

``serve()`` takes the model's lock (an advisory ``flock`` of the model file itself, by
identity: :class:`nbayes.io.lock.ModelLock`; a second server on the same file, through any
name, symlink or hard link, refuses to start and names the first), recovers the journal,
binds the socket, says which server holds the model in the journal (a ``serving`` record:
``nbayes update`` names it when it refuses), and runs uvicorn on it:

* one worker (the default): in this process. SIGTERM (or Ctrl-C) stops taking
  connections, stops the request that reads the model (if any: see
  :mod:`nbayes.serve.runner`), finishes the writes in flight, folds the journal and
  returns 0.
* ``workers > 1``: this process forks the workers after taking the lock (and says it
  serves once every one of them does), so they share
  it (the lock holds until the last of them exits, even if this one is killed) and the
  listening socket (the kernel spreads connections over them). Each worker loads the
  model and replays the journal; writes are serialized through the journal's write lock
  and every worker applies every journaled update before answering a request, so all of
  them serve the same model. A worker that folds locks the new model file before it
  replaces the old one and hands the locked file to this process (over a socket pair), so
  the lock never lapses, even if that worker dies. SIGTERM is passed on to the workers
  (each finishes its requests; the first to stop folds the journal) and this process exits
  0 when they have. A worker that dies is started again.

Connections that send nothing (or half a request) for ``idle_seconds`` are closed; a
request body must arrive within 30 s.
"""

from __future__ import annotations

import asyncio
import fcntl
import ipaddress
import os
import select
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Any

from nbayes.io.lock import LockedError, ModelLock
from nbayes.serve.holder import holder_message
from nbayes.serve.journal import (
    Journal,
    JournalError,
    file_digest,
    journal_path,
    locked,
    pending_updates,
    recover,
)

__all__ = ["HandOver", "is_loopback", "serve"]

#: ``before_serving(handler)``: the caller's handling of the signals handed over to the
#: server's ``handler`` (:func:`nbayes.serve.run`); the handlers it replaced, to restore
HandOver = Callable[[Callable[[int, Any], Any]], dict[int, Any]]


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
    try:
        print(f"nbayes serve: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # its terminal gone (EIO after SIGHUP), stderr closed
        pass


def _tidy_legacy_locks(model: str) -> None:
    """Remove the lock files older versions left beside the model (``MODEL.lock``,
    ``MODEL.journal.lock``), when nothing holds them: the lock is the model file now."""
    for path in (model + ".lock", model + ".journal.lock"):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.remove(path)
        except OSError:
            pass
        finally:
            os.close(fd)


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
    max_seconds: float = 10.0,
    allow_hosts: Sequence[str] = (),
    idle_seconds: float = 10.0,
    max_buffered: int = 256 * 1024 * 1024,
    max_update: int = 10_000,
    before_serving: HandOver | None = None,
) -> int:
    """Serve ``model`` until SIGTERM or SIGINT; returns the exit status. ``before_serving``
    (see :func:`nbayes.serve.run`) is given the server's handler of the signals, right
    before its own handling begins."""
    if not os.path.isfile(model):
        _say(f"no model file {model!r}: train one first with `nbayes train`.")
        return 2
    model = os.path.realpath(model)  # a symlink's target: its journal sits beside it
    lock = ModelLock(model, "nbayes serve")
    said = False

    def refuse(pid: int | None) -> str | None:
        """Another server: refused at once; a registration or an update: waited for."""
        nonlocal said
        message = holder_message(model, pid)
        if message is None and not said:
            who = f" (process {pid})" if pid is not None else ""
            _say(f"waiting for another change of {model}{who} to finish ...")
            said = True
        return message

    # let go of when this returns, whatever the path: a library call of serve() that
    # failed to start (a model it cannot serve) kept the model locked for the caller's
    # life (a worker never returns here: it ends with os._exit)
    try:
        try:
            lock.acquire(timeout=LOCK_WAIT, refuse=refuse)
            with locked(model):
                _, n = recover(model)
        except LockedError as exc:
            _say(str(exc))
            return 1
        except JournalError as exc:
            _say(str(exc))
            return 1
        except OSError as exc:  # e.g. a folder the server may not write to
            _say(f"cannot use the files beside {model!r} ({exc}); the server writes its journal "
                 "there.")  # fmt: skip
            return 1
        _tidy_legacy_locks(model)
        if n:
            _say(f"replaying {n:,} journaled update(s) of {os.path.basename(journal_path(model))}")
        try:
            sock = _bind(host, port)
        except OSError as exc:
            _say(f"cannot listen on {host}:{port} ({exc.strerror or exc}).")
            return 1
        bound = sock.getsockname()[1]
        needs_token = not is_loopback(host)
        if needs_token and token is None:
            _say("listening beyond loopback without --token: /update and /forget are refused.")
        shown = f"[{host.strip('[]')}]" if ":" in host else host
        url = f"http://{shown}:{bound}"
        with locked(model):  # say who holds the model: `nbayes update` names this server
            journal = Journal(model, file_digest(model))
            journal.catch_up()
            start_seq = journal.seq
            journal.append({"op": "serving", "pid": os.getpid(), "url": url, "workers": workers})
            journal.close()
        options = dict(
            token=token, needs_token=needs_token, max_body=max_body, fold_every=fold_every,
            fold_seconds=fold_seconds, log_level=log_level, max_seconds=max_seconds,
            allow_hosts=list(allow_hosts), idle_seconds=idle_seconds, start_seq=start_seq,
            max_buffered=max_buffered, max_update=max_update,
        )  # fmt: skip
        if workers <= 1:
            return _run_worker(model, sock, url, options, lock, parent=None,
                               before_serving=before_serving)  # fmt: skip
        return _supervise(model, sock, url, options, workers, lock, before_serving)
    finally:
        lock.release()


#: a request's head (its request line and headers) over this many bytes gets 431 at once:
#: httptools gathers a header in a copy per read, so a header of 100 MB sent in 1 MB writes
#: held the event loop for seconds (every other request waited); 64 KiB is 8 times what
#: browsers and proxies send at most (nginx and Apache refuse beyond 8 KiB a line)
MAX_HEAD = 64 * 1024
#: after an answer the protocol gives itself (431, 400), the bytes a client still sends are
#: dropped for this many seconds before the connection is closed
LINGER = 2.0


def _answer_and_close(protocol: Any, status: int, payload: dict[str, Any]) -> None:
    """Write a JSON answer on ``protocol``'s transport and close it (an answer the protocol
    gives before, or instead of, the application's). The connection is closed for writing
    at once, and for reading :data:`LINGER` seconds later: what the client still sends
    meanwhile is read and dropped, so that its system does not discard the answer (a close
    with unread data resets the connection)."""
    import http
    import json

    from nbayes.serve.metrics import count_rejected

    protocol._discard = True
    count_rejected(status)
    cycle = protocol.cycle
    transport = protocol.transport
    if cycle is not None and cycle.response_started and not cycle.response_complete:
        transport.close()  # half an answer is out: no second one
        return
    body = json.dumps(payload).encode()
    head = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode()]
    for name, value in protocol.server_state.default_headers:
        head += [name, b": ", value, b"\r\n"]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: %d\r\n" % len(body),
        b"connection: close\r\n\r\n",
        body,
    ]
    transport.write(b"".join(head))
    if cycle is not None:
        cycle.disconnected = True  # the application's answer, if it comes, is not sent
    if transport.can_write_eof():
        transport.write_eof()
        protocol.loop.call_later(LINGER, transport.close)
    else:  # pragma: no cover - TLS
        transport.close()


#: how long a starting server waits for the model's lock that a registration or an update
#: holds (a moment, usually; another server holds it for good: refused at once)
LOCK_WAIT = 60.0


def _protocol(idle_seconds: float, max_head: int = MAX_HEAD) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, with

    * an idle deadline: a connection that has no request in progress and does not send a
      complete one within ``idle_seconds`` is closed (a new connection that sends nothing,
      or half a request line: uvicorn's keep-alive timeout starts only after a first
      answer, and any byte stops it);
    * a bound on the request head: one over ``max_head`` bytes gets 431 (JSON) as soon as
      the bytes over it arrive, and the connection is closed;
    * JSON for the 400 of a request that is not HTTP (uvicorn's is text/plain).
    """
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base

        counting = True
    except ImportError:  # pragma: no cover - httptools is in the serve extra
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

        counting = False  # (h11 bounds the head itself: h11_max_incomplete_event_size)

    class Protocol(base):
        _deadline: asyncio.TimerHandle | None = None
        #: bytes of the request head received so far; None while a body is read
        _head: int | None = 0
        #: answered by the protocol itself: what the client sends is dropped
        _discard = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._discard:  # answered and closed for writing: dropped, never parsed
                return
            if not counting:  # pragma: no cover
                super().data_received(data)
                return
            # the head is fed to the parser at most up to the bound: the bytes beyond it
            # are never parsed (nor copied again and again)
            while self._head is not None and data:
                room = max_head - self._head
                if room <= 0:
                    self._head_too_large()
                    return
                piece, data = (data, b"") if len(data) <= room else (data[:room], data[room:])
                self._head += len(piece)
                super().data_received(piece)  # (may complete the head: _head is None)
                if self.transport.is_closing():
                    return
                if self._head is not None and self._head >= max_head:
                    self._head_too_large()
                    return
            if data:
                super().data_received(data)

        def on_headers_complete(self) -> None:
            self._head = None
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head = 0  # the next request's head

        def _head_too_large(self) -> None:
            self._head = None
            _answer_and_close(self, 431, {
                "error": f"The request line and headers are over the limit of {max_head:,} "
                "bytes; the connection is closed. Send large data in the body.",
                "limit": "request head",
            })  # fmt: skip

        def send_400_response(self, msg: str) -> None:
            _answer_and_close(self, 400, {
                "error": "This is not a valid HTTP/1.1 request (its request line, a header, "
                "Content-Length, Transfer-Encoding or a chunk is malformed); the connection "
                "is closed."
            })  # fmt: skip

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            if self.transport.is_closing():
                self._deadline = None
                return
            self._deadline = self.loop.call_later(idle_seconds, self._expire)

        def _expire(self) -> None:
            self._deadline = None
            busy = self.cycle is not None and not self.cycle.response_complete
            if busy:  # a request is being answered: the next answer arms it again
                return
            if not self.transport.is_closing():
                self.transport.close()

    return Protocol


def _run_worker(
    model: str, sock: socket.socket, url: str, options: dict[str, Any], lock: ModelLock,
    parent: int | None, ready_fd: int | None = None, handoff: socket.socket | None = None,
    before_serving: HandOver | None = None,
) -> int:  # fmt: skip
    import warnings

    import uvicorn

    from nbayes.exceptions import PathAsTextWarning
    from nbayes.serve.app import create_app
    from nbayes.serve.runner import SHUTDOWN_GRACE, ModelRunner
    from nbayes.serve.state import ModelState

    # a client's one-line text may name a file of the server's: a text all the same
    warnings.filterwarnings("ignore", category=PathAsTextWarning)

    def before_replace(folding: str, locked: int | None = None) -> None:
        """A fold replaced the model file (or a file replaced it): lock the new file
        (``locked``: a descriptor that holds its lock already), and hand it to the
        supervisor, which outlives this worker."""
        fd = lock.follow(folding, locked)
        if handoff is not None:
            try:
                socket.send_fds(handoff, [b"l"], [fd])
            except OSError:  # the supervisor died: this worker is stopping, and holds it
                pass

    try:
        # under the journal's lock no other worker appends or folds: the digest and the
        # journal stay each other's while this worker loads and replays (a worker started
        # again after a crash may find a fold it left half done: recover finishes it)
        with locked(model):
            digest, _ = recover(model)
            state = ModelState(
                model, digest, options["fold_every"], options["fold_seconds"],
                start_seq=options["start_seq"], before_replace=before_replace,
                shared=parent is not None, max_update=options["max_update"],
            )  # fmt: skip
    except Exception as exc:  # the model file or the journal: say it in one line
        _say(f"cannot serve {model!r}: {exc}")
        sock.close()
        return 2
    server: Any = None

    def watch() -> bool:
        if parent is not None and os.getppid() != parent:
            server.should_exit = True  # the supervisor died: stop, fold, exit
            runner.stop(SHUTDOWN_GRACE)
            return True
        return False

    def ready() -> None:
        if parent is None:
            _say(f"serving {os.path.basename(model)} on {url} (pid {os.getpid()})")
        if ready_fd is not None:  # tell the supervisor this worker started
            os.write(ready_fd, b"r")
            os.close(ready_fd)

    runner = ModelRunner(options["max_seconds"], state.reload)
    app = create_app(
        state, token=options["token"], writes_need_token=options["needs_token"],
        max_body=options["max_body"], max_seconds=options["max_seconds"],
        max_buffered=options["max_buffered"], allowed_hosts=options["allow_hosts"],
        on_ready=ready, watch=watch, runner=runner,
    )  # fmt: skip
    config = uvicorn.Config(
        app, log_level=options["log_level"], access_log=False, lifespan="on",
        timeout_graceful_shutdown=30, server_header=False,
        timeout_keep_alive=max(1, int(options["idle_seconds"])),
        http=_protocol(options["idle_seconds"]),
    )  # fmt: skip

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # the reads in flight get a few seconds, then are stopped: uvicorn would wait
            # for them as long as they run
            runner.stop(SHUTDOWN_GRACE)
            super().handle_exit(sig, frame)

    server = Server(config)

    def stop_early(sig: int, frame: Any) -> None:
        """A stop before uvicorn takes the signals (or after it gave them back): kept, so
        the server starts and stops at once, folding (a handler that dropped it left a
        server serving on, deaf to the SIGTERM: a review's); and uvicorn's re-raise of
        the signal it caught, once shut down, is no KeyboardInterrupt or death."""
        server.should_exit = True

    # loaded and replayed: the stops are the server's from now, handed over without a gap
    previous = (
        before_serving(stop_early) if before_serving is not None
        else {sig: signal.signal(sig, stop_early) for sig in (signal.SIGTERM, signal.SIGINT)}
    )  # fmt: skip
    hangup = _stop_on_hangup(lambda: os.kill(os.getpid(), signal.SIGTERM))
    try:
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGHUP, hangup)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not server.started:
        return 2
    if parent is None:
        _stopped(model)
    return 0


def _stopped(model: str) -> None:
    """The closing line of a server: whether the model file holds every update."""
    name = os.path.basename(model)
    try:
        left = pending_updates(model)
    except (OSError, JournalError) as exc:
        _say(f"stopped; the journal beside {name} could not be read ({exc}).")
        return
    if left:
        _say(f"stopped; {left:,} update(s) stay in {os.path.basename(journal_path(model))}, "
             "folded at the next start or `nbayes update`.")  # fmt: skip
    else:
        _say(f"stopped; {name} holds every update.")


def _stop_on_hangup(stop: Any) -> Any:
    """SIGHUP (the terminal closed, a tmux server gone) stops the server as SIGTERM does:
    its default ended the process at once, the journal left unfolded (nothing lost, but
    the model file stale until the next start). Left alone where it is ignored (nohup).
    Returns the handler it replaced."""
    previous = signal.getsignal(signal.SIGHUP)
    if previous == signal.SIG_DFL:
        signal.signal(signal.SIGHUP, lambda *_: stop())
    return previous


def _supervise(
    model: str, sock: socket.socket, url: str, options: dict[str, Any], n: int, lock: ModelLock,
    before_serving: HandOver | None = None,
) -> int:  # fmt: skip
    me = os.getpid()
    children: dict[int, int] = {}  # pid -> the read end of its "started" pipe (-1: read)
    ready: set[int] = set()
    stopping = False
    # the workers hand over the model files they lock in a fold (the lock must outlive them)
    keep, handoff = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    keep.setblocking(False)  # (socket.recv_fds ignores its flags before Python 3.12)

    def start() -> None:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(r)
            keep.close()
            for other in children.values():
                if other >= 0:
                    os.close(other)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if signal.getsignal(signal.SIGHUP) not in (signal.SIG_IGN, signal.SIG_DFL):
                signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (the worker's own, below)
            code = 1
            try:
                code = _run_worker(model, sock, url, options, lock, parent=me, ready_fd=w,
                                   handoff=handoff)  # fmt: skip
            finally:
                os._exit(code)
        os.close(w)
        children[pid] = r
        if stopping:  # a stop that came while it was forked: it did not see this worker
            os.kill(pid, signal.SIGTERM)

    stopped_by = 0  # the signal that stopped the server (0: none)

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping, stopped_by
        stopping = True
        stopped_by = stopped_by or signum
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def adopt() -> None:
        """Keep the model files the workers locked in their folds."""
        while True:
            try:
                _, fds, _, _ = socket.recv_fds(keep, 16, 4)
            except (BlockingIOError, InterruptedError):
                return
            for fd in fds:
                lock.adopt(fd)

    if before_serving is not None:  # (handed over without a gap)
        before_serving(stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    _stop_on_hangup(lambda: stop(signal.SIGHUP, None))
    for _ in range(n):
        if not stopping:  # (a stop before the workers started: they are not started; a
            start()  # supervisor that started them anyway served on, deaf to it)
    announced = False
    status = 0
    while children:
        pipes = {r: pid for pid, r in children.items() if r >= 0}
        readable, _, _ = select.select([*pipes, keep.fileno()], [], [], 0.2)
        for r in readable:
            if r == keep.fileno():
                adopt()
                continue
            pid = pipes[r]
            if os.read(r, 1) == b"r":  # a worker writes "r" once it serves; EOF: it died
                ready.add(pid)
            os.close(r)
            children[pid] = -1
        if not announced and len(ready) >= n:
            _say(f"serving {os.path.basename(model)} on {url} with {n} workers (pid {me})")
            announced = True
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
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
        adopt()  # (the files it handed over) and, if it died between its fold's rename and
        lock.hold_the_file_at_the_path()  # handing the new file over, that file's lock
        start()
    adopt()
    sock.close()
    keep.close()
    handoff.close()
    if announced:
        _stopped(model)
    elif stopping and not status:  # stopped while the workers loaded the model: before, silent
        _say(f"stopped while starting; {os.path.basename(model)} was not changed.")
        status = 128 + stopped_by  # (not a clean stop: not 0, as a shell or supervisor reads)
    return status
