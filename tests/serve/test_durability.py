"""Durability: an acknowledged update survives kill -9 at any moment, and the model file
is never corrupt; the journal's recovery at every step of a fold; SIGTERM; the lock."""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes.serve import journal as J


def _count(info: dict[str, Any], label: str) -> float:
    return next(c["count"] for c in info["classes"] if c["label"] == label)


def test_acknowledged_updates_survive_kill_9(text_model: str, start: Any) -> None:
    server = start(text_model)
    base = nbayes.load(text_model)
    docs = [f"durable message number {i} with word w{i}" for i in range(5)]
    for doc in docs:
        assert server.post("/update", {"texts": [doc], "labels": ["spam"]})[0] == 200
    server.kill()
    nbayes.load(text_model)  # the file itself is intact (nothing folded yet)
    again = start(text_model)
    assert "replaying 5 journaled update(s)" in again.stderr
    base.update(docs, ["spam"] * 5)
    probe = ["word w3 message", "lunch at noon"]
    status, body = again.post("/predict", {"texts": probe})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        base.predict_proba(probe).tolist()
    )
    assert again.terminate() == 0
    # folded at shutdown: the model file alone now has them, the journal is empty
    assert nbayes.load(text_model).class_count_.tolist() == base.class_count_.tolist()
    digest, n = J.recover(text_model)
    assert n == 0 and digest == J.file_digest(text_model)


def test_a_new_class_asked_for_survives_kill_9_and_the_fold(text_model: str, start: Any) -> None:
    """An update that adds a class ("new_classes": true) is journaled as any other: the
    restarted server replays it (no opt-in asked of the journal), takes the class without
    asking from then on, and folds it into the model file."""
    server = start(text_model)
    base = nbayes.load(text_model)
    update = {"texts": ["free range eggs for breakfast"], "labels": ["eggs"]}
    assert server.post("/update", update)[0] == 422  # a typo, unless asked for
    assert server.post("/update", {**update, "new_classes": True})[0] == 200
    server.kill()
    assert nbayes.load(text_model).classes_.tolist() == ["ham", "spam"]  # not folded
    again = start(text_model)
    assert "replaying 1 journaled update(s)" in again.stderr
    base.update(update["texts"], update["labels"])
    _, info = again.get("/info")
    assert [c["label"] for c in info["classes"]] == base.classes_.tolist()
    assert base.classes_.tolist() == ["eggs", "ham", "spam"]
    probe = ["eggs for breakfast", "lunch at noon"]
    _, body = again.post("/predict", {"texts": probe})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        base.predict_proba(probe).tolist()
    )
    assert again.post("/update", {"texts": ["boiled eggs"], "labels": ["eggs"]})[0] == 200
    base.update(["boiled eggs"], ["eggs"])
    assert again.terminate() == 0  # folded: the model file has the class
    folded = nbayes.load(text_model)
    assert folded.classes_.tolist() == ["eggs", "ham", "spam"]
    assert folded.class_count_.tolist() == base.class_count_.tolist()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kill_9_during_a_stream_of_updates(text_model: str, start: Any, seed: int) -> None:
    """Updates stream in from two clients (with folds every 7 updates, so kill -9 lands in
    folds too); the process is killed at a random moment. Every acknowledged update is
    in the restarted model, at most the unacknowledged ones in flight besides, and the
    model file always loads."""
    rng = random.Random(seed)
    server = start(text_model, "--fold-every", "7")
    start_spam = nbayes.load(text_model).class_count_[1]
    acked = [0, 0]
    sent = [0, 0]
    stop = threading.Event()

    clients = [server, server.client()]
    errors: list[Any] = []

    def client(k: int) -> None:
        while not stop.is_set():
            sent[k] += 1
            body = {"texts": [f"stream {k} {sent[k]}"], "labels": ["spam"]}
            try:
                status, answer = clients[k].post("/update", body)
            except (OSError, http.client.HTTPException):  # killed (mid-answer: IncompleteRead)
                return
            if status != 200:
                errors.append(answer)
                return
            acked[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while sum(acked) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 1.5))
    server.proc.kill()
    stop.set()
    for t in threads:
        t.join(30)
    clients[1].disconnect()
    server.wait_exit()
    nbayes.load(text_model)  # never corrupt, whatever the moment
    again = start(text_model)
    _, info = again.get("/info")
    learned = _count(info, "spam") - start_spam
    assert not errors
    assert sum(acked) > 5
    assert sum(acked) <= learned <= sum(sent), (acked, sent, learned)
    assert again.terminate() == 0
    assert nbayes.load(text_model).class_count_[1] - start_spam == learned


