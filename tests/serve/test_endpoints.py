"""Every endpoint of ``nbayes serve`` on a text model, and every kind of bad request."""

from __future__ import annotations

import http.client
import json
import math
from typing import Any

import numpy as np
import pytest

import nbayes

DOCS = [
    "WINNER!! You have won a FREE prize, call 09061701461 now to claim",
    "Are we still meeting for lunch at noon?",
    "",
    "zzzz qqqq",  # no known word
    "Ok lar... Joking wif u oni...",
]


@pytest.fixture
def server(text_model: str, start: Any) -> Any:
    return start(text_model)


def test_health_and_info(server: Any, text_model: str) -> None:
    status, body = server.get("/health")
    assert status == 200 and body["status"] == "ok"
    status, info = server.get("/info")
    model = nbayes.load(text_model)
    assert status == 200
    assert info["kind"] == "text" and info["model_type"] == "TextClassifier"
    assert info["model"] == "multinomial"
    assert info["vocabulary_size"] == len(model.get_feature_names_out())
    assert info["classes"] == [
        {"label": c, "count": float(n)}
        for c, n in zip(model.classes_.tolist(), model.class_count_.tolist(), strict=True)
    ]
    assert info["hyperparameters"]["alpha"] == 1.0
    assert info["hyperparameters"]["ngram_range"] == [1, 1]
    # whole counts as ints, and no hash buckets of a model that does not hash (a trial's
    # finding: "count": 4827.0, "n_features": 1048576)
    assert all(type(c["count"]) is int for c in info["classes"])
    assert "n_features" not in info["hyperparameters"]


def test_predict_equals_the_library(server: Any, text_model: str, sms: Any) -> None:
    model = nbayes.load(text_model)
    docs = DOCS + sms[0][4000:4300]
    status, body = server.post("/predict", {"texts": docs})
    assert status == 200
    preds = body["predictions"]
    assert [p["label"] for p in preds] == model.predict(docs).tolist()
    proba = model.predict_proba(docs)
    got = np.array([[p["probabilities"][c] for c in model.classes_] for p in preds])
    assert (got == proba).all()  # the very floats, not approximations
    for doc in DOCS:  # one document at a time (the single-document path)
        status, body = server.post("/predict", {"texts": [doc]})
        (pred,) = body["predictions"]
        assert pred["label"] == model.predict([doc])[0]
        assert [pred["probabilities"][c] for c in model.classes_] == model.predict_proba([doc])[
            0
        ].tolist()


def test_predict_top(server: Any, text_model: str) -> None:
    model = nbayes.load(text_model)
    status, body = server.post("/predict", {"texts": DOCS, "top": 1})
    assert status == 200
    labels, proba = model.predict_top(DOCS, n=1)
    for pred, ls, ps in zip(body["predictions"], labels.tolist(), proba.tolist(), strict=True):
        assert list(pred["probabilities"].items()) == list(zip(ls, ps, strict=True))
    status, body = server.post("/predict", {"texts": DOCS[:1], "top": 5})  # more than classes
    assert list(body["predictions"][0]["probabilities"]) == ["spam", "ham"]
    status, body = server.post("/predict", {"texts": []})
    assert (status, body) == (200, {"predictions": []})


def test_explain(server: Any, text_model: str) -> None:
    model = nbayes.load(text_model)
    text = DOCS[0]
    status, body = server.post("/explain", {"text": text})
    assert status == 200
    exp = model.explain(text)
    assert body["label"] == exp.prediction == "spam"
    assert body["probabilities"] == pytest.approx(exp.posterior)
    tokens = {t["token"]: t for t in body["tokens"]}
    assert [t["token"] for t in body["tokens"]] == list(dict.fromkeys(model.analyze(text)))
    ev = dict(exp.top(100)["spam"]["for"] + exp.top(100)["spam"]["against"])
    for term, value in ev.items():
        assert tokens[term]["evidence"]["spam"] == pytest.approx(value)
    assert tokens["prize"]["evidence"]["spam"] > 0
    assert "exact" not in body
    assert "absent" not in body  # a multinomial model weighs the text's words only
    status, body = server.post("/explain", {"text": text, "exact": True})
    assert status == 200 and "absent" not in body
    exact = model.explain(text, exact=True)
    assert body["exact"]["derivation"] == exact.derivation()
    assert body["exact"]["posterior"] == {str(c): str(p) for c, p in exact.posterior.items()}
    assert {f["feature"] for f in body["exact"]["factors"]["spam"]} <= set(tokens)


