"""Durable renames: the directory entry of a file renamed into place, ``fsync``-ed (without
numpy: ``nbayes filter`` appends registrations with it)."""

from __future__ import annotations

import os

__all__ = ["fsync_directory"]


def fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable where the OS supports it (POSIX)."""
    if os.name != "posix":  # pragma: no cover
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems cannot fsync a directory
        pass
    finally:
        os.close(fd)
