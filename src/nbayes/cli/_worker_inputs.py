"""What ``nbayes train --workers`` can read: DATA checked on this machine before Dask's
workers read it.

The workers read tables with pandas, the format and compression of the first file for
every file; one process reads each file as it is, and names the file and line of what is
wrong. A data engineer's trial met, with ``--workers`` only: a CSV beside a Parquet file
("Error: UnicodeDecodeError"), a ``.csv`` beside a ``.csv.gz`` ("set blocksize=None", a
Python argument), a folder per class ("No such file", of a folder that exists), UTF-16 or
empty files (pandas' and codecs' errors, without the file). Each is said here, naming the
file and what to do; what only reading shows (a gzip file cut short) is said by
:func:`read_failure`.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

from nbayes.cli._common import CLIError

__all__ = ["check_worker_inputs", "local_files", "read_failure"]

_WITHOUT = "or train without --workers (one process reads any mix of files)"


def local_files(data: Sequence[str]) -> list[str]:
    """The local files DATA names (its patterns expanded); a folder, or a name or pattern
    of no file, is refused."""
    files: list[str] = []
    for d in data:
        if "://" in d:
            continue
        if os.path.isdir(d):
            raise CLIError(
                f"{d!r} is a folder: --workers reads tables (CSV/TSV, JSON lines or Parquet "
                f"files, or glob patterns of them), not a folder per class or of documents. "
                f"Give its tables (e.g. {os.path.join(d, '*.csv')!r}), {_WITHOUT}."
            )
        found = [d] if os.path.isfile(d) else sorted(p for p in glob.glob(d) if os.path.isfile(p))
        if not found:
            raise CLIError(f"No such file: {d!r} (Dask reads files and glob patterns).")
        files += found
    return files


def check_worker_inputs(data: Sequence[str], data_format: str | None, encoding: str) -> None:
    """A :class:`CLIError` for DATA the workers would misread: files of several formats
    or compressions, a folder, a name of no file, an empty file, a file that is no text of
    ``encoding``."""
    from nbayes.cli._common import _READER_FLAGS
    from nbayes.io.input_formats import COMPRESSION_SUFFIXES, is_compressed, of_path
    from nbayes.io.readers import check_text_file, option_names

    files = local_files(data)
    kinds: dict[tuple[str, bool], str] = {}
    for f in files:
        found = of_path(f, tables_only=True, compressions=COMPRESSION_SUFFIXES)
        fmt = data_format or (found.name if found is not None else "?")
        kinds.setdefault((fmt, is_compressed(f)), f)
    if len(kinds) > 1:
        (a_fmt, a_gz), a = next(iter(kinds.items()))
        (b_fmt, b_gz), b = list(kinds.items())[1]
        what = (
            f"{a!r} is {a_fmt}, {b!r} {b_fmt}"
            if a_fmt != b_fmt
            else f"{(a if a_gz else b)!r} is compressed, {(b if a_gz else a)!r} not"
        )
        raise CLIError(
            f"--workers reads files of one format and compression at a time ({what}). Train "
            f"on each kind apart and merge the models, convert the files, {_WITHOUT}."
        )
    tables = next(iter(kinds))[0] if kinds else None
    for f in files:
        if os.path.getsize(f) == 0:
            raise CLIError(f"{f!r} is empty: leave it out of DATA.")
        if tables != "parquet":
            try:
                with option_names(_READER_FLAGS):  # (its advice names --encoding)
                    check_text_file(f, encoding)
            except ValueError as exc:
                raise CLIError(str(exc)) from None


def read_failure(exc: BaseException) -> CLIError:
    """What a worker's failure to read a file (a gzip stream cut short, bytes of another
    encoding, a file pandas finds no columns in) says on the command line: the workers do
    not name the file; one process does."""
    return CLIError(
        f"Dask's workers could not read DATA ({type(exc).__name__}: {exc}). A gzip file cut "
        "short, or text in another encoding (--encoding)? `nbayes train` without --workers "
        "reads the same files and names the file and line."
    )
