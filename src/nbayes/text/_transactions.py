"""All-or-nothing learning calls: a call that fails leaves the estimator as it was.

Every learning call of the text estimators (``fit``, ``partial_fit``, ``update``,
``unlearn``, ``merge``, ``fit_chunks``, ``fit_files`` of
:class:`~nbayes.text.TextClassifier`; ``fit``/``fit_transform`` of
:class:`~nbayes.text.CountVectorizer`) validates everything before it installs new
statistics, and runs inside :func:`all_or_nothing`, so that a check that can only be made
on the new statistics (a pruning that leaves no term, scikit-learn's fit-time error) or an
interruption (Ctrl-C in a long count) restores the estimator's attributes exactly: a
fitted model stays the fitted model it was, an unfitted one stays unfitted. The
statistics are never changed in place (each call makes new ones), so restoring the
attributes restores the model.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["all_or_nothing", "transactional"]


@contextmanager
def all_or_nothing(est: Any) -> Iterator[None]:
    """Run a learning call on ``est``; if it raises, put back every attribute of ``est``
    as it was before the call (and re-raise)."""
    saved = dict(est.__dict__)
    try:
        yield
    except BaseException:
        est.__dict__.clear()
        est.__dict__.update(saved)
        raise


def transactional(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (of the estimator it is called on) run :func:`all_or_nothing`."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with all_or_nothing(self):
            return method(self, *args, **kwargs)

    return run
