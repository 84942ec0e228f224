"""Files that replace (or accompany) a model file: the directory entry of a rename made
durable, and the owner kept. Without numpy: ``nbayes filter`` appends registrations with
them."""

from __future__ import annotations

import os

__all__ = ["fsync_directory", "keep_owner"]


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


def keep_owner(fd: int, like: os.stat_result | None) -> None:
    """Give the file open at ``fd`` the owner and group of the file ``like`` describes
    (the one it replaces, or the model it accompanies), where this process may set them:
    root may, others create files they own already (an error is ignored). A registration
    or a save run as root on a user's model must not leave files the user cannot read."""
    if like is None or os.name != "posix":  # pragma: no cover - not POSIX
        return
    if (like.st_uid, like.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, like.st_uid, like.st_gid)
    except OSError:
        pass
