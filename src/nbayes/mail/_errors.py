"""The error of mail that cannot be read."""

from __future__ import annotations

__all__ = ["MailError"]


class MailError(ValueError):
    """A mail source cannot be read: a missing path, an unreadable file, a file that is
    not the mbox it starts like. The message names the file (and the message in it)."""
