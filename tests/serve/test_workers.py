"""``--workers N``: N processes serve one model; every worker applies every update.

Writes are serialized through the journal's lock, and each worker catches up with the
journal before it answers, so an update acknowledged by one worker is seen by a
prediction answered by any other; the model's lock is shared by the workers (forked
after taking it), so it holds as long as any of them runs.
"""

from __future__ import annotations

import re
import time
from typing import Any

import nbayes
from nbayes.serve import journal as J


def _worker(client: Any) -> str:
    _, text = client.get("/metrics")
    return re.search(r'worker="(\d+)"', text).group(1)


def _clients_per_worker(server: Any, n: int = 2) -> dict[str, Any]:
    """One kept-alive client connected to each of ``n`` workers."""
    seen: dict[str, Any] = {}
    spare = []
    for _ in range(200):
        client = server.client()
        pid = _worker(client)
        if pid in seen:
            spare.append(client)
        else:
            seen[pid] = client
        if len(seen) == n:
            break
    for c in spare:
        c.disconnect()
    if len(seen) < n:
        for c in seen.values():
            c.disconnect()
        raise AssertionError("the connections all reached one worker")
    return seen


def test_every_worker_sees_every_update(text_model: str, start: Any) -> None:
    server = start(text_model, "--workers", "2", "--fold-every", "3")
    clients = _clients_per_worker(server)
    model = nbayes.load(text_model)
    probe = ["blorp offer", "glimmer lunch", "see you at noon"]
    for i in range(4):  # enough to fold (every 3 updates) while the other worker reads
        for client in list(clients.values()):
            doc = ["blorp offer now"] if i % 2 else ["glimmer lunch today"]
            status, _ = client.post("/update", {"texts": doc, "labels": ["spam"]})
            assert status == 200
            model.update(doc, ["spam"])
            expected = model.predict_proba(probe).tolist()
            for other in clients.values():  # whichever worker answers
                _, body = other.post("/predict", {"texts": probe})
                assert [list(p["probabilities"].values()) for p in body["predictions"]] == expected
    for client in clients.values():
        client.disconnect()
    assert server.terminate() == 0
    assert nbayes.load(text_model).class_count_.tolist() == model.class_count_.tolist()
    assert J.recover(text_model)[1] == 0


def test_an_idle_worker_s_health_counts_the_other_s_updates(text_model: str, start: Any) -> None:
    """/health answers from a summary each worker refreshes after its jobs: an idle
    worker's counted none of the other's updates until it served a request (a monitor saw
    the figures alternate with the worker that answered). Its timed housekeeping, every
    second, catches up with the journal now."""
    server = start(text_model, "--workers", "2")
    (a, b) = _clients_per_worker(server).values()
    assert a.post("/update", {"texts": ["idle words"], "labels": ["ham"]})[0] == 200
    assert a.get("/health")[1]["updates"] == 1
    deadline = time.monotonic() + 10
    while (health := b.get("/health")[1])["updates"] != 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (health["updates"], health["journal_pending"]) == (1, 1)
    for client in (a, b):
        client.disconnect()
    assert server.terminate() == 0


def test_the_lock_holds_while_any_worker_runs(text_model: str, start: Any) -> None:
    server = start(text_model, "--workers", "2")
    assert server.post("/update", {"texts": ["kept"], "labels": ["ham"]})[0] == 200
    server.disconnect()
    second = start(text_model, wait=False)
    assert second.wait_exit() == 1 and "is served by" in second.stderr
    server.kill()  # kill -9 of the supervisor: its workers notice and stop on their own
    deadline = time.monotonic() + 30
    while True:
        third = start(text_model, wait=False)
        third._ready.wait(30)
        if third.port is not None:
            break
        assert third.wait_exit() == 1
        assert "in use by another process" in third.stderr or "served by" in third.stderr
        assert time.monotonic() < deadline, "the workers outlived their supervisor"
        time.sleep(0.5)
    _, info = third.get("/info")
    base = nbayes.load(text_model)
    assert info["classes"] == [
        {"label": c, "count": float(n)}
        for c, n in zip(base.classes_.tolist(), base.class_count_.tolist(), strict=True)
    ]
    assert "kept" in base.vocabulary_  # the orphaned workers folded the journal as they stopped


def test_a_killed_worker_is_started_again_and_catches_up(text_model: str, start: Any) -> None:
    import os
    import signal

    server = start(text_model, "--workers", "2", "--fold-every", "2")
    clients = _clients_per_worker(server)
    model = nbayes.load(text_model)
    for k in range(5):  # folds on the way
        doc = [f"before the crash {k}"]
        assert server.post("/update", {"texts": doc, "labels": ["ham"]})[0] == 200
        model.update(doc, ["ham"])
    victim = next(iter(clients))
    for client in clients.values():
        client.disconnect()
    server.disconnect()
    os.kill(int(victim), signal.SIGKILL)  # a worker of the server this test started
    deadline = time.monotonic() + 30
    while "starting another" not in server.stderr:
        assert time.monotonic() < deadline, server.stderr
        time.sleep(0.1)
    for _ in range(60):  # the new worker loads the model and replays the journal first
        try:
            clients = _clients_per_worker(server)
            break
        except AssertionError:
            time.sleep(0.5)
    assert victim not in clients and len(clients) == 2
    probe = ["before the crash", "lunch"]
    for client in clients.values():
        _, body = client.post("/predict", {"texts": probe})
        assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
            model.predict_proba(probe).tolist()
        )
        client.disconnect()
    assert server.terminate() == 0
    assert nbayes.load(text_model).class_count_.tolist() == model.class_count_.tolist()