def test_update_and_forget(server: Any, text_model: str) -> None:
    model = nbayes.load(text_model)
    new = ["brand new zorbl offer", "zorbl zorbl call"]
    status, body = server.post("/update", {"texts": new, "labels": ["spam", "spam"]})
    assert status == 200 and body["learned"] == 2
    model.update(new, ["spam", "spam"])
    status, body = server.post("/predict", {"texts": ["zorbl"] + DOCS})
    assert [p["probabilities"]["spam"] for p in body["predictions"]] == model.predict_proba(
        ["zorbl"] + DOCS
    )[:, 1].tolist()
    # a new class appears when asked for (a label the model lacks is refused otherwise)
    status, body = server.post("/update", {"texts": ["meeting agenda"], "labels": ["work"]})
    assert status == 422 and body["field"] == "labels[0]"
    status, body = server.post(
        "/update", {"texts": ["meeting agenda"], "labels": ["work"], "new_classes": True}
    )
    assert status == 200 and [c["label"] for c in body["classes"]] == ["ham", "spam", "work"]
    model.update(["meeting agenda"], ["work"])
    _, info = server.get("/info")
    assert [c["label"] for c in info["classes"]] == ["ham", "spam", "work"]
    _, metrics = server.get("/metrics")
    assert any(
        line.startswith("nbayes_journal_pending{") and line.endswith(" 2.0")
        for line in metrics.splitlines()
    )  # two updates journaled, not yet folded
    status, body = server.post("/forget", {"texts": new, "labels": ["spam", "spam"]})
    assert status == 200 and body["forgot"] == 2
    model.unlearn(new, ["spam", "spam"])
    status, body = server.post("/predict", {"texts": DOCS})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        model.predict_proba(DOCS).tolist()
    )
    # forgetting what the model never learned is refused, and changes nothing
    status, body = server.post("/forget", {"texts": ["never seen qwzx"], "labels": ["ham"]})
    assert status == 422 and body["field"] == "texts"
    status, again = server.post("/predict", {"texts": DOCS})
    assert again == {"predictions": [
        {"label": label, "probabilities": dict(zip(["ham", "spam", "work"], row, strict=True))}
        for label, row in zip(model.predict(DOCS).tolist(), model.predict_proba(DOCS).tolist(),
                              strict=True)
    ]}  # fmt: skip


def test_an_unknown_label_is_refused_unless_new_classes_are_asked_for(
    server: Any, text_model: str
) -> None:
    """A typo ("eggs" for a ham/spam model) became a class of its own, silently: it is 422
    naming labels[i] and the model's classes, and nothing changes; "new_classes": true
    adds the class."""
    _, before = server.get("/info")
    texts = ["lunch at noon?", "free range eggs"]
    for extra in ({}, {"new_classes": False}):
        status, body = server.post("/update", {"texts": texts, "labels": ["ham", "eggs"], **extra})
        assert status == 422 and body["field"] == "labels[1]", body
        assert body["error"].startswith("labels[1]: 'eggs' is not a class of the model")
        assert "'ham', 'spam'" in body["error"] and '"new_classes": true' in body["error"]
    status, body = server.post("/update", {"texts": texts, "labels": ["ham", "eggs"],
                                           "new_classes": "yes"})  # fmt: skip
    assert status == 422 and body["field"] == "new_classes"
    assert body["error"] == "new_classes: expected true or false, got a string"
    assert server.get("/info")[1]["classes"] == before["classes"]  # nothing learnt
    assert server.get("/health")[1]["journal_pending"] == 0  # nor journaled
    status, body = server.post("/update", {"texts": texts, "labels": ["ham", "eggs"],
                                           "new_classes": True})  # fmt: skip
    assert status == 200 and body["learned"] == 2
    model = nbayes.load(text_model)
    model.update(texts, ["ham", "eggs"])
    assert [c["label"] for c in body["classes"]] == model.classes_.tolist()
    assert model.classes_.tolist() == ["eggs", "ham", "spam"]
    # learnt: a class of the model now, taken without asking
    status, body = server.post("/update", {"texts": ["boiled eggs"], "labels": ["eggs"]})
    assert status == 200
    model.update(["boiled eggs"], ["eggs"])
    _, body = server.post("/predict", {"texts": DOCS})
    assert [list(p["probabilities"].values()) for p in body["predictions"]] == (
        model.predict_proba(DOCS).tolist()
    )


