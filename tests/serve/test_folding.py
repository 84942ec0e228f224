"""A fold writes the model file beside the requests: reads (and updates) answer while it
runs, the updates that arrive meanwhile are the next fold's, exactly once, whatever stops
the server (docs/serve.md, "Limits" and "Folding").

The folds here are made slow on purpose: the server's check that the folded file loads
(``nbayes.load`` of ``MODEL.folding``) first sleeps ``NBAYES_TEST_SLOW_FOLD`` seconds, a
hook the server process takes from a ``sitecustomize`` module (:func:`slow_folds`), and
says it started in the file ``NBAYES_TEST_FOLD_MARK``. Before, the whole fold ran on the
model's thread: every read waited for it (~2 s for the whole corpus' spam filter)."""

from __future__ import annotations

import http.client
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import nbayes
from nbayes.serve import journal as J

from .conftest import wait_until

#: how long a fold's check sleeps here
SLOW = 3.0

_HOOK = """\
import os
import time

_seconds = float(os.environ.get("NBAYES_TEST_SLOW_FOLD", "0") or 0)
if _seconds:
    import nbayes

    _load = nbayes.load

    def load(path, *args, **kwargs):
        if str(path).endswith(".folding"):
            with open(os.environ["NBAYES_TEST_FOLD_MARK"], "a") as f:
                f.write(f"{os.getpid()}\\n")
            time.sleep(_seconds)
        return _load(path, *args, **kwargs)

    nbayes.load = load
"""


@pytest.fixture
def slow_folds(tmp_path: Path, monkeypatch: Any) -> Path:
    """Servers started from now on check the file of each fold for :data:`SLOW` seconds;
    returns the file in which each check writes a line as it starts."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOOK)
    mark = tmp_path / "folds-started"
    path = [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    monkeypatch.setenv("NBAYES_TEST_SLOW_FOLD", str(SLOW))
    monkeypatch.setenv("NBAYES_TEST_FOLD_MARK", str(mark))
    return mark


def _folds_started(mark: Path) -> int:
    return len(mark.read_text().splitlines()) if mark.exists() else 0


def _spam(server: Any) -> float:
    _, info = server.get("/info")
    return next(c["count"] for c in info["classes"] if c["label"] == "spam")


class _Update(threading.Thread):
    """One ``/update`` sent from a thread of its own (its own connection), timed."""

    def __init__(self, server: Any, text: str) -> None:
        super().__init__(daemon=True)
        self.client = server.client()
        self.text = text
        self.status: int | None = None
        self.answer: Any = None
        self.seconds = 0.0
        self.start()

    def run(self) -> None:
        t0 = time.monotonic()
        try:
            self.status, self.answer = self.client.post(
                "/update", {"texts": [self.text], "labels": ["spam"]}
            )
        except (OSError, http.client.HTTPException) as exc:  # (the server was killed)
            self.answer = exc
        self.seconds = time.monotonic() - t0
        self.client.disconnect()


def _timed(call: Any) -> tuple[float, Any]:
    t0 = time.monotonic()
    out = call()
    return time.monotonic() - t0, out


def test_reads_answer_while_a_fold_writes_the_model_file(
    text_model: str, start: Any, slow_folds: Path
) -> None:
    """The fold runs on a thread of its own: a read sent while it writes and checks the
    model file answers at once (it waited for the whole fold: 3 s here). The update that
    called for the fold answers once it is done (the model file holds it then)."""
    server = start(text_model, "--fold-every", "1")
    assert server.post("/predict", {"texts": ["warm up"]})[0] == 200
    update = _Update(server, "zorblax folded offer")
    wait_until(lambda: _folds_started(slow_folds) == 1, timeout=30)
    seconds, (status, _) = _timed(lambda: server.post("/predict", {"texts": ["zorblax offer"]}))
    assert status == 200 and seconds < SLOW / 3, seconds
    seconds, (status, health) = _timed(lambda: server.get("/health"))
    assert status == 200 and seconds < SLOW / 3 and health["journal_pending"] == 1
    update.join(60)
    assert update.status == 200 and "warning" not in update.answer, update.answer
    assert update.seconds >= SLOW  # (it answers once its fold is done)
    assert server.get("/health")[1]["journal_pending"] == 0
    assert "zorblax" in nbayes.load(text_model).vocabulary_  # folded
    assert J.pending_updates(text_model) == 0
    assert server.terminate() == 0


def test_updates_during_a_fold_are_the_next_fold_s(
    text_model: str, start: Any, slow_folds: Path
) -> None:
    """Updates sent while a fold writes the model file answer at once (they waited for
    the fold); the fold holds the updates before it, the new journal the ones after (a
    fold record names the last update it holds), so after kill -9 each is replayed once."""
    base = nbayes.load(text_model).class_count_.tolist()
    server = start(text_model, "--fold-every", "3", "--fold-seconds", "3600")
    first = [_Update(server, f"before the fold {i}") for i in range(2)]
    for u in first:
        u.join(60)
        assert u.status == 200
    folding = _Update(server, "the update that folds")
    wait_until(lambda: _folds_started(slow_folds) == 1, timeout=30)
    during = []
    for i in range(4):
        seconds, (status, answer) = _timed(
            lambda i=i: server.post(
                "/update", {"texts": [f"during the fold {i}"], "labels": ["spam"]}
            )  # fmt: skip
        )
        assert status == 200 and "warning" not in answer and seconds < SLOW / 3, (seconds, answer)
        during.append(seconds)
    assert folding.is_alive()  # (the fold was under way all along)
    folding.join(60)
    assert folding.status == 200 and "warning" not in folding.answer
    _, health = server.get("/health")
    assert health["journal_pending"] == 4
    on_disk = nbayes.load(text_model).class_count_.tolist()
    assert on_disk == [base[0], base[1] + 3]  # the fold: the three updates before it
    assert J.pending_updates(text_model) == 4  # the new journal: the four after
    server.kill()
    again = start(text_model, "--fold-every", "100")
    assert "replaying 4 journaled update(s)" in again.stderr, again.stderr
    assert _spam(again) == base[1] + 7  # each once
    assert again.terminate() == 0
    assert nbayes.load(text_model).class_count_.tolist() == [base[0], base[1] + 7]
    assert J.recover(text_model)[1] == 0


def test_kill_9_while_a_fold_writes_the_model_file(
    text_model: str, start: Any, slow_folds: Path
) -> None:
    """Killed in the middle of a fold's writing (the file beside written, the journal
    without its record): the model file is the old one, every update is replayed once and
    the fold's file is gone."""
    base = nbayes.load(text_model).class_count_.tolist()
    before = Path(text_model).read_bytes()
    server = start(text_model, "--fold-every", "2")
    assert server.post("/update", {"texts": ["one"], "labels": ["spam"]})[0] == 200
    update = _Update(server, "two")
    wait_until(lambda: _folds_started(slow_folds) == 1, timeout=30)
    assert server.post("/update", {"texts": ["three"], "labels": ["spam"]})[0] == 200
    assert os.path.exists(text_model + ".folding")
    server.kill()
    update.join(60)
    assert Path(text_model).read_bytes() == before
    again = start(text_model)
    assert "replaying 3 journaled update(s)" in again.stderr, again.stderr
    assert not os.path.exists(text_model + ".folding")
    assert _spam(again) == base[1] + 3
    assert again.terminate() == 0
    assert nbayes.load(text_model).class_count_.tolist() == [base[0], base[1] + 3]


