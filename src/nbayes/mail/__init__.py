"""E-mail in: reading mailboxes, MIME decoding, HTML to text and the spam filter's tokens.

Reading (:func:`iter_mail`, :func:`iter_classes`): ``.eml`` files, mbox, Maildir, folders
of these and standard input, one message at a time in bounded memory. Parsing
(:func:`parse`, :func:`walk_parts`): the standard library's :mod:`email`, every part decoded.
Tokens (:class:`MailTokenizer`): the set of clues of one message. None of these import
numpy or scikit-learn.
"""

from __future__ import annotations

from nbayes.mail._errors import MailError
from nbayes.mail._headers import set_header, starts_with_field
from nbayes.mail._html import html_to_text
from nbayes.mail._mime import MailPart, decode_header, decode_text, parse, walk_parts
from nbayes.mail._sources import (
    DEFAULT_MAX_BYTES,
    RawMail,
    cut,
    iter_classes,
    iter_mail,
    maildir_subfolders,
    read_mbox,
)
from nbayes.mail._tokenizer import COUNTED_HEADERS, DEFAULT_HEADERS, MailTokenizer, is_empty

__all__ = [
    "COUNTED_HEADERS",
    "DEFAULT_HEADERS",
    "DEFAULT_MAX_BYTES",
    "MailError",
    "MailPart",
    "MailTokenizer",
    "RawMail",
    "cut",
    "decode_header",
    "decode_text",
    "html_to_text",
    "is_empty",
    "iter_classes",
    "iter_mail",
    "maildir_subfolders",
    "parse",
    "read_mbox",
    "set_header",
    "starts_with_field",
    "walk_parts",
]
