"""Reading and writing data and models.

Public API
----------
read_texts
    Stream documents and labels from CSV/TSV, JSON lines, Parquet (gzip
    variants included) or a folder per class, chunk by chunk.
TextChunk
    The chunk type yielded by :func:`read_texts`.
"""

from __future__ import annotations

from nbayes.io.readers import SUPPORTED_FORMATS, TextChunk, read_texts

__all__ = ["SUPPORTED_FORMATS", "TextChunk", "read_texts"]
