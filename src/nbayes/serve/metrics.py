"""Request counts and latency histograms, written in the Prometheus text format.

Each worker process counts its own requests; with ``--workers N`` a scrape of
``/metrics`` reaches one of them (the ``worker`` label says which, by process id).

Examples
--------
>>> m = Metrics()
>>> m.observe("/predict", "POST", 200, 0.0012, documents=1)
>>> text = m.render()
>>> 'nbayes_requests_total{endpoint="/predict",method="POST",status="200"' in text
True
>>> 'nbayes_request_duration_seconds_bucket{endpoint="/predict",le="0.0025"' in text
True
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable

__all__ = ["BUCKETS", "Metrics", "count_rejected"]

#: requests the HTTP layer answered before any endpoint, by status (431: a head over the
#: bound; 400: not HTTP): counted for the process, whichever app serves it
_REJECTED: dict[int, int] = {}


def count_rejected(status: int) -> None:
    """Count a request the HTTP layer refused itself (``nbayes_rejected_requests_total``)."""
    _REJECTED[status] = _REJECTED.get(status, 0) + 1


#: latency histogram bounds, in seconds
BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
)  # fmt: skip


class _Histogram:
    __slots__ = ("counts", "total", "n")

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.total = 0.0
        self.n = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds
        self.n += 1


class Metrics:
    """Counters and histograms of one process (the event loop's thread updates them)."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, str, int], int] = {}
        self.latency: dict[str, _Histogram] = {}
        self.documents: dict[str, int] = {}
        self.gauges: dict[str, tuple[str, Callable[[], float]]] = {}

    def observe(
        self, endpoint: str, method: str, status: int, seconds: float, documents: int = 0
    ) -> None:
        key = (endpoint, method, status)
        self.requests[key] = self.requests.get(key, 0) + 1
        hist = self.latency.get(endpoint)
        if hist is None:
            hist = self.latency[endpoint] = _Histogram()
        hist.observe(seconds)
        if documents:
            self.documents[endpoint] = self.documents.get(endpoint, 0) + documents

    def gauge(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        """A value read at each scrape (e.g. the journal's unfolded updates)."""
        self.gauges[name] = (help_text, read)

    def render(self) -> str:
        worker = f'worker="{os.getpid()}"'
        out = [
            "# HELP nbayes_requests_total Requests answered, by endpoint, method and status.",
            "# TYPE nbayes_requests_total counter",
        ]
        for (endpoint, method, status), n in sorted(self.requests.items()):
            out.append(
                f'nbayes_requests_total{{endpoint="{endpoint}",method="{method}",'
                f'status="{status}",{worker}}} {n}'
            )
        out += [
            "# HELP nbayes_request_duration_seconds Time to answer a request, by endpoint.",
            "# TYPE nbayes_request_duration_seconds histogram",
        ]
        for endpoint, hist in sorted(self.latency.items()):
            cumulative = 0
            labels = f'endpoint="{endpoint}"'
            for bound, n in zip((*BUCKETS, float("inf")), hist.counts, strict=True):
                cumulative += n
                le = "+Inf" if bound == float("inf") else repr(bound)
                out.append(
                    f'nbayes_request_duration_seconds_bucket{{{labels},le="{le}",{worker}}} '
                    f"{cumulative}"
                )
            out.append(f"nbayes_request_duration_seconds_sum{{{labels},{worker}}} {hist.total!r}")
            out.append(f"nbayes_request_duration_seconds_count{{{labels},{worker}}} {hist.n}")
        out += [
            "# HELP nbayes_documents_total Documents (or rows) in the requests, by endpoint.",
            "# TYPE nbayes_documents_total counter",
        ]
        for endpoint, n in sorted(self.documents.items()):
            out.append(f'nbayes_documents_total{{endpoint="{endpoint}",{worker}}} {n}')
        out += [
            "# HELP nbayes_rejected_requests_total Requests refused before any endpoint, by "
            "status (431: a request line and headers over the bound; 400: not HTTP).",
            "# TYPE nbayes_rejected_requests_total counter",
        ]
        for status, n in sorted(_REJECTED.items()):
            out.append(f'nbayes_rejected_requests_total{{status="{status}",{worker}}} {n}')
        for name, (help_text, read) in sorted(self.gauges.items()):
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name}{{{worker}}} "
                    f"{float(read())!r}"]  # fmt: skip
        return "\n".join(out) + "\n"
