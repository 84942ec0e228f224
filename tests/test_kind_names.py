"""The layers above the core ask the registry of kinds, not names (issue 25, item 1):
``benchmarks/count_kind_names.py`` counts the comparisons with a kind's name left in the
package, at most 15 (83 before the registry)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import nbayes


def test_at_most_15_comparisons_by_kind_name(benchmark_script: Any) -> None:
    counter = benchmark_script("count_kind_names")
    found = counter.count(Path(nbayes.__file__).parent)
    total = sum(len(hits) for hits in found.values())
    assert total <= 15, found


def test_the_counter_sees_what_it_should(benchmark_script: Any) -> None:
    counter = benchmark_script("count_kind_names")
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
