"""The served model: scoring, online learning through the journal, folding.

A text model is served by its lean scorer (:func:`nbayes.load_scorer`: numpy
only) until the first update; the estimator (:func:`nbayes.load`) is loaded for the first
update or forget (or at start, to replay the journal) and serves from then on (it scores
through its own scorer of the new statistics). A table model is served by its estimator.

Every request runs on the model's thread (:mod:`nbayes.serve.runner`), one at a time, so
a request never sees a model half updated. An update is checked and framed as its journal
record first (a request the journal cannot hold, such as text that is not valid Unicode,
is refused before anything changes), then applied in memory (where the library refuses a
bad one, all or nothing: labels of the wrong type, documents never learned), then journaled
and fsync-ed, and only then acknowledged. If the journal cannot be written the model is
rebuilt from the files, so memory never holds an update the disk lacks.

A fold writes the model file beside the requests: it is begun on the model's thread
(:meth:`ModelState.begin_fold`: a snapshot of the model, a moment), its file written,
checked and hashed on a thread of its own (:meth:`Fold.run`) while the model's thread
answers reads and takes updates (the next fold's), and finished on the model's thread
(:meth:`ModelState.finish_fold`: the journal's fold record, the rename, the new journal).
:meth:`ModelState.fold` does the three at once (at shutdown, and for callers without a
service). A fold that fails (a full disk) changes nothing: the updates stay in the journal,
the answer says the update is durable, and folding is retried later (``--fold-seconds``
after the failure, the pause doubling while it fails, up to 5 minutes; logged each time).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

from nbayes.serve.inputs import (
    ApiError,
    TableSpec,
    flag_of,
    labels_of,
    messages_of,
    texts_of,
)
from nbayes.serve.journal import (
    Folding,
    Journal,
    JournalBehind,
    file_digest,
    fold_under_way,
    frame,
    write_folding,
)
from nbayes.serve.replay import REFUSALS as _REFUSALS
from nbayes.serve.replay import apply_record
from nbayes.serve.replay import is_spam as _is_spam
from nbayes.serve.replay import is_text as _is_text

log = logging.getLogger("nbayes.serve")

#: the longest pause between attempts of a fold that keeps failing, in seconds
_FOLD_RETRY_MAX = 300.0

__all__ = ["Fold", "ModelState"]


class ModelState:
    """A model file served, with its journal.

    Parameters
    ----------
    path : str
        The model file (its journal already :func:`~nbayes.serve.journal.recover`-ed).
    digest : str
        The model file's digest (from ``recover``).
    fold_every : int
        Fold the journal into the model file after this many updates ...
    fold_seconds : float
        ... or when the oldest unfolded update is this old.
    start_seq : int, optional
        The journal's count of updates when the server started (``/health`` counts the
        updates since: not the ones replayed at start). Default: where the journal is now.
    before_replace : callable, optional
        Called with the model's path, and a descriptor of the folded file that holds its
        lock, just after the fold renamed it over the model file (the model's lock follows
        the file:
        :meth:`nbayes.io.lock.ModelLock.follow`); with a model file that replaced the
        served one alone (one the server follows).
    shared : bool
        Other processes (workers) write the journal too: look for their updates before
        every request. A lone server holds the model's lock: nobody else writes it.
    max_update : int
        The most examples one update or forget may hold (``--max-update``): a write runs
        to its end, every read waiting (a spam filter learns ~14,000 mails a second).
    """

    def __init__(
        self, path: str, digest: str, fold_every: int = 1000, fold_seconds: float = 60.0,
        start_seq: int | None = None, before_replace: Callable[..., Any] | None = None,
        shared: bool = True, max_update: int = 10_000,
    ) -> None:  # fmt: skip
        self.path = os.path.realpath(path)
        self.max_update = int(max_update)
        self.shared = shared
        self.fold_every = max(int(fold_every), 1)
        self.fold_seconds = float(fold_seconds)
        self.journal = Journal(self.path, digest)
        self.estimator: Any = None
        self.scorer: Any = None
        self.folds = 0
        self.fold_failures = 0
        self.fold_error: str | None = None  # the last fold's failure, until one succeeds
        self._fold_retry_at = 0.0
        self._folding: Fold | None = None  # a fold begun and not finished
        #: a write leaves the fold it calls for to its caller (:meth:`begin_fold`; the
        #: service runs its middle part off the model's thread), instead of folding at once
        self.background_folds = False
        self._before_replace = before_replace
        self._dirty_since: float | None = None
        self._loader: threading.Thread | None = None
        self._loaded: Any = None
        self._file_params: dict[str, Any] | None = None
        try:
            self._load()
        except BaseException:  # (a model it cannot serve): the journal's file is let go
            self.journal.close()
            raise
        self._start_seq = self.journal.seq if start_seq is None else int(start_seq)
        self.summary: dict[str, Any] = {}
        self.publish()

    # ----------------------------------------------------------------- loading
    def _load(self) -> None:
        from nbayes import load_scorer

        if self._loader is not None:  # a preload of what the file was: not of what it is
            self._loader.join()
            self._loader = self._loaded = None
        self.estimator = None
        self._ino = _inode(self.path)  # (before reading it: a later replacement is seen)
        self._stamp = _stamp(self.path)
        self.scorer = load_scorer(self.path)
        if self.scorer is None:
            self.estimator = self._load_estimator()
        if self.scorer is None:
            _check_servable(self.estimator)
        self.text = self.scorer is not None or _is_text(self.estimator)
        self.spam = _is_spam(self.estimator)  # texts are raw e-mail: /filter answers
        self.table = None if self.text else TableSpec(self.estimator)
        records = self.journal.catch_up()
        for i, record in enumerate(records):
            try:
                self._apply(record)
            except (ApiError, *_REFUSALS) as exc:
                raise RuntimeError(
                    f"Update {i + 1} of the journal {self.journal.path!r} no longer applies "
                    f"to the model ({exc}); move the journal away to serve the model as it is."
                ) from exc
        if records:
            self._dirty_since = time.monotonic()

    def _load_estimator(self) -> Any:
        if self._loader is not None:  # loading in the background: wait for it
            self._loader.join()
            self._loader = None
            loaded, self._loaded = self._loaded, None
            if not isinstance(loaded, BaseException):
                return loaded
        from nbayes import load

        return load(self.path)

    def preload(self) -> None:
        """Load the estimator of a text model in a thread, while the scorer serves, so
        that the first update does not wait for it (nor for scikit-learn's import)."""
        if self.estimator is not None or self._loader is not None:
            return

        def load() -> None:
            from nbayes import load

            try:
                self._loaded = load(self.path)
            except BaseException as exc:  # the first update loads again, and reports it
                self._loaded = exc

        self._loader = threading.Thread(target=load, name="nbayes-preload", daemon=True)
        self._loader.start()

    @property
    def model(self) -> Any:
        """What predicts and explains: the estimator once loaded, else the scorer."""
        return self.estimator if self.estimator is not None else self.scorer

    @property
    def classes(self) -> np.ndarray:
        return np.asarray(self.model.classes_)

    @property
    def updates(self) -> int:
        """Updates and forgets journaled since the server started (by any worker; not
        the ones replayed at start)."""
        return max(self.journal.seq - self._start_seq, 0)

    def publish(self) -> None:
        """Refresh :attr:`summary`, what ``/health`` answers from the event loop without
        touching the model (called on the model's thread after every job)."""
        self.summary = {
            "classes": len(self.classes), "updates": self.updates,
            "journal_pending": self.journal.pending, "folds": self.folds,
            "fold_error": self.fold_error,
        }  # fmt: skip

    def reload(self) -> None:
        """Load the model from its files again and replay the journal (after a request
        was stopped half way: a cache of the model may be half built). A model file
        replaced meanwhile is followed when it can be (:meth:`_follow_replaced_file`);
        when it cannot, the model in memory stays (the file it came from is gone)."""
        with self.journal.writing():
            if not self._file_replaced():
                self._rebuild()
                return
            self._catch_up_locked()
            try:
                self._follow_replaced_file()
            except ModelFileReplaced as exc:
                log.warning("nbayes serve: %s", exc)
                self.fold_error = str(exc)

    # ---------------------------------------------------------------- reading
    def refresh(self) -> None:
        """Apply the updates other workers journaled since the last request."""
        if self.needs_refresh():
            try:
                self._catch_up()
            except JournalBehind:
                with self.journal.writing():
                    self._rebuild()

    def needs_refresh(self) -> bool:
        """Whether other workers journaled updates (or folded) since the last request."""
        return self.shared and self.journal.needs_catch_up()

    def _catch_up(self) -> None:
        """Apply the journal's new records (inside :meth:`Journal.writing`, or not). A
        record that does not apply here although it did for the worker that wrote it
        (it never should) makes this worker load the files again, so that the workers
        never disagree."""
        journal = self.journal.file_id
        records = self.journal.catch_up()
        if self.journal.file_id != journal:  # another worker folded: the file it wrote
            base = self.journal.base_ino
            self._ino = base if base is not None else _inode(self.path)
            self._stamp = None  # (the file it wrote: its size and time taken at the next look)
        for record in records:
            try:
                self._apply(record)
            except (ApiError, *_REFUSALS) as exc:
                log.error("nbayes serve: a journaled update did not apply (%s); reloading "
                          "the model from its files", exc)  # fmt: skip
                self._rebuild()
                return

    def _catch_up_locked(self) -> None:
        """:meth:`_catch_up` inside :meth:`Journal.writing`: when other workers folded
        more than once meanwhile, the model is rebuilt from the files."""
        try:
            self._catch_up()
        except JournalBehind:
            self._rebuild()

    def _rebuild(self) -> None:
        """Load the model file and replay its journal again (inside
        :meth:`Journal.writing`: the file and the journal are each other's)."""
        self.journal.reopen(file_digest(self.path))
        self._load()

    # ---------------------------------------------------------------- writing
    def inputs(self, body: dict[str, Any]) -> tuple[Any, str, Any]:
        """``(X, field, plain)`` of a request: the model's input, the field it came in and
        the JSON-able value to journal."""
        if self.text:
            if "rows" in body:
                raise ApiError(422, 'rows: this is a text model: send "texts"', "rows")
            if "messages" in body:
                if not self.spam:
                    raise ApiError(
                        422, 'messages: raw messages (base64) are a spam filter\'s; this model '
                        'takes "texts"', "messages",
                    )  # fmt: skip
                if "texts" in body:
                    raise ApiError(
                        422, 'messages: send each message once, in "texts" (as text) or in '
                        '"messages" (base64 of its bytes), not both', "messages",
                    )  # fmt: skip
                return messages_of(body), "messages", body["messages"]
            texts = texts_of(body, "texts")
            return texts, "texts", texts
        if "texts" in body:
            raise ApiError(
                422, f"texts: this is a table model ({type(self.estimator).__name__}): send "
                "\"rows\"", "texts",
            )  # fmt: skip
        assert self.table is not None
        X = self.table.rows(body, "rows")
        return X, "rows", body["rows"]

    def write(self, op: str, body: dict[str, Any]) -> tuple[int, str | None]:
        """Learn (``op="update"``) or unlearn (``"forget"``) the examples of ``body``,
        durably. Returns the number of examples, and a warning when the update is
        durable but a fold that followed it failed (it is retried later). An update
        learns the model's classes only, unless ``body["new_classes"]`` is true."""
        new_classes = op == "update" and flag_of(body, "new_classes")
        if new_classes and self.spam:
            raise ApiError(
                422, "new_classes: a spam filter's labels are its two own (ham and spam); it "
                "takes no new class", "new_classes",
            )  # fmt: skip
        with self.journal.writing():
            self._catch_up_locked()  # every record before this one, in order
            try:
                self._follow_replaced_file()
            except ModelFileReplaced as exc:
                raise ApiError(503, f"{exc}; this update was not applied.") from None
            X, field, plain = self.inputs(body)
            if len(X) > self.max_update:
                raise ApiError(
                    422, f"{field}: {len(X):,} in one request; the server takes at most "
                    f"{self.max_update:,} (--max-update): a write is never stopped half "
                    f"way and every read waits for it. Send them in parts of at most "
                    f"{self.max_update:,}; nothing was changed", field, "--max-update",
                )  # fmt: skip
            y = labels_of(body, len(X), self.classes)  # checked before anything changes
            self._check_classes(op, y, new_classes)
            if self.spam and op == "update":  # (one learnt before this check may be forgotten)
                self._check_not_empty(X, field)
            record: dict[str, Any] = {"op": op, field: plain, "labels": body.get("labels")}
            if self.spam:  # its tokens too: a reader of the journal needs no tokenizing
                record["sets"] = self._token_sets(X, field)
            try:
                data = frame(record)  # what the journal will hold, made before applying
            except ValueError as exc:
                raise ApiError(422, f"{field}: {exc}", field) from None
            n = self._apply(record)
            if n == 0:
                return 0, None
            try:
                self.journal.append(data, op)
            except BaseException as exc:
                self._rebuild()  # memory must not hold what the disk lacks
                if not isinstance(exc, OSError):
                    raise
                raise ApiError(
                    503, f"The update could not be written to the journal ({exc}); it was "
                    "not applied.",
                ) from None  # fmt: skip
            if self._dirty_since is None:
                self._dirty_since = time.monotonic()
            warning = None
            if not self.background_folds and self.fold_wanted():
                failures = self.fold_failures
                if not self._fold_locked() and self.fold_failures > failures:
                    warning = self.fold_warning()
        return n, warning

    def _check_not_empty(self, messages: Any, field: str = "texts") -> None:
        """422 naming ``field[i]`` (``texts`` or ``messages``) for an empty message sent to
        a spam filter: it is no mail to learn from (``nbayes filter --register`` refuses it
        alike, by the same reading: :func:`nbayes.mail.is_empty`)."""
        from nbayes.mail import is_empty

        for i, message in enumerate(messages):
            if isinstance(message, str | bytes) and is_empty(message):
                raise ApiError(
                    422,
                    f"{field}[{i}] is empty: an empty message is no mail to learn from; "
                    "nothing was changed",
                    f"{field}[{i}]",
                )

    def _token_sets(self, messages: list[Any], field: str) -> list[list[str]]:
        """A spam filter's tokens of each message, sorted (what it learns or forgets of
        them: the journal's record holds them, :func:`nbayes.serve.replay.apply_record`
        learns them as they are, and a reader counts them, without tokenizing again)."""
        if self.estimator is None:
            self.estimator = self._load_estimator()
        try:
            return [sorted(self.estimator.tokenize(m)) for m in messages]
        except _REFUSALS as exc:
            raise ApiError(422, f"{field}: {exc}", field) from None

    def _check_classes(self, op: str, labels: np.ndarray, new_classes: bool = False) -> None:
        """422 naming ``labels[i]`` for a label the model cannot take: a spam filter
        learns its two labels only, no model forgets a class it never learned, and an
        update of another model brings a new class only when asked to (``new_classes``:
        a typo, "eggs" for "ham", would otherwise be learnt as a class of its own)."""
        if new_classes:
            return
        classes = self.classes.tolist()
        have = set(classes)  # (an update holds up to --max-update labels)
        for i, label in enumerate(labels.tolist()):
            if label in have:
                continue
            known = ", ".join(map(repr, classes[:10])) + (", ..." if len(classes) > 10 else "")
            if self.spam:
                why = (
                    f"{label!r} is not a label of this spam filter: its labels are {known} "
                    "(labels are case-sensitive); send one of them per message"
                )
            elif op == "update":
                why = (
                    f"{label!r} is not a class of the model (its classes are {known}; labels "
                    "are case-sensitive): to add it as a new class, send the update again "
                    'with "new_classes": true; nothing was changed'
                )
            else:
                why = (
                    f"{label!r} is not a class of the model (its classes are {known}): a "
                    "class it never learned cannot be forgotten; nothing was changed"
                )
            raise ApiError(422, f"labels[{i}]: {why}", f"labels[{i}]")

    def _apply(self, record: dict[str, Any]) -> int:
        """Apply a journal record (or a request in its form) to the estimator."""
        if self.estimator is None:
            self.estimator = self._load_estimator()
        return apply_record(self.estimator, record, self.table)

    # ---------------------------------------------------------------- the model file
    def _file_replaced(self) -> bool:
        """Whether the model file's path names another file than the one this server
        loaded or folded (``mv`` of a retrained model over it, or its removal), or the
        same file rewritten in place (``cp`` of a retrained model over it: the same inode,
        other bytes; it went unseen, and the next fold wrote the old model over it: a
        fuzz). A size or time that changed is confirmed by the bytes' digest (``touch``
        changes none)."""
        if self._ino is None:
            return False
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return True
        if st.st_ino != self._ino:
            return True
        stamp = (st.st_size, st.st_mtime_ns)
        if self._stamp is None:
            self._stamp = stamp
        if stamp == self._stamp:
            return False
        if file_digest(self.path) != self.journal.model_sha256:
            return True
        self._stamp = stamp  # (touched: the same bytes)
        return False

    def check_file(self) -> None:
        """Follow a model file replaced by another one while served, or say why not
        (:attr:`fold_error`, logged once), from the server's housekeeping."""
        if not self._file_replaced():
            return
        with self.journal.writing():
            self._catch_up_locked()
            try:
                self._follow_replaced_file()
            except ModelFileReplaced as exc:
                if self.fold_error != str(exc):
                    log.warning("nbayes serve: %s", exc)
                self.fold_error = str(exc)

    def _follow_replaced_file(self) -> None:
        """Inside :meth:`Journal.writing`, caught up: if the model file was replaced by
        another file (not by a fold: :meth:`_file_replaced`), serve the new file when no
        update is journaled since the last fold (nothing is lost: the new file is the
        model from now on, its lock taken), else raise :class:`ModelFileReplaced` (the
        updates in the journal apply to the file this server loaded; folding them over
        the new file would undo the replacement, dropping them would lose them)."""
        if not self._file_replaced():
            return
        if not os.path.isfile(self.path):
            raise ModelFileReplaced(
                f"the model file {self.path!r} was removed while served; the "
                f"{self.journal.pending} update(s) since the last fold stay in "
                f"{self.journal.path!r}. Put the model file back, or stop the server"
            )
        if self.journal.pending:
            raise ModelFileReplaced(
                f"the model file {self.path!r} was replaced by another file while served "
                f"(not by a fold of this server); the {self.journal.pending} update(s) "
                f"since the last fold apply to the file it replaced, so the server will "
                f"not fold them into the new one, and stay in {self.journal.path!r}. Put the "
                "served file back to keep them (they are folded in then), or stop the "
                "server, move the journal away (the updates are lost) and start it on the "
                "new file"
            )
        kept = {k: getattr(self, k) for k in _LOADED}
        try:
            self._load_file_as_is()
        except Exception as exc:
            for k, v in kept.items():
                setattr(self, k, v)
            why = "another process holds its lock" if isinstance(exc, BlockingIOError) else exc
            raise ModelFileReplaced(
                f"the model file {self.path!r} was replaced by another file while served, "
                f"which this server cannot serve ({why}); it answers from the model it "
                "loaded before"
            ) from None
        log.warning(
            "nbayes serve: the model file %s was replaced by another file while served "
            "(no update journaled since the last fold): serving the new file",
            self.path,
        )
        if self.fold_error is not None and self.fold_error.startswith("the model file"):
            self.fold_error = None

    def _load_file_as_is(self) -> None:
        """Load the model file at the path (a replacement) and start the journal anew on
        it, its lock taken (inside :meth:`Journal.writing`, no update journaled)."""
        ino = _inode(self.path)
        digest = file_digest(self.path)
        self._file_params = None
        self._load()  # (its size and time: this file's, taken before its digest above)
        if self._before_replace is not None:  # the model's lock follows the new file
            self._before_replace(self.path)
        self.journal.start_new(digest, ino=ino)
        self._ino = ino
        self._dirty_since = None

    # ---------------------------------------------------------------- folding
    def fold_due(self) -> bool:
        """Whether a timed fold is due (``--fold-seconds`` after the first unfolded update,
        or the pause after a failed fold past), and none is under way."""
        now = time.monotonic()
        return (
            self._folding is None
            and self._dirty_since is not None
            and now - self._dirty_since >= self.fold_seconds
            and now >= self._fold_retry_at
        )

    def fold_wanted(self) -> bool:
        """Whether the updates journaled call for a fold (``--fold-every``), none is under
        way and no failed fold's pause is running."""
        return (
            self._folding is None
            and self.journal.pending >= self.fold_every
            and time.monotonic() >= self._fold_retry_at
        )

    def fold(self) -> bool:
        """Fold the journal into the model file now, on this thread, if it holds any
        update (:meth:`begin_fold`, :meth:`Fold.run`, :meth:`finish_fold`). Returns whether
        it folded; a failure is logged and retried later (:attr:`fold_error`)."""
        with self.journal.writing():
            return self._fold_locked()

    def _fold_locked(self) -> bool:
        """:meth:`fold` inside :meth:`Journal.writing`."""
        fold = self._begin_fold_locked()
        if fold is None:
            return False
        with warnings.catch_warnings():  # (this thread's: the model's own)
            warnings.simplefilter("ignore")
            fold.run()
        return self._finish_fold_locked(fold)

    def begin_fold(self) -> Fold | None:
        """The first part of a fold, on the model's thread: the model as it is now (after
        every update journaled, other workers' included), taken cheaply
        (:func:`nbayes.io.persist.snapshot`). :meth:`Fold.run` then writes, checks and
        hashes its file, on another thread while requests go on (updates too: they are
        the next fold's), and :meth:`finish_fold`, back on the model's thread, puts it in
        place. None when there is nothing to fold, a fold is under way, or it failed
        at once (said as :meth:`finish_fold` says a failure)."""
        with self.journal.writing():
            return self._begin_fold_locked()

    def _begin_fold_locked(self) -> Fold | None:
        if self._folding is not None:
            return None
        self._catch_up_locked()
        if self.journal.pending == 0:
            self._dirty_since = None
            return None
        if fold_under_way(self.path):  # another worker's: it folds these updates
            return None
        from nbayes.io.persist import snapshot

        try:
            self._follow_replaced_file()  # (ModelFileReplaced: the fold is refused)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                write = snapshot(self.estimator)
        except Exception as exc:
            self._fold_failed(exc)
            return None
        self._folding = Fold(self.path, self.journal.seq, write)
        return self._folding

    def finish_fold(self, fold: Fold) -> bool:
        """The last part of a fold whose :meth:`Fold.run` has ended, on the model's thread:
        the ``fold-at`` record, the model file replaced, the new journal (the updates
        journaled meanwhile copied into it: the next fold's). Returns whether it folded;
        a failure is logged and the fold tried again later (:attr:`fold_error`). Not a
        failure: another worker's fold under way (it folds these updates)."""
        with self.journal.writing():
            return self._finish_fold_locked(fold)

    def _finish_fold_locked(self, fold: Fold) -> bool:
        if self._folding is fold:
            self._folding = None
        try:
            self._catch_up_locked()
            if fold.error is not None:
                raise fold.error
            if fold.folding is None:  # another worker folds (it is under way)
                return False
            self._follow_replaced_file()
            folded = self.journal.replace_model(fold.folding, self._before_replace)
        except Exception as exc:
            fold.discard()
            self._fold_failed(exc)
            fold.failed = self.fold_error
            return False
        except BaseException:
            fold.discard()
            raise
        if not folded:  # (another worker folded as far meanwhile)
            return False
        self._ino = self.journal.base_ino
        self._stamp = None  # (the file this fold wrote: taken at the next look)
        self.folds += 1
        # the updates journaled while the file was written are the next fold's
        self._dirty_since = time.monotonic() if self.journal.pending else None
        if self.fold_failures:
            log.warning("nbayes serve: folded %s after %d failed attempt(s)", self.path,
                        self.fold_failures)  # fmt: skip
        self.fold_failures = 0
        self.fold_error = None
        self._fold_retry_at = 0.0
        return True

    def _fold_failed(self, exc: Exception) -> None:
        """A fold failed: said (:attr:`fold_error`, logged), and tried again later."""
        self.fold_failures += 1
        self.fold_error = f"{type(exc).__name__}: {exc}"
        # --fold-seconds (at least 1 s, at most 60) after the first failure, doubling
        first = max(min(self.fold_seconds, 60.0), 1.0)
        pause = min(first * 2 ** min(self.fold_failures - 1, 8), _FOLD_RETRY_MAX)
        self._fold_retry_at = time.monotonic() + pause
        log.warning(
            "nbayes serve: folding the journal into %s failed (%s); the %d update(s) stay "
            "in the journal (durable); retrying in %g s", self.path, self.fold_error,
            self.journal.pending, pause,
        )  # fmt: skip

    def fold_warning(self) -> str:
        """What the answer of an update whose fold failed says (:attr:`fold_error`)."""
        return (
            f"The update is durable (journaled) but folding the journal into the model file "
            f"failed ({self.fold_error}); folding is retried later. Do not send this update "
            "again."
        )

    def close(self, fold: bool = True) -> None:
        """Fold what is journaled and let go of the files (a fold that fails leaves the
        updates in the journal: the next start replays them). The journal is left with
        no ``serving`` record: no server holds the model any more. ``fold=False`` leaves
        the updates in the journal (a model in memory a stopped request may have left
        half changed is not written)."""
        try:
            with self.journal.writing():
                if not fold:
                    self.journal.catch_up()
                    self.journal.drop_serving()
                    return
                self._catch_up_locked()
                folded = self.journal.pending == 0 or self._fold_locked()
                if folded and self.journal.pending == 0 and self.journal.serving is not None:
                    self.journal.start_new(file_digest(self.path), serving=False)
        finally:
            self.journal.close()

    # ---------------------------------------------------------------- summary
    def class_counts(self) -> list[dict[str, Any]]:
        """``[{"label": class, "count": n}, ...]`` of the model as it is now."""
        if self.estimator is None:
            counts = self.scorer.stats.class_count
        else:
            counts = self.estimator.class_count_
        return [  # a whole count as an int (4827, not 4827.0: a trial's); weights may not be
            {"label": _plain(c), "count": int(n) if float(n).is_integer() else float(n)}
            for c, n in zip(self.classes.tolist(), np.asarray(counts).tolist(), strict=True)
        ]

    def info(self) -> dict[str, Any]:
        """The model's summary for ``/info``."""
        out: dict[str, Any] = {"file": os.path.basename(self.path)}
        if self.estimator is None:  # the scorer of a text model
            out["kind"] = "text"
            out["model_type"] = "TextClassifier"
            out["model"] = self.scorer.model
            if self._file_params is None:  # read once: updates do not change them
                self._file_params = _file_hyperparameters(self.path)
            out["hyperparameters"] = _without_unused(self._file_params)
            out["vocabulary_size"] = int(self.scorer.n_columns)
        else:
            params = self.estimator.get_params(deep=False)
            out["kind"] = "spam" if self.spam else "text" if self.text else "table"
            out["model_type"] = type(self.estimator).__name__
            if self.spam:  # the settings in force (the preset's where left at None), as
                # nbayes info says them: the hyperparameters are the constructor's
                from dataclasses import asdict

                est = self.estimator
                out["vocabulary_size"] = len(est.table_)
                out["settings"] = {
                    "preset": est.preset, **asdict(est.effective_params_),
                    "combining": est.combining, "min_learned": est.min_learned,
                }  # fmt: skip
                out["settings"] = {k: _jsonable(v) for k, v in out["settings"].items()}
            elif self.text:
                out["model"] = params.get("model")
                out["vocabulary_size"] = len(self.estimator.get_feature_names_out())
            hyper = {k: _jsonable(v) for k, v in sorted(params.items())}
            out["hyperparameters"] = _without_unused(hyper) if self.text else hyper
        out["classes"] = self.class_counts()
        if self.table is not None:
            out["columns"] = self.table.describe()
        out["updates_since_start"] = self.updates
        out["journal_pending"] = self.journal.pending
        return out


def _without_unused(params: dict[str, Any]) -> dict[str, Any]:
    """A text model's hyperparameters without ``n_features`` where it does not hash: the
    number of hash buckets of a model that has none (1048576 read as its size, a trial's
    finding; `nbayes info` leaves it out alike)."""
    if params.get("hashing"):
        return params
    return {k: v for k, v in params.items() if k != "n_features"}


def _check_servable(model: Any) -> None:
    """Refuse a model the service cannot answer for (its endpoints speak the Naive Bayes
    models' API: posteriors, explanations by evidence, update and forget)."""
    from nbayes._template.base import BaseNB

    if not isinstance(model, BaseNB) and not _is_spam(model):
        raise ValueError(
            f"a {type(model).__name__} model is not a Naive Bayes model: nbayes serve answers "
            "for TextClassifier, SpamFilter and the table models (posteriors, evidence, update, "
            "forget). Predict with it through `nbayes predict MODEL` or the Python API."
        )


def _file_hyperparameters(path: str) -> dict[str, Any]:
    from nbayes.io.persist import decode_param, read_metadata

    metadata, _ = read_metadata(path)
    params = metadata["model"].get("hyperparameters", {})
    return {k: _jsonable(decode_param(v, k)) for k, v in sorted(params.items())}


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and value != value:
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


class Fold:
    """A fold under way (:meth:`ModelState.begin_fold`): the model's snapshot after the
    update numbered ``seq``, whose file :meth:`run` writes, checks and hashes (off the
    model's thread: it touches nothing of the served model), for
    :meth:`ModelState.finish_fold` to put in place."""

    def __init__(self, path: str, seq: int, write: Callable[[BinaryIO], None]) -> None:
        self.path = path
        self.seq = seq
        self._write: Callable[[BinaryIO], None] | None = write
        #: the file written (None: not yet, it failed, or another worker's fold is under way)
        self.folding: Folding | None = None
        self.error: BaseException | None = None  # why writing its file failed
        self.failed: str | None = None  # why it failed (:attr:`ModelState.fold_error`)
        self.waiter: Any = None  # (what its runner waits on: the service's task)

    def run(self) -> None:
        """Write the snapshot's file beside the model (``MODEL.folding``), check that it
        loads and hash it (:func:`~nbayes.serve.journal.write_folding`); an error is kept
        for :meth:`ModelState.finish_fold`."""
        write, self._write = self._write, None  # (the snapshot's memory goes with it)
        if write is None:
            return
        try:
            self.folding = write_folding(self.path, write, self.seq, _check_loads)
        except BaseException as exc:
            self.error = exc

    def discard(self) -> None:
        if self.folding is not None:
            self.folding.discard()
            self.folding = None


def _check_loads(path: str) -> None:
    """The folded file must load before it replaces the model: an update the library
    accepted may hold statistics no file can (issue 24, item 3); the fold is then refused
    and the updates stay in the journal, replayed at start."""
    from nbayes import load
    from nbayes.exceptions import ModelFileError

    try:
        load(path)
    except ModelFileError as exc:
        raise ValueError(
            f"the folded model would not load ({exc}); the model file is left as it was and "
            "the updates stay in the journal"
        ) from None


class ModelFileReplaced(RuntimeError):
    """The model file was replaced by another file while served, and the server cannot
    follow it (updates journaled since the last fold, or a file it cannot serve)."""


#: what :meth:`ModelState._load` sets (restored when a replacement cannot be served)
_LOADED = ("estimator", "scorer", "text", "spam", "table", "_ino", "_stamp", "_file_params")


def _stamp(path: str) -> tuple[int, int] | None:
    """The model file's size and modification time (None: no file)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None
