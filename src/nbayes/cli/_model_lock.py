"""The model's lock as the CLI's commands that change a model take it (``update``,
``forget``, ``filter --register``/``--update``, a save over a model): wait for another
writer of the same model, refuse one a server holds (naming it), and fold first what a
killed server journaled. Imports no numpy: ``nbayes filter`` takes it per delivery."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from nbayes.cli._ui import CLIError

if TYPE_CHECKING:
    from nbayes.cli._ui import UI

__all__ = ["LOCK_TIMEOUT", "model_lock"]


#: How long update/forget wait for another update or forget of the same model.
LOCK_TIMEOUT = 60.0


@contextmanager
def model_lock(path: str, ui: UI, served: str | None = None) -> Iterator[None]:
    """Hold ``path``'s lock for a change (see the module's docstring); ``served``: what
    to advise when a server holds it (default: send the change to the server)."""
    try:
        from nbayes.io.lock import LockedError, ModelLock
    except ImportError:  # pragma: no cover - no fcntl (Windows): no advisory lock
        yield
        return
    from nbayes.serve.holder import holder_message

    said = False

    def refuse(pid: int | None) -> str | None:
        nonlocal said
        message = holder_message(path, pid, served)  # a server: it will not let go
        if message is None and not said:
            who = f" (process {pid})" if pid is not None else ""
            ui.note(f"Waiting for another change of {path}{who} to finish ...")
            said = True
        return message

    lock = ModelLock(path, "nbayes update")
    try:
        lock.acquire(timeout=LOCK_TIMEOUT, refuse=refuse)
    except LockedError as exc:
        raise CLIError(str(exc)) from None
    try:
        _fold_journal(path, lock, ui)
        yield
    finally:
        lock.release()


def _fold_journal(path: str, lock: Any, ui: UI) -> None:
    """Fold into the model file the updates a server journaled beside it but did not fold
    (it was killed): they were acknowledged, so this update must not lose them, nor a
    later server replay them onto a model that has changed."""
    from nbayes.serve.journal import JournalError, locked, pending_updates, recover

    try:
        n = pending_updates(path)
    except OSError as exc:
        raise CLIError(f"Cannot read the journal beside {path!r} ({exc}).") from None
    except JournalError as exc:
        raise CLIError(f"{exc} (`nbayes update` changes nothing until then.)") from None
    if n == 0:
        return
    from nbayes.serve.state import ModelState

    try:
        with locked(path):
            digest, _ = recover(path)
        state = ModelState(path, digest, before_replace=lock.follow)
        state.close()  # folds the journal into the model file (atomically)
    except JournalError as exc:
        raise CLIError(f"{exc} (`nbayes update` changes nothing until then.)") from None
    except Exception as exc:
        raise CLIError(
            f"{path} has {n} update(s) in its journal that a server acknowledged but did not "
            f"fold into the model (it was stopped by kill -9 or a crash), and folding them "
            f"failed ({exc}). Start `nbayes serve {path}` once to replay them, then update."
        ) from None
    if state.fold_error is not None or state.journal.pending:
        raise CLIError(
            f"{path} has {n} update(s) in its journal that a server acknowledged but did not "
            f"fold into the model, and folding them failed ({state.fold_error}); nothing "
            "was changed. Fix what that says (a full disk: free some space), then try "
            f"again; `nbayes serve {path}` once replays them too."
        )
    ui.note(
        f"Folded {n} update(s) that a server had journaled (acknowledged) but not yet written "
        f"into {path} (it was stopped by kill -9 or a crash) before this one."
    )