def test_a_class_forgotten_entirely_comes_back_only_when_asked_for(
    tmp_path: Any, start: Any
) -> None:
    """Forgetting every example of a class takes the class away (a served model always
    keeps one: the library refuses to forget them all, and an unfitted model cannot be
    saved); learning it again is then a new class."""
    path = str(tmp_path / "tiny.nbayes")
    nbayes.save(nbayes.TextClassifier().fit(
        ["good match", "great keeper", "bad match"], ["pos", "pos", "neg"]), path)  # fmt: skip
    server = start(path)
    status, body = server.post("/forget", {"texts": ["bad match"], "labels": ["neg"]})
    assert status == 200 and [c["label"] for c in body["classes"]] == ["pos"]
    status, body = server.post("/forget", {"texts": ["good match", "great keeper"],
                                           "labels": ["pos", "pos"]})  # fmt: skip
    assert status == 422 and "no class left" in body["error"]
    status, body = server.post("/update", {"texts": ["bad match"], "labels": ["neg"]})
    assert status == 422 and body["field"] == "labels[0]"
    assert "its classes are 'pos'" in body["error"]
    status, body = server.post("/update", {"texts": ["bad match"], "labels": ["neg"],
                                           "new_classes": True})  # fmt: skip
    assert status == 200 and [c["label"] for c in body["classes"]] == ["neg", "pos"]


REVIEWS = (
    ["keeper was sharp and composed", "match was composed", "brilliant match",
     "match was not sharp", "match was not composed"],
    ["positive", "positive", "positive", "negative", "negative"],
)  # fmt: skip


def _absent_words(exp: Any, focus: str) -> dict[str, float]:
    """The library's evidence for ``focus`` of every word the explained text lacks (the
    explanation of a Bernoulli model holds every word of the vocabulary)."""
    row = exp.evidence()[exp.classes.tolist().index(focus)]
    lacks = exp.absent(exp.feature_names)
    return {n: float(v) for n, v in zip(exp.feature_names, row.tolist(), strict=True)
            if n in lacks and v}  # fmt: skip


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_explain_lists_the_words_a_bernoulli_model_weighs_by_their_absence(
    tmp_path: Any, start: Any, alpha: float
) -> None:
    """A Bernoulli model weighs the words a text lacks too (1 - theta): "match was sharp"
    is positive by the absent "not" (its three words are all against positive; +inf with
    alpha=0: no positive review has "not"). /explain answered the text's words only."""
    path = str(tmp_path / "reviews.nbayes")
    model = nbayes.TextClassifier(model="bernoulli", alpha=alpha).fit(*REVIEWS)
    nbayes.save(model, path)
    server = start(path)
    status, body = server.post("/explain", {"text": "match was sharp"})
    assert status == 200 and body["label"] == "positive"
    assert [t["token"] for t in body["tokens"]] == ["match", "was", "sharp"]
    assert all(t["evidence"]["positive"] < 0 for t in body["tokens"])
    want = _absent_words(model.explain("match was sharp"), "positive")
    absent = body["absent"]
    assert [a["token"] for a in absent] == ["not", "and", "brilliant", "composed", "keeper"] or (
        alpha == 0 and absent[0]["token"] == "not"
    )  # (alpha 0: -0.405 is 1e-16 stronger for some of them)
    assert {a["token"] for a in absent} == set(want) == {"not", "and", "brilliant", "composed",
                                                         "keeper"}  # fmt: skip
    for a in absent:
        v = want[a["token"]]
        if math.isinf(v):  # JSON has no infinity: null, and its sign
            assert a["evidence"] == {"negative": None, "positive": None}
            assert a["infinite"] == {"negative": -1, "positive": 1}
        else:
            assert a["evidence"]["positive"] == pytest.approx(v)
            assert a["evidence"]["negative"] == pytest.approx(-v)
            assert "infinite" not in a
    assert (want["not"] == math.inf) == (alpha == 0) and want["not"] > 0
    strength = [abs(want[a["token"]]) for a in absent]
    assert strength == sorted(strength, reverse=True)  # strongest first
    # exact too; and a word the text holds is never listed as absent
    status, exact = server.post("/explain", {"text": "match was not keen", "exact": True})
    assert status == 200 and exact["label"] == "negative"
    assert {a["token"] for a in exact["absent"]} == set(
        _absent_words(model.explain("match was not keen"), "negative")
    )
    assert not {"match", "was", "not"} & {a["token"] for a in exact["absent"]}
    if alpha == 0:  # a word of the text with infinite evidence: null, and its sign
        status, body = server.post("/explain", {"text": "keeper was not sharp"})
        assert status == 200 and body["label"] is None  # every class impossible
        keeper = body["tokens"][0]
        assert keeper["token"] == "keeper" and keeper["evidence"]["negative"] is None
        assert keeper["infinite"] == {"negative": -1, "positive": 1}
        # the first class stands for the prediction, as on the page: match is absent,
        # and negative reviews all have it
        assert body["absent"][0]["token"] == "match"
        assert body["absent"][0]["infinite"] == {"negative": -1, "positive": 1}


