"""The layers above the core ask the registry of kinds, not names (issue 25, item 1):
``benchmarks/count_kind_names.py`` counts the comparisons with a kind's name left in the
package, at most 15 (83 before the registry)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import nbayes

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "count_kind_names.py"


def _counter():  # type: ignore[no-untyped-def]
    if not SCRIPT.exists():
        pytest.skip("benchmarks/ is not beside the tests")
    spec = importlib.util.spec_from_file_location("count_kind_names", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_most_15_comparisons_by_kind_name() -> None:
    counter = _counter()
    found = counter.count(Path(nbayes.__file__).parent)
    total = sum(len(hits) for hits in found.values())
    assert total <= 15, found


def test_the_counter_sees_what_it_should() -> None:
    counter = _counter()
    code = (
        "if fam == 'gaussian': pass\n"
        "ok = name in ('kernel', 'mixed')\n"
        "match kind:\n    case 'text': pass\n"
        "other = value == 'anything'\n"
    )
    assert [names for _, names in counter.places(ast.parse(code))] == [
        ["gaussian"],
        ["kernel", "mixed"],
        ["text"],
    ]
