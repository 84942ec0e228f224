"""Bundled demo data: the SMS Spam Collection v.1 (Almeida, Gómez Hidalgo & Yamakami, 2011).

See ``README.md`` in this package for the citation, terms and provenance.

Examples
--------
>>> from nbayes.data import load_sms_spam
>>> texts, labels = load_sms_spam()
>>> len(texts), labels.count("spam")
(5574, 747)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["SMS_SPAM_CITATION", "load_sms_spam", "sms_spam_path"]

SMS_SPAM_CITATION = (
    "T. A. Almeida, J. M. Gómez Hidalgo, A. Yamakami. Contributions to the Study of SMS Spam "
    "Filtering: New Collection and Results. Proceedings of the 2011 ACM Symposium on Document "
    "Engineering (DocEng'11), Mountain View, CA, 2011."
)


def sms_spam_path() -> Path:
    """Path of the bundled ``sms_spam_collection.csv`` (header ``text,label``).

    Returns
    -------
    pathlib.Path
    """
    return Path(str(resources.files(__name__).joinpath("sms_spam_collection.csv")))


def load_sms_spam() -> tuple[list[str], list[str]]:
    """The 5,574 messages and their labels (``"ham"`` or ``"spam"``), in file order.

    Returns
    -------
    texts : list of str
    labels : list of str
    """
    from nbayes.io.readers import read_texts

    texts: list[str] = []
    labels: list[str] = []
    for chunk in read_texts(sms_spam_path()):
        texts.extend(chunk.texts)
        labels.extend(str(label) for label in chunk.labels or [])
    return texts, labels