def test_sigterm_finishes_requests_in_flight(text_model: str, start: Any, sms: Any) -> None:
    server = start(text_model)
    assert server.post("/update", {"texts": ["before the end"], "labels": ["ham"]})[0] == 200
    docs = sms[0] * 6  # a batch that takes a while to read and score
    sent = threading.Event()
    result: dict[str, Any] = {}

    def big() -> None:
        conn = server.connection()
        conn.request("POST", "/predict", body=json.dumps({"texts": docs}),
                     headers={"content-type": "application/json"})  # fmt: skip
        sent.set()  # the whole request is with the server: it is in flight
        response = conn.getresponse()
        result["answer"] = response.status, json.loads(response.read())
        conn.close()

    thread = threading.Thread(target=big)
    thread.start()
    assert sent.wait(60)
    assert server.terminate() == 0
    thread.join(60)
    status, body = result["answer"]
    assert status == 200 and len(body["predictions"]) == len(docs)
    model = nbayes.load(text_model)  # the journal was folded into the file
    assert J.recover(text_model)[1] == 0
    assert "before" in model.vocabulary_ and "end" in model.vocabulary_


@pytest.mark.parametrize("workers", [1, 2])
def test_sighup_stops_the_server_as_sigterm_does(text_model: str, start: Any, workers: int) -> None:
    """A closed terminal (or a tmux server gone) sends SIGHUP: the server died at once,
    its journal unfolded and the model file stale until the next start."""
    server = start(text_model, "--workers", str(workers)) if workers > 1 else start(text_model)
    assert server.post("/update", {"texts": ["hangup words"], "labels": ["ham"]})[0] == 200
    server.disconnect()
    server.proc.send_signal(signal.SIGHUP)
    assert server.wait_exit() == 0, server.stderr
    assert J.recover(text_model)[1] == 0  # folded
    assert "hangup" in nbayes.load(text_model).vocabulary_


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_on_nbayes_serve_folds_and_says_so(
    text_model: str, start: Any, workers: int
) -> None:
    """Ctrl-C on ``nbayes serve`` (SIGINT to its process group, as a terminal sends it): a
    clean stop, as SIGTERM's. Before, the command's own Ctrl-C handling answered
    "Interrupted: no model file was changed." with status 130 after the server had folded
    its journal into the model file, and with workers it exited before they had."""
    more = ("--workers", str(workers)) if workers > 1 else ()
    server = start(text_model, *more, cli=True)
    assert server.post("/update", {"texts": ["interrupted words"], "labels": ["ham"]})[0] == 200
    server.disconnect()
    os.killpg(server.proc.pid, signal.SIGINT)
    assert server.wait_exit() == 0, server.stderr
    assert "Interrupted" not in server.stderr
    assert f"stopped; {os.path.basename(text_model)} holds every update" in server.stderr
    assert J.recover(text_model)[1] == 0  # folded, by the time the command returned
    assert "interrupted" in nbayes.load(text_model).vocabulary_


