"""How often the counting modules of ``nbayes.text`` read a text model's attributes.

Issue 25 (item 5) asks that the counting (``text/_batch``, ``_streaming``, ``_cv`` and the
scorer) read one counting-settings value (``nbayes.text._model.Counting``, built once
from the hyperparameters) instead of TextClassifier's private methods and properties.
This parses those modules and counts the attribute reads on the model object (a name
``model``, ``est``, ``estimator`` or ``self.model``): the private ones (``model._ngram()``,
``model._clip``, ``model._docs``, ...) and all of them (hyperparameters included, and the
scorer's reads of its hyperparameter mapping, ``params["lowercase"]``).

Usage::

    python benchmarks/count_model_reads.py [--list] [--root src/nbayes/text]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

MODULES = ("_batch.py", "_streaming.py", "_cv.py", "scoring.py")
NAMES = {"model", "est", "estimator"}


def _is_model(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in NAMES
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "model"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def reads(path: Path) -> list[tuple[int, str]]:
    """(line, attribute) of every read of an attribute of the model object in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if _is_model(node.value):
                out.append((node.lineno, node.attr))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            # the scorer is given the hyperparameters as a mapping: params["lowercase"]
            key = node.slice
            if isinstance(node.value, ast.Name) and node.value.id == "params":
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out.append((node.lineno, f"[{key.value!r}]"))
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).parents[1] / "src/nbayes/text")
    ap.add_argument("--list", action="store_true", help="every read, by file and line")
    args = ap.parse_args()
    total_private = total = 0
    print(f"{'module':<16} {'private':>8} {'all':>5}")
    for name in MODULES:
        path = args.root / name
        if not path.exists():
            continue
        found = reads(path)
        private = [r for r in found if r[1].startswith("_")]
        total_private += len(private)
        total += len(found)
        print(f"{name:<16} {len(private):>8} {len(found):>5}")
        if args.list:
            for line, attr in found:
                print(f"    {name}:{line}  .{attr}")
    print(f"{'total':<16} {total_private:>8} {total:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