def test_the_absent_words_are_the_strongest_few(tmp_path: Any, start: Any, sms: Any) -> None:
    """A vocabulary of thousands: the 5 strongest absent words for the predicted class and
    the 5 strongest against it, as the library's evidence ranks them."""
    from nbayes.serve.answers import ABSENT_PER_SIDE

    texts, labels = sms
    path = str(tmp_path / "bernoulli.nbayes")
    model = nbayes.TextClassifier(model="bernoulli").fit(texts[:1500], labels[:1500])
    nbayes.save(model, path)
    server = start(path)
    for text in DOCS[:2]:
        status, body = server.post("/explain", {"text": text})
        assert status == 200
        focus = body["label"]
        want = _absent_words(model.explain(text), focus)
        pro = sorted((v for v in want.values() if v > 0), reverse=True)[:ABSENT_PER_SIDE]
        con = sorted(v for v in want.values() if v < 0)[:ABSENT_PER_SIDE]
        got = [a["evidence"][focus] for a in body["absent"]]
        assert len(got) == 2 * ABSENT_PER_SIDE == 10
        assert sorted(v for v in got if v > 0) == pytest.approx(sorted(pro))
        assert sorted(v for v in got if v < 0) == pytest.approx(sorted(con))
        assert [abs(v) for v in got] == sorted((abs(v) for v in got), reverse=True)


def test_page_and_metrics(server: Any) -> None:
    status, page = server.get("/")
    assert status == 200 and "<textarea" in page and "/explain" in page
    server.post("/predict", {"texts": ["hello"]})
    server.post("/predict", {"texts": ["a", "b", "c"]})
    server.post("/predict", {"texts": "oops"})
    status, text = server.get("/metrics")
    assert status == 200
    lines = text.splitlines()
    assert "# TYPE nbayes_requests_total counter" in lines
    assert "# TYPE nbayes_request_duration_seconds histogram" in lines

    def value(prefix: str) -> float:
        (line,) = [x for x in lines if x.startswith(prefix)]
        return float(line.rsplit(" ", 1)[1])

    assert value('nbayes_requests_total{endpoint="/predict",method="POST",status="200"') == 2
    assert value('nbayes_requests_total{endpoint="/predict",method="POST",status="422"') == 1
    assert value('nbayes_request_duration_seconds_count{endpoint="/predict"') == 3
    assert value('nbayes_request_duration_seconds_bucket{endpoint="/predict",le="+Inf"') == 3
    assert value('nbayes_documents_total{endpoint="/predict"') == 4


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/predict", [], "body"),
        ("/predict", {"texts": "one text"}, "texts"),
        ("/predict", {"texts": ["ok", 3]}, "texts[1]"),
        ("/predict", {"texts": ["ok"], "top": 0}, "top"),
        ("/predict", {"texts": ["ok"], "top": "2"}, "top"),
        ("/predict", {"text": ["ok"]}, "text"),
        ("/predict", {"rows": [{"a": 1}]}, "rows"),
        ("/explain", {"text": 5}, "text"),
        ("/explain", {"text": "ok", "exact": "yes"}, "exact"),
        ("/update", {"texts": ["a", "b"], "labels": ["spam"]}, "labels"),
        ("/update", {"texts": ["a"], "labels": [1]}, "labels[0]"),
        ("/update", {"texts": ["a"]}, "labels"),
        ("/forget", {"texts": [None], "labels": ["ham"]}, "texts[0]"),
        ("/forget", {"texts": ["a", "b"], "labels": ["ham", "work"]}, "labels[1]"),  # no class
        ("/update", {"texts": ["a", "b"], "labels": ["ham", "eggs"]}, "labels[1]"),  # no class
        ("/update", {"texts": ["a"], "labels": ["ham"], "new_classes": "yes"}, "new_classes"),
        ("/update", {"texts": ["a"], "labels": ["ham"], "new_class": True}, "new_class"),
        ("/forget", {"texts": ["a"], "labels": ["ham"], "new_classes": True}, "new_classes"),
    ],
)
def test_wrong_shapes_are_422_naming_the_field(
    server: Any, path: str, body: Any, field: str
) -> None:
    status, answer = server.post(path, body)
    assert status == 422, answer
    assert answer["field"] == field and answer["error"].startswith(field)
    assert server.get("/health")[0] == 200


