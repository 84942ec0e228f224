"""The HTTP service: a Starlette application around a :class:`ModelState`.

Routes: ``GET /`` (the page), ``GET /health``, ``GET /info``, ``GET /metrics``,
``POST /predict``, ``POST /explain``, ``POST /filter`` (a spam filter's verdict and clues on
a raw message), ``POST /update``, ``POST /forget``. Whatever reads or
changes the model runs on the model's thread (:mod:`nbayes.serve.runner`), one request at a
time, so requests see the model whole and the event loop stays free (``/health`` answers
from a summary the model's thread publishes). Every answer is JSON (errors are
``{"error": ..., "field": ...}``), valid whatever the model holds: no NaN or infinity, and
ASCII escapes for text that UTF-8 cannot carry.

Every request must name this server in its ``Host`` header (a loopback name, an IP address,
or a name given with ``--allow-host``): a web page whose own name was made to point to
127.0.0.1 (DNS rebinding) is refused. Writes (``/update``, ``/forget``) also need
``Content-Type: application/json`` and, from a browser, an ``Origin`` that is the server
itself: a web page the user visits cannot write to the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import math
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from nbayes.serve import answers
from nbayes.serve.inputs import ApiError, check_fields, flag_of, parse_json, text_of, top_of
from nbayes.serve.metrics import Metrics
from nbayes.serve.runner import ModelRunner
from nbayes.serve.state import Fold, ModelState

__all__ = [
    "DEFAULT_MAX_BODY", "DEFAULT_MAX_BUFFERED", "DEFAULT_MAX_SECONDS", "BodyBudget", "create_app",
    "json_bytes",
]  # fmt: skip

log = logging.getLogger("nbayes.serve")

#: the default request body limit, in bytes (``--max-body``)
DEFAULT_MAX_BODY = 10 * 1024 * 1024
#: the default time budget of a request that reads the model, in seconds (``--max-seconds``)
DEFAULT_MAX_SECONDS = 10.0
#: a request body must arrive within this many seconds
BODY_SECONDS = 30.0
#: a read whose body is at most this long (and not an exact explanation) may run on the
#: event loop's thread when the model's thread is idle (see nbayes.serve.runner)
SMALL_BODY = 16 * 1024

#: the request bodies one worker holds in memory at once, across connections (``--max-buffered``;
#: at least ``--max-body``): beyond it a request gets 503 with Retry-After
DEFAULT_MAX_BUFFERED = 256 * 1024 * 1024
#: the Retry-After of that 503, in seconds
RETRY_AFTER = 5

#: a /filter message of at most this many bytes may run on the event loop's thread (a
#: message of 64 kB is scored in a few ms; the model's thread is one, so a read handed to
#: it holds the other reads as long)
SMALL_MESSAGE = 64 * 1024

#: the fields of a write's body: an update may ask for new classes (a label the model
#: does not have is refused otherwise: a typo would become a class); a forget never
FIELDS = {
    "update": ("texts", "messages", "rows", "labels", "new_classes"),
    "forget": ("texts", "messages", "rows", "labels"),
}

Handler = Callable[[Request], Awaitable[Response]]

#: the values of /filter's ``clues`` query parameter
_CLUES = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _as_text(body: bytes, content_type: str) -> str | bytes:
    """A text/plain body of /filter: the message's characters (the page's pasted message,
    as /update takes it), in the charset the content type names (UTF-8 if none). Bytes
    that are not text in it are a raw message sent as text/plain: kept as bytes (each part
    read in its own charset, as message/rfc822).

    >>> _as_text("señor".encode(), "text/plain"), _as_text(b"se\\xf1or", "text/plain")
    ('señor', b'se\\xf1or')
    >>> _as_text(b"se\\xf1or", "text/plain; charset=iso-8859-1")
    'señor'

    ASCII bytes (no NUL) are their characters whatever charset is named: as UTF-16 an
    ASCII ham became CJK and scored spam (a user's trial).

    >>> _as_text(b"Subject: hey", "text/plain; charset=utf-16")
    'Subject: hey'
    """
    if body.isascii() and b"\x00" not in body:  # (every ASCII charset reads it alike)
        return body.decode("ascii")
    charset = "utf-8"
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"'):
            charset = value.strip().strip('"')
    try:
        return body.decode(charset)
    except (UnicodeDecodeError, LookupError):
        return body


def _clues_wanted(request: Request) -> bool:
    """``/filter?clues=0`` answers the verdict without the clues (a mail delivery agent's
    answer: ~60 bytes instead of ~6 kB to encode, send and parse; the scoring is the same);
    the default is with them."""
    value = request.query_params.get("clues")
    if value is None:
        return True
    wanted = _CLUES.get(value.strip().lower())
    if wanted is None:
        raise ApiError(
            422,
            f"clues={value!r} is not a choice: /filter?clues=0 answers without the clues, "
            "clues=1 (the default) with them.",
            "clues",
        )
    return wanted


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as null (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


#: a long list is encoded this many items at a time (the encoder holds the interpreter)
_JSON_CHUNK = 2_000


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON bytes, always valid JSON: NaN and infinities become null; text
    that UTF-8 cannot carry (a lone surrogate in a label a model file held) is written as
    ASCII escapes instead of failing. A one-key object of a long list (the predictions
    of a large batch) is encoded in pieces, so the event loop's thread gets turns."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, items),) = value.items()
        if isinstance(items, list) and len(items) > _JSON_CHUNK:
            parts = [
                json_bytes(items[i : i + _JSON_CHUNK])[1:-1]
                for i in range(0, len(items), _JSON_CHUNK)
            ]
            return b"{" + json_bytes(str(key)) + b":[" + b",".join(parts) + b"]}"
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # NaN or an infinity somewhere
        text = json.dumps(_finite(value), ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(json.loads(text), separators=(",", ":")).encode("ascii")


def _json(value: Any, status: int = 200) -> Response:
    return Response(json_bytes(value), status_code=status, media_type="application/json")


def _host_name(host: str) -> str:
    """The name of a Host header, without its port (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Access:
    """Who may talk to the server: the Host names it answers to, the writers' token.

    Parameters
    ----------
    allowed_hosts : iterable of str
        Names accepted in the Host header besides loopback names (``localhost``,
        ``*.localhost``) and IP addresses (``--allow-host``); ``"*"`` accepts any.
    token : str, optional
        ``/update`` and ``/forget`` need ``Authorization: Bearer TOKEN``.
    writes_need_token : bool
        Refuse writes without a (matching) token even when ``token`` is None (a server on
        a non-loopback address started without one: writes are then off).
    """

    def __init__(
        self, allowed_hosts: Iterable[str] = (), token: str | None = None,
        writes_need_token: bool = False,
    ) -> None:  # fmt: skip
        self.allowed = {_host_name(h) for h in allowed_hosts}
        self.token = token
        self.writes_need_token = writes_need_token

    def check_host(self, request: Request) -> None:
        """421 for a Host header naming another server (DNS rebinding)."""
        host = request.headers.get("host")
        if host is None:  # HTTP/1.0 without a Host: not a browser's request
            return
        name = _host_name(host)
        if "*" in self.allowed or name in self.allowed or _is_ip(name):
            return
        if name == "localhost" or name.endswith(".localhost"):
            return
        raise ApiError(
            421,
            f"This server does not answer to the name {name!r} (Host header). A name that "
            "is not an IP address or localhost must be allowed when the server starts: "
            f"nbayes serve ... --allow-host {name}",
        )

    def check_write(self, request: Request) -> None:
        """What a write needs: the token (401), a JSON body (415), no foreign Origin (403)."""
        self._authorize(request)
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise ApiError(
                415,
                "Updates must be sent as JSON: 'Content-Type: application/json' (got "
                f"{kind or 'none'!r}). A web form or a page of another site cannot write "
                "to the model.",
            )
        origin = request.headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin)
            host = request.headers.get("host", "")
            if parts.netloc.lower() != host.strip().lower() or origin == "null":
                raise ApiError(
                    403,
                    f"A page of {origin} may not write to this model (its Origin is not "
                    f"this server, {host}). Send updates from the server's own page or "
                    "from a program (no Origin header).",
                )

    def _authorize(self, request: Request) -> None:
        if self.token is None and not self.writes_need_token:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if self.token is None:
            raise ApiError(401, "This server takes no updates: it listens beyond loopback and "
                           "was started without --token.")  # fmt: skip
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), self.token.encode()
        ):
            raise ApiError(401, "Updates need the header 'Authorization: Bearer TOKEN' with the "
                           "server's --token.")  # fmt: skip


