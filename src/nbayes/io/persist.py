"""Save and load fitted models: one safe file, no pickle, statistics included.

:func:`save` writes a fitted estimator to one model file (the container of
:mod:`nbayes.io._modelfile`: JSON metadata plus raw numeric arrays, written atomically) and
:func:`load` rebuilds it. The file holds the hyperparameters, the classes, the feature names
and the **sufficient statistics** themselves, so a loaded model predicts exactly as the saved
one did and can still be updated, unlearned and merged.

Metadata layout (``schema_version`` 1, 2 or 3), inside the container's ``"metadata"`` object::

    {"nbayes_version": "0.1.0",          # the nbayes that wrote the file (informative)
     "schema_version": 1,                # the layout of this metadata (checked)
     "model_type": "MultinomialNB",      # selects the (de)serialiser in the registry
     "model": {...}}                     # the serialiser's own JSON

Each model type's ``"model"`` JSON and arrays are described by its serialiser, one module
per kind of model under :mod:`nbayes.io.serializers` (listed, by model type, in
:data:`nbayes.io._registry.BUILTIN`). Hyperparameter arrays (``alpha``, ``class_prior``,
...) are tagged JSON lists: ``{"type": "ndarray", "dtype": "float64", "values": [...]}``
(or ``"list"``/``"tuple"``), so their type round-trips (:mod:`nbayes.io._codecs`).

Loading checks everything before building the model: the model type is registered, the
hyperparameters are the estimator's own and valid (its ``_check_params``), the classes are of
a known type, unique and sorted, every array has the expected dtype and a shape consistent
with the metadata, counts are finite and non-negative, the statistics keep the invariants
every fit keeps (:mod:`nbayes.io._invariants`), no array is left unused. Any failure is a
:class:`~nbayes.exceptions.ModelFileError` naming the file and what is wrong.

A hyperparameter that is a function is stored as its import reference and taken, at load,
from ``functions={"module.qualname": function}`` (:mod:`nbayes.io._functions`); the user's
guide to all of this is ``docs/persistence.md``.

This module is also what a serialiser of another model type is written with:
:func:`register` plugs it in; its ``dump`` function writes JSON and arrays through an
:class:`ArrayWriter`, its ``load`` function reads them back through an
:class:`ArrayReader` (which checks dtypes and shapes) and the ``expect_*`` checks; nested
estimators are stored with :func:`encode` / :func:`decode` under a prefix. Reading a file
imports numpy and the standard library only; a serialiser, and with it its estimator and
scikit-learn, is imported when a model of its type is built.

Examples
--------
>>> import os, tempfile
>>> from nbayes import MultinomialNB
>>> clf = MultinomialNB().fit([[2, 0, 1], [0, 3, 1]], ["spam", "ham"])
>>> path = os.path.join(tempfile.mkdtemp(), "spam.nbayes")
>>> save(clf, path)
>>> clf2 = load(path)
>>> clf2.predict([[3, 0, 0]]), clf2.feature_count_
(array(['spam'], dtype='<U4'), array([[0., 3., 1.],
       [2., 0., 1.]]))
>>> clf2.update([[1, 0, 0]], ["spam"]).class_count_   # still a live model
array([1., 2.])
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io import _json
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import (
    decode_categories,
    decode_labels,
    decode_param,
    encode_categories,
    encode_labels,
    encode_param,
)
from nbayes.io._functions import check_functions, functions_given
from nbayes.io._json import *  # noqa: F403  (re-exported, see __all__)
from nbayes.io._json import _show, expect_dict, expect_int, expect_str
from nbayes.io._modelfile import MAGIC, read_model_file, read_model_header, write_model_file
from nbayes.io._registry import (
    Serializer,
    decode,
    encode,
    encode_later,
    register,
    registered_types,
)

if TYPE_CHECKING:
    from nbayes.text.scoring import TextScorer

__all__ = [
    "SCHEMA_VERSION",
    "ArrayReader",
    "ArrayWriter",
    "Serializer",
    "decode",
    "decode_categories",
    "decode_labels",
    "decode_param",
    "encode",
    "encode_categories",
    "encode_labels",
    "encode_param",
    "is_model_file",
    "load",
    "load_scorer",
    "model_type",
    "read_metadata",
    "register",
    "registered_types",
    "save",
    "snapshot",
    "write_model",
]
__all__ += _json.__all__  # the checks every (de)serialiser reads its JSON through

SCHEMA_VERSION: int = 3
"""The newest version of the metadata layout this nbayes reads (it reads every version
from 1). A file is written with the oldest version that describes it
(:meth:`ArrayWriter.require_schema`): 2 for a text model's packed vocabulary (its terms
as UTF-8 bytes and offsets, arrays ``vocabulary/bytes`` and ``vocabulary/offsets``, where
version 1 had a JSON list), 3 for a MixedNB that keeps what its columns' families were
inferred from (``input.evidence``, :mod:`nbayes.io.serializers.mixed`), 1 otherwise, so
that an older nbayes refuses a file it would misread or learn into wrongly ("upgrade
nbayes") and still reads every other file."""

_TOP_KEYS = frozenset({"nbayes_version", "schema_version", "model_type", "model"})


def _nbayes_version() -> str:
    from nbayes import __version__

    return str(__version__)


def save(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted model to ``path`` atomically (one file, no pickle).

    Parameters
    ----------
    model : estimator
        A fitted nbayes estimator (or a registered model type).
    path : str or os.PathLike
        Destination; an existing file is replaced only once the new one is complete.

    Raises
    ------
    TypeError
        If the model type has no serialiser.
    ValueError
        If the model is not fitted or holds something a model file cannot store.
    OSError
        If the file cannot be written (an existing file is then left untouched).
    """
    writer = ArrayWriter()
    encoded = encode(model, writer)
    write_model(path, encoded["model_type"], encoded["model"], writer)


def snapshot(model: Any) -> Callable[[BinaryIO], None]:
    """The file :func:`save` would write of ``model`` now, written later: a function that
    writes its bytes into an open binary file (from its position; no ``fsync``, no
    rename: its caller owns the file), from any thread, while the model goes on changing.

    What the file needs is taken at this call, as copies (a spam filter's tokens with a
    count, packed, and their counts: ~30 ms for 700k tokens; any other model's arrays);
    the rest (a spam filter's hashing and sorting of its tokens, the writing) is the
    function's. ``nbayes serve`` folds so: the model is read on the model's thread for a
    moment, and written beside the threads that answer. Raises what :func:`save` raises
    of a model it cannot write (at this call, or from the function)."""
    from nbayes.io._modelfile.writing import write_model_stream

    later = encode_later(model)

    def write(f: BinaryIO) -> None:
        writer = ArrayWriter()
        encoded = later(writer)
        metadata = {
            "nbayes_version": _nbayes_version(),
            "schema_version": writer.schema_version,
            "model_type": encoded["model_type"],
            "model": encoded["model"],
        }
        write_model_stream(f, metadata, writer.store)

    return write


def write_model(
    path: str | os.PathLike[str], model_type: str, model: dict[str, Any], writer: ArrayWriter
) -> None:
    """Write the model file of ``model_type`` whose ``metadata['model']`` is ``model`` and
    whose arrays ``writer`` holds (atomically: :func:`save`'s last step, shared by the
    writers that make a model file without its estimator)."""
    metadata = {
        "nbayes_version": _nbayes_version(),
        "schema_version": writer.schema_version,
        "model_type": model_type,
        "model": model,
    }
    write_model_file(path, metadata, writer.store)
    from nbayes.io.pending import discard

    discard(path)  # (a spam filter's log of pending messages is stale now)


def save_text_statistics(params: dict[str, Any], stats: Any, path: str | os.PathLike[str]) -> None:
    """Write the model file of a TextClassifier of hyperparameters ``params`` and
    statistics ``stats`` (a :class:`~nbayes.text.TextStats`), atomically: the file
    :func:`save` writes of that fitted TextClassifier, without the estimator (whose base
    classes import scikit-learn): ``nbayes train`` of a text model
    (:mod:`nbayes.text._lean`)."""
    from nbayes.io._text_model import write_text_statistics

    writer = ArrayWriter()
    write_model(path, "TextClassifier", write_text_statistics(params, stats, writer), writer)


def load_text_statistics(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Any], Any, Any] | None:
    """``(hyperparameters, statistics, terms)`` of the TextClassifier in the model file
    ``path``, read without building the estimator (``nbayes update`` and ``forget`` of a
    text model, :class:`nbayes.text.TextSettings`); None if the file holds another model.
    Refuses (ModelFileError) what :func:`load` refuses of a TextClassifier's file: both
    read it with :func:`nbayes.io._text_model.read_text_model`."""
    from nbayes.io._text_model import read_text_model

    metadata, arrays = read_metadata(path)
    if metadata["model_type"] != "TextClassifier":
        return None
    reader = ArrayReader(arrays)
    with _reading(path, reader):
        model = expect_dict(metadata["model"], "metadata['model']")
        params, stats, terms = read_text_model(model, reader)
    return params, stats, terms


def is_model_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file that starts as every nbayes model file does (its magic
    bytes; the rest is checked by :func:`load`). False for folders, missing or unreadable
    files and any other file (a CSV, a pickle, ...).

    >>> is_model_file(__file__)
    False
    """
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def model_type(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> str:
    """The model type a model file's header names (``"TextClassifier"``, ``"NBSVM"``, ...),
    read without its arrays: to choose between :func:`load_scorer` and :func:`load` without
    reading a large file twice. Nothing else of the file is checked until it is loaded.

    Raises
    ------
    ModelFileError
        If the file's header is not that of a model file this nbayes reads.
    """
    metadata = read_model_header(path, max_bytes=max_bytes)
    try:
        _check_top(metadata)
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {os.fspath(path)!r}: {exc}") from None
    kind: str = metadata["model_type"]
    return kind


def read_metadata(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checked top-level metadata and the arrays of a model file, without building it.

    Raises
    ------
    ModelFileError
        If the file is not a readable model file of a schema this nbayes knows.
    """
    metadata, arrays = read_model_file(path, max_bytes=max_bytes)
    try:
        _check_top(metadata)
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {os.fspath(path)!r}: {exc}") from None
    return metadata, arrays


def _check_top(metadata: dict[str, Any]) -> None:
    version = metadata.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise ModelFileError(
            f"it uses model schema version {version}, but this nbayes "
            f"({_nbayes_version()}) reads versions up to {SCHEMA_VERSION}; upgrade nbayes "
            f"(the file was written by nbayes {_show(metadata.get('nbayes_version'))})"
        )
    expect_dict(metadata, "metadata", _TOP_KEYS)
    expect_int(metadata["schema_version"], "metadata['schema_version']", 1, SCHEMA_VERSION)
    expect_str(metadata["nbayes_version"], "metadata['nbayes_version']")
    expect_str(metadata["model_type"], "metadata['model_type']")
    expect_dict(metadata["model"], "metadata['model']")


# Set to False by the tests so that an exception escaping the explicit checks fails loudly.
_WRAP_UNEXPECTED = True


@contextmanager
def _reading(path: str | os.PathLike[str], reader: ArrayReader) -> Iterator[None]:
    """What loading says of a file it cannot read, the same for every reader of model
    files: ModelFileError naming the file, also for arrays no model reads and (a safety
    net: a hostile file must only raise ModelFileError) for any other exception."""
    where = os.fspath(path)
    try:
        yield
        unused = reader.unused()
        if unused:
            raise ModelFileError(f"it holds arrays no model reads: {_show(unused)}")
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {where!r}: {exc}") from None
    except Exception as exc:
        if not _WRAP_UNEXPECTED:
            raise
        raise ModelFileError(
            f"Cannot load the model file {where!r}: its content is inconsistent "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def load(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    functions: Mapping[str, Callable[..., Any]] | None = None,
) -> Any:
    """Read a model written by :func:`save`.

    Parameters
    ----------
    path : str or os.PathLike
    max_bytes : int, optional
        Refuse files larger than this (a guard against unexpectedly large inputs).
    functions : dict, optional
        The functions the model's hyperparameters name, by ``"module.qualname"``: a model
        saved with ``TextClassifier(preprocess=clean)`` (``clean`` defined in
        ``mymodule``) loads with ``functions={"mymodule.clean": clean}``. A model file
        stores a function's name, never its code, and nothing it names is imported
        (except nbayes's own recipes of :mod:`nbayes.text.recipes`).

    Returns
    -------
    estimator
        A fitted model, equal in statistics, hyperparameters and predictions to the one saved
        (a SpamFilter with the messages registered since, which its log ``path.pending``
        holds, learnt: :mod:`nbayes.io.pending`).

    Raises
    ------
    ModelFileError
        For every problem: missing, truncated, corrupted or hand-edited file, unknown model
        type, invalid hyperparameters, inconsistent shapes, negative or non-finite counts,
        or a file of a newer format or schema version (the message says which version);
        also when a hyperparameter is a function not given in ``functions`` (the message
        says how to pass it).
    TypeError
        If ``functions`` is not a dict of strings to callables.
    """
    from nbayes.io.pending import read_pending, snapshot

    given = check_functions(functions)
    log = snapshot(path)  # (a spam filter's, before the file: see nbayes.io.pending)
    metadata, arrays = read_metadata(path, max_bytes=max_bytes)
    reader = ArrayReader(arrays)
    with _reading(path, reader), functions_given(given):
        model = decode({"model_type": metadata["model_type"], "model": metadata["model"]}, reader)
    if log:  # a spam filter's messages registered since it was written
        from nbayes.spam import SpamFilter

        if isinstance(model, SpamFilter):
            read_pending(path, arrays.identity, log).learn_into(model)  # type: ignore[attr-defined]
    return model


def load_scorer(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    functions: Mapping[str, Callable[..., Any]] | None = None,
) -> TextScorer | None:
    """The :class:`TextScorer` of the TextClassifier saved at ``path``, built from its
    statistics without constructing the estimator (nor importing scikit-learn).

    Returns None when the file holds another model type this nbayes knows (load it with
    :func:`nbayes.load`). A file that :func:`nbayes.load` rejects is rejected the same
    way; ``max_bytes`` and ``functions`` are those of :func:`nbayes.load`.

    Raises
    ------
    ModelFileError
        If the file is not a valid model file, or holds a model type unknown to this
        nbayes (as :func:`nbayes.load` says).
    """
    from nbayes.io._text_model import read_text_model
    from nbayes.text.scoring import TextScorer, keeps_no_term

    given = check_functions(functions)
    metadata, arrays = read_metadata(path, max_bytes=max_bytes)
    if metadata["model_type"] != "TextClassifier":
        if metadata["model_type"] not in registered_types():  # as nbayes.load refuses it
            raise ModelFileError(
                f"Cannot load the model file {os.fspath(path)!r}: the model type "
                f"{_show(metadata['model_type'])} is unknown to this nbayes (it knows "
                f"{', '.join(registered_types())}); it may need a newer nbayes"
            )
        return None
    reader = ArrayReader(arrays)
    with _reading(path, reader):
        model = expect_dict(metadata["model"], "metadata['model']")
        with functions_given(given):
            params, stats, terms = read_text_model(model, reader)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                scorer = TextScorer.from_statistics(stats, terms, params)
            except (ValueError, TypeError) as exc:
                if keeps_no_term(exc):  # (a sound model, too young)
                    raise ModelFileError(
                        f"it keeps no term yet, so it cannot predict ({exc}: its min_df is "
                        f"more documents than the {stats.n_docs:,} it has learnt, or its "
                        "max_df fewer); nbayes.load reads it to learn more"
                    ) from None
                raise ModelFileError(
                    f"the hyperparameters do not fit the statistics: {exc}"
                ) from None
    scorer._pending = list(caught)
    return scorer
