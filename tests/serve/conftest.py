"""Fixtures of the service's tests: model files, and servers run as a person runs them.

:class:`Server` starts ``python -m nbayes.serve MODEL --port 0`` in a subprocess (port 0:
the server picks a free loopback port and says which on stderr), talks to it over
keep-alive HTTP (:mod:`http.client`), and stops it with SIGTERM or kills it with SIGKILL.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

pytest.importorskip("starlette", reason="nbayes serve needs starlette: pip install nbayes[serve]")
pytest.importorskip("uvicorn", reason="nbayes serve needs uvicorn: pip install nbayes[serve]")

import nbayes  # noqa: E402
from nbayes.data import load_sms_spam  # noqa: E402

_URL = re.compile(r"on (http://[^ ]+):(\d+)")


class Server:
    """A ``nbayes serve`` process on a free loopback port."""

    def __init__(self, model: str, *args: str, wait: bool = True, cli: bool = False) -> None:
        self.model = model
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("NBAYES_SERVE_TOKEN", None)
        # ``cli``: through the ``nbayes`` command (its Ctrl-C handling), not the module
        command = ["nbayes", "serve"] if cli else ["nbayes.serve"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *command, model, "--port", "0", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
            start_new_session=True,  # (Ctrl-C signals its process group: os.killpg)
        )  # fmt: skip
        self.lines: list[str] = []
        self.port: int | None = None
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._conn: http.client.HTTPConnection | None = None
        if wait:
            self.wait_ready()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            m = _URL.search(line)
            if m and self.port is None:
                self.port = int(m.group(2))
                self._ready.set()
        self._ready.set()

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def wait_ready(self, timeout: float = 60.0) -> None:
        if not self._ready.wait(timeout) or self.port is None:
            self.proc.kill()
            raise AssertionError(f"the server did not start:\n{self.stderr}")

    def wait_exit(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        self._reader.join(5)
        return code

    # ------------------------------------------------------------------ requests
    def connection(self) -> http.client.HTTPConnection:
        assert self.port is not None
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, Any]:  # fmt: skip
        """``(status, JSON or text)`` of one request over this client's kept-alive connection."""
        for attempt in range(2):
            if self._conn is None:
                self._conn = self.connection()
            data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
            hdrs = {"content-type": "application/json", **(headers or {})}
            try:
                self._conn.request(method, path, body=data, headers=hdrs)
                response = self._conn.getresponse()
                payload = response.read()
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self._conn.close()
                self._conn = None
                if attempt:
                    raise
                continue
            if response.getheader("connection", "").lower() == "close":
                self._conn.close()
                self._conn = None
            kind = response.getheader("content-type", "")
            return response.status, json.loads(payload) if "json" in kind else payload.decode()
        raise AssertionError("unreachable")

    def client(self) -> Server:
        """Another client of this server, with its own keep-alive connection."""
        other = object.__new__(Server)
        other.__dict__.update(self.__dict__)
        other._conn = None
        return other

    def disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: Any, **kw: Any) -> tuple[int, Any]:
        return self.request("POST", path, body, **kw)

    # ------------------------------------------------------------------ stopping
    def terminate(self, timeout: float = 60.0, sig: int = signal.SIGTERM) -> int:
        """SIGTERM (or ``sig``), and the exit status."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self.proc.send_signal(sig)
        return self.wait_exit(timeout)

    def kill(self) -> None:
        """SIGKILL (kill -9): no shutdown at all."""
        self.proc.kill()
        self.wait_exit()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        if self._conn is not None:
            self._conn.close()


@pytest.fixture(scope="session")
def sms() -> tuple[list[str], list[str]]:
    return load_sms_spam()


@pytest.fixture(scope="session")
def text_model_bytes(sms: tuple[list[str], list[str]], tmp_path_factory: Any) -> bytes:
    texts, labels = sms
    path = tmp_path_factory.mktemp("model") / "spam.nbayes"
    nbayes.save(nbayes.TextClassifier().fit(texts[:4000], labels[:4000]), path)
    return path.read_bytes()


@pytest.fixture
def text_model(text_model_bytes: bytes, tmp_path: Any) -> str:
    """A fresh copy of a TextClassifier's model file (trained on 4,000 SMS)."""
    path = tmp_path / "spam.nbayes"
    path.write_bytes(text_model_bytes)
    return str(path)


@pytest.fixture
def start(request: Any) -> Any:
    """``start(model, *args)``: a running :class:`Server`, closed after the test."""
    servers: list[Server] = []

    def _start(model: str, *args: str, wait: bool = True, cli: bool = False) -> Server:
        server = Server(model, *args, wait=wait, cli=cli)
        servers.append(server)
        return server

    yield _start
    for s in servers:
        s.close()


def wait_until(cond: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")