class BodyBudget:
    """The bytes of request bodies this worker holds, across connections, bounded
    (``--max-buffered``): each connection may hold up to ``--max-body`` for 30 s, and 150
    connections sending 9 MB bodies held 1.3 GB. A request whose body would take the total
    over the limit gets 503 with Retry-After, at once when its Content-Length says so. The
    bytes a request holds are counted as they arrive (a Content-Length alone holds
    nothing), and given back when its answer is made.

    >>> budget = BodyBudget(100)
    >>> budget.take({}, 60); budget.held
    60
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def _refuse(self) -> ApiError:
        return ApiError(
            503,
            f"The server holds as many request bodies as it may at once ({self.limit:,} bytes "
            f"in all, its --max-buffered); try again in {RETRY_AFTER} s.",
            limit="--max-buffered",
            headers={"retry-after": str(RETRY_AFTER)},
        )

    def check(self, n: int) -> None:
        """503 if a body of ``n`` bytes would not fit now."""
        if self.held + n > self.limit:
            raise self._refuse()

    def take(self, scope: MutableMapping[str, Any], n: int) -> None:
        """The request of ``scope`` holds ``n`` more bytes (503 if they do not fit)."""
        self.check(n)
        self.held += n
        scope["nbayes.held"] = scope.get("nbayes.held", 0) + n

    def give_back(self, scope: MutableMapping[str, Any]) -> None:
        """The request of ``scope`` holds nothing any more."""
        self.held -= scope.pop("nbayes.held", 0)


async def _body(request: Request, limit: int, budget: BodyBudget | None = None) -> bytes:
    """The request's body, read up to ``limit`` bytes (413 beyond) within
    :data:`BODY_SECONDS` (408 beyond: a client that sends a byte a minute holds nothing),
    its bytes counted in ``budget`` (503 beyond)."""
    too_big = f"The body is over the limit of {limit:,} bytes (the server's --max-body)."
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise ApiError(400, "The Content-Length header is not a number.")
        if int(length) > limit:
            raise ApiError(413, too_big, limit="--max-body")
        if budget is not None:
            budget.check(int(length))

    async def read() -> bytes:
        chunks = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, too_big, limit="--max-body")
            if budget is not None:
                budget.take(request.scope, len(chunk))
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        async with asyncio.timeout(BODY_SECONDS):  # (no task per request, as wait_for makes)
            return await read()
    except TimeoutError:
        raise ApiError(408, f"The body did not arrive within {BODY_SECONDS:g} s.") from None


class Folds:
    """Runs the folds of the served model so that requests go on meanwhile: a fold is
    begun on the model's thread (:meth:`ModelState.begin_fold`: the model as it is, taken
    in a moment), its file written, checked and hashed on a thread of its own
    (:meth:`Fold.run`: ~1 s for the whole corpus' spam filter, during which the model's
    thread answers reads and takes updates, the next fold's), and finished on the model's
    thread (:meth:`ModelState.finish_fold`: the journal's records, the renames). One at a
    time: the state begins no other while one is under way."""

    def __init__(self, state: ModelState, runner: ModelRunner) -> None:
        self.state = state
        self.runner = runner
        self.task: asyncio.Task[bool] | None = None  # the last fold launched

    def launch(self, fold: Fold, loop: asyncio.AbstractEventLoop) -> None:
        """Called on the model's thread (in a job) with a fold it began: the loop runs it
        (its task exists before the job's own answer reaches the loop: ``fold.waiter``)."""
        try:
            loop.call_soon_threadsafe(self._start, fold)
        except RuntimeError:  # the loop is closed: fold here, at once
            fold.run()
            self.state.finish_fold(fold)

    def _start(self, fold: Fold) -> None:
        self.task = fold.waiter = asyncio.get_running_loop().create_task(self._run(fold))

    async def _run(self, fold: Fold) -> bool:
        loop = asyncio.get_running_loop()
        written: asyncio.Future[None] = loop.create_future()

        def work() -> None:
            try:
                fold.run()
            finally:
                with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
                    loop.call_soon_threadsafe(_settle, written)

        try:
            threading.Thread(target=work, name="nbayes-fold", daemon=True).start()
            await written
        except Exception as exc:  # (no thread): finished as a failed fold
            fold.error = fold.error or exc

        def finish() -> bool:
            try:
                return self.state.finish_fold(fold)
            finally:
                self.state.publish()

        return bool(await self.runner.write(finish))

    async def wait(self) -> None:
        """Until the fold under way, if any, has ended (its file in place, or removed)."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self.task)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def create_app(
    state: ModelState,
    *,
    token: str | None = None,
    writes_need_token: bool = False,
    max_body: int = DEFAULT_MAX_BODY,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    max_buffered: int = DEFAULT_MAX_BUFFERED,
    allowed_hosts: Iterable[str] = (),
    on_ready: Callable[[], None] | None = None,
    watch: Callable[[], bool] | None = None,
    runner: ModelRunner | None = None,
) -> Starlette:
    """The ASGI application serving ``state``.

    Parameters
    ----------
    token, writes_need_token, allowed_hosts
        See :class:`Access`.
    max_body : int
        Largest request body accepted, in bytes (413 beyond).
    max_seconds : float
        The time budget of a request that reads the model (422 beyond).
    max_buffered : int
        The request bodies held in memory at once, in bytes, across connections (503
        beyond; at least ``max_body``): see :class:`BodyBudget`.
    on_ready : callable, optional
        Called once the application has started.
    watch : callable, optional
        Called every second; when it returns True the server should stop (the worker
        of a supervisor that died).
    runner : ModelRunner, optional
        The model's thread (made here if not given; the server passes its own, to stop
        it on SIGTERM).
    """
    access = Access(allowed_hosts, token, writes_need_token)
    budget = BodyBudget(max(max_buffered, max_body))
    if runner is None:
        runner = ModelRunner(max_seconds, state.reload)
    folds = Folds(state, runner)
    state.background_folds = True  # (a write leaves its fold to `folds`)
    metrics = Metrics()
    metrics.gauge(
        "nbayes_journal_pending", "Updates journaled and not yet folded into the model file.",
        lambda: state.summary.get("journal_pending", 0),
    )  # fmt: skip
    metrics.gauge("nbayes_folds_total", "Folds of the journal into the model file.",
                  lambda: state.summary.get("folds", 0))  # fmt: skip
    metrics.gauge("nbayes_body_bytes_held", "Bytes of request bodies held in memory now "
                  "(at most --max-buffered).", lambda: budget.held)  # fmt: skip
    metrics.gauge("nbayes_stopped_total", "Requests stopped over their time budget.",
                  lambda: runner.interrupted)  # fmt: skip

    def endpoint(name: str, fn: Callable[[Request], Awaitable[tuple[Response, int]]]) -> Handler:
        async def handle(request: Request) -> Response:
            start = time.perf_counter()
            docs = 0
            try:
                access.check_host(request)
                response, docs = await fn(request)
            except ApiError as exc:
                response = _json(exc.body(), exc.status)
                response.headers.update(exc.headers)
                if exc.status in (408, 413) or exc.limit == "--max-buffered":
                    response.headers["connection"] = "close"  # (the body is left unread)
            except ClientDisconnect:  # the client went away before its body arrived: no
                # fault of the server. Counted as 499 (nginx's "client closed request")
                log.info("nbayes serve: %s %s: the client closed the connection before "
                         "its body arrived", request.method, name)  # fmt: skip
                response = _json({"error": "The client closed the connection."}, 499)
            except Exception:  # a fault of the server: logged, answered as JSON
                log.exception("nbayes serve: %s %s failed", request.method, name)
                response = _json({"error": "Internal error of the server (logged)."}, 500)
            finally:
                budget.give_back(request.scope)
            metrics.observe(name, request.method, response.status_code,
                            time.perf_counter() - start, docs)  # fmt: skip
            return response

        return handle

    def reading(work: Callable[[], tuple[Any, int]]) -> Callable[[], tuple[bytes, int]]:
        """A read as a job of the model's thread: catch up with the journal, answer (the
        answer encoded there too: a large one is CPU work)."""

        def job() -> tuple[bytes, int]:
            try:
                state.refresh()
                value, n = work()
                # (an answer the work encoded itself comes as bytes)
                return (value if isinstance(value, bytes) else json_bytes(value)), n
            finally:
                state.publish()

        return job

    def small(body: bytes) -> Callable[[], bool] | None:
        """Whether a read may run inline (see :data:`SMALL_BODY`): a short body, no exact
        explanation, and (asked with the model's lock held) no updates of other workers
        to apply first."""
        if len(body) > SMALL_BODY or b"exact" in body:
            return None
        if b"\\u" in body:  # an escape may spell the key: "\u0065xact"
            try:
                if "exact" in json.loads(body):
                    return None
            except (ValueError, TypeError, RecursionError):
                return None  # (the model's thread answers what is wrong with it)
        return lambda: not state.needs_refresh()

    async def health(request: Request) -> tuple[Response, int]:
        s = state.summary
        out = {
            "status": "ok", "model": os.path.basename(state.path), "classes": s["classes"],
            "updates": s["updates"], "journal_pending": s["journal_pending"],
        }  # fmt: skip
        if s.get("fold_error"):
            out["fold_error"] = s["fold_error"]
        return _json(out), 0

    async def info(request: Request) -> tuple[Response, int]:
        # on the model's thread: a big vocabulary's first summary makes a str per term
        data, _ = await runner.read(reading(lambda: (state.info(), 0)))
        return Response(data, media_type="application/json"), 0

    async def predict(request: Request) -> tuple[Response, int]:
        body = await _body(request, max_body, budget)

        def work() -> tuple[Any, int]:
            payload = parse_json(body)
            check_fields(payload, ("texts", "rows", "top"))
            top = top_of(payload, len(state.classes))
            X, _, _ = state.inputs(payload)
            if len(X) == 0:
                return {"predictions": []}, 0
            if state.spam:
                return {"predictions": answers.spam_verdicts(state.model, X)}, len(X)
            try:
                preds = answers.predictions(state.model, X, top, state.text)
            except (ValueError, TypeError, ArithmeticError) as exc:
                field = "texts" if state.text else "rows"
                raise ApiError(422, f"{field}: {exc}", field) from None
            return {"predictions": preds}, len(X)

        data, n = await runner.read(reading(work), small(body))
        return Response(data, media_type="application/json"), n

    async def explain(request: Request) -> tuple[Response, int]:
        body = await _body(request, max_body, budget)

        def work() -> tuple[Any, int]:
            payload = parse_json(body)
            if state.spam:  # the clues of a raw message
                check_fields(payload, ("text",))
                return answers.spam_filtering(state.model, text_of(payload)), 1
            exact = flag_of(payload, "exact")
            if state.text:
                check_fields(payload, ("text", "exact"))
                text = text_of(payload)
                x: Any = text
            else:
                check_fields(payload, ("row", "exact"))
                assert state.table is not None
                text = None
                x = state.table.row(payload, "row")
            try:
                out = answers.explanation(state.model, x, exact, text)
            except (ValueError, TypeError, ArithmeticError, ZeroDivisionError) as exc:
                field = "text" if state.text else "row"
                raise ApiError(422, f"{field}: {exc}", field) from None
            return out, 1

        data, n = await runner.read(reading(work), small(body))
        return Response(data, media_type="application/json"), n

    async def filter_(request: Request) -> tuple[Response, int]:
        content_type = request.headers.get("content-type", "")
        kind = content_type.split(";", 1)[0].strip().lower()
        if kind not in ("message/rfc822", "text/plain"):
            raise ApiError(
                415,
                "/filter takes one raw e-mail message as the body, with 'Content-Type: "
                f"message/rfc822' (got {kind or 'none'!r}); e.g. curl --data-binary @m.eml "
                "-H 'Content-Type: message/rfc822' .../filter",
            )
        clues = _clues_wanted(request)
        body = await _body(request, max_body, budget)

        def work() -> tuple[Any, int]:
            if not state.spam:
                raise ApiError(
                    422,
                    f"/filter answers for a spam filter (nbayes train MAILDATA -o MODEL --model "
                    f"spam); this model is a {type(state.model).__name__}: use /predict.",
                )
            if not body.strip():
                raise ApiError(422, "The body is empty: send one raw e-mail message.")
            message = _as_text(body, content_type) if kind == "text/plain" else body
            v, used, bias = answers.spam_filtered(state.model, message, clues)  # scored once
            data = answers.filtering_json(v, used, bias)
            if data is None:  # (an answer the generic encoder must write)
                return answers.filtering_answer(v, used, bias), 1
            return data, 1

        # a message (no JSON to look into) of up to SMALL_MESSAGE bytes runs inline
        inline = None if len(body) > SMALL_MESSAGE else (lambda: not state.needs_refresh())
        data, n = await runner.read(reading(work), inline)
        return Response(data, media_type="application/json"), n

    def writer(op: str) -> Callable[[Request], Awaitable[tuple[Response, int]]]:
        async def write(request: Request) -> tuple[Response, int]:
            access.check_write(request)
            body = await _body(request, max_body, budget)
            loop = asyncio.get_running_loop()

            def job() -> tuple[dict[str, Any], int, Fold | None, bool]:
                try:
                    payload = parse_json(body)
                    check_fields(payload, FIELDS[op])
                    n, warning = state.write(op, payload)
                    out: dict[str, Any] = {"status": "ok"}
                    out["learned" if op == "update" else "forgot"] = n
                    out["classes"] = state.class_counts()
                    if warning is not None:
                        out["warning"] = warning
                    fold, failed = None, False
                    if state.fold_wanted():  # (--fold-every)
                        failures = state.fold_failures
                        fold = state.begin_fold()
                        failed = state.fold_failures > failures  # (refused at once)
                        if fold is not None:
                            folds.launch(fold, loop)
                    return out, n, fold, failed
                finally:
                    state.publish()

            out, n, fold, failed = await runner.write(job)
            if fold is not None:  # the answer waits for the fold this update called for
                # (reads and other updates go on meanwhile), and says if it failed
                waiter = fold.waiter if fold.waiter is not None else folds.task
                if waiter is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(waiter)
                failed = fold.failed is not None
            if failed:
                out["warning"] = state.fold_warning()
            return Response(json_bytes(out), media_type="application/json"), n

        return write

    async def metrics_page(request: Request) -> tuple[Response, int]:
        return PlainTextResponse(metrics.render(), media_type="text/plain; version=0.0.4"), 0

    async def page(request: Request) -> tuple[Response, int]:
        from nbayes.serve.page import page_html

        return HTMLResponse(page_html()), 0

    async def fold_if_due() -> None:
        loop = asyncio.get_running_loop()

        def job() -> None:
            try:
                # the updates other workers journaled: an idle worker's /health counted
                # none of them until its next request
                state.refresh()
                state.check_file()  # (a model file replaced while served)
                if state.fold_due():
                    fold = state.begin_fold()
                    if fold is not None:
                        folds.launch(fold, loop)
            finally:
                state.publish()

        await runner.write(job)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def housekeeping() -> None:
            while True:
                await asyncio.sleep(1.0)
                if watch is not None and watch():
                    return
                try:
                    await fold_if_due()
                except Exception:  # never stops the timed folds: logged, tried again
                    log.exception("nbayes serve: a timed fold failed")

        task = asyncio.get_running_loop().create_task(housekeeping())
        if token is not None or not writes_need_token:  # this server may take updates
            state.preload()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            task.cancel()
            runner.stop()

            async def close() -> None:
                await folds.wait()  # (a fold under way ends first)
                await runner.write(lambda: state.close(not runner.dirty))

            try:  # fold what is journaled; if it cannot run soon, the journal keeps it
                # (after a stopped request the model in memory is not folded: the journal
                # keeps the updates, replayed at the next start)
                await asyncio.wait_for(close(), 20.0)
            except Exception:
                log.exception(
                    "nbayes serve: the fold at shutdown did not finish; the journal keeps "
                    "the updates (the next start replays them)"
                )
            runner.close()

    routes = [
        Route("/", endpoint("/", page), methods=["GET"]),
        Route("/health", endpoint("/health", health), methods=["GET"]),
        Route("/info", endpoint("/info", info), methods=["GET"]),
        Route("/metrics", endpoint("/metrics", metrics_page), methods=["GET"]),
        Route("/predict", endpoint("/predict", predict), methods=["POST"]),
        Route("/explain", endpoint("/explain", explain), methods=["POST"]),
        Route("/filter", endpoint("/filter", filter_), methods=["POST"]),
        Route("/update", endpoint("/update", writer("update")), methods=["POST"]),
        Route("/forget", endpoint("/forget", writer("forget")), methods=["POST"]),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        message = (
            f"No {request.url.path!r} here: the endpoints are GET /, /health, /info, "
            "/metrics and POST /predict, /explain, /filter, /update, /forget."
            if status == 404
            else f"{request.method} is not allowed on {request.url.path!r}."
        )
        response = _json({"error": message}, status)
        response.headers.update(getattr(exc, "headers", None) or {})  # Allow, for a 405
        return response

    app = Starlette(
        routes=routes, lifespan=lifespan, exception_handlers={404: not_found, 405: not_found}
    )
    app.state.metrics = metrics
    app.state.runner = runner
    app.state.folds = folds
    app.state.budget = budget
    return app
