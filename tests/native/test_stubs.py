"""The type stubs of the compiled modules name exactly what the built modules export.

``src/nbayes/_native.pyi`` and ``_mail_native.pyi`` are what mypy reads for the kernels'
callers: a function the module exports without a stub is typed ``Any`` nowhere (mypy says
it does not exist), and a stub without a function types a call that fails at run time.
Where an entry point's docstring opens with its call (``name(a, b, c=...) -> ...``), the
stub's parameters must be those, in that order.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import nbayes

STUBS = Path(nbayes.__file__).parent
MODULES = ["_native", "_mail_native"]


def _stubbed(module: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((STUBS / f"{module}.pyi").read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _exported(module: str) -> dict[str, object]:
    mod = importlib.import_module(f"nbayes.{module}")
    return {
        name: obj for name, obj in vars(mod).items() if not name.startswith("_") and callable(obj)
    }


@pytest.mark.parametrize("module", MODULES)
def test_every_exported_function_is_stubbed(module: str) -> None:
    missing = sorted(set(_exported(module)) - set(_stubbed(module)))
    assert not missing, f"nbayes.{module} exports {missing} without a stub in {module}.pyi"


@pytest.mark.parametrize("module", MODULES)
def test_every_stub_is_exported(module: str) -> None:
    extra = sorted(set(_stubbed(module)) - set(_exported(module)))
    assert not extra, f"{module}.pyi stubs {extra}, which nbayes.{module} does not export"


def _doc_params(name: str, doc: str | None) -> list[str] | None:
    """The parameter names of a docstring that opens with ``name(...)``, else None."""
    m = re.match(rf"{name}\(([^)]*)\)", doc or "")
    if m is None:
        return None
    params = [p.strip().split("=")[0].strip(" []") for p in m.group(1).split(",")]
    return [p for p in params if p]


def _stub_params(fn: ast.FunctionDef) -> tuple[list[str], int]:
    """The stub's positional parameter names and how many of them have no default."""
    args = [*fn.args.posonlyargs, *fn.args.args]
    return [a.arg for a in args], len(args) - len(fn.args.defaults)


@pytest.mark.parametrize("module", MODULES)
def test_stub_parameters_are_the_documented_call(module: str) -> None:
    stubs, exported = _stubbed(module), _exported(module)
    wrong, checked = [], 0
    for name, fn in stubs.items():
        documented = _doc_params(name, getattr(exported.get(name), "__doc__", None))
        if documented is None:
            continue
        checked += 1
        names, required = _stub_params(fn)
        # the docstring may leave out trailing optional parameters, never a required one
        if names[: len(documented)] != documented or len(documented) < required:
            wrong.append(f"{name}: documented {documented}, stubbed {names}")
    assert not wrong, "\n".join(wrong)
    assert checked > 0 or module == "_mail_native"


def test_stub_check_catches_a_difference() -> None:
    """The comparison above fails on a renamed or missing parameter (it can fail)."""
    fn = ast.parse("def f(a: int, b: int, c: int = ..., /) -> None: ...").body[0]
    assert isinstance(fn, ast.FunctionDef)
    names, required = _stub_params(fn)
    assert (names, required) == (["a", "b", "c"], 2)
    assert _doc_params("f", "f(a, x) -> None") == ["a", "x"]
    assert _doc_params("f", "f(a, b, c=1) -> None") == ["a", "b", "c"]
    assert _doc_params("f", "Number of things.") is None
