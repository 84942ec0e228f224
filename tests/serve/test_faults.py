"""The service under hostile requests and faults (issue 24): every case is a test that
failed before the service was hardened.

* no request holds the server: /health answers within 1 s while a long request runs, a
  request over ``--max-seconds`` is stopped with 422 naming the flag, SIGTERM is honoured
  within seconds whatever request runs, a long exact explanation costs a fraction of a
  second;
* text the journal cannot hold (lone surrogates) is refused before anything changes, and
  workers never disagree;
* a full disk during a fold (a small tmpfs, where the machine lets the tests mount one):
  the update is durable and says so, folding is retried;
* the model's lock is the file itself: a symlink and a hard link reach it, ``nbayes
  update`` names the server at once, no ``.lock`` file is left;
* writes need JSON and no foreign Origin; Host must be this server (DNS rebinding);
* hostile bodies (nesting, byte order marks, UTF-16, NaN, 2**70, 10**400) get 4xx, every
  answer is strict JSON; a MixedNB row with a missing cell is explained without it;
* /health counts the updates since start, not the replayed ones; idle connections are
  closed; ``nbayes update`` after kill -9 folds the journal first.

Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.data import load_sms_spam
from nbayes.serve import journal as J

from .conftest import wait_until


def strict(payload: Any) -> Any:
    """JSON as a strict parser reads it (NaN and Infinity are not JSON)."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} in an answer")

    text = payload if isinstance(payload, str) else json.dumps(payload)
    return json.loads(text, parse_constant=refuse)


