"""The fixed parts of the nbayes model-file layout (see :mod:`nbayes.io._modelfile`):
the magic, the versions, the prefix, the alignment and the dtypes an array may have."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

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

# dtype name on disk -> bytes per item (the reading of the header needs no numpy)
ITEMSIZES: dict[str, int] = {
    "bool": 1,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "uint8": 1,
    "uint16": 2,
    "uint32": 4,
    "uint64": 8,
    "float32": 4,
    "float64": 8,
}
# dtype name on disk -> the typecode of the standard library's array of its items
TYPECODES: dict[str, str] = {
    "bool": "B",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float32": "f",
    "float64": "d",
}

if TYPE_CHECKING:
    import numpy as np

    # dtype name on disk -> little-endian numpy dtype
    DTYPES: dict[str, np.dtype[Any]]
    # (kind, itemsize) -> dtype name; identifies an allowed dtype whatever its byte order
    DTYPE_NAMES: dict[tuple[str, int], str]


def __getattr__(name: str) -> Any:
    # DTYPES and DTYPE_NAMES are numpy's: built on first use, so that a program reading a
    # model file without numpy (`nbayes filter`) does not import it
    if name not in ("DTYPES", "DTYPE_NAMES"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import numpy as np

    dtypes = {n: np.dtype(n).newbyteorder("<") for n in ITEMSIZES}
    globals()["DTYPES"] = dtypes
    globals()["DTYPE_NAMES"] = {(dt.kind, dt.itemsize): n for n, dt in dtypes.items()}
    return globals()[name]


HEADER_KEYS = frozenset({"format", "format_version", "data_nbytes", "arrays", "metadata"})
ENTRY_KEYS = frozenset({"name", "dtype", "shape", "offset", "nbytes"})


def align(n: int) -> int:
    """``n`` rounded up to a multiple of :data:`ALIGN`."""
    return -(-n // ALIGN) * ALIGN
