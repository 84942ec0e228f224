"""What the HTTP layer bounds, from a user's trial of ``nbayes serve`` (tests run against a
real server, over raw sockets):

* a request head (request line and headers) over 64 KiB gets 431 at once: one header of
  100 MB held the event loop for seconds (httptools copies a header at every read);
* the request bodies held in memory, across connections, are bounded (``--max-buffered``):
  150 connections each holding 9 MB of a body took the server from 445 MB to 1.7 GB;
* a client that goes away before its body arrived is no server error: it was logged as a
  500 with a traceback and counted as a 500 in /metrics;
* malformed HTTP is answered with JSON, as every other error (uvicorn's was text/plain).
"""

from __future__ import annotations

import json
import re
import socket
import time
from typing import Any

from tests.serve.conftest import wait_until


def _connect(server: Any) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of the one answer the server sends before it closes."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _send_head(sock: socket.socket, head: bytes, piece: int = 4096) -> None:
    try:
        for i in range(0, len(head), piece):
            sock.sendall(head[i : i + piece])
    except (BrokenPipeError, ConnectionResetError):  # refused before the end: fine
        pass


def test_a_request_head_over_64_kib_gets_431_at_once(text_model: str, start: Any) -> None:
    server = start(text_model)
    # one huge header, sent in small writes (each was a copy of all before it)
    for head in (
        b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 300_000 + b"\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: localhost\r\n"
        + b"".join(b"X-%d: a\r\n" % i for i in range(20_000)) + b"\r\n",  # many headers
        b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n",  # a long URL
    ):  # fmt: skip
        sock = _connect(server)
        began = time.monotonic()
        _send_head(sock, head)
        status, headers, body = _answer(sock)
        sock.close()
        assert status == 431, (head[:60], status, body[:200])
        assert headers["content-type"] == "application/json"
        assert "65,536 bytes" in json.loads(body)["error"]
        assert time.monotonic() - began < 5
    # a head under the bound is answered, on a connection kept alive
    sock = _connect(server)
    big = b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 60_000 + b"\r\n\r\n"
    sock.sendall(big + b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    assert data.count(b"HTTP/1.1 200 OK") == 2, data[:300]
    assert server.get("/health")[0] == 200
    # an operator sees them in /metrics (they reach no endpoint)
    text = server.get("/metrics")[1]
    assert re.search(r'nbayes_rejected_requests_total\{status="431",worker="\d+"\} 3\n', text)


def test_malformed_http_gets_a_json_400(text_model: str, start: Any) -> None:
    server = start(text_model)
    for request in (
        b"\x00\xff\xfe GARBAGE\r\n\r\n",
        b"POST /predict HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n",
        b"POST /predict HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"zz\r\nabc\r\n0\r\n\r\n",  # a bad chunk size, once the application has the request
    ):  # fmt: skip
        sock = _connect(server)
        sock.sendall(request)
        status, headers, body = _answer(sock)
        sock.close()
        assert status == 400 and headers["content-type"] == "application/json", body
        assert "not a valid HTTP/1.1 request" in json.loads(body)["error"]
    assert server.get("/health")[0] == 200
    text = server.get("/metrics")[1]
    assert re.search(r'nbayes_rejected_requests_total\{status="400",worker="\d+"\} 3\n', text)


def _hold(server: Any, length: int, sent: int, path: str = "/predict") -> socket.socket:
    """A connection that sends ``sent`` bytes of a ``length``-byte body, and waits."""
    sock = _connect(server)
    head = b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    sock.sendall(head % path.encode() + b"Content-Length: %d\r\n\r\n" % length + b" " * sent)
    return sock


def test_the_bodies_held_across_connections_are_bounded(text_model: str, start: Any) -> None:
    server = start(text_model, "--max-body", "300k", "--max-buffered", "600k")
    holders = [_hold(server, 300_000, 280_000) for _ in range(2)]

    def held() -> float:
        _, text = server.get("/metrics")
        line = text.split("\nnbayes_body_bytes_held{")[1].split("\n")[0]
        return float(line.split("} ")[1])

    wait_until(lambda: held() == 560_000)  # once the server holds both
    conn = server.connection()
    began = time.monotonic()
    conn.request("POST", "/predict", body=b'{"texts": ["x"]}' + b" " * 100_000,
                 headers={"content-type": "application/json"})  # fmt: skip
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    assert response.status == 503 and time.monotonic() - began < 2
    assert response.getheader("retry-after") == "5"
    assert answer["limit"] == "--max-buffered" and "try again" in answer["error"]
    # a chunked body (no Content-Length) is refused once its bytes would not fit
    sock = _connect(server)
    sock.sendall(b"POST /predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                 b"\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % 100_000 + b" " * 100_000
                 + b"\r\n")  # fmt: skip
    status, headers, body = _answer(sock)
    sock.close()
    assert status == 503 and headers["retry-after"] == "5", body
    # a small request still fits
    assert server.post("/predict", {"texts": ["free prize"]})[0] == 200
    for sock in holders:
        sock.close()
    # the bytes held are given back when the clients go away
    wait_until(lambda: held() == 0)
    assert server.post("/predict", {"texts": ["x" * 100_000]})[0] == 200


def test_a_client_that_goes_away_mid_body_is_no_server_error(text_model: str, start: Any) -> None:
    server = start(text_model)
    for path in ("/predict", "/update"):
        sock = _hold(server, 1000, 3, path)
        time.sleep(0.3)
        sock.close()

    def counted() -> bool:
        _, text = server.get("/metrics")
        return all(
            f'endpoint="{path}",method="POST",status="499"' in text
            for path in ("/predict", "/update")
        )

    wait_until(counted)
    _, text = server.get("/metrics")
    assert 'status="500"' not in text
    assert "Traceback" not in server.stderr and "failed" not in server.stderr


def test_a_write_of_more_examples_than_max_update_is_refused_whole(
    text_model: str, start: Any
) -> None:
    """A write is never stopped half way and every read waits for it: one /update of
    180,000 mails held every /filter of a spam filter for 13 s (a trial's). --max-update
    bounds the examples of one write; a refused write changes nothing."""
    server = start(text_model, "--max-update", "3")
    _, before = server.get("/info")
    status, body = server.post("/update", {"texts": ["a", "b", "c", "d"], "labels": ["ham"] * 4})
    assert status == 422 and body["limit"] == "--max-update" and body["field"] == "texts"
    assert "4 in one request" in body["error"] and "at most 3" in body["error"]
    status, body = server.post("/forget", {"texts": ["a"] * 4, "labels": ["ham"] * 4})
    assert status == 422 and body["limit"] == "--max-update"
    assert server.get("/info")[1]["classes"] == before["classes"]
    assert server.get("/health")[1]["journal_pending"] == 0
    status, body = server.post("/update", {"texts": ["a", "b", "c"], "labels": ["ham"] * 3})
    assert status == 200 and body["learned"] == 3


def test_an_exact_explanation_spelt_with_escapes_keeps_its_budget(
    text_model: str, start: Any
) -> None:
    """A small read runs on the event loop's own thread, outside the time budget, unless
    it asks for an exact explanation: the key spelt "\\u0065xact" was not seen as one."""
    server = start(text_model, "--max-seconds", "0.001")
    words = " ".join(f"w{i} free prize call now" for i in range(500))[:15_000]
    for key in ('"\\u0065xact"', '"exact"'):  # (after a stopped read none runs inline)
        raw = ("{" + f'"text": {json.dumps(words)}, {key}: true' + "}").encode()
        status, body = server.request("POST", "/explain", raw=raw)
        assert status == 422 and "--max-seconds" in body["error"], (key, status)