@pytest.mark.parametrize(
    ("workers", "sig"), [(1, signal.SIGTERM), (1, signal.SIGINT), (2, signal.SIGTERM)]
)
def test_a_stop_while_the_server_starts_says_so(
    text_model: str, tmp_path: Any, workers: int, sig: signal.Signals
) -> None:
    """SIGTERM or Ctrl-C while ``nbayes serve`` loads its model (3 s for a spam filter of
    the SpamAssassin corpus): before, SIGTERM ended it at once without a word (Python's
    default: the CLI had let go of the signals before the load), and with workers it exited
    0 silently. Now it stops as any command does, one line saying the model is as it was
    (with workers: 128 + the signal, not a clean stop's 0, a review's)."""
    import subprocess
    import sys

    script = tmp_path / "slow_start.py"
    script.write_text(
        "import sys, time\n"
        "from nbayes.serve.state import ModelState\n"
        "load = ModelState._load\n"
        "def slow(self):\n"
        "    print('loading', flush=True)\n"
        "    time.sleep(30)\n"
        "    load(self)\n"
        "ModelState._load = slow\n"
        "from nbayes.cli import main\n"
        f"sys.argv = ['nbayes', 'serve', {text_model!r}, '--port', '0', '--workers', '{workers}']\n"
        "sys.exit(main())\n"
    )
    before = Path(text_model).read_bytes()
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline() == "loading\n"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    name = os.path.basename(text_model)
    if workers == 1:  # the command's stop: one line, and the process ends by the signal
        word = "Interrupted" if sig == signal.SIGINT else "Stopped by SIGTERM"
        assert (proc.returncode, err) == (-sig, f"{word}: no model file was changed.\n")
    else:  # the supervisor's: its workers stopped, it says so, and no clean stop's 0
        assert proc.returncode == 128 + sig, err
        assert err == f"nbayes serve: stopped while starting; {name} was not changed.\n"
    assert Path(text_model).read_bytes() == before


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stop_at_the_hand_over_to_the_server_is_kept(
    text_model: str, tmp_path: Any, workers: int
) -> None:
    """A SIGTERM just after the CLI handed the signals over to the server, before uvicorn
    (or the supervisor's workers) took them: a handler dropped it and the server served
    on, deaf to it, until SIGKILL; a supervisor started its workers anyway (a review's,
    and a repeat of it: 1 run of 24). Now the server stops: at once, cleanly (folding), or,
    with workers, as stopped while starting."""
    import subprocess
    import sys

    script = tmp_path / "hand_over.py"
    script.write_text(
        "import os, signal, sys\n"
        "from nbayes.cli import _interrupt, main\n"
        "release = _interrupt.Interrupts.release\n"
        "def released(self, handler):\n"
        "    replaced = release(self, handler)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # at once after the hand-over\n"
        "    return replaced\n"
        "_interrupt.Interrupts.release = released\n"
        f"sys.argv = ['nbayes', 'serve', {text_model!r}, '--port', '0', '--workers', '{workers}']\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    name = os.path.basename(text_model)
    if workers == 1:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.endswith(f"nbayes serve: stopped; {name} holds every update.\n")
    else:
        assert (proc.returncode, proc.stderr) == (
            128 + signal.SIGTERM,
            f"nbayes serve: stopped while starting; {name} was not changed.\n",
        )


def test_a_server_whose_terminal_is_gone_stops_cleanly(text_model: str) -> None:
    """The terminal closed (an ssh session dropped): writes to it fail with EIO, then
    SIGHUP. The server folded its journal but its last line raised, and it exited 1."""
    import pty
    import subprocess
    import sys
    import urllib.request

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nbayes", "serve", text_model, "--port", "0"],
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = b""
    while b"serving" not in seen:
        seen += os.read(master, 4096)
    port = int(seen.split(b"127.0.0.1:")[1].split()[0])
    update = urllib.request.Request(
        f"http://127.0.0.1:{port}/update",
        json.dumps({"texts": ["hung up words"], "labels": ["ham"]}).encode(),
        {"Content-Type": "application/json"},
    )
    assert urllib.request.urlopen(update, timeout=60).status == 200
    os.close(master)  # the terminal goes away
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGHUP)
    assert proc.wait(60) == 0
    assert J.pending_updates(text_model) == 0
    assert "hung" in nbayes.load(text_model).vocabulary_


