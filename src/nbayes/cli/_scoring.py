"""The verdicts of many messages from a spam model file (``nbayes filter MODEL MAIL...``,
``nbayes eval``): :class:`Verdicts`."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: after this many messages, the rest are scored by the filter loaded whole: its table built
#: (~1 s for a model of 700k tokens), a message then costs a third of the scorer's look-ups
#: in the file (0.35 against 1 ms on the SpamAssassin corpus' model)
WHOLE_AFTER = 2000
#: mail of this many bytes or more (about WHOLE_AFTER messages of 5 kB) is scored by the
#: whole filter from its first message
WHOLE_BYTES = 10_000_000


def mail_bytes(paths: Iterable[str], enough: int = WHOLE_BYTES) -> int:
    """The bytes of the files at or below ``paths`` (mail files, mboxes, Maildirs, class
    folders), counted until ``enough`` (a large tree is not walked to its end); what
    cannot be read counts nothing (reading it gives its error)."""
    total = 0
    for path in paths:
        if os.path.isfile(path):
            total += os.path.getsize(path)
        for root, _dirs, files in os.walk(path):
            for name in files:
                if total >= enough:
                    return total
                try:
                    total += os.path.getsize(os.path.join(root, name))
                except OSError:
                    pass
        if total >= enough:
            break
    return total


class Verdicts:
    """The verdict of one message at a time: the scorer's (the file's columns mapped,
    nothing built) for the first :data:`WHOLE_AFTER` messages, then the whole filter's
    (from the first message for ``mail_size`` of :data:`WHOLE_BYTES` or more), the same
    verdicts (of the model file as it is then: one a registration replaced in between
    is read anew, as a second command would). The scorer stays if the file no longer
    loads. :meth:`each` scores the messages after that on ``n_jobs`` processes.
    ``settings`` (parameters, e.g. ``{"spam_cutoff": 0.95}``) are set on the whole filter
    as they are on the scorer's: the run's, not the file's."""

    def __init__(
        self,
        path: str,
        scorer: Any,
        mail_size: int = 0,
        n_jobs: int = 1,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.path, self.scorer, self.seen, self.n_jobs = path, scorer, 0, n_jobs
        self.settings = settings or {}
        self.whole: Any = None
        # (mail of WHOLE_BYTES or more: the whole filter from the first message)
        self.whole_at = 1 if mail_size >= WHOLE_BYTES else WHOLE_AFTER + 1

    def __call__(self, raw: Any) -> Any:
        self.seen += 1
        if self.seen == self.whole_at:
            from nbayes.cli._served import read_served, replay_into
            from nbayes.exceptions import ModelFileError
            from nbayes.io.persist import load
            from nbayes.spam import SpamFilter

            try:  # (a served model's: with its server's journaled updates, as the scorer)
                whole = read_served(self.path, lambda: load(self.path), replay_into)
            except (OSError, ModelFileError):
                whole = None
            self.whole = whole if isinstance(whole, SpamFilter) else None
            if self.whole is not None:
                self.whole.set_params(**self.settings)
        model = self.whole if self.whole is not None else self.scorer
        return model.classify([raw])[0]

    def _one(self, raw: Any) -> Any:
        try:
            return self(raw)
        except Exception as exc:
            return exc

    def each(self, items: Iterable[T], mail_of: Callable[[T], Any]) -> Iterator[tuple[T, Any]]:
        """``(item, verdict)`` for each of ``items`` in order: the verdict of the message
        ``mail_of(item)``, or the error scoring it (an exception, returned, not raised),
        or None where ``mail_of`` gives None (an item that is not a message: a reading
        error, passed through in its place). Once the whole filter scores, with
        ``n_jobs`` other than 1 (-1: every usable core), forked processes score the rest
        (:func:`nbayes.spam.classify_each`); ``items`` is read in this process."""
        from nbayes.spam import classify_each

        it = iter(items)
        parallel = self.n_jobs != 1 and "fork" in multiprocessing.get_all_start_methods()
        for item in it:
            raw = mail_of(item)
            yield item, None if raw is None else self._one(raw)
            if parallel and self.whole is not None:
                break
        else:
            return
        for item, verdict in classify_each(self.whole, it, mail_of, n_jobs=self.n_jobs):
            self.seen += verdict is not None
            yield item, verdict