def test_malformed_json_is_400(server: Any) -> None:
    for raw in (b'{"texts": [', b"not json", b"\xff\xfe", b""):
        status, answer = server.request("POST", "/predict", raw=raw)
        assert status == 400, raw
        assert "JSON" in answer["error"]
    status, _ = server.post("/predict", {"texts": ["still fine"]})
    assert status == 200


def test_unknown_paths_and_methods(server: Any) -> None:
    assert server.get("/nowhere")[0] == 404
    assert server.get("/predict")[0] == 405
    assert server.post("/health", {})[0] == 405


def test_body_over_the_limit_is_413(text_model: str, start: Any) -> None:
    server = start(text_model, "--max-body", "2k")
    status, answer = server.post("/predict", {"texts": ["x" * 3000]})
    assert status == 413 and "limit" in answer["error"]
    # chunked, without Content-Length: the limit holds while reading
    conn = server.connection()
    conn.putrequest("POST", "/predict")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.putheader("Content-Type", "application/json")
    conn.endheaders()
    piece = b'{"texts": ["' + b"y" * 1500
    try:
        for chunk in (piece, b"z" * 1500, b'"]}'):
            conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed before the whole body was sent
    response = conn.getresponse()
    assert response.status == 413
    conn.close()
    status, body = server.post("/predict", {"texts": ["under the limit"]})
    assert status == 200 and len(body["predictions"]) == 1


def test_token(text_model: str, start: Any) -> None:
    server = start(text_model, "--token", "s3cret")
    payload = {"texts": ["a b"], "labels": ["ham"]}
    assert server.post("/update", payload)[0] == 401
    assert server.post("/update", payload, headers={"authorization": "Bearer wrong"})[0] == 401
    assert server.post("/forget", payload, headers={"authorization": "Basic s3cret"})[0] == 401
    status, body = server.post("/update", payload, headers={"authorization": "Bearer s3cret"})
    assert status == 200 and body["learned"] == 1
    # reading needs no token
    assert server.post("/predict", {"texts": ["a"]})[0] == 200


