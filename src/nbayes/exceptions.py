"""Warnings and errors raised by nbayes."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ColumnFamiliesError",
    "DecodingWarning",
    "InvalidParameterError",
    "ModelFileError",
    "NBayesWarning",
    "PathAsTextWarning",
    "SkippedRowsWarning",
    "UndecidableWarning",
    "invalid_parameter",
]


class NBayesWarning(UserWarning):
    """Base class of the warnings nbayes emits."""


class UndecidableWarning(NBayesWarning):
    """Every class has zero probability for some rows: the posterior is undefined there.

    This happens with unsmoothed (``alpha=0``) estimates when a row shows a
    feature value that no class has seen (or, for Bernoulli, misses one that
    every example of a class had). ``predict_proba`` returns NaN for those rows
    and ``predict`` falls back to the class with the highest prior.
    """


class DecodingWarning(NBayesWarning):
    """Some input bytes were not valid UTF-8 and were replaced by U+FFFD."""


class SkippedRowsWarning(NBayesWarning):
    """``read_texts(..., bad_rows="skip")`` skipped rows (one warning per call, naming the
    first few; none when ``on_bad_row`` is given: it is told of each)."""


class PathAsTextWarning(NBayesWarning):
    """A message given as a str names a file: a str is a message's text, not a path
    (``pathlib.Path`` reads the file). ``nbayes serve`` ignores it: its clients' texts
    are texts."""


class ColumnFamiliesError(ValueError):
    """Two MixedNB models' columns or families differ, so they cannot be merged (a
    partition of a Dask fit that inferred other families than another). ``mine`` and
    ``theirs``: each model's column -> family; with ``together``, ``mine`` are the families
    the models share, ``theirs`` those their rows together would get (codes 0-9 in one
    model, 1-10 in another: 11 values, counts)."""

    def __init__(
        self, message: str, mine: dict[str, str], theirs: dict[str, str], together: bool = False
    ) -> None:
        super().__init__(message)
        self.mine, self.theirs, self.together = mine, theirs, together

    def changed(self) -> list[str]:
        """The columns both name whose families differ.

        >>> ColumnFamiliesError("", {"k": "categorical"}, {"k": "poisson"}).changed()
        ['k']
        """
        return [c for c in self.mine if c in self.theirs and self.mine[c] != self.theirs[c]]

    def changes(self) -> str:
        """Each changed column's family in ``theirs``, not in ``mine``, in words.

        >>> ColumnFamiliesError("", {"k": "categorical"}, {"k": "poisson"}).changes()
        "'k' poisson, not categorical"
        """
        return ", ".join(f"{c!r} {self.theirs[c]}, not {self.mine[c]}" for c in self.changed())

    def __reduce__(self) -> tuple[Any, ...]:
        # (its attributes travel with it, from a Dask worker to the client)
        return (type(self), (str(self), self.mine, self.theirs, self.together))


class ModelFileError(ValueError):
    """A model file is missing, truncated, corrupted, hostile or of an unknown version."""


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter has the wrong type or value (raised by ``fit``, as in scikit-learn).

    Besides scikit-learn's message it carries what a front end needs to say the same in its
    own words, without reading the message: ``param`` (the parameter's name), ``value`` (the
    value refused) and ``accepted`` (each accepted form in plain words, e.g. ``"a number >=
    0"``; forms that no command line can give, such as None or an array, are left out).
    They are None where the raiser did not say (an error raised with a message only).

    >>> error = InvalidParameterError("bad", param="alpha", value=-1.0, accepted=["a number >= 0"])
    >>> error.param, error.value, error.accepted
    ('alpha', -1.0, ('a number >= 0',))
    >>> import pickle
    >>> pickle.loads(pickle.dumps(error)).accepted
    ('a number >= 0',)
    """

    def __init__(
        self,
        *args: object,
        param: str | None = None,
        value: object = None,
        accepted: Sequence[str] | None = None,
    ) -> None:
        super().__init__(*args)
        self.param = param
        self.value = value
        self.accepted = None if accepted is None else tuple(accepted)

    def __reduce__(self) -> tuple[object, ...]:  # the fields survive a pickle (Dask workers)
        fields = {"param": self.param, "value": self.value, "accepted": self.accepted}
        return (_rebuild_parameter_error, (self.args, fields))


def _rebuild_parameter_error(
    args: tuple[object, ...], fields: dict[str, Any]
) -> InvalidParameterError:
    return invalid_parameter(*args, **fields)


def invalid_parameter(
    *args: object,
    param: str | None = None,
    value: object = None,
    accepted: Sequence[str] | None = None,
) -> InvalidParameterError:
    """An :class:`InvalidParameterError` that is also scikit-learn's where scikit-learn is
    loaded (every drop-in loads it; the lean text scorer does not): code written for
    scikit-learn, ``except sklearn.utils._param_validation.InvalidParameterError`` (its own
    tests' ``pytest.raises``), catches nbayes's as it catches scikit-learn's.

    >>> import sklearn.base
    >>> from sklearn.utils._param_validation import InvalidParameterError as Theirs
    >>> isinstance(invalid_parameter("bad", param="alpha"), (Theirs, InvalidParameterError))
    True
    """
    return _parameter_error_class()(*args, param=param, value=value, accepted=accepted)


_BOTH: dict[type, type[InvalidParameterError]] = {}


def _parameter_error_class() -> type[InvalidParameterError]:
    module = sys.modules.get("sklearn.utils._param_validation")
    theirs = getattr(module, "InvalidParameterError", None)
    if not isinstance(theirs, type) or not issubclass(theirs, Exception):
        return InvalidParameterError
    both = _BOTH.get(theirs)
    if both is None:
        both = type(
            "InvalidParameterError",
            (InvalidParameterError, theirs),
            {"__module__": __name__, "__doc__": InvalidParameterError.__doc__},
        )
        _BOTH[theirs] = both
    return both
