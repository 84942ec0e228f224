"""A model file read as its server holds it: with the updates the server journaled.

``nbayes serve`` acknowledges an update once its journal holds it, and writes it into the
model file at its next fold (:mod:`nbayes.serve.journal`). The commands that read the
file (``predict``, ``eval``, ``explain``, ``filter``, ``sample``, ``plot``) apply those
updates to what they loaded, in memory (:mod:`nbayes.serve.replay`): they answer as the
server does, before its fold and after it was killed. The file is not changed. Where the
updates cannot be applied (a journal that cannot be read, or of another model file, an
update that no longer applies), the command reads the file as it is, with a warning.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["journal_beside", "read_served", "replay_into", "served_spam_scorer"]

T = TypeVar("T")


def _identity(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def journal_beside(path: str) -> str:
    """:func:`nbayes.serve.journal.journal_path`, without importing the service (a
    delivery's start-up: ``nbayes filter`` reads most model files no server serves)."""
    return os.path.realpath(path) + ".journal"


def _warn(path: str, lag: str) -> None:
    warnings.warn(f"{path}: {lag}; what this command reads lacks them.", stacklevel=3)


def read_served(path: str, read: Callable[[], T], add: Callable[[T, list[Any]], None]) -> T:
    """``read()`` (a load of the model file ``path``), with the updates a server
    journaled beside it that the file lacks applied by ``add(model, records)``. Without a
    journal, only ``read()``. The journal and the file are read until a fold did not
    replace the file in between (the updates of one file applied to another would be
    lost or counted twice)."""
    if not os.path.exists(journal_beside(path)):  # (no server ever journaled an update)
        return read()
    from nbayes.serve.journal import JournalError, journal_path, journaled_updates

    for _ in range(5):
        before = _identity(path)
        try:
            records, applies = journaled_updates(path)
        except JournalError as exc:  # (damaged: its updates cannot all be read)
            _warn(path, str(exc).rstrip("."))
            return read()
        except OSError as exc:
            _warn(path, f"{journal_path(path)} cannot be read ({exc})")
            return read()
        model = read()
        if _identity(path) == before:
            break
    if not records:
        return model
    if not applies:  # (another file's journal: a server refuses to start with it too)
        _warn(
            path,
            f"{journal_path(path)} holds {len(records):,} update(s) a server journaled for "
            "another model file (the file was replaced since): restore the file they were "
            "journaled for, or move the journal away",
        )
        return model
    try:
        add(model, records)
    except Exception as exc:  # (the model as the file has it: not half of the updates)
        from nbayes.serve.inputs import ApiError

        if not isinstance(exc, (ApiError, ValueError, KeyError, TypeError)):
            raise
        _warn(path, f"the updates a server journaled in {journal_path(path)} do not apply "
                    f"to it ({exc})")  # fmt: skip
        return read()
    return model


def replay_into(model: Any, records: list[Any]) -> None:
    """The journaled updates applied to a loaded model (a scorer of a spam filter takes
    them as counts; any other model learns and forgets them, as its server did)."""
    from nbayes.serve.replay import JournaledCounts, replay

    if model is None:
        return
    if hasattr(model, "add_pending"):  # a SpamScorer
        model.add_pending(JournaledCounts(model.filter, records))
    else:
        replay(model, records)


def served_spam_scorer(path: str, opened: Callable[[], Any] | None = None) -> Any:
    """The scorer of the spam filter ``path`` (None for another model type) with the
    updates its server journaled. ``opened``: a read begun before (the second step of
    :func:`~nbayes.io.serializers.spam_scorer.open_spam_scorer`), taken if no journal is
    beside the file (else the file is read again, after the journal)."""
    from nbayes.io.serializers.spam_scorer import open_spam_scorer

    if opened is not None and not os.path.exists(journal_beside(path)):
        return opened()
    return read_served(path, lambda: open_spam_scorer(path, cached_check=True)(), replay_into)