def raw_post(server: Any, path: str, data: bytes, headers: dict[str, str] | None = None,
             timeout: float = 120) -> tuple[int, bytes]:  # fmt: skip
    """One request on a new connection: ``(status, body bytes)``."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request("POST", path, body=data,
                     headers={"content-type": "application/json", **(headers or {})})  # fmt: skip
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def health_latencies(server: Any, busy: threading.Thread) -> list[float]:
    """The time /health takes, polled on fresh connections while ``busy`` runs."""
    probe = server.client()
    times = []
    while busy.is_alive():
        start = time.perf_counter()
        status, _ = probe.get("/health")
        times.append(time.perf_counter() - start)
        assert status == 200
        probe.disconnect()
        time.sleep(0.05)
    return times


# ------------------------------------------------------------------ item 1: no request holds
def test_no_request_holds_the_server(text_model: str, start: Any, sms: Any) -> None:
    """A long request held the event loop: /health waited for it (7-9 s for a 150 KB
    exact explanation; a 1 MB one ran for minutes). It now runs on the model's thread
    with a time budget: /health answers within 1 s meanwhile, and a request over
    ``--max-seconds`` is stopped with 422 naming the flag.

    The budget is a tenth of a second against a request of seconds of CPU (28 MB of
    texts: parsing, scoring and answering 334,440 of them), so that a faster machine or
    a faster library does not let the request finish within it."""
    body = json.dumps({"texts": sms[0] * 60}).encode()
    # /health answers while a long request runs (here with no budget to stop it)
    server = start(text_model, "--max-body", "100M", "--max-seconds", "600")
    result: dict[str, Any] = {}
    busy = threading.Thread(target=lambda: result.update(answer=raw_post(server, "/predict",
                                                                           body)))  # fmt: skip
    busy.start()
    latencies = health_latencies(server, busy)
    busy.join()
    assert result["answer"][0] == 200
    assert len(latencies) >= 3 and max(latencies) < 1.0, latencies
    assert server.terminate() == 0
    # a request over the budget is stopped, with 422 naming the flag
    server = start(text_model, "--max-body", "100M", "--max-seconds", "0.1")
    status, answer = raw_post(server, "/predict", body)
    error = strict(answer.decode())
    assert status == 422 and error["limit"] == "--max-seconds", error
    assert "--max-seconds 0.1" in error["error"]
    assert "nbayes_stopped_total" in server.get("/metrics")[1]
    # the server goes on serving (the model loaded again after the stopped request). A
    # tiny request's 0.1 s can still run out on a machine busy with other suites (seen
    # once, Python 3.13, two suites on two cores): a second try must then succeed, as the
    # model was loaded again before the first; a server that stopped serving fails all.
    statuses = []
    for _ in range(3):
        status, answer = server.post("/predict", {"texts": ["free prize now"]})
        statuses.append(status)
        if status == 200:
            break
        assert status == 422 and answer["limit"] == "--max-seconds", answer
    assert statuses[-1] == 200 and answer["predictions"][0]["label"] == "spam", statuses


def test_sigterm_is_honoured_within_seconds_during_a_huge_request(
    text_model: str, start: Any, sms: Any
) -> None:
    """SIGTERM used to wait for the request in flight, however long it ran."""
    server = start(text_model, "--max-body", "100M", "--max-seconds", "600")
    assert server.post("/update", {"texts": ["folded at the end"], "labels": ["ham"]})[0] == 200
    server.disconnect()
    body = json.dumps({"texts": sms[0] * 60}).encode()  # ~28 MB: many seconds of CPU
    sent = threading.Event()
    result: dict[str, Any] = {}

    def big() -> None:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        conn.request("POST", "/predict", body=body, headers={"content-type": "application/json"})
        sent.set()
        try:
            response = conn.getresponse()
            result["status"] = response.status
            response.read()
        except OSError as exc:  # the server closed the connection: also an answer
            result["status"] = repr(exc)
        conn.close()

    thread = threading.Thread(target=big)
    thread.start()
    assert sent.wait(60)
    time.sleep(0.5)  # parsing, then predicting
    began = time.monotonic()
    assert server.terminate(timeout=60) == 0
    took = time.monotonic() - began
    thread.join(60)
    assert took < 15, took  # ~3.5 s here: a 3 s grace for the request, then it is stopped
    assert result["status"] in (200, 503)
    if result["status"] == 200:  # the request finished within the grace: folded
        assert "folded" in nbayes.load(text_model).vocabulary_
        assert J.recover(text_model)[1] == 0
    else:  # stopped half way: the model in memory is not folded, the journal keeps it
        assert J.recover(text_model)[1] == 1
    assert J.serving_record(text_model) is None  # no server holds it any more
    assert sorted(os.listdir(os.path.dirname(text_model))) == ["spam.nbayes",
                                                               "spam.nbayes.journal"]  # fmt: skip


# ------------------------------------------------------------ item 2: text JSON cannot hold
SURROGATE_LABEL = b'{"texts": ["hello"], "labels": ["\\udfff"]}'
SURROGATE_TEXT = b'{"texts": ["bad \\ud800 text"], "labels": ["spam"]}'


def test_two_workers_agree_after_refused_and_valid_updates(text_model: str, start: Any) -> None:
    """A lone surrogate label was applied in memory, then the journal failed: 500, every
    later answer 500, the workers disagreed, and after the fold at shutdown the server
    could not serve the model."""
    from .test_workers import _clients_per_worker

    server = start(text_model, "--workers", "2")
    clients = _clients_per_worker(server)
    for client in clients.values():
        for data, field in ((SURROGATE_LABEL, "labels[0]"), (SURROGATE_TEXT, "texts[0]")):
            status, answer = client.request("POST", "/update", raw=data)
            assert status == 422 and answer["field"] == field, answer
            assert "lone surrogate" in answer["error"]
        status, answer = client.request("POST", "/predict", raw=b'{"texts": ["x \\udc80"]}')
        assert status == 422 and answer["field"] == "texts[0]"
        assert client.post("/update", {"texts": ["agreed"], "labels": ["spam"]})[0] == 200
    infos = [client.get("/info")[1] for client in clients.values()]
    assert infos[0]["classes"] == infos[1]["classes"]
    assert [c["label"] for c in infos[0]["classes"]] == ["ham", "spam"]
    healths = [client.get("/health")[1] for client in clients.values()]
    assert healths[0]["updates"] == healths[1]["updates"] == 2
    for client in clients.values():
        client.disconnect()
    assert J.pending_updates(text_model) == 2
    assert server.terminate() == 0
    again = start(text_model)
    status, answer = again.post("/predict", {"texts": ["hello agreed"]})
    assert status == 200
    assert set(answer["predictions"][0]["probabilities"]) == {"ham", "spam"}


# ------------------------------------------------------------------ item 6: a full disk
@contextlib.contextmanager
def small_tmpfs(path: str, size: int) -> Iterator[str]:
    """A tmpfs of ``size`` bytes at ``path`` (skips when the machine does not allow it)."""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root: the full-disk test is skipped")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", path], capture_output=True)


def _resize(path: str, size: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", path], check=True)


def test_a_full_disk_during_a_fold(text_model_bytes: bytes, tmp_path: Any, start: Any) -> None:
    """The fold's save fails (no room for a second copy of the model): the update is
    durable, the answer says so (it was a plain 500, so a retry counted it twice), and
    timed folding goes on (one failure used to stop it for the life of the process). A
    journal that cannot be written: 503, nothing applied."""
    size = len(text_model_bytes)
    room = size + 256 * 1024  # the model and its journal, not a second copy
    with small_tmpfs(str(tmp_path / "disk"), room) as disk:
        model = os.path.join(disk, "spam.nbayes")
        with open(model, "wb") as f:
            f.write(text_model_bytes)
        server = start(model, "--fold-every", "1", "--fold-seconds", "1")
        status, answer = server.post("/update", {"texts": ["kept in the journal"],
                                                 "labels": ["spam"]})  # fmt: skip
        assert status == 200 and answer["learned"] == 1
        assert "durable" in answer["warning"] and "Do not send this update again" in answer[
            "warning"]  # fmt: skip
        _, health = server.get("/health")
        assert health["journal_pending"] == 1 and "no space left" in health["fold_error"].lower()
        assert not os.path.exists(model + ".folding")
        # the journal itself cannot be written: 503, the model unchanged
        filler = os.path.join(disk, "filler")
        with open(filler, "wb") as f, contextlib.suppress(OSError):
            f.write(b"x" * room)
        _, before = server.get("/info")
        status, answer = server.post("/update", {"texts": ["lost " * 2000], "labels": ["ham"]})
        assert status == 503 and "not applied" in answer["error"], answer
        assert server.get("/info")[1]["classes"] == before["classes"]
        os.remove(filler)
        _resize(disk, 3 * size)  # room again: the timed fold succeeds by itself
        wait_until(lambda: server.get("/health")[1]["journal_pending"] == 0, timeout=30)
        assert "fold_error" not in server.get("/health")[1]
        assert server.terminate() == 0
        assert "journal" in nbayes.load(model).vocabulary_


# ------------------------------------------------------------- item 7 and issue 28: the lock
def test_the_lock_is_the_model_file_itself(text_model: str, start: Any, tmp_path: Any,
                                           capsys: Any) -> None:  # fmt: skip
    """A server through a symlink or a hard link started beside the first one and the
    acknowledged updates split between two files; `nbayes update` of a served model
    waited 60 s in silence."""
    from nbayes.cli import main

    link = str(tmp_path / "symlinked.nbayes")
    hard = str(tmp_path / "hardlinked.nbayes")
    os.symlink(text_model, link)
    os.link(text_model, hard)
    server = start(text_model, "--fold-every", "1")
    for other in (link, hard):
        second = start(other, wait=False)
        assert second.wait_exit() == 1, second.stderr
        assert f"served by nbayes serve (pid {server.proc.pid})" in second.stderr
    # a fold replaces the model file: the lock follows it (and keeps the first one, which
    # the hard link still names)
    assert server.post("/update", {"texts": ["after a fold"], "labels": ["ham"]})[0] == 200
    assert os.stat(text_model).st_ino != os.stat(hard).st_ino
    second = start(hard, wait=False)
    assert second.wait_exit() == 1 and "served by" in second.stderr, second.stderr
    data = tmp_path / "more.csv"
    data.write_text("text,label\nfree cash,spam\n")
    with open(text_model, "rb") as f:
        before = f.read()
    for name in (text_model, link):
        began = time.monotonic()
        code = main(["update", name, str(data)])
        err = capsys.readouterr().err
        assert code == 1 and time.monotonic() - began < 10
        assert f"pid {server.proc.pid}" in err and f":{server.port}/update" in err, err
    with open(text_model, "rb") as f:
        assert f.read() == before
    assert server.terminate() == 0
    leftovers = [p for p in os.listdir(tmp_path) if p.endswith(".lock")]
    assert leftovers == []
    assert main(["update", link, str(data), "-q"]) == 0  # free: through the symlink
    assert "cash" in nbayes.load(text_model).vocabulary_
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".lock")]


# ------------------------------------------------------- items 8, 10, 11: hostile requests
def test_hostile_requests(text_model: str, start: Any) -> None:
    """One server, many hostile requests; the model unchanged by all of them.

    * A web page could write to a loopback server without a token (a text/plain POST
      needs no preflight), and any Host was answered (DNS rebinding).
    * JSON nested 1,000 deep was a 500 (RecursionError); BOM and UTF-16 bodies were
      accepted where the docs say 400; NaN was parsed.
    * An exact explanation of a long text took seconds.
    * Forgetting what was never learned must be 422.
    * Idle connections (nothing sent, or half a request) were never closed.
    """
    server = start(text_model, "--allow-host", "nbayes.internal", "--idle-seconds", "1")
    _, before = server.get("/info")
    # an exact explanation of 150 KB took 7-9 s (its fractions multiplied one by one),
    # blocking everything else; now a fraction of a second, well within the budget
    text = " ".join(load_sms_spam()[0])[:150_000]
    status, answer = server.post("/explain", {"text": text, "exact": True})
    assert status == 200, answer
    strict(answer)
    assert "exactly a fraction of" in answer["exact"]["derivation"]
    assert answer["label"] == nbayes.load(text_model).predict([text])[0]
    body = json.dumps({"texts": ["written by a web page"], "labels": ["spam"]}).encode()
    status, answer = server.request("POST", "/update", raw=body,
                                    headers={"content-type": "text/plain"})  # fmt: skip
    assert status == 415 and "application/json" in answer["error"]
    status, answer = server.request("POST", "/update", raw=body,
                                    headers={"origin": "http://evil.example"})  # fmt: skip
    assert status == 403 and "evil.example" in answer["error"]
    status, answer = server.request("POST", "/forget", raw=body, headers={"origin": "null"})
    assert status == 403
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
        status, answer = server.request("GET", "/info", headers={"host": host})
        assert status == 421 and "--allow-host" in answer["error"], (host, answer)
        status, _ = server.request("POST", "/predict", raw=b'{"texts": ["x"]}',
                                   headers={"host": host})  # fmt: skip
        assert status == 421
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", "nbayes.internal",
                 f"[::1]:{server.port}"):  # fmt: skip
        assert server.request("GET", "/health", headers={"host": host})[0] == 200, host
    cases = [
        (b'{"texts": ' + b"[" * 1000 + b"]" * 1000 + b"}", 400),
        (b"[" * 100_000, 400),
        ('\ufeff{"texts": ["a"]}'.encode(), 400),
        ('{"texts": ["a"]}'.encode("utf-16"), 400),
        (b'{"texts": ["a"], "top": NaN}', 400),
        (b'{"texts": ["a"], "top": Infinity}', 400),
        (b'{"texts": ["a"], "top": 1e400}', 422),
        (b'{"texts": ["a"], "top": ' + b"9" * 5000 + b"}", 422),  # (was 400: "not JSON")
        (b'{"texts": "not a list"}', 422),
        (b"\xff\xfe", 400),
    ]
    for data, expected in cases:
        for path in ("/predict", "/update"):
            status, answer = raw_post(server, path, data)
            assert status == expected, (data[:40], path, status, answer[:200])
            strict(answer.decode())
    for forget in (
        {"texts": ["zzzqqq never seen"], "labels": ["ham"]},  # a word the class never had
        {"texts": ["free"], "labels": ["unknown class"]},
        {"texts": ["free"] * 100_000, "labels": ["spam"] * 100_000},  # more than it counted
    ):
        status, answer = server.post("/forget", forget)
        assert status == 422, answer
    assert server.get("/info")[1]["classes"] == before["classes"]
    for status, answer in (server.get("/nowhere"), server.get("/predict")):
        assert status in (404, 405) and "error" in answer  # JSON, as every answer
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    half = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    half.sendall(b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
    began = time.monotonic()
    for conn in (silent, half):
        assert conn.recv(100) == b""  # closed by the server
        conn.close()
    assert time.monotonic() - began < 10
    server.disconnect()
    same = f"http://127.0.0.1:{server.port}"
    status, _ = server.request("POST", "/update", raw=body, headers={"origin": same})
    assert status == 200  # the server's own page may write
    assert server.post("/update", {"texts": ["a program"], "labels": ["ham"]})[0] == 200


@pytest.fixture
def int_class_model(tmp_path: Any) -> str:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 2))
    path = str(tmp_path / "codes.nbayes")
    nbayes.save(nbayes.CategoricalNB().fit(X, rng.integers(0, 2, 60)), path)
    return path


def test_out_of_range_numbers_on_a_table_model_are_422(int_class_model: str, start: Any) -> None:
    """An integer label of 2**70 (or a value of 10**400) was a 500 with a traceback."""
    server = start(int_class_model)
    _, before = server.get("/info")
    cases = [
        (b'{"rows": [[1, 2]], "labels": [1180591620717411303424]}', "labels[0]"),
        (b'{"rows": [[1, 2]], "labels": [-9223372036854775809]}', "labels[0]"),
        (b'{"rows": [[1, 1' + b"0" * 400 + b']], "labels": [1]}', "rows[0].x1"),
        (b'{"rows": [[1, 2]], "labels": [1e400]}', "labels[0]"),
    ]
    for data, field in cases:
        status, answer = server.request("POST", "/update", raw=data)
        assert status == 422 and answer["field"] == field, (data[:60], answer)
    status, answer = server.request("POST", "/predict", raw=b'{"rows": [[1, 1' + b"0" * 400 +
                                    b"]]}")  # fmt: skip
    assert status == 422
    assert server.get("/info")[1]["classes"] == before["classes"]
    status, body = server.post("/update", {"rows": [[1, 2]], "labels": [7]})  # a new class
    assert status == 422 and body["field"] == "labels[0]" and "classes are 0, 1" in body["error"]
    assert server.get("/info")[1]["classes"] == before["classes"]
    assert server.post("/update", {"rows": [[1, 2]], "labels": [7], "new_classes": True})[0] == 200


def test_a_mixed_row_with_a_missing_cell_is_explained_without_it(tmp_path: Any,
                                                                start: Any) -> None:  # fmt: skip
    """/explain of a MixedNB row with a missing cell answered NaN (not JSON: the page
    said "Unexpected token 'I'")."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({
        "age": rng.integers(18, 90, 120).astype(float), "city": rng.choice(["a", "b"], 120),
        "score": rng.normal(size=120),
    })  # fmt: skip
    y = rng.choice(["yes", "no"], 120)
    path = str(tmp_path / "mixed.nbayes")
    nbayes.save(nbayes.MixedNB().fit(X, y), path)
    server = start(path)
    for row, missing in (({"age": None, "city": "a", "score": 0.5}, ["age"]),
                         ({"age": 40, "city": None}, ["city", "score"])):  # fmt: skip
        status, answer = server.post("/explain", {"row": row})
        assert status == 200, answer
        strict(answer)
        assert answer["missing"] == missing
        assert [f["feature"] for f in answer["features"]] == [
            c for c in ("age", "city", "score") if c not in missing
        ]
        status, answer = server.post("/predict", {"rows": [row]})
        assert status == 200
        strict(answer)


