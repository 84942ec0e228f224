"""The HTTP service: a Starlette application around a :class:`ModelState`.

Routes: ``GET /`` (the page), ``GET /health``, ``GET /info``, ``GET /metrics``,
``POST /predict``, ``POST /explain``, ``POST /update``, ``POST /forget``. Every handler
runs on the event loop's thread (none awaits between reading the model and answering),
so requests see the model whole. Errors are JSON ``{"error": ..., "field": ...}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from nbayes.serve import answers
from nbayes.serve.inputs import ApiError, check_fields, flag_of, parse_json, text_of, top_of
from nbayes.serve.metrics import Metrics
from nbayes.serve.state import ModelState

__all__ = ["DEFAULT_MAX_BODY", "create_app"]

#: the default request body limit, in bytes
DEFAULT_MAX_BODY = 10 * 1024 * 1024

Handler = Callable[[Request], Awaitable[Response]]


def _json(value: Any, status: int = 200) -> Response:
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Response(body, status_code=status, media_type="application/json")


async def _body(request: Request, limit: int) -> dict[str, Any]:
    """The JSON object of the request, read up to ``limit`` bytes (413 beyond)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise ApiError(400, "The Content-Length header is not a number.")
        if int(length) > limit:
            raise ApiError(413, f"The body is over the limit of {limit:,} bytes.")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"The body is over the limit of {limit:,} bytes.")
        chunks.append(chunk)
    return parse_json(b"".join(chunks))


def create_app(
    state: ModelState,
    *,
    token: str | None = None,
    writes_need_token: bool = False,
    max_body: int = DEFAULT_MAX_BODY,
    on_ready: Callable[[], None] | None = None,
    watch: Callable[[], bool] | None = None,
) -> Starlette:
    """The ASGI application serving ``state``.

    Parameters
    ----------
    token : str, optional
        ``/update`` and ``/forget`` need ``Authorization: Bearer TOKEN``.
    writes_need_token : bool
        Refuse writes without a (matching) token even when ``token`` is None (a server on
        a non-loopback address started without one: writes are then off).
    max_body : int
        Largest request body accepted, in bytes (413 beyond).
    on_ready : callable, optional
        Called once the application has started.
    watch : callable, optional
        Called every second; when it returns True the server should stop (the worker
        of a supervisor that died).
    """
    metrics = Metrics()
    metrics.gauge(
        "nbayes_journal_pending", "Updates journaled and not yet folded into the model file.",
        lambda: state.journal.pending,
    )  # fmt: skip
    metrics.gauge("nbayes_folds_total", "Folds of the journal into the model file.",
                  lambda: state.folds)  # fmt: skip

    def endpoint(name: str, fn: Callable[[Request], Awaitable[tuple[Response, int]]]) -> Handler:
        async def handle(request: Request) -> Response:
            start = time.perf_counter()
            docs = 0
            try:
                state.refresh()
                response, docs = await fn(request)
            except ApiError as exc:
                response = _json(exc.body(), exc.status)
                if exc.status == 413:
                    response.headers["connection"] = "close"
            metrics.observe(name, request.method, response.status_code,
                            time.perf_counter() - start, docs)  # fmt: skip
            return response

        return handle

    async def health(request: Request) -> tuple[Response, int]:
        return _json({
            "status": "ok", "model": os.path.basename(state.path), "classes": len(state.classes),
            "updates": state.updates, "journal_pending": state.journal.pending,
        }), 0  # fmt: skip

    async def info(request: Request) -> tuple[Response, int]:
        return _json(state.info()), 0

    async def predict(request: Request) -> tuple[Response, int]:
        body = await _body(request, max_body)
        check_fields(body, ("texts", "rows", "top"))
        top = top_of(body, len(state.classes))
        X, _, _ = state.inputs(body)
        if len(X) == 0:
            return _json({"predictions": []}), 0
        try:
            preds = answers.predictions(state.model, X, top)
        except (ValueError, TypeError) as exc:
            field = "texts" if state.text else "rows"
            raise ApiError(422, f"{field}: {exc}", field) from None
        return _json({"predictions": preds}), len(X)

    async def explain(request: Request) -> tuple[Response, int]:
        body = await _body(request, max_body)
        exact = flag_of(body, "exact")
        if state.text:
            check_fields(body, ("text", "exact"))
            text = text_of(body)
            x: Any = text
        else:
            check_fields(body, ("row", "exact"))
            assert state.table is not None
            text = None
            x = state.table.row(body, "row")
        try:
            out = answers.explanation(state.model, x, exact, text)
        except (ValueError, TypeError) as exc:
            field = "text" if state.text else "row"
            raise ApiError(422, f"{field}: {exc}", field) from None
        return _json(out), 1

    def authorize(request: Request) -> None:
        if token is None and not writes_need_token:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if token is None:
            raise ApiError(401, "This server takes no updates: it listens beyond loopback and "
                           "was started without --token.")  # fmt: skip
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(),
                                                                 token.encode()):  # fmt: skip
            raise ApiError(401, "Updates need the header 'Authorization: Bearer TOKEN' with the "
                           "server's --token.")  # fmt: skip

    def writer(op: str) -> Callable[[Request], Awaitable[tuple[Response, int]]]:
        async def write(request: Request) -> tuple[Response, int]:
            authorize(request)
            body = await _body(request, max_body)
            check_fields(body, ("texts", "rows", "labels"))
            n = state.write(op, body)
            return _json({"status": "ok", "learned" if op == "update" else "forgot": n,
                          "classes": state.class_counts()}), n  # fmt: skip

        return write

    async def metrics_page(request: Request) -> tuple[Response, int]:
        return PlainTextResponse(metrics.render(), media_type="text/plain; version=0.0.4"), 0

    async def page(request: Request) -> tuple[Response, int]:
        from nbayes.serve.page import page_html

        return HTMLResponse(page_html()), 0

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def housekeeping() -> None:
            while True:
                await asyncio.sleep(1.0)
                if watch is not None and watch():
                    return
                if state.fold_due():
                    state.fold()

        task = asyncio.get_running_loop().create_task(housekeeping())
        if token is not None or not writes_need_token:  # this server may take updates
            state.preload()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            task.cancel()
            state.close()

    routes = [
        Route("/", endpoint("/", page), methods=["GET"]),
        Route("/health", endpoint("/health", health), methods=["GET"]),
        Route("/info", endpoint("/info", info), methods=["GET"]),
        Route("/metrics", endpoint("/metrics", metrics_page), methods=["GET"]),
        Route("/predict", endpoint("/predict", predict), methods=["POST"]),
        Route("/explain", endpoint("/explain", explain), methods=["POST"]),
        Route("/update", endpoint("/update", writer("update")), methods=["POST"]),
        Route("/forget", endpoint("/forget", writer("forget")), methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.metrics = metrics
    return app
