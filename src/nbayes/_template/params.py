"""The estimators' hyperparameters: how a constructor stores them (:func:`hyperparameters`)
and how ``fit`` checks them (never ``__init__``), with scikit-learn's wording."""

from __future__ import annotations

import abc
import dataclasses
import inspect
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, TypeVar, dataclass_transform

import numpy as np

from ..exceptions import invalid_parameter

__all__ = [
    "Rule",
    "array_like",
    "boolean",
    "hyperparameters",
    "non_negative_int",
    "non_negative_real",
    "none",
    "positive_real",
    "same_value",
    "validate",
]


_Estimator = TypeVar("_Estimator", bound=type)

#: a decorated class's scratch dataclass: its hyperparameters, as dataclasses' fields
_SCRATCH = "__nbayes_hyperparameters__"


@dataclass_transform(kw_only_default=True, field_specifiers=(dataclasses.field,))
def hyperparameters(cls: _Estimator) -> _Estimator:
    """Give an estimator class scikit-learn's constructor, written once in its class body.

    Each annotated attribute of the class body is a hyperparameter: ``alpha: float = 1.0``
    makes ``__init__`` take ``alpha=1.0`` by keyword and store it as ``self.alpha``, and
    nothing else (scikit-learn's convention, which ``get_params``, ``set_params`` and
    ``clone`` rely on: no logic and no checks in ``__init__``; :func:`validate` checks the
    values at ``fit``). ``dataclasses.field(kw_only=False)`` makes a leading positional
    one. A subclass keeps its parents' hyperparameters (those of every decorated
    ancestor, a mixin's too, as a dataclass keeps its bases' fields), and adds its own under
    the decorator again. Type checkers read the
    constructor's signature from the annotations (PEP 681).

    :mod:`dataclasses` writes the ``__init__``, for a scratch dataclass with the same
    fields; the estimator takes that method and nothing else: it is not a dataclass (other
    libraries take a dataclass for the value of its fields: Dask would tokenize two models
    fitted with the same hyperparameters alike), has no ``__eq__`` and keeps
    scikit-learn's repr.

    >>> from sklearn.base import BaseEstimator
    >>> @hyperparameters
    ... class Smoother(BaseEstimator):
    ...     alpha: float = 1.0
    ...     fit_prior: bool = True
    >>> Smoother(alpha=0.5)
    Smoother(alpha=0.5)
    >>> Smoother(alpha=0.5).get_params()
    {'alpha': 0.5, 'fit_prior': True}
    """
    body = vars(cls)
    if "__init__" in body:
        raise TypeError(
            f"{cls.__name__} defines __init__ and is decorated with @hyperparameters, which "
            "writes it: declare the hyperparameters as annotated class attributes instead."
        )
    if hasattr(cls, "__post_init__"):  # the written __init__ would never call it
        raise TypeError(
            f"{cls.__name__} defines __post_init__, which the __init__ of @hyperparameters "
            "does not call (scikit-learn's constructors only store their arguments): check "
            "or convert the values at fit, e.g. with nbayes._template.params.validate."
        )
    # the class body's own annotations (read so, they are there on Python 3.14 too, where
    # a module without ``from __future__ import annotations`` defers them)
    annotations = inspect.get_annotations(cls)
    namespace = {
        "__module__": cls.__module__,  # where dataclasses reads string annotations
        "__qualname__": cls.__qualname__,
        "__annotations__": dict(annotations),
        **{name: body[name] for name in annotations if name in body},
    }
    scratch = type(cls.__name__, _inherited(cls), namespace)
    options = {"repr": False, "eq": False, "match_args": False, "kw_only": True}
    scratch = dataclasses.dataclass(**options)(scratch)
    fields = dataclasses.fields(scratch)
    private = [f.name for f in fields if f.name.startswith("_")]
    if private:
        raise TypeError(
            f"{cls.__name__}: annotated class attributes are hyperparameters, and {private} "
            "start with '_'; annotate a private class attribute as ClassVar[...]."
        )
    init = vars(scratch)["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # what a wrong call's error names
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010
    setattr(cls, _SCRATCH, scratch)  # noqa: B010
    for f in fields:  # a field(...) in the class body: its default, as in a dataclass
        if isinstance(body.get(f.name), dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    abc.update_abstractmethods(cls)  # an abstract __init__ (BaseSearchCV's) is written now
    return cls


def _inherited(cls: type) -> tuple[type, ...]:
    """The base of ``cls``'s scratch dataclass: the fields of every decorated ancestor
    (a mixin's as well as an estimator's, not only the nearest's), collected as dataclasses
    collects a dataclass's bases' fields (the MRO from its end, each class with the fields it
    has or inherits, a later one's overriding an earlier one's); none without an ancestor."""
    fields: dict[str, dataclasses.Field[Any]] = {}
    params = None
    for b in cls.__mro__[-1:0:-1]:
        scratch = next((vars(c)[_SCRATCH] for c in b.__mro__ if _SCRATCH in vars(c)), None)
        if scratch is not None:
            fields.update(vars(scratch)["__dataclass_fields__"])
            params = vars(scratch)["__dataclass_params__"]
    if params is None:
        return ()
    namespace = {"__dataclass_fields__": fields, "__dataclass_params__": params}
    return (type(f"{cls.__name__}Inherited", (), namespace),)


class Rule:
    """One accepted form of a parameter: a test, how to say it in an error (``text``, in
    scikit-learn's wording) and in plain words (``words``: what a command line says; ``""``
    for a form no command line can give, such as None or an array; default ``text``)."""

    def __init__(self, test: Callable[[Any], bool], text: str, words: str | None = None) -> None:
        self.test = test
        self.text = text
        self.words = text if words is None else words


def positive_real(text: str = "a float in the range (0.0, inf)") -> Rule:
    """A finite number > 0."""
    return Rule(lambda v: _is_real(v) and v > 0 and np.isfinite(v), text, "a number > 0")


def _is_real(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _is_array_like(v: Any) -> bool:
    # scikit-learn's "array-like" (_is_arraylike_not_scalar): a NumPy scalar, which has
    # __array__, is a scalar, so np.float32(inf) or np.int64(-1) is no way past a range
    return (hasattr(v, "__len__") or hasattr(v, "__array__")) and not np.isscalar(v)


none = Rule(lambda v: v is None, "None", "")
boolean = Rule(lambda v: isinstance(v, bool | np.bool_), "an instance of 'bool'")
array_like = Rule(_is_array_like, "an array-like", "")
non_negative_real = Rule(  # inf is refused, as scikit-learn's Interval refuses it
    lambda v: _is_real(v) and 0 <= v < np.inf, "a float in the range [0.0, inf)", "a number >= 0"
)


def non_negative_int(low: int = 0) -> Rule:
    return Rule(
        lambda v: isinstance(v, Integral) and not isinstance(v, bool) and int(v) >= low,
        f"an int in the range [{low}, inf)",
        f"a whole number >= {low}",
    )


def _either(texts: list[str]) -> str:
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]


def validate(estimator: Any, rules: dict[str, list[Rule]], who: str | None = None) -> None:
    """Raise InvalidParameterError for the first parameter no rule accepts (``who`` names
    the estimator in the message; default: the type of ``estimator``)."""
    for name, accepted in rules.items():
        value = getattr(estimator, name)
        if any(rule.test(value) for rule in accepted):
            continue
        raise invalid_parameter(
            f"The {name!r} parameter of {who or type(estimator).__name__} must be "
            f"{_either([r.text for r in accepted])}. Got {value!r} instead.",
            param=name,
            value=value,
            accepted=[r.words for r in accepted if r.words],
        )


def same_value(a: Any, b: Any) -> bool:
    """Whether two values of a hyperparameter are equal by value (what ``merge`` asks).

    Sequences compare element by element whatever their type (a list equals a tuple or an
    array of the same values), sets as sets, mappings key by key; functions by what they
    compute: the same qualified name, code, defaults and closure (so the copies of one
    lambda that two processes unpickle are equal). Numbers compare by value (``1 == 1.0``),
    but a bool is not a number and a string is not a sequence of characters.
    """
    if a is b:
        return True
    if callable(a) or callable(b):
        return callable(a) and callable(b) and _same_function(a, b)
    if isinstance(a, str | bytes) or isinstance(b, str | bytes) or a is None or b is None:
        return type(a) is type(b) and bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, Real) and isinstance(b, Real):
        return bool(a == b)
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
            and all(same_value(a[k], b[k]) for k in a)
        )  # fmt: skip
    if isinstance(a, set | frozenset) or isinstance(b, set | frozenset):
        return isinstance(a, set | frozenset) and isinstance(b, set | frozenset) and a == b
    try:
        x, y = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    except (TypeError, ValueError):
        return bool(a == b)
    if x.shape != y.shape:
        return False
    if x.ndim == 0:
        return bool(x.item() == y.item())
    pairs = zip(x.ravel().tolist(), y.ravel().tolist(), strict=True)
    return all(same_value(u, v) for u, v in pairs)


def _same_function(f: Any, g: Any) -> bool:
    f, g = getattr(f, "__func__", f), getattr(g, "__func__", g)  # bound methods: the function
    cf, cg = getattr(f, "__code__", None), getattr(g, "__code__", None)
    if cf is None or cg is None:  # builtins, partials, callable objects: their own ==
        return bool(f == g)
    if (f.__module__, f.__qualname__) != (g.__module__, g.__qualname__) or cf != cg:
        return False
    cells_f = [c.cell_contents for c in f.__closure__ or ()]
    cells_g = [c.cell_contents for c in g.__closure__ or ()]
    return same_value(f.__defaults__, g.__defaults__) and same_value(cells_f, cells_g)