def test_an_update_no_model_file_could_hold_is_refused_before_it_is_journaled(
    tmp_path: Any, start: Any
) -> None:
    """A GaussianNB /update of 1e153 was accepted and folded into a file the server then
    could not start on (issue 24, item 3). The library now refuses it at the learning call
    (statistics beyond what a model file holds): the answer is a 422 naming the field,
    nothing is applied or journaled, the model file stays as it was, the server keeps
    learning, and it starts again on its file. (The fold still checks that its file loads
    before it replaces the model: the next test.)"""
    rng = np.random.default_rng(2)
    path = str(tmp_path / "gauss.nbayes")
    nbayes.save(nbayes.GaussianNB().fit(rng.normal(size=(40, 2)), rng.integers(0, 2, 40)), path)
    with open(path, "rb") as f:
        before = f.read()
    server = start(path, "--fold-every", "1")
    status, answer = server.post("/update", {"rows": [[1e153, 0.0]], "labels": [0]})
    assert status == 422 and answer["field"] == "rows", answer
    assert "too large" in answer["error"] and "Nothing was changed" in answer["error"]
    with open(path, "rb") as f:
        assert f.read() == before
    assert J.recover(path)[1] == 0  # nothing journaled
    assert server.post("/update", {"rows": [[0.5, 0.0]], "labels": [0]})[0] == 200
    assert server.terminate() == 0
    again = start(path)
    assert "replaying" not in again.stderr
    assert again.post("/predict", {"rows": [[0.0, 0.0]]})[0] == 200


