"""The fixed parts of the nbayes model-file layout (see :mod:`nbayes.io._modelfile`):
the magic, the versions, the prefix, the alignment and the dtypes an array may have."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

MAGIC: bytes = b"\x89NBAYES\n"
"""The 8 bytes every nbayes model file starts with."""

FORMAT_NAME: str = "nbayes-model"
"""Value of the ``"format"`` key of the header."""

FORMAT_VERSION: int = 1
"""The newest model-file format version this nbayes reads and the one it writes."""

MAX_JSON_DEPTH: int = 64
"""Maximum nesting depth of the metadata JSON (the metadata object itself is depth 1)."""

PREFIX = struct.Struct("<8sIQ")  # magic, format version, header length
PREFIX_SIZE = PREFIX.size  # 20
DIGEST_SIZE = 32  # SHA-256
ALIGN = 64
MAX_NDIM = 32

# dtype name on disk -> little-endian numpy dtype
DTYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(name).newbyteorder("<")
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
    )
}
# (kind, itemsize) -> dtype name; identifies an allowed dtype whatever its byte order
DTYPE_NAMES: dict[tuple[str, int], str] = {
    (dt.kind, dt.itemsize): name for name, dt in DTYPES.items()
}
HEADER_KEYS = frozenset({"format", "format_version", "data_nbytes", "arrays", "metadata"})
ENTRY_KEYS = frozenset({"name", "dtype", "shape", "offset", "nbytes"})


def align(n: int) -> int:
    """``n`` rounded up to a multiple of :data:`ALIGN`."""
    return -(-n // ALIGN) * ALIGN
