"""Who holds a model file's lock, in words: a running ``nbayes serve``, named by the
``serving`` record it writes in the model's journal (its pid, its URL), or its worker.

``nbayes update``/``forget`` and ``nbayes filter --register`` ask it when the lock is
taken: a server does not let go, so they say where to send the update instead of waiting.
Apart from :mod:`nbayes.serve.server` so that they need not import the service (asyncio,
uvicorn) to ask.
"""

from __future__ import annotations

import os

from nbayes.serve.journal import serving_record

__all__ = ["holder_message", "serving_server"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _journal_held_by(pid: int) -> str | None:
    """The model file whose journal the process ``pid`` (or one of its children: the
    workers of a supervisor) has open, from ``/proc`` (Linux); None if none is found.
    A hard link names the model by another name than the server's journal."""
    candidates = [pid]
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit() and _parent_of(int(entry)) == pid:
                candidates.append(int(entry))
    except OSError:
        return None
    for p in candidates:
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{p}/fd/{fd}")
            except OSError:
                continue
            if target.endswith(".journal") and os.path.isfile(target):
                return target[: -len(".journal")]
    return None


def serving_server(model: str) -> dict[str, object] | None:
    """The ``serving`` record (``pid``, ``url``) of the running server that holds
    ``model``, named by the model's journal; None when no server that wrote one runs."""
    record = serving_record(model)
    if record is None:
        return None
    server = record.get("pid")
    return record if isinstance(server, int) and _alive(server) else None


def holder_message(model: str, pid: int | None, advice: str | None = None) -> str | None:
    """What to say about the server holding ``model``'s lock, when it is one: the
    journal's ``serving`` record of a live server that is (or whose worker is) the
    holder ``pid`` (``None``: unknown, the record's process alive is enough). None when
    the holder is no server (an ``nbayes update``, say). ``advice`` replaces the default
    (send the updates to the server) for a change the server cannot take."""
    record = serving_record(model)
    if record is None and pid is not None:  # another name of the file: a hard link
        other = _journal_held_by(pid)
        record = serving_record(other) if other is not None else None
    if record is None:
        return None
    server = record.get("pid")
    if not isinstance(server, int) or not _alive(server):
        return None
    if pid is not None and pid != server and _parent_of(pid) != server:
        return None
    url = record.get("url", "?")
    if advice is not None:
        return f"{model} is served by nbayes serve (pid {server}) on {url}: {advice}"
    return (
        f"{model} is served by nbayes serve (pid {server}) on {url}: send updates to "
        f"{url}/update (and forgets to {url}/forget) instead, or stop that server first."
    )