def test_a_fold_whose_file_would_not_load_leaves_the_model_file_as_it_was(
    tmp_path: Any, monkeypatch: Any
) -> None:
    """The fold's safety net: a folded file that does not load (whatever the cause) does
    not replace the model file; the updates stay in the journal and the failure is said."""
    from nbayes.exceptions import ModelFileError
    from nbayes.serve.state import ModelState

    rng = np.random.default_rng(2)
    path = str(tmp_path / "gauss.nbayes")
    nbayes.save(nbayes.GaussianNB().fit(rng.normal(size=(40, 2)), rng.integers(0, 2, 40)), path)
    with open(path, "rb") as f:
        before = f.read()
    state = ModelState(path, J.recover(path)[0], fold_every=1)

    def refuses(*args: Any, **kw: Any) -> Any:
        raise ModelFileError("a forged refusal")

    monkeypatch.setattr(nbayes, "load", refuses)
    n, warning = state.write("update", {"rows": [[0.5, 0.0]], "labels": [0]})
    assert n == 1 and warning is not None and "would not load" in warning, warning
    assert state.fold_error is not None and "would not load" in state.fold_error
    with open(path, "rb") as f:
        assert f.read() == before
    assert J.recover(path)[1] == 1  # the update is durable, in the journal
    state.close(fold=False)


