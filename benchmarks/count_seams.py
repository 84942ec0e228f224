"""Count the untyped seams of issue 25, item 5: a fitted likelihood passed as a tuple, and
TextClassifier's derived values read by string key or by position.

The script reads every Python file under a package directory (default: the installed
``nbayes``) with :mod:`ast` and counts, per kind:

``likelihood tuples``
    a fitted likelihood taken apart or passed by position: a tuple unpacked from a call
    of ``likelihood``, ``_family_view`` or ``_parameter_view`` (``family, d, _ =
    model.likelihood()``), such a call subscripted (``self._family_view()[1]``) or
    starred into a call (``sample(*self._family_view(), ...)``), and a definition of the
    tuple hooks ``_family_view`` / ``_parameter_view`` or of a function returning a tuple
    that names ``Family``;
``explain_row parameters``
    the parameters of ``explain_row`` beyond 5 (the row, its values, ``exact`` and the
    row's score beside the fitted likelihood);
``derived by key``
    in ``text/`` and ``semi_supervised/``, a string-literal subscript or ``.get`` of
    what a TextClassifier derives (``"kept"``, ``"inner_stats"``, ``"names"``,
    ``"vocabulary"``, ``"lut"``, ``"d"``, ``"scorer"``, ``"stop_set"``; not a pickle's
    ``state``), and a dict display built with those keys;
``caches by position``
    an integer or slice subscript of a cache entry (a name ``cache``, ``entry``,
    ``counted``, ``memo`` or a ``self.__dict__`` read), a tuple stored as a cache
    (``_keep_cache(name, (stats, key, ...))``, ``self.__dict__["_recounting"] = (...)``,
    ``memo[:] = [..., (X, kept, rows)]``) and a loop unpacking a memo's tuples;
``cache flags by name``
    a test of a cache's presence by its string name (``"_transform_memo" in
    self.__dict__``, ``self.__dict__.pop("_memo_given", ...)``), for the memo of model
    selection whose entries were positional.

Run from the repository root::

    python benchmarks/count_seams.py                    # per kind, then the total
    python benchmarks/count_seams.py --list             # every place, with its line
    python benchmarks/count_seams.py --root /tmp/main/src/nbayes   # another checkout
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

KINDS = (
    "likelihood tuples",
    "explain_row parameters",
    "derived by key",
    "caches by position",
    "cache flags by name",
)
#: the calls that gave a fitted likelihood as a tuple
TUPLE_CALLS = frozenset({"likelihood", "_family_view", "_parameter_view"})
#: the keys of TextClassifier's derived dict and of ``select_columns``' result
DERIVED_KEYS = frozenset(
    {"kept", "inner_stats", "names", "vocabulary", "lut", "d", "scorer", "stop_set"}
)
#: names that held a cache entry (a tuple) in TextClassifier and the template
CACHE_NAMES = frozenset({"cache", "entry", "counted", "memo"})
#: caches whose presence was tested by their name
FLAG_NAMES = frozenset({"_transform_memo", "_memo_given"})
#: the folders where the derived dict was read
DERIVED_DIRS = ("text", "semi_supervised")


def _called(node: ast.AST) -> str | None:
    """The name of the function a call node calls (``a.b.c()`` -> ``c``)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _is_dict_read(node: ast.AST) -> bool:
    """``self.__dict__[...]`` or ``self.__dict__.get(...)``."""
    if isinstance(node, ast.Subscript):
        node = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"