def test_writes_without_token_beyond_loopback_are_401(text_model: str) -> None:
    """A server bound beyond loopback without --token refuses every write (uvicorn in a
    thread on 127.0.0.1, with the application as ``serve()`` makes it for 0.0.0.0)."""
    import socket
    import threading

    import uvicorn

    from nbayes.serve.app import create_app
    from nbayes.serve.journal import recover
    from nbayes.serve.server import is_loopback
    from nbayes.serve.state import ModelState

    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert is_loopback("127.0.0.1") and is_loopback("127.0.0.2") and is_loopback("::1")
    assert is_loopback("localhost") and is_loopback("[::1]")
    digest, _ = recover(text_model)
    state = ModelState(text_model, digest)
    app = create_app(state, token=None, writes_need_token=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            threading.Event().wait(0.05)
        conn = http.client.HTTPConnection("127.0.0.1", sock.getsockname()[1], timeout=30)
        body = json.dumps({"texts": ["a"], "labels": ["ham"]})
        for headers in ({}, {"authorization": "Bearer anything"}):
            conn.request("POST", "/update", body=body, headers=headers)
            response = conn.getresponse()
            assert response.status == 401
            assert "--token" in json.loads(response.read())["error"]
        conn.request("POST", "/predict", body=json.dumps({"texts": ["a"]}))
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@pytest.mark.parametrize(
    "params",
    [{"model": "bernoulli"}, {"model": "complement"}, {"hashing": True, "n_features": 4096},
     {"ngram_range": (1, 2), "binary": True}, {"alpha": 0.0}],
    ids=["bernoulli", "complement", "hashing", "bigrams", "alpha0"],
)  # fmt: skip
def test_other_text_models(params: dict, sms: Any, tmp_path: Any, start: Any) -> None:
    import warnings

    texts, labels = sms
    path = str(tmp_path / "m.nbayes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = nbayes.TextClassifier(**params).fit(texts[:1500], labels[:1500])
    nbayes.save(model, path)
    model = nbayes.load(path)  # what is served (a Bernoulli fit and its file differ ~1e-12)
    server = start(path)
    docs = DOCS + texts[1500:1600]
    status, body = server.post("/predict", {"texts": docs})
    assert status == 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # alpha=0: undecidable rows
        expected = model.predict(docs).tolist(), model.predict_proba(docs)
    assert [p["label"] for p in body["predictions"]] == expected[0]
    got = np.array([[np.nan if p["probabilities"][c] is None else p["probabilities"][c]
                     for c in model.classes_] for p in body["predictions"]])  # fmt: skip
    np.testing.assert_array_equal(got, expected[1])  # NaN where undecidable, floats equal
    status, body = server.post("/explain", {"text": DOCS[0], "exact": True})
    if params.get("model") == "complement":  # no rational derivation: the library says so
        assert status == 422 and "exact" in body["error"]
    elif params.get("model") == "bernoulli":  # every absent word a factor: folded, scientific
        assert status == 200 and "more factors" in body["exact"]["derivation"]
        assert all("digits" in v for v in body["exact"]["joint"].values())
    else:
        assert status == 200 and body["exact"]["derivation"]


def test_writes_the_library_refuses_are_422_and_the_model_still_starts(tmp_path: Any) -> None:
    """Issue 24, items 3-5: the library refuses at the learning call what a model file
    could not hold, so the service answers 422 and changes nothing; after a fold and a
    restart the model serves (before: 200, then a model file the server refused)."""
    import numpy as np

    from .conftest import Server

    bern = tmp_path / "bernoulli.nbayes"
    nbayes.save(
        nbayes.TextClassifier(model="bernoulli").fit(
            ["free prize now", "lunch at noon"], ["spam", "ham"]
        ),
        bern,
    )
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (np.arange(40) % 2).tolist()
    gauss = tmp_path / "gaussian.nbayes"
    nbayes.save(nbayes.GaussianNB().fit(X, y), gauss)
    mixed = tmp_path / "mixed.nbayes"
    nbayes.save(nbayes.MixedNB().fit(X, y), mixed)
    cases = [
        (bern, "/forget", {"texts": ["free"], "labels": ["spam"]}, "never learned"),
        (bern, "/forget", {"texts": ["free prize"], "labels": ["spam"]}, "never learned"),
        (gauss, "/update", {"rows": [[1e153, 1.0]], "labels": [0]}, "too large"),
        (mixed, "/forget", {"rows": [[None, 1.0]], "labels": [0]}, "observed count"),
    ]
    for path, route, body, message in cases:
        server = Server(str(path), "--fold-every", "1")
        try:
            status, answer = server.post(route, body)
            assert status == 422 and message in answer["error"], (route, body, answer)
            text = "texts" in body
            good = (
                {"texts": ["lunch"], "labels": ["ham"]}
                if text
                else {"rows": [[0.5, 0.5]], "labels": [1]}
            )
            status, _ = server.post("/update", good)  # a valid write still folds
            assert status == 200
        finally:
            assert server.terminate() == 0
            server.close()
        again = Server(str(path))
        try:
            probe = {"texts": ["free lunch"]} if "texts" in body else {"rows": [[0.5, 0.5]]}
            status, _ = again.post("/predict", probe)
            assert status == 200
        finally:
            again.terminate()
            again.close()


def test_explain_of_a_hashing_model_finds_each_word_s_bucket(
    start: Any, tmp_path: Any, sms: Any
) -> None:
    """A hashing model's features are buckets: /explain said every word was unknown, where
    `nbayes explain` gave each its evidence (a fuzz). Each word's bucket is found now."""
    texts, labels = sms
    path = str(tmp_path / "hashed.nbayes")
    nbayes.save(nbayes.TextClassifier(hashing=True).fit(texts[:2000], labels[:2000]), path)
    server = start(path)
    text = "WIN a FREE prize now, call to claim"
    status, body = server.post("/explain", {"text": text})
    assert status == 200
    tokens = {t["token"]: t for t in body["tokens"]}
    assert tokens["free"]["known"] and tokens["free"]["evidence"]["spam"] > 0
    assert tokens["prize"]["evidence"]["spam"] > 0
    assert body["features"] and all(f["feature"].startswith("bucket ") for f in body["features"])
    status, body = server.post("/explain", {"text": text, "exact": True})
    assert status == 200 and body["exact"]["derivation"]