# ------------------------------------------------------------------------- item 11: the rest
def test_update_after_kill_9_folds_the_journal_first(text_model: str, start: Any, tmp_path: Any,
                                                    capsys: Any) -> None:  # fmt: skip
    """`nbayes update` ran over a journal a killed server left: the journal's updates
    were then replayed onto a different model (or refused at the next start)."""
    from nbayes.cli import main

    server = start(text_model)
    for doc in ("journaled one", "journaled two"):
        assert server.post("/update", {"texts": [doc], "labels": ["spam"]})[0] == 200
    server.kill()
    assert J.recover(text_model)[1] == 2  # two updates the model file lacks
    data = tmp_path / "more.csv"
    data.write_text("text,label\noffline update,ham\n")
    assert main(["update", text_model, str(data)]) == 0
    assert "Folded 2 update(s)" in capsys.readouterr().err
    model = nbayes.load(text_model)
    assert {"journaled", "offline"} <= set(model.vocabulary_)  # both: nothing lost
    assert J.recover(text_model)[1] == 0
    again = start(text_model)
    assert "replaying" not in again.stderr
    _, info = again.get("/info")
    assert [c["count"] for c in info["classes"]] == model.class_count_.tolist()


def test_kill_9_through_a_symlink_and_the_health_counter(
    text_model: str, start: Any, tmp_path: Any
) -> None:
    """A server on a symlink folds into the file it points to (its journal beside that
    file); after kill -9 a server through the real name replays the same journal. /health
    counted the replayed updates as new ones."""
    link = str(tmp_path / "link.nbayes")
    os.symlink(text_model, link)
    server = start(link, "--fold-every", "2")
    for k in range(3):
        assert server.post("/update", {"texts": [f"via link {k}"], "labels": ["spam"]})[0] == 200
    assert server.get("/health")[1]["updates"] == 3
    server.proc.send_signal(signal.SIGKILL)
    server.wait_exit()
    assert os.path.islink(link)  # the fold replaced the target, not the link
    again = start(text_model)  # the real name: the same journal
    assert "replaying 1 journaled update(s)" in again.stderr
    health = again.get("/health")[1]
    assert health["updates"] == 0 and health["journal_pending"] == 1
    assert again.post("/update", {"texts": ["new"], "labels": ["spam"]})[0] == 200
    assert again.get("/health")[1]["updates"] == 1
    assert again.get("/info")[1]["updates_since_start"] == 1
    assert again.post("/predict", {"texts": ["via link"]})[0] == 200
    assert again.terminate() == 0
    assert {"via", "link", "new"} <= set(nbayes.load(link).vocabulary_)
