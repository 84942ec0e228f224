"""Hyperparameters that are functions (``TextClassifier(preprocess=clean)``): a model file
stores a function's import reference, never its code, and loading takes the function from
the caller.

A safe model file holds no code, so a function is written as its name::

    {"type": "function", "module": "mymodule", "qualname": "clean"}

and :func:`nbayes.load` needs the function itself, passed by that name
(``nbayes.load(path, functions={"mymodule.clean": clean})``, as Keras's
``custom_objects``). Importing the module the file names would run code the file chose
(``builtins.eval`` is a module-level function too), so nothing is imported, except the
recipes of :mod:`nbayes.text.recipes` (``mark_negation``, ``sentiment_preprocess``, ...),
which are nbayes's own code.

Saving refuses what has no import reference (a lambda, a function defined inside
another, a ``functools.partial``, a bound method, a callable object): the error names the
parameter and says to use a named module-level function.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from nbayes.exceptions import ModelFileError
from nbayes.io._json import _show, expect_dict, expect_str

__all__ = ["check_functions", "decode_function", "encode_function", "functions_given"]

_RECIPES = "nbayes.text.recipes"
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")

_GIVEN: ContextVar[Mapping[str, Callable[..., Any]] | None] = ContextVar(
    "nbayes_load_functions", default=None
)


def _reference(fn: Any) -> tuple[Any, Any]:
    """``(module, qualname)`` of a function as Python names it (None where it has none)."""
    module = getattr(fn, "__module__", None)
    if module is None and hasattr(fn, "__objclass__"):  # a method of a builtin type: str.strip
        module = getattr(fn.__objclass__, "__module__", None)
    return module, getattr(fn, "__qualname__", None)


def _lookup(module: str, qualname: str) -> Any:
    """The object ``module.qualname`` names among the modules already imported, or None."""
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def encode_function(name: str, fn: Callable[..., Any]) -> dict[str, Any]:
    """The import reference of ``fn``, the value of the hyperparameter ``name``;
    ValueError if it has none (a lambda, a local function, a partial, a callable object)."""
    module, qualname = _reference(fn)
    advice = (
        "A model file stores a function by its import reference only, never its code: "
        f"define it with def at the top level of a module (e.g. mymodule.py) and set {name} "
        "to it; nbayes.load then needs it passed as functions={'mymodule.clean': clean}."
    )
    if not isinstance(module, str) or not isinstance(qualname, str):
        raise ValueError(
            f"Cannot save the hyperparameter {name}={_show(fn)}: it is a "
            f"{type(fn).__name__}, not a named function. {advice}"
        )
    if "<lambda>" in qualname or "<locals>" in qualname:
        what = "a lambda" if "<lambda>" in qualname else "a function defined inside another"
        raise ValueError(
            f"Cannot save the hyperparameter {name}={_show(fn)}: it is {what}, which has "
            f"no import reference. {advice}"
        )
    if (
        not _DOTTED.match(module)
        or not _DOTTED.match(qualname)
        or _lookup(module, qualname) is not fn
    ):
        raise ValueError(
            f"Cannot save the hyperparameter {name}={_show(fn)}: {module}.{qualname} does not "
            f"name it (a bound method or a replaced function?). {advice}"
        )
    return {"type": "function", "module": module, "qualname": qualname}


def _recipe(module: str, qualname: str) -> Callable[..., Any] | None:
    """A recipe of nbayes.text.recipes (``RECIPES``): the only functions a file may name
    without the caller passing them."""
    if module != _RECIPES:
        return None
    from nbayes.text import recipes

    for fn in recipes.RECIPES.values():
        if getattr(fn, "__qualname__", None) == qualname:
            return fn
    return None


def decode_function(value: dict[str, Any], where: str) -> Callable[..., Any]:
    """The function a stored reference names: the one passed to :func:`nbayes.load` under
    that name (or an nbayes recipe); ModelFileError saying how to pass it otherwise."""
    d = expect_dict(value, where, ("type", "module", "qualname"))
    module = expect_str(d["module"], f"{where}['module']")
    qualname = expect_str(d["qualname"], f"{where}['qualname']")
    if not _DOTTED.match(module) or not _DOTTED.match(qualname):
        raise ModelFileError(
            f"{where} names the function {_show(module)}.{_show(qualname)}, not a Python name"
        )
    key = f"{module}.{qualname}"
    given = _GIVEN.get()
    if given is not None and key in given:
        return given[key]
    fn = _recipe(module, qualname)
    if fn is not None:
        return fn
    hint = ""
    if module not in ("builtins", "__main__"):
        hint = f" after `from {module} import {qualname.split('.')[0]}`"
    raise ModelFileError(
        f"{where} is the function {key}, which a model file names but does not contain (it "
        f"holds no code): pass it to load, e.g. nbayes.load(path, functions={{{key!r}: "
        f"{qualname}}}){hint}"
    )


def check_functions(functions: Any) -> Mapping[str, Callable[..., Any]] | None:
    """The ``functions`` argument of :func:`nbayes.load`, checked: None or a mapping of
    ``"module.qualname"`` strings to callables (TypeError otherwise)."""
    if functions is None:
        return None
    if not isinstance(functions, Mapping):
        raise TypeError(
            "functions must be a dict of 'module.qualname' -> function, e.g. "
            f"{{'mymodule.clean': clean}}; got {type(functions).__name__}"
        )
    for key, fn in functions.items():
        if not isinstance(key, str) or not callable(fn):
            raise TypeError(
                f"functions must map 'module.qualname' strings to functions; got {key!r}: {fn!r}"
            )
    return functions


@contextlib.contextmanager
def functions_given(functions: Mapping[str, Callable[..., Any]] | None) -> Iterator[None]:
    """Within the block, :func:`decode_function` takes its functions from ``functions``."""
    token = _GIVEN.set(functions)
    try:
        yield
    finally:
        _GIVEN.reset(token)
