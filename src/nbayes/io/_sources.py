"""Which files a source of :func:`nbayes.io.read_texts` names: a file, a folder of tables,
a folder per class, a glob pattern, an open file (standard input) or a list of them,
resolved to units of work in order; the format of a file follows from its extension."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from nbayes.io.input_formats import extensions_text, names, of_path, table_formats

_SUPPORTED_TEXT = (
    f"supported are {extensions_text(table_formats())}, gzip-compressed (.gz) but for "
    "Parquet, plain text (.txt, .text, .eml or no extension: one document per file) and a "
    "folder per class (root/<label>/<file>)"
)
_GLOB_CHARS = frozenset("*?[")


# A unit of work: ("table", path, format), ("docs", folder, [files]) or ("stream", file
# object, format or None).
Unit = tuple[str, Any, Any]


def _has_glob(s: str) -> bool:
    return any(c in _GLOB_CHARS for c in s)


def is_stream(obj: Any) -> bool:
    """An open file object (text or binary) rather than a path."""
    return hasattr(obj, "read") and not isinstance(obj, (str, os.PathLike))


def resolve(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], fmt: str | None
) -> Iterator[Unit]:
    """The units of work ``source`` names, in order (FileNotFoundError, ValueError or
    TypeError, raised when iterated, for a source that names nothing readable)."""
    if isinstance(source, (str, os.PathLike)) or is_stream(source):
        items: Sequence[Any] = [source]
    elif isinstance(source, Sequence) and not isinstance(source, (bytes, bytearray)):
        items = source
        if not items:
            raise ValueError("source is an empty list; give at least one path.")
    else:
        raise TypeError(
            "source must be a path (str or os.PathLike), a glob pattern, an open file or a "
            f"list of them, got {type(source).__name__}."
        )
    for item in items:
        if is_stream(item):
            yield ("stream", item, fmt)
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"Each source must be a str or os.PathLike, got {type(item).__name__}.")
        path = Path(item)
        if path.exists():
            yield from _resolve_path(path, fmt)
        elif isinstance(item, str) and _has_glob(item):
            import glob

            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise FileNotFoundError(f"No file matches the pattern {item!r}.")
            for m in matches:
                yield from _resolve_path(Path(m), fmt)
        else:
            raise FileNotFoundError(f"No such file or directory: {os.fspath(item)!r}")


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    found = of_path(path)
    if found is not None and not found.gzip and path.name.lower().endswith(".gz"):
        raise ValueError(
            f"Cannot read {str(path)!r}: {found.description} files are compressed internally "
            "and cannot be read gzip-compressed; decompress the file first."
        )
    if found is None:
        from nbayes.io._opening import pass_option

        raise ValueError(
            f"Cannot tell the format of {str(path)!r} from its extension; {_SUPPORTED_TEXT}."
            + pass_option("format", f"to choose ({', '.join(names())})")
        )
    return found.name


def _visible(entries: Iterable[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    return sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name)


def _resolve_path(path: Path, fmt: str | None) -> Iterator[Unit]:
    if not path.is_dir():
        yield ("table", path, _format_of(path, fmt))
        return
    with os.scandir(path) as it:
        entries = _visible(it)
    subdirs = [e for e in entries if e.is_dir()]
    files = [e for e in entries if e.is_file()]
    if subdirs:
        for sub in subdirs:
            with os.scandir(sub.path) as it:
                docs = [Path(e.path) for e in _visible(it) if e.is_file()]
            yield ("docs", Path(sub.path), docs)
        return
    tables = [f for f in files if _is_table_name(f.name)]
    if fmt is not None or (files and len(tables) == len(files)):
        for f in files:
            yield ("table", Path(f.path), _format_of(Path(f.path), fmt))
    elif not tables:
        yield ("docs", path, [Path(f.path) for f in files])
    else:
        raise ValueError(
            f"The folder {str(path)!r} mixes tables ({tables[0].name!r}, ...) and other files; "
            "give the tables (a list or a glob pattern) or a folder per class."
        )


def _is_table_name(name: str) -> bool:
    return of_path(name, tables_only=True) is not None