def test_sigterm_during_a_fold_lets_it_end_and_folds_the_rest(
    text_model: str, start: Any, slow_folds: Path
) -> None:
    """SIGTERM while a fold writes the model file: the fold ends, the updates sent
    meanwhile are folded at the stop, and the server exits 0 with every update in the
    file."""
    base = nbayes.load(text_model).class_count_.tolist()
    server = start(text_model, "--fold-every", "1")
    update = _Update(server, "folded first")
    wait_until(lambda: _folds_started(slow_folds) == 1, timeout=30)
    assert server.post("/update", {"texts": ["sent during it"], "labels": ["spam"]})[0] == 200
    assert server.terminate(timeout=60) == 0
    update.join(60)
    assert update.status == 200
    assert "holds every update" in server.stderr, server.stderr
    assert nbayes.load(text_model).class_count_.tolist() == [base[0], base[1] + 2]
    assert J.recover(text_model)[1] == 0
    assert not os.path.exists(text_model + ".folding")


def test_workers_fold_one_at_a_time_and_lose_nothing(
    text_model: str, start: Any, slow_folds: Path, monkeypatch: Any
) -> None:
    """Two workers, slow folds every 2 updates, updates sent to both: a worker that calls
    for a fold while the other's is under way leaves it to that one, each follows the
    other's folds (skipping the updates it applied already that the new journal holds
    again), and the model file ends with every update, once."""
    monkeypatch.setenv("NBAYES_TEST_SLOW_FOLD", "1")
    base = nbayes.load(text_model).class_count_.tolist()
    server = start(text_model, "--workers", "2", "--fold-every", "2")
    clients = [server.client() for _ in range(4)]
    errors: list[Any] = []

    def send(k: int) -> None:
        for i in range(5):
            status, answer = clients[k].post(
                "/update", {"texts": [f"worker stream {k} {i}"], "labels": ["spam"]}
            )
            if status != 200 or "warning" in answer:
                errors.append(answer)

    threads = [threading.Thread(target=send, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert _folds_started(slow_folds) >= 2
    for _ in range(10):  # whichever worker answers, all 20 updates, once
        assert _spam(server) == base[1] + 20
    for c in clients:
        c.disconnect()
    assert server.terminate(timeout=60) == 0
    assert nbayes.load(text_model).class_count_.tolist() == [base[0], base[1] + 20]
    assert J.recover(text_model)[1] == 0


def test_the_timed_fold_runs_beside_the_reads_too(
    text_model: str, start: Any, slow_folds: Path
) -> None:
    """A fold called for by --fold-seconds (the server's housekeeping) writes the file on
    its own thread as well."""
    server = start(text_model, "--fold-every", "1000", "--fold-seconds", "1")
    assert server.post("/update", {"texts": ["timed fold"], "labels": ["spam"]})[0] == 200
    wait_until(lambda: _folds_started(slow_folds) == 1, timeout=30)
    seconds, (status, _) = _timed(lambda: server.post("/predict", {"texts": ["timed"]}))
    assert status == 200 and seconds < SLOW / 3, seconds
    wait_until(lambda: server.get("/health")[1]["journal_pending"] == 0, timeout=30)
    assert server.terminate() == 0
    assert "timed" in nbayes.load(text_model).vocabulary_
