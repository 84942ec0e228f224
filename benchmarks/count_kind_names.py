"""Count the places in src/ that compare a value with a model, family or column-kind name.

Each such place is a decision made by name outside the registry (issue 25, item 1): a new
family has to be added there too. The script reads every Python file under ``src/`` with
:mod:`ast` and counts

* a comparison (``==``, ``!=``, ``in``, ``not in``) one of whose sides is a string literal
  that is a kind name (``fam == "gaussian"``), or a tuple, list or set of string literals
  one of which is (``name in ("kernel", "mixed")``);
* a ``match`` case whose pattern is such a literal (``case "text":``).

A comparison counts once however many names it holds. The names it recognises are listed by
``--names``. Run from the repository root::

    python benchmarks/count_kind_names.py            # per file, then the total
    python benchmarks/count_kind_names.py --list     # every place, with its line
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

#: the kinds of likelihood families, MixedNB's column kinds and the CLI's ``--model`` names
FAMILY_NAMES = frozenset(
    {
        "multinomial",
        "bernoulli",
        "complement",
        "categorical",
        "gaussian",
        "poisson",
        "kde",
        "kernel",
        "text",
        "mixed",
        "nbsvm",
        "semi_supervised",
        "zip",
    }
)
#: the estimators' class names (what a model file's header and the front ends compare)
ESTIMATOR_NAMES = frozenset(
    {
        "MultinomialNB",
        "BernoulliNB",
        "ComplementNB",
        "CategoricalNB",
        "GaussianNB",
        "PoissonNB",
        "KernelNB",
        "MixedNB",
        "NBSVM",
        "TextClassifier",
        "SemiSupervisedNB",
        "SpamFilter",
    }
)
NAMES = FAMILY_NAMES | ESTIMATOR_NAMES


def _names_in(node: ast.AST) -> list[str]:
    """The kind names a literal (a string, or a tuple/list/set of strings) holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [n for e in node.elts for n in _names_in(e)]
    return []


_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def places(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """``(line, names)`` of every comparison or match case by kind name in ``tree``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, _OPS) for op in node.ops):
            names = [n for side in (node.left, *node.comparators) for n in _names_in(side)]
            if names:
                out.append((node.lineno, names))
        elif isinstance(node, ast.match_case):
            names = [
                n
                for p in ast.walk(node.pattern)
                if isinstance(p, ast.MatchValue)
                for n in _names_in(p.value)
            ]
            if names:
                out.append((node.pattern.lineno, names))
    return sorted(out)


def count(root: Path) -> dict[str, list[tuple[int, list[str]]]]:
    """File (relative to ``root``) -> its places, for every file that has some."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        hits = places(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if hits:
            found[str(path.relative_to(root))] = hits
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default="src", help="the tree to read (default src)")
    ap.add_argument("--list", action="store_true", help="print every place with its line")
    ap.add_argument("--names", action="store_true", help="print the names recognised")
    args = ap.parse_args(argv)
    if args.names:
        print("\n".join(sorted(NAMES)))
        return 0
    found = count(Path(args.root))
    for path, hits in sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{len(hits):4d}  {path}")
        if args.list:
            for line, names in hits:
                print(f"        {line:5d}  {', '.join(names)}")
    total = sum(len(h) for h in found.values())
    print(f"{total:4d}  comparisons by kind name in {len(found)} files under {args.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