def test_info_says_what_the_journal_holds_that_the_file_lacks(
    text_model: str, start: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nbayes info`` described the model file without the updates a server had
    acknowledged and journaled: silently stale after a kill -9."""
    from nbayes.cli import main

    server = start(text_model)
    assert server.post("/update", {"texts": ["journaled words"], "labels": ["ham"]})[0] == 200
    assert main(["info", text_model, "--top", "0"]) == 0
    out = capsys.readouterr().out
    assert f"journal: 1 update(s) acknowledged by the running server (pid {server.proc.pid}" in out
    server.kill()
    assert main(["info", text_model, "--top", "0"]) == 0
    out = capsys.readouterr().out
    assert "journal: 1 update(s) acknowledged by a server that stopped without writing" in out
    assert f"`nbayes serve {text_model}` replays them" in out
    J.recover(text_model)
    assert start(text_model).terminate() == 0  # replayed and folded: nothing to say
    assert main(["info", text_model, "--top", "0"]) == 0
    assert "journal:" not in capsys.readouterr().out
    assert main(["predict", text_model, "--text", "journaled words"]) == 0
    assert capsys.readouterr().err == ""


def test_the_commands_that_read_a_served_model_answer_as_its_server_does(
    text_model: str, start: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nbayes predict`` (and eval, explain, sample, plot) read the model file without the
    updates the server had acknowledged and journaled: stale until the next fold, and
    until the next start after a kill -9, with a warning. They now replay the journal in
    memory, as the server did; the file is not changed."""
    from nbayes.cli import main

    text = "journaled words zqxv"
    argv = ["predict", text_model, "--text", text, "--proba"]
    assert main(argv) == 0
    before = capsys.readouterr().out
    server = start(text_model)
    for _ in range(3):
        assert server.post("/update", {"texts": [text], "labels": ["spam"]})[0] == 200
    assert server.post("/forget", {"texts": [text], "labels": ["spam"]})[0] == 200
    status, out = server.post("/predict", {"texts": [text]})
    assert status == 200
    served = out["predictions"][0]["probabilities"]["spam"]
    on_disk = Path(text_model).read_bytes()
    for killed in (False, True):
        if killed:
            server.kill()
        assert main(argv) == 0
        got = capsys.readouterr()
        assert got.out != before and got.err == ""
        assert got.out.startswith(f"spam (P = {served:.4f}"), (got.out, served)
        assert Path(text_model).read_bytes() == on_disk  # read, not folded
    assert J.pending_updates(text_model) == 4
    # without the journal's updates only where asked: info describes the file
    assert main(["info", text_model, "--top", "0"]) == 0
    assert "journal: 4 update(s) acknowledged by a server" in capsys.readouterr().out


def test_a_second_server_refuses_to_start(text_model: str, start: Any) -> None:
    first = start(text_model)
    second = start(text_model, wait=False)
    assert second.wait_exit() == 1
    assert "is served by nbayes serve" in second.stderr
    assert f"pid {first.proc.pid}" in second.stderr and f":{first.port}" in second.stderr
    assert first.get("/health")[0] == 200
    first.kill()  # the lock goes with the process, however it dies
    third = start(text_model)
    assert third.get("/health")[0] == 200


def test_a_journal_of_another_model_is_refused(text_model: str, start: Any, tmp_path: Any) -> None:
    server = start(text_model)
    server.post("/update", {"texts": ["kept in the journal"], "labels": ["ham"]})
    server.kill()
    model = nbayes.load(text_model)
    model.update(["changed behind the server's back"], ["spam"])
    nbayes.save(model, text_model)
    again = start(text_model, wait=False)
    assert again.wait_exit() == 1
    assert "does not belong to" in again.stderr and "1 update" in again.stderr


def test_an_empty_journal_follows_a_replaced_model(text_model: str, start: Any) -> None:
    server = start(text_model)
    assert server.terminate() == 0  # leaves an empty journal of this model file
    model = nbayes.load(text_model)
    model.update(["retrained offline"], ["spam"])
    nbayes.save(model, text_model)
    again = start(text_model)  # nothing to lose: it starts, on the new file
    _, info = again.get("/info")
    assert info["classes"][1]["count"] == model.class_count_[1]


# --------------------------------------------------------------- the journal itself
def _fitted(n: int) -> Any:
    X = np.arange(12, dtype=float).reshape(4, 3) + n
    return nbayes.MultinomialNB().fit(X, [0, 1, 0, 1])


def _write_model(path: str, n: int) -> None:
    nbayes.save(_fitted(n), path)


def _model_writer(n: int) -> Any:
    """What a fold writes (:meth:`Journal.fold`): a model's file into an open file."""
    from nbayes.io.persist import snapshot

    return snapshot(_fitted(n))


def test_recover_cuts_a_torn_record(tmp_path: Any) -> None:
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, n = J.recover(model)
    j = J.Journal(model, digest)
    with j.writing():
        j.append({"op": "update", "rows": [[1, 2, 3]], "labels": [0]})
    j.close()
    size = os.path.getsize(model + ".journal")
    with open(model + ".journal", "ab") as f:  # a record a crash cut short
        f.write(J._frame({"op": "update", "rows": [[4, 5, 6]], "labels": [1]})[:-3])
    assert J.recover(model) == (digest, 1)
    assert os.path.getsize(model + ".journal") == size
    j = J.Journal(model, digest)
    assert [r["rows"] for r in j.catch_up()] == [[[1, 2, 3]]]
    j.close()


@pytest.mark.parametrize("where", ["payload", "length"])
def test_a_journal_damaged_before_its_end_is_not_cut_as_a_crash_s_record(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """A byte flipped in the middle of a journal (a bad disk, a copy gone wrong): the
    server cut everything from there on as a record a crash had torn, losing acknowledged
    updates without a word, and readers applied the records before it. A writer cuts a
    torn record before it appends, so bytes after one are damage: the server refuses to
    start, `nbayes update` to change the model, and readers read the file as it is, each
    saying so; the journal is left as it is. A damaged length, read as longer than what
    is left, passed for a torn record: an intact record after it tells."""
    from nbayes.cli import main
    from nbayes.cli._common import load_model
    from nbayes.io._records import parse

    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    with j.writing():
        for k in range(3):
            j.append({"op": "update", "rows": [[k, 2, 3]], "labels": [0]})
    j.close()
    path = model + ".journal"
    data = bytearray(Path(path).read_bytes())
    if where == "payload":
        data[len(data) // 2] ^= 0xFF  # inside the second update's JSON
    else:
        data[parse(bytes(data))[1][-3] + 2] ^= 0x40  # the middle update's length
    Path(path).write_bytes(data)
    with pytest.raises(J.JournalError, match=r"damaged at byte [\d,]+ \(\d+ bytes after"):
        J.recover(model)
    assert Path(path).read_bytes() == data
    with pytest.warns(UserWarning, match="damaged at byte"):
        loaded = load_model(model)
    assert loaded.class_count_.tolist() == nbayes.load(model).class_count_.tolist()
    rows = tmp_path / "more.csv"
    rows.write_text("x0,x1,x2,label\n1,2,3,0\n")
    capsys.readouterr()
    assert main(["update", model, str(rows)]) == 1
    assert "is damaged at byte" in capsys.readouterr().err
    assert main(["info", model]) == 0
    assert "is damaged at byte" in capsys.readouterr().out
    assert Path(path).read_bytes() == data
    # a record a crash cut short is still cut, as before (test_recover_cuts_a_torn_record)


@pytest.mark.parametrize("stop_after", ["save", "fold record", "replace", "done"])
def test_a_fold_stopped_at_any_step_recovers(tmp_path: Any, stop_after: str) -> None:
    """Replays the fold of :meth:`Journal.fold` step by step, as if killed after each."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    with j.writing():
        j.append({"op": "update", "rows": [[1, 2, 3]], "labels": [0]})
    folding = model + ".folding"
    _write_model(folding, 1)  # step 1: the folded model beside
    if stop_after != "save":
        new = J.file_digest(folding)
        j.append({"op": "fold", "sha256": new})  # step 2
        if stop_after != "fold record":
            os.replace(folding, model)  # step 3
            if stop_after == "done":
                J._write_new(model + ".journal", [{"op": "base", "sha256": new}])  # step 4
    j.close()
    digest, n = J.recover(model)
    assert not os.path.exists(folding)
    if stop_after in ("save", "fold record"):  # the model is the old one: replay
        assert n == 1
    else:  # the model has the update: nothing to replay
        assert n == 0
    assert digest == J.file_digest(model)
    j = J.Journal(model, digest)
    assert len(j.catch_up()) == n
    j.close()


@pytest.mark.parametrize("stop_after", ["write", "fold record", "replace", "done"])
def test_a_fold_with_updates_after_its_snapshot_stopped_at_any_step_recovers(
    tmp_path: Any, stop_after: str
) -> None:
    """A fold writes the model as it was after update 1 while update 2 is journaled (the
    server takes updates during a fold); killed after each step, every update is replayed
    once: the fold record names the last update the folded file holds (``seq``) and the
    new journal holds the updates after it. Before, a fold held every update before its
    record, and update 2 was lost after a kill between the rename and the new journal."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    u1 = {"op": "update", "rows": [[1, 2, 3]], "labels": [0]}
    u2 = {"op": "update", "rows": [[4, 5, 6]], "labels": [1]}
    with j.writing():
        j.append(u1)
    folding = model + ".folding"
    _write_model(folding, 1)  # step 1: the model after update 1, beside
    with j.writing():
        j.append(u2)  # journaled while the fold writes
    if stop_after != "write":
        new = J.file_digest(folding)
        j.append({"op": "fold", "sha256": new, "seq": 1})  # step 2
        if stop_after != "fold record":
            os.replace(folding, model)  # step 3
            if stop_after == "done":  # step 4: its base, then the updates after it
                J._write_new(model + ".journal", [{"op": "base", "sha256": new, "seq": 1}, u2])
    j.close()
    digest, n = J.recover(model)
    assert not os.path.exists(folding)
    assert digest == J.file_digest(model)
    j = J.Journal(model, digest)
    replayed = [r["rows"] for r in j.catch_up()]
    if stop_after in ("write", "fold record"):  # the model is the old one: both
        assert (n, replayed) == (2, [u1["rows"], u2["rows"]])
    else:  # the model has update 1: update 2 alone
        assert (n, replayed) == (1, [u2["rows"]])
    assert J.journaled_updates(model) == ([r for r in (u1, u2) if r["rows"] in replayed], True)
    assert j.pending == n
    j.close()


def test_a_worker_follows_a_fold_that_copied_its_updates_into_the_new_journal(
    tmp_path: Any,
) -> None:
    """Worker a folds (the file written from its snapshot after update 1) while worker b
    journals update 2; a's new journal holds update 2 again (the fold lacks it). b, which
    applied it already, follows a's fold without applying it twice; a process that starts
    on the new journal replays it once; and b's next update is a's."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    a, b = J.Journal(model, digest), J.Journal(model, digest)
    with a.writing():
        a.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    assert len(b.catch_up()) == 1
    folding = J.write_folding(model, _model_writer(1), a.seq)  # (no lock of the journal)
    assert folding is not None and folding.seq == 1
    with b.writing():
        b.catch_up()
        b.append({"op": "update", "rows": [[2, 2, 2]], "labels": [1]})
    with a.writing():
        assert [r["rows"] for r in a.catch_up()] == [[[2, 2, 2]]]
        assert a.replace_model(folding)
    assert J.file_digest(model) == folding.digest
    assert (a.seq, a.folded_seq, a.pending) == (2, 1, 1)
    assert b.needs_catch_up()
    assert b.catch_up() == []  # followed, update 2 not again
    assert (b.seq, b.folded_seq, b.pending) == (2, 1, 1)
    assert J.recover(model) == (folding.digest, 1)
    c = J.Journal(model, folding.digest)
    assert [r["rows"] for r in c.catch_up()] == [[[2, 2, 2]]]
    with b.writing():
        b.append({"op": "update", "rows": [[3, 3, 3]], "labels": [0]})
    assert [r["rows"] for r in a.catch_up()] == [[[3, 3, 3]]]
    assert a.pending == b.pending == 2
    for j in (a, b, c):
        j.close()


def test_one_fold_at_a_time_and_a_stale_one_is_dropped(tmp_path: Any) -> None:
    """The file a fold writes is locked while it is written: a second fold (another
    worker's) leaves it to the first, and recovery (a worker started again) leaves it in
    place. A fold whose file holds fewer updates than the model file by the time it ends
    (another worker folded further meanwhile) is dropped: the model file stays."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    a, b = J.Journal(model, digest), J.Journal(model, digest)
    with a.writing():
        a.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    stale = J.write_folding(model, _model_writer(1), 1)
    assert stale is not None and J.fold_under_way(model)
    assert J.write_folding(model, _model_writer(1), 1) is None  # one at a time
    with J.locked(model):
        J.recover(model)  # (a worker started again: the fold under way is left alone)
    assert os.path.exists(model + ".folding")
    with b.writing():  # b's fold waits for it ...
        b.catch_up()
        b.append({"op": "update", "rows": [[2, 2, 2]], "labels": [1]})
        assert b.fold(_model_writer(2)) is None
    stale.discard()  # ... and folds once it is gone
    assert not J.fold_under_way(model) and not os.path.exists(model + ".folding")
    with b.writing():  # (before a, whose snapshot holds update 1, writes its file)
        folded = b.fold(_model_writer(2))
    assert folded is not None and J.file_digest(model) == folded
    stale = J.write_folding(model, _model_writer(1), 1)
    assert stale is not None
    with a.writing():
        a.catch_up()
        assert not a.replace_model(stale)  # update 1 is in the model file already
    assert J.file_digest(model) == folded and not os.path.exists(model + ".folding")
    assert J.recover(model) == (folded, 0)
    a.close()
    b.close()


def test_catch_up_follows_another_process_across_a_fold(tmp_path: Any) -> None:
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    writer, reader = J.Journal(model, digest), J.Journal(model, digest)
    with writer.writing():
        writer.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    assert reader.needs_catch_up() and len(reader.catch_up()) == 1
    with writer.writing():
        writer.append({"op": "update", "rows": [[2, 2, 2]], "labels": [1]})
        writer.fold(_model_writer(5))
        writer.append({"op": "update", "rows": [[3, 3, 3]], "labels": [0]})
    assert reader.needs_catch_up()
    assert [r["rows"] for r in reader.catch_up()] == [[[2, 2, 2]], [[3, 3, 3]]]
    assert not reader.needs_catch_up() and reader.pending == 1
    writer.close()
    reader.close()


def test_a_fold_keeps_the_model_file_s_permissions(tmp_path: Any) -> None:
    # the folded model replaces the file: a chmod 600 model must stay private
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    os.chmod(model, 0o600)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    with j.writing():
        j.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
        j.fold(_model_writer(5))
    j.close()
    assert os.stat(model).st_mode & 0o777 == 0o600


def test_a_worker_two_folds_behind_rebuilds_from_the_files(text_model: str) -> None:
    """Two states of one model (two workers, in one process here): one writes and folds
    twice while the other is idle; the other then reloads the model file and replays the
    journal (the journal in between is gone), and serves what the first serves."""
    from nbayes.serve.state import ModelState

    digest, _ = J.recover(text_model)
    a = ModelState(text_model, digest, fold_every=2)
    b = ModelState(text_model, digest, fold_every=2)
    a.preload()
    b.preload()  # a preload of the old file must not come back after the rebuild
    for k in range(5):
        a.write("update", {"texts": [f"folded away {k}"], "labels": ["spam"]})
    assert a.folds == 2
    assert b.journal.needs_catch_up()
    b.refresh()
    probe = ["folded away", "lunch"]
    assert (b.model.predict_proba(probe) == a.model.predict_proba(probe)).all()
    assert b.journal.pending == a.journal.pending == 1
    a.close()
    b.close()


def test_a_record_torn_by_a_killed_worker_is_cut_by_the_next_writer(tmp_path: Any) -> None:
    """Workers share the journal: one killed while writing leaves part of a record; the
    next writer cuts it off, so the records after it are not lost behind it."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    a, b = J.Journal(model, digest), J.Journal(model, digest)
    with a.writing():
        a.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    with open(model + ".journal", "ab") as f:  # worker c, killed in the middle of a write
        f.write(J._frame({"op": "update", "rows": [[9, 9, 9]], "labels": [1]})[:-4])
    assert [r["rows"] for r in b.catch_up()] == [[[1, 1, 1]]]  # the torn bytes wait
    with b.writing():
        b.catch_up()
        b.append({"op": "update", "rows": [[2, 2, 2]], "labels": [1]})
    assert [r["rows"] for r in a.catch_up()] == [[[2, 2, 2]]]
    a.close()
    b.close()
    assert J.recover(model) == (digest, 2)


def test_a_worker_killed_after_replacing_the_model_in_a_fold(tmp_path: Any) -> None:
    """Worker a replaces the model file in a fold and is killed before it starts the new
    journal; worker b goes on appending; worker c, started again, reads from a's fold
    record (not twice what b applied), and b follows c's next fold."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    a, b = J.Journal(model, digest), J.Journal(model, digest)
    with a.writing():
        a.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
        _write_model(model + ".folding", 1)
        new = J.file_digest(model + ".folding")
        a.append({"op": "fold", "sha256": new})
        os.replace(model + ".folding", model)
    a.close()  # killed here
    with b.writing():
        assert len(b.catch_up()) == 1
        b.append({"op": "update", "rows": [[2, 2, 2]], "labels": [1]})
    with J.locked(model):
        assert J.recover(model) == (new, 1)
        c = J.Journal(model, new)
        assert [r["rows"] for r in c.catch_up()] == [[[2, 2, 2]]]
    with c.writing():
        c.fold(_model_writer(2))
        c.append({"op": "update", "rows": [[3, 3, 3]], "labels": [0]})
    assert [r["rows"] for r in b.catch_up()] == [[[3, 3, 3]]]
    b.close()
    c.close()


def test_a_table_model_read_from_the_command_line_has_its_journaled_rows(
    tmp_path: Path, start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows a server learnt (a GaussianNB's /update) are in what ``nbayes sample``,
    ``plot`` and ``predict`` load after a kill -9; a journal of another model file, or an
    update that no longer applies, leaves the file as it is, with a warning that says
    so."""
    import numpy as np

    import nbayes
    from nbayes.cli._common import load_model
    from nbayes.serve.inputs import ApiError

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), (np.arange(40) % 2).tolist()
    path = str(tmp_path / "gauss.nbayes")
    nbayes.save(nbayes.GaussianNB().fit(X, y), path)
    server = start(path)
    rows = [[5.0, 5.0], [5.5, 4.5], [6.0, 5.0]]
    assert server.post("/update", {"rows": rows, "labels": [1, 1, 1]})[0] == 200
    status, out = server.post("/predict", {"rows": [[5.0, 5.0]]})
    want = out["predictions"][0]["probabilities"]
    server.kill()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the journal applies
        model = load_model(path)
    got = model.predict_proba(np.array([[5.0, 5.0]]))[0]
    assert got.tolist() == [want["0"], want["1"]]
    assert model.class_count_.tolist() == [20.0, 23.0]
    assert nbayes.load(path).class_count_.tolist() == [20.0, 20.0]  # the file as it was

    def refused(model: Any, records: Any) -> None:
        raise ApiError(422, "rows: no longer applies", "rows")

    monkeypatch.setattr("nbayes.cli._served.replay_into", refused)
    with pytest.warns(UserWarning, match="do not apply to it .rows: no longer applies"):
        model = load_model(path)
    assert model.class_count_.tolist() == [20.0, 20.0]
    monkeypatch.undo()
    nbayes.save(nbayes.GaussianNB().fit(X[:30], y[:30]), path)  # another file, same journal
    wanted = "for another model file .the file was replaced since.: restore.*lacks them"
    with pytest.warns(UserWarning, match=wanted):
        model = load_model(path)
    assert model.class_count_.tolist() == [15.0, 15.0]


def test_the_command_line_s_journal_path_is_the_service_s(tmp_path: Path) -> None:
    from nbayes.cli._served import journal_beside

    model = tmp_path / "m.nbayes"
    model.write_bytes(b"")
    link = tmp_path / "link.nbayes"
    link.symlink_to(model)
    assert journal_beside(str(link)) == J.journal_path(str(link)) == str(model) + ".journal"


def test_a_journal_removed_while_served_is_written_again(text_model: str) -> None:
    """An operator's rm of MODEL.journal while served: every write and fold failed (500,
    a traceback a second in the log) and the acknowledged updates in it were lost at the
    next start. The server holds the removed file open: it writes it again from there."""
    from nbayes.serve.state import ModelState

    before = nbayes.load(text_model).class_count_.copy()
    digest, _ = J.recover(text_model)
    a = ModelState(text_model, digest, fold_every=1000)
    b = ModelState(text_model, digest, fold_every=1000)  # (a second worker)
    for k in range(2):
        a.write("update", {"texts": [f"before {k}"], "labels": ["spam"]})
    os.remove(text_model + ".journal")
    b.write("update", {"texts": ["after"], "labels": ["ham"]})  # b restores it
    a.write("update", {"texts": ["after a"], "labels": ["ham"]})
    b.refresh()
    probe = ["before", "after a"]
    assert (b.model.predict_proba(probe) == a.model.predict_proba(probe)).all()
    records, applies = J.journaled_updates(text_model)
    assert applies and [r["texts"] for r in records] == [
        ["before 0"],
        ["before 1"],
        ["after"],
        ["after a"],
    ]
    a.close()
    b.close()
    assert J.recover(text_model)[1] == 0  # folded: every update in the file
    assert (nbayes.load(text_model).class_count_ - before).tolist() == [2, 2]


def test_a_fold_hands_the_model_s_lock_over_after_its_rename(tmp_path: Any) -> None:
    """The model's lock follows the folded file once it is the model: handed over before
    the rename, a worker killed in between left the supervisor holding MODEL.folding's
    lock for good, and no fold ran again (a review's finding). The record is a
    "fold-at" (with its update's number), which an earlier nbayes, reading "fold" records
    as of every update before them, refuses instead of skipping updates."""
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    with j.writing():
        j.append({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    folding = J.write_folding(model, _model_writer(1), j.seq)
    assert folding is not None
    seen: list[tuple[bool, bool]] = []

    def before_replace(path: str, locked: int) -> None:
        held = os.fstat(locked)
        seen.append((os.path.exists(folding.path), os.stat(path).st_ino == held.st_ino))

    with j.writing():
        assert j.replace_model(folding, before_replace)
    assert seen == [(False, True)]  # MODEL.folding is gone: the model is the locked file
    with open(model + ".journal", "rb") as f:
        records, _ = J._parse(f.read())
    assert records[0]["op"] == "base"  # (the new journal; the record was the old one's)
    j.close()


def test_the_fold_record_is_one_an_earlier_nbayes_does_not_take_for_its_own(
    tmp_path: Any,
) -> None:
    # an earlier nbayes found the record after which updates apply among "base" and
    # "fold" records; this one's fold record must not be one of those
    model = str(tmp_path / "m.nbayes")
    _write_model(model, 0)
    digest, _ = J.recover(model)
    j = J.Journal(model, digest)
    appended: list[dict[str, Any]] = []
    real = j.append
    j.append = lambda record: (appended.append(record), real(record))[1]  # type: ignore[method-assign]
    with j.writing():
        real({"op": "update", "rows": [[1, 1, 1]], "labels": [0]})
    folding = J.write_folding(model, _model_writer(1), j.seq)
    assert folding is not None
    with j.writing():
        assert j.replace_model(folding)
    folds = [r for r in appended if r.get("sha256") == folding.digest]
    assert [r["op"] for r in folds] == ["fold-at"] and folds[0]["seq"] == 1
    j.close()
