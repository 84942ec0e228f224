"""A spam filter served: ``/filter`` takes a raw message (message/rfc822) and answers the
verdict, the spamicity and the clues; ``/update`` and ``/forget`` register and unregister
raw messages (with the token where one is set); ``/info`` says it is a spam filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbayes
from nbayes.spam import SpamFilter

HAM = [
    b"Subject: lunch\n\nmeeting at noon, bring the quarterly report",
    b"Subject: report\n\nthe quarterly report is attached, comments welcome",
    b"Subject: weekend\n\nhiking on saturday if the weather holds",
]
SPAM = [
    b"Subject: cheap pills\n\nbuy cheap pills now, best price, click here",
    b"Subject: winner\n\nyou are a winner, claim your cash prize, click here",
    b"Subject: offer\n\nlimited offer, make money fast, click here now",
]
SPAM_MESSAGE = b"From: x@example.com\nSubject: claim your prize\n\nclick here to claim cash now"
RFC822 = {"content-type": "message/rfc822"}


def _model(tmp_path: Path) -> str:
    f = SpamFilter().fit(HAM + SPAM, ["ham"] * 3 + ["spam"] * 3)
    path = tmp_path / "mail.nbayes"
    nbayes.save(f, path)
    return str(path)


def test_filter_answers_verdict_spamicity_and_clues(tmp_path: Path, start: Any) -> None:
    path = _model(tmp_path)
    want = nbayes.load(path).clues(SPAM_MESSAGE)
    server = start(path)
    status, info = server.get("/info")
    assert status == 200 and info["kind"] == "spam" and info["model_type"] == "SpamFilter"
    # the settings in force, not the constructor's None (the preset's)
    f = nbayes.load(path)
    p = f.effective_params_
    assert info["settings"]["ham_cutoff"] == p.ham_cutoff is not None
    assert info["settings"]["spam_cutoff"] == p.spam_cutoff and info["settings"]["s"] == p.s
    assert info["settings"]["preset"] == f.preset
    status, out = server.request("POST", "/filter", raw=SPAM_MESSAGE, headers=RFC822)
    assert status == 200, out
    assert out["verdict"] == want.verdict.verdict == "spam"
    assert out["spamicity"] == want.verdict.spamicity
    assert [c["token"] for c in out["clues"]] == [c.token for c in want.used()]
    assert {c["side"] for c in out["clues"]} <= {"spam", "ham"}
    assert out["bias"] == want.bias == 8.0 / want.n_used  # the bias of few clues, taken off
    first = out["clues"][0]
    assert set(first) == {"token", "f", "ham", "spam", "side"}
    # /predict gives verdicts for a list of raw messages
    status, out = server.post("/predict", {"texts": [SPAM_MESSAGE.decode(), HAM[0].decode()]})
    assert status == 200 and [p["label"] for p in out["predictions"]] == ["spam", "ham"]


def test_filter_refuses_what_it_cannot_read(tmp_path: Path, start: Any) -> None:
    server = start(_model(tmp_path))
    status, out = server.request("POST", "/filter", raw=SPAM_MESSAGE)  # JSON content type
    assert status == 415 and "message/rfc822" in out["error"]
    status, out = server.request("POST", "/filter", raw=b"  ", headers=RFC822)
    assert status == 422 and "empty" in out["error"]


def test_filter_on_another_model_says_which_endpoint(text_model: str, start: Any) -> None:
    server = start(text_model)
    status, out = server.request("POST", "/filter", raw=SPAM_MESSAGE, headers=RFC822)
    assert status == 422 and "/predict" in out["error"]


def test_a_message_as_text_or_as_bytes_gets_one_verdict(tmp_path: Path, start: Any) -> None:
    """The page sends the pasted message as text (text/plain, UTF-8), and registers it as
    text through /update: a Latin-1 message gets the tokens of its bytes (message/rfc822)
    both ways, not "maã±ana"."""
    latin1 = "Subject: oferta\nContent-Type: text/plain; charset=iso-8859-1\n\n"
    latin1 += "mañana señor, dinero fácil, click here now\n"
    raw = latin1.encode("iso-8859-1")
    learnt = [raw.replace(b"click", b"pulse"), raw.replace(b"now", b"ya")]
    f = SpamFilter().fit(HAM + SPAM + learnt, ["ham"] * 3 + ["spam"] * 5)
    path = str(tmp_path / "mail.nbayes")
    nbayes.save(f, path)
    server = start(path)
    _, as_bytes = server.request("POST", "/filter", raw=raw, headers=RFC822)
    text = {"content-type": "text/plain; charset=utf-8"}
    _, as_text = server.request("POST", "/filter", raw=latin1.encode(), headers=text)
    assert as_text == as_bytes
    assert {"mañana", "señor,"} <= {c["token"] for c in as_text["clues"]}
    # text in the charset the content type names; bytes that are not text in it (a raw
    # message sent as text/plain) are read as the raw message they are
    latin = {"content-type": "text/plain; charset=iso-8859-1"}
    for raw_as, headers in ((raw, latin), (raw, text)):
        _, out = server.request("POST", "/filter", raw=raw_as, headers=headers)
        assert out == as_bytes, headers


def test_registering_through_update_and_forget(tmp_path: Path, start: Any) -> None:
    path = _model(tmp_path)
    server = start(path, "--token", "s3cret")
    message = "Subject: zzz\n\nqqqq wwww eeee rrrr"
    status, out = server.request("POST", "/filter", raw=message.encode(), headers=RFC822)
    assert out["verdict"] == "unsure"
    body = {"texts": [message], "labels": ["spam"]}
    status, out = server.post("/update", body)
    assert status == 401
    auth = {"authorization": "Bearer s3cret"}
    status, out = server.post("/update", body, headers=auth)
    assert status == 200 and out["learned"] == 1, out
    status, out = server.request("POST", "/filter", raw=message.encode(), headers=RFC822)
    assert out["verdict"] == "spam"
    status, out = server.post("/forget", body, headers=auth)
    assert status == 200 and out["forgot"] == 1, out
    assert server.terminate() == 0
    assert (
        nbayes.load(path).table_ == SpamFilter().fit(HAM + SPAM, ["ham"] * 3 + ["spam"] * 3).table_
    )


def test_an_empty_message_is_not_learnt(tmp_path: Path, start: Any) -> None:
    path = _model(tmp_path)
    before = Path(path).read_bytes()
    server = start(path)
    for texts in ([""], ["Subject: x\n\nhi", " \n\n"], ["\u00a0\n"]):
        status, out = server.post("/update", {"texts": texts, "labels": ["spam"] * len(texts)})
        i = len(texts) - 1
        assert status == 422 and out["field"] == f"texts[{i}]", out
        assert out["error"].startswith(f"texts[{i}] is empty"), out
    assert server.terminate() == 0
    assert Path(path).read_bytes() == before


def test_a_label_typo_names_the_labels_field_and_the_labels(tmp_path: Path, start: Any) -> None:
    """A typo ("Spam" for "spam"): 422 naming labels[i] and the filter's labels, the label
    shown as sent (not np.str_('Spam')), and nothing learnt or forgotten."""
    path = _model(tmp_path)
    before = nbayes.load(path).table_
    server = start(path)
    message = "Subject: zzz\n\nqqqq wwww eeee rrrr"
    for endpoint in ("/update", "/forget"):
        status, out = server.post(endpoint, {"texts": [message] * 2, "labels": ["ham", "Spam"]})
        assert status == 422 and out["field"] == "labels[1]", out
        assert out["error"].startswith("labels[1]: 'Spam' is not a label of this spam filter")
        assert "'ham', 'spam'" in out["error"] and "np." not in out["error"]
    # a spam filter's labels are its two: no new class, even when asked for
    for labels in (["Spam"], ["spam"]):
        status, out = server.post(
            "/update", {"texts": [message], "labels": labels, "new_classes": True}
        )
        assert status == 422 and out["field"] == "new_classes", out
        assert "takes no new class" in out["error"]
    assert server.terminate() == 0
    assert nbayes.load(path).table_ == before


def test_filter_without_clues_is_the_same_verdict(tmp_path: Path, start: Any) -> None:
    server = start(_model(tmp_path))
    _, full = server.request("POST", "/filter", raw=SPAM_MESSAGE, headers=RFC822)
    status, out = server.request("POST", "/filter?clues=0", raw=SPAM_MESSAGE, headers=RFC822)
    assert status == 200, out
    assert out == {k: full[k] for k in ("verdict", "spamicity", "log_odds")}
    status, out = server.request("POST", "/filter?clues=yes", raw=SPAM_MESSAGE, headers=RFC822)
    assert status == 200 and out == full
    status, out = server.request("POST", "/filter?clues=some", raw=SPAM_MESSAGE, headers=RFC822)
    assert status == 422 and out["field"] == "clues" and "clues=0" in out["error"]


def test_the_answer_written_directly_is_the_generic_encoders(tmp_path: Path) -> None:
    from nbayes.serve.answers import spam_filtering, spam_filtering_json
    from nbayes.serve.app import json_bytes

    odd = (
        'Subject: "quoted" \\ back\\slash caf\u00e9 \u2603 tab\there\n'
        "From: =?utf-8?q?J=C3=BCrgen?= <j@example.com>\n\n"
        'click \x01 here \u00fcber \U0001f600 <b>cheap</b> pills \\u0041 "now"'
    )
    # learnt, so that its odd tokens are clues
    model = SpamFilter().fit([*HAM, *SPAM, odd.encode()], ["ham"] * 3 + ["spam"] * 4)
    messages: list[Any] = [*HAM, *SPAM, SPAM_MESSAGE, b"", odd, odd.encode(), "x \udcff y"]
    for message in messages:
        for clues in (True, False):
            want = json_bytes(spam_filtering(model, message, clues))
            got = spam_filtering_json(model, message, clues)
            assert (got if got is not None else want) == want, message
    tokens = [c["token"] for c in spam_filtering(model, odd)["clues"]]
    assert any('"' in t or "\\" in t for t in tokens) and any(not t.isascii() for t in tokens)
    assert spam_filtering_json(model, odd, True) is not None  # the escapes written directly


LATIN1_SPAM = (
    b"From: x@example.com\nSubject: oferta\nContent-Type: text/plain; charset=iso-8859-1\n\n"
    b"dinero f\xe1cil, gan\xe1 ya, haga clic aqu\xed"
)


def test_raw_messages_in_base64_are_learnt_as_their_bytes(tmp_path: Path, start: Any) -> None:
    """``"messages"``: base64 of a raw message, learnt (and forgotten) as /filter reads its
    bytes; a message in Latin-1 could not be sent as text without changing its tokens.
    What the server journaled survives a kill -9 (replayed at the next start)."""
    import base64

    path = _model(tmp_path)
    server = start(path)
    body = {"messages": [base64.b64encode(LATIN1_SPAM).decode()], "labels": ["spam"]}
    status, out = server.post("/update", body)
    assert status == 200 and out["learned"] == 1, out
    want = SpamFilter().fit([*HAM, *SPAM, LATIN1_SPAM], ["ham"] * 3 + ["spam"] * 4)
    assert "aquí" in want.tokenize(LATIN1_SPAM)  # (as bytes: read in Latin-1)
    status, out = server.request("POST", "/filter", raw=LATIN1_SPAM, headers=RFC822)
    assert out["spamicity"] == want.classify([LATIN1_SPAM])[0].spamicity
    server.kill()  # (the update is in the journal only)
    server = start(path)
    status, out = server.request("POST", "/filter", raw=LATIN1_SPAM, headers=RFC822)
    assert out["spamicity"] == want.classify([LATIN1_SPAM])[0].spamicity
    status, out = server.post("/forget", body)
    assert status == 200 and out["forgot"] == 1, out
    # what is refused, naming the field
    for bad, field, words in (
        ({"messages": ["not base64!"], "labels": ["spam"]}, "messages[0]", "not base64"),
        ({"messages": [7], "labels": ["spam"]}, "messages[0]", "base64 string"),
        ({"messages": "x", "labels": ["spam"]}, "messages", "array of base64"),
        ({**body, "texts": ["Subject: x\n\nhi"]}, "messages", "not both"),
        ({"messages": [""], "labels": ["spam"]}, "messages[0]", "is empty"),
        # a no-break space: empty as text and as its UTF-8 bytes (it was learnt as bytes)
        ({"messages": ["wqA="], "labels": ["spam"]}, "messages[0]", "is empty"),
    ):
        status, out = server.post("/update", bad)
        assert status == 422 and out["field"] == field and words in out["error"], out
    assert server.terminate() == 0
    assert (
        nbayes.load(path).table_ == SpamFilter().fit(HAM + SPAM, ["ham"] * 3 + ["spam"] * 3).table_
    )


def test_raw_messages_are_a_spam_filters(text_model: str, start: Any) -> None:
    server = start(text_model)
    status, out = server.post("/update", {"messages": ["aGk="], "labels": ["spam"]})
    assert status == 422 and out["field"] == "messages" and '"texts"' in out["error"], out


def test_a_starting_server_waits_for_a_registration(tmp_path: Path, start: Any) -> None:
    """A delivery's registration holds the model's lock for a moment: a server started
    then waits for it (it was refused at once, "If it is stuck, stop it")."""
    import subprocess
    import sys

    path = _model(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from nbayes.io.lock import ModelLock; "
         "lock = ModelLock(sys.argv[1], 'nbayes filter').acquire(); print('held', flush=True); "
         "time.sleep(2)", path],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    server = start(path)  # (waits until it answers)
    assert "waiting for another change of" in server.stderr
    assert holder.wait(timeout=60) == 0
    holder.stdout.close()
    assert server.get("/health")[0] == 200


def test_the_command_line_reads_a_served_filter_as_its_server_holds_it(
    tmp_path: Path, start: Any, capsys: Any, monkeypatch: Any
) -> None:
    """``nbayes filter``, ``explain`` and ``eval`` read the model file without the
    messages its server had learnt and forgotten through /update and /forget (journaled,
    not folded yet; or a server killed): another verdict than the server's, and no word.
    They now count the journaled messages in, the scorer's and the whole filter's (which
    scores after the first messages) alike; the file is not changed."""
    import base64

    import nbayes.cli._scoring
    from nbayes.cli import main

    path = _model(tmp_path)
    probe = b"Subject: zqxv deal\n\nzqxv blorpt wibble offer"
    mail = tmp_path / "probe.eml"
    mail.write_bytes(probe)
    main(["filter", path, str(mail)])  # (the exit status of one message is its verdict)
    before = capsys.readouterr().out
    server = start(path)
    encoded = base64.b64encode(probe).decode()
    assert server.post("/update", {"messages": [encoded] * 4, "labels": ["spam"] * 4})[0] == 200
    assert server.post("/forget", {"messages": [encoded], "labels": ["spam"]})[0] == 200
    status, want = server.request("POST", "/filter", raw=probe, headers=RFC822)
    assert status == 200 and want["verdict"] == "spam"
    line = f"{want['verdict']} {want['spamicity']:.6f} {mail}\n"
    status = {"spam": 0, "ham": 1, "unsure": 2}[want["verdict"]]
    assert line != before
    on_disk = Path(path).read_bytes()
    folder = tmp_path / "mail"
    for label in ("ham", "spam"):
        (folder / label).mkdir(parents=True)
        (folder / label / "probe.eml").write_bytes(probe)
    for killed in (False, True):
        if killed:
            server.kill()
        assert main(["filter", path, str(mail)]) == status
        assert capsys.readouterr() == (line, "")
        with monkeypatch.context() as m:  # the whole filter from the first message
            m.setattr(nbayes.cli._scoring, "WHOLE_AFTER", 0)
            assert main(["filter", path, str(mail), "--jobs", "1"]) == status
        assert capsys.readouterr() == (line, "")
        assert main(["explain", path, str(mail)]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(f"{want['verdict']} (spamicity {want['spamicity']:.6f}, "
                                f"log-odds {want['log_odds']:.2f})")  # fmt: skip
        assert main(["eval", path, str(folder), "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert (got["n_ham"], got["n_spam"]) == (1, 1)
        assert got["spam_caught"] == (want["verdict"] == "spam")
        assert Path(path).read_bytes() == on_disk


def test_a_spam_filter_s_journal_holds_the_tokens_it_learnt(tmp_path: Path, start: Any) -> None:
    """A reader of a served filter tokenized every journaled message for each command
    (1,000 updates: 0.6 s a delivery); the record now holds the tokens the server read, and
    a replay of them learns what a replay of the messages learns (journals written before
    have the messages alone: they replay as before)."""
    import base64

    from nbayes.serve.journal import journaled_updates
    from nbayes.serve.replay import JournaledCounts, replay

    path = _model(tmp_path)
    encoded = [base64.b64encode(m).decode() for m in (SPAM_MESSAGE, HAM[0])]
    server = start(path)
    assert server.post("/update", {"messages": encoded, "labels": ["spam", "ham"]})[0] == 200
    assert server.post("/update", {"texts": [HAM[1].decode()], "labels": ["ham"]})[0] == 200
    assert server.post("/forget", {"messages": encoded[:1], "labels": ["spam"]})[0] == 200
    status, want = server.request("POST", "/filter", raw=SPAM_MESSAGE, headers=RFC822)
    server.kill()
    records, applies = journaled_updates(path)
    assert applies and len(records) == 3
    f = nbayes.load(path)
    assert records[0]["sets"] == [sorted(f.tokenize(m)) for m in (SPAM_MESSAGE, HAM[0])]
    assert records[1]["sets"] == [sorted(f.tokenize(HAM[1]))]
    with_sets, without = nbayes.load(path), nbayes.load(path)
    replay(with_sets, records)
    replay(without, [{k: v for k, v in r.items() if k != "sets"} for r in records])
    assert with_sets.table_ == without.table_
    assert with_sets.classify([SPAM_MESSAGE])[0].log_odds == want["log_odds"]
    a = JournaledCounts(f, records)
    assert a.counts() == (2, 0)  # two ham learnt; a spam learnt, then forgotten
    plain = JournaledCounts(f, [{k: v for k, v in r.items() if k != "sets"} for r in records])
    assert a.deltas() == plain.deltas() and a.counts() == plain.counts()


def test_a_delivery_s_update_of_a_served_filter_is_learnt_through_the_server(
    tmp_path: Path, start: Any
) -> None:
    """`nbayes filter MODEL --update` of a model a server serves exited 3 with nothing
    written ("send updates to the server"): a delivery agent deferred every message while
    the server ran. The verdict is written as the server would give it, and a sure one is
    learnt through the server's /update (its token from NBAYES_SERVE_TOKEN); a refusal
    leaves the verdict standing, said on stderr."""
    import os
    import subprocess
    import sys

    path = _model(tmp_path)
    server = start(path, "--token", "sekrit")
    message = b"From: x@example.com\nSubject: claim your cash prize\n\nclick here to claim cash now"
    env = {**os.environ}

    def deliver(token: str | None) -> subprocess.CompletedProcess[bytes]:
        env.pop("NBAYES_SERVE_TOKEN", None)
        if token is not None:
            env["NBAYES_SERVE_TOKEN"] = token
        return subprocess.run(
            [sys.executable, "-m", "nbayes", "filter", path, "--update", "--passthrough"],
            input=message, capture_output=True, env=env, timeout=120,
        )  # fmt: skip

    status, want = server.request("POST", "/filter", raw=message, headers=RFC822)
    assert status == 200 and want["verdict"] == "spam"
    done = deliver(None)  # no token: not learnt, the verdict written all the same
    assert done.returncode == 0, done.stderr
    assert b"\nX-Nbayes-Status: spam, spamicity=" in done.stdout
    assert b"not learnt" in done.stderr and b"NBAYES_SERVE_TOKEN" in done.stderr
    assert server.get("/health")[1]["updates"] == 0
    done = deliver("sekrit")
    assert done.returncode == 0 and b"through the server" in done.stderr, done.stderr
    assert server.get("/health")[1]["updates"] == 1
    assert server.get("/info")[1]["classes"][1]["count"] == 4
