"""Which (de)serialiser writes and reads each model type: the one table of model kinds.

:data:`BUILTIN` lists every model type nbayes itself saves, each with the function that
imports its serialiser module (under :mod:`nbayes.io.serializers`) by a plain ``from ...
import`` statement. A module is imported when a file of its type is first read or a model
of its type first saved, never before: the serialisers import their estimators, and so
scikit-learn, which reading a file's metadata or scoring a text model
(:func:`nbayes.load_scorer`) must not.

:func:`register` adds a serialiser for another model type (or replaces one); the estimator
a registered kind declares (:mod:`nbayes._families.kinds`) gets one from its codec;
:func:`encode` and :func:`decode` write and read a model through whichever serialiser
handles it, also for an estimator nested inside another (under a prefix of its arrays).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._json import _fail, _show, expect_dict, expect_str

__all__ = [
    "BUILTIN",
    "Serializer",
    "decode",
    "encode",
    "encode_later",
    "register",
    "registered_types",
]

DumpFn = Callable[[Any, ArrayWriter], dict[str, Any]]
LoadFn = Callable[[dict[str, Any], ArrayReader], Any]
#: ``dump`` in two steps: ``dump_later(model)`` takes what the file needs of the model now,
#: and the function it returns writes it (``(writer) -> dict``, as ``dump``) later
DumpLaterFn = Callable[[Any], Callable[[ArrayWriter], dict[str, Any]]]


@dataclass(frozen=True)
class Serializer:
    """How one model type is written to and read from a model file.

    Attributes
    ----------
    model_type : str
        The name stored in the file (``metadata["model_type"]``).
    cls : type
        The class of the models it handles (exact type, not subclasses).
    dump : callable ``(model, writer) -> dict``
        Returns the model's JSON and puts its arrays into the :class:`ArrayWriter`.
    load : callable ``(json, reader) -> model``
        Rebuilds the model; raises :class:`~nbayes.exceptions.ModelFileError` for anything
        invalid (the helpers ``expect_*``, :func:`decode_labels`, :meth:`ArrayReader.get`
        do).
    saved_as : callable ``(model) -> model`` or None
        For a wrapper that is saved as the fitted model it holds (a
        :class:`~nbayes.SemiSupervisedNB` as its ``estimator_``): the file is that model's
        own, and loading it gives that model; ``dump`` and ``load`` are then not used.
    dump_later : callable ``(model) -> ((writer) -> dict)`` or None
        ``dump`` in two steps, for :func:`encode_later`: what the file needs of the model,
        taken now (cheaply, as copies the model's later changes do not reach), and a
        function that writes it later, from another thread too (a spam filter's hashing
        and sorting of its tokens). Without it ``dump`` runs at once and its arrays are
        copied.
    """

    model_type: str
    cls: type
    dump: DumpFn
    load: LoadFn
    saved_as: Callable[[Any], Any] | None = None
    dump_later: DumpLaterFn | None = None


# --------------------------------------------------------------------------------------
# the model kinds of nbayes
# --------------------------------------------------------------------------------------


def _discrete() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import discrete

    return discrete.SERIALIZERS


def _gaussian() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import gaussian

    return gaussian.SERIALIZERS


def _categorical() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import categorical

    return categorical.SERIALIZERS


def _kernel() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import kernel

    return kernel.SERIALIZERS


def _mixed() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import mixed

    return mixed.SERIALIZERS


def _text() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import text

    return text.SERIALIZERS


def _nbsvm() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import nbsvm

    return nbsvm.SERIALIZERS


def _spam() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import spam

    return spam.SERIALIZERS


def _semi_supervised() -> tuple[Serializer, ...]:
    from nbayes.io.serializers import semi_supervised

    return semi_supervised.SERIALIZERS


BUILTIN: dict[str, Callable[[], tuple[Serializer, ...]]] = {
    "BernoulliNB": _discrete,
    "ComplementNB": _discrete,
    "MultinomialNB": _discrete,
    "PoissonNB": _discrete,
    "GaussianNB": _gaussian,
    "CategoricalNB": _categorical,
    "KernelNB": _kernel,
    "MixedNB": _mixed,
    "TextClassifier": _text,
    "NBSVM": _nbsvm,
    "SpamFilter": _spam,
    "SemiSupervisedNB": _semi_supervised,  # saved as its estimator_ (an ordinary model file)
}
"""Model type stored in a file -> the function importing the serialisers of its module."""


# --------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------

_REGISTRY: dict[str, Serializer] = {}


def register(model_type: str, cls: type, dump: DumpFn, load: LoadFn) -> None:
    """Register the (de)serialiser of a model type (replacing one of the same name).

    Parameters
    ----------
    model_type : str
        Name stored in model files. For the file to load in a fresh process, the module
        that calls :func:`register` must be imported by then (nbayes's own model types
        are listed in :data:`BUILTIN` and need no call).
    cls : type
    dump, load : callable
        See :class:`Serializer`.
    """
    for existing in list(_REGISTRY.values()):
        if existing.cls is cls and existing.model_type != model_type:
            del _REGISTRY[existing.model_type]
    _REGISTRY[model_type] = Serializer(model_type, cls, dump, load)


def registered_types() -> list[str]:
    """The model types :func:`load` knows (nbayes's own, imported or not, included).

    >>> "GaussianNB" in registered_types()
    True
    """
    return sorted(set(_REGISTRY) | set(BUILTIN))


def _import_builtin(model_type: str) -> None:
    """Register the serialisers of the module of a built-in type (those not registered
    already: a serialiser registered by hand for the same name stays)."""
    for ser in BUILTIN[model_type]():
        _REGISTRY.setdefault(ser.model_type, ser)


def _import_kinds(matches: Callable[[type], bool]) -> None:
    """Register the serialisers of the estimators of registered kinds
    (:mod:`nbayes._families.kinds`) that ``matches`` and no serialiser handles yet."""
    from nbayes._families.kinds import kinds

    for kind in kinds().values():
        cls = kind.estimator
        if cls is not None and matches(cls) and all(s.cls is not cls for s in _REGISTRY.values()):
            from nbayes.io.serializers._kinds import kind_serializer

            ser = kind_serializer(kind)
            _REGISTRY.setdefault(ser.model_type, ser)


def _serializer_for_type(model_type: str) -> Serializer:
    if model_type not in _REGISTRY and model_type in BUILTIN:
        _import_builtin(model_type)
    if model_type not in _REGISTRY:
        _import_kinds(lambda cls: cls.__name__ == model_type)
    if model_type not in _REGISTRY:
        raise _fail(
            f"the model type {_show(model_type)} is unknown to this nbayes (it knows "
            f"{', '.join(registered_types())}); it may need a newer nbayes"
        )
    return _REGISTRY[model_type]


def _registered_for(model: Any) -> Serializer | None:
    for ser in _REGISTRY.values():
        if type(model) is ser.cls:
            return ser
    return None


def _serializer_for_model(model: Any) -> Serializer:
    ser = _registered_for(model)
    if ser is None and type(model).__name__ in BUILTIN:
        _import_builtin(type(model).__name__)
        ser = _registered_for(model)
    if ser is None:
        _import_kinds(lambda cls: cls is type(model))
        ser = _registered_for(model)
    if ser is None:
        sklearn = type(model).__module__.startswith("sklearn.naive_bayes")
        raise TypeError(
            f"Cannot save a {type(model).__module__}.{type(model).__qualname__}: nbayes.save "
            f"handles {', '.join(registered_types())}. "
            + (
                f"Convert it first: nbayes.{type(model).__name__}.from_sklearn(model) (the "
                "same fitted model, as nbayes's)."
                if sklearn
                else "Register a serialiser with nbayes.io.persist.register for other model types."
            )
        )
    return ser


def encode(model: Any, writer: ArrayWriter) -> dict[str, Any]:
    """``{"model_type": ..., "model": ...}`` for ``model``, its arrays put into ``writer``.

    Use it to store a nested estimator: ``encode(inner, writer.sub("estimator"))``.
    """
    ser = _serializer_for_model(model)
    if ser.saved_as is not None:  # a wrapper: the file is that of the model it holds
        return encode(ser.saved_as(model), writer)
    return {"model_type": ser.model_type, "model": ser.dump(model, writer)}


def encode_later(model: Any) -> Callable[[ArrayWriter], dict[str, Any]]:
    """:func:`encode` in two steps: what the model's file needs, taken now, and a function
    that writes it into a writer later, ``{"model_type": ..., "model": ...}`` as
    :func:`encode` returns (the model may change meanwhile, or be changed by another thread
    while it runs: the file is the model as it was at this call). The arrays a serialiser
    without ``dump_later`` puts are copied now, as are those of a nested estimator."""
    import copy

    import numpy as np

    ser = _serializer_for_model(model)
    if ser.saved_as is not None:
        return encode_later(ser.saved_as(model))
    model_type = ser.model_type
    if ser.dump_later is not None:
        later = ser.dump_later(model)
        return lambda writer: {"model_type": model_type, "model": later(writer)}
    taken = ArrayWriter()
    encoded = {"model_type": model_type, "model": copy.deepcopy(ser.dump(model, taken))}
    arrays = {k: np.array(v, copy=True) for k, v in taken.store.items()}

    def write(writer: ArrayWriter) -> dict[str, Any]:
        for key, value in arrays.items():
            writer.put(key, value, value.dtype)
        writer.needs.update(taken.needs)
        return encoded

    return write


def decode(value: Any, reader: ArrayReader, where: str = "metadata") -> Any:
    """Inverse of :func:`encode`: rebuild a (nested) model."""
    d = expect_dict(value, where, ("model_type", "model"))
    model_type = expect_str(d["model_type"], f"{where}['model_type']")
    ser = _serializer_for_type(model_type)
    return ser.load(expect_dict(d["model"], f"{where}['model']"), reader)