def _positional(index: ast.AST) -> bool:
    return isinstance(index, ast.Slice) or (
        isinstance(index, ast.Constant) and type(index.value) is int
    )


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class _Finder(ast.NodeVisitor):
    def __init__(self, derived_here: bool) -> None:
        self.derived_here = derived_here
        self.hits: dict[str, list[tuple[int, str]]] = {kind: [] for kind in KINDS}

    def _hit(self, kind: str, node: ast.AST, what: str) -> None:
        self.hits[kind].append((getattr(node, "lineno", 0), what))

    # likelihood tuples, explain_row ------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in ("_family_view", "_parameter_view"):
            self._hit("likelihood tuples", node, f"def {node.name}: a tuple hook")
        elif node.returns is not None:
            returns = ast.unparse(node.returns)
            if returns.startswith("tuple[") and "Family" in returns:
                self._hit("likelihood tuples", node, f"def {node.name} -> {returns}")
        if node.name == "explain_row":
            a = node.args
            n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
            for _ in range(max(0, n - 5)):
                self._hit("explain_row parameters", node, f"explain_row takes {n} parameters")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        name = _called(node.value)
        if name in TUPLE_CALLS and any(isinstance(t, ast.Tuple) for t in node.targets):
            self._hit("likelihood tuples", node, f"unpacks {name}()")
        for target in node.targets:
            # self.__dict__["_recounting"] = (...); memo[:] = [*memo[-1:], (X, kept, rows)]
            if isinstance(target, ast.Subscript) and (
                _is_dict_read(target) or _positional(target.slice)
            ):
                value = node.value
                if isinstance(value, ast.Tuple) or (
                    isinstance(value, ast.List)
                    and any(isinstance(e, ast.Tuple) for e in value.elts)
                ):
                    self._hit("caches by position", node, "a tuple stored as a cache")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        called = _called(node.value)
        if called in TUPLE_CALLS and _positional(node.slice):
            self._hit("likelihood tuples", node, f"{called}()[{ast.unparse(node.slice)}]")
        key = _str(node.slice)
        pickled = isinstance(node.value, ast.Name) and node.value.id == "state"
        if (
            self.derived_here
            and key in DERIVED_KEYS
            and isinstance(node.ctx, ast.Load)
            and not pickled
        ):
            self._hit("derived by key", node, ast.unparse(node))
        if _positional(node.slice) and (
            (isinstance(node.value, ast.Name) and node.value.id in CACHE_NAMES)
            or _is_dict_read(node.value)
        ):
            self._hit("caches by position", node, ast.unparse(node))
        if isinstance(node.ctx, ast.Load) and key in FLAG_NAMES and _is_dict_read(node):
            self._hit("cache flags by name", node, ast.unparse(node))
        self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred) -> None:
        called = _called(node.value)
        if called in TUPLE_CALLS:
            self._hit("likelihood tuples", node, f"*{called}()")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _called(node)
        if name == "_keep_cache" and len(node.args) > 1 and isinstance(node.args[1], ast.Tuple):
            self._hit("caches by position", node, "_keep_cache(name, a tuple)")
        if (
            self.derived_here
            and name == "get"
            and node.args
            and _str(node.args[0]) in DERIVED_KEYS
            and not _is_dict_read(node)
        ):
            self._hit("derived by key", node, ast.unparse(node))
        if name in ("get", "pop") and node.args and _str(node.args[0]) in FLAG_NAMES:
            if _is_dict_read(node):
                self._hit("cache flags by name", node, ast.unparse(node))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        if self.derived_here:
            keys = [_str(k) for k in node.keys if k is not None]
            if sum(k in DERIVED_KEYS for k in keys) >= 2:
                self._hit("derived by key", node, "a dict of derived values")
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if (
            isinstance(node.target, ast.Tuple)
            and isinstance(node.iter, ast.Name)
            and node.iter.id in CACHE_NAMES
        ):
            self._hit("caches by position", node, f"for {ast.unparse(node.target)} in memo")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if (
            _str(node.left) in FLAG_NAMES
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            and any(_is_dict_read(c) or isinstance(c, ast.Attribute) for c in node.comparators)
        ):
            self._hit("cache flags by name", node, ast.unparse(node))
        self.generic_visit(node)


def count_source(source: str, derived_here: bool = True) -> dict[str, list[tuple[int, str]]]:
    """The seams in one module's source, per kind: (line, what) each."""
    finder = _Finder(derived_here)
    finder.visit(ast.parse(source))
    return finder.hits


def count(root: Path) -> dict[str, list[tuple[str, int, str]]]:
    """The seams in every module under ``root`` (a package directory), per kind."""
    out: dict[str, list[tuple[str, int, str]]] = {kind: [] for kind in KINDS}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        here = rel.parts[0] in DERIVED_DIRS
        for kind, hits in count_source(path.read_text(encoding="utf-8"), here).items():
            out[kind].extend((str(rel), line, what) for line, what in hits)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="the package directory (default: nbayes's)")
    parser.add_argument("--list", action="store_true", help="every place, with its line")
    args = parser.parse_args(argv)
    root = args.root
    if root is None:
        import nbayes

        root = Path(nbayes.__file__).parent
    found = count(root)
    for kind in KINDS:
        print(f"{kind:<24} {len(found[kind]):>4}")
        if args.list:
            for rel, line, what in found[kind]:
                print(f"    {rel}:{line}: {what}")
    print(f"{'total':<24} {sum(len(v) for v in found.values()):>4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
