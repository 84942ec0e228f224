"""The nbayes model-file container: named arrays plus JSON metadata in one safe file.

A model is saved as **one** file holding named numpy arrays ("tensors") and a JSON
object of metadata (nbayes version, model type, hyperparameters, classes,
vocabulary, ...). Nothing is ever unpickled: loading a file only parses JSON and
copies raw bytes into freshly allocated numeric arrays, so a hostile file cannot
execute code, and every structural claim it makes is checked against the real file
size *before* memory is allocated for it.

On-disk layout (format version 1)
---------------------------------
All integers are unsigned little-endian. ``P = 20`` is the size of the fixed prefix.

========================  ==========  ====================================================
offset                    size        content
========================  ==========  ====================================================
0                         8           magic ``b"\\x89NBAYES\\n"`` (:data:`MAGIC`)
8                         4           format version, ``uint32`` (:data:`FORMAT_VERSION`)
12                        8           header length ``H``, ``uint64``
20                        ``H``       header: UTF-8 JSON object, right-padded with ASCII
                                      spaces so that ``P + H`` is a multiple of 64
``D = P + H``             ``N``       data section: the raw array bytes (see below)
``D + N``                 32          SHA-256 digest of bytes ``[0, D + N)``
========================  ==========  ====================================================

The file ends right after the digest; its size is exactly ``P + H + N + 32``.
The magic starts with a non-ASCII byte (a text file never matches; 7-bit mangling
is detected) and ends with ``\\n`` (newline translation is detected).

The header JSON object has exactly these keys (unknown keys are rejected: any new
key means a new format version):

``"format"``
    The string ``"nbayes-model"`` (:data:`FORMAT_NAME`).
``"format_version"``
    Integer, equal to the version in the prefix.
``"data_nbytes"``
    Integer ``N``, the length of the data section.
``"arrays"``
    A list (in the caller's order) of objects with exactly the keys

    * ``"name"``: string, unique in the file;
    * ``"dtype"``: one of ``"bool"``, ``"int8"``, ``"int16"``, ``"int32"``,
      ``"int64"``, ``"uint8"``, ``"uint16"``, ``"uint32"``, ``"uint64"``,
      ``"float32"``, ``"float64"`` (bytes on disk are little-endian; bool is one
      byte, ``0`` or ``1``);
    * ``"shape"``: list of at most 32 non-negative integers (``[]`` for 0-d);
    * ``"offset"``: integer, start of the array bytes relative to ``D``;
    * ``"nbytes"``: integer, ``prod(shape) * itemsize``.

    The layout is canonical: the first array starts at offset 0, each next one at
    the end of the previous one rounded up to a multiple of 64, and ``N`` is the end
    of the last one rounded up to a multiple of 64 (``N = 0`` without arrays).
    Every padding byte in the data section is zero. Arrays are stored in C order.
``"metadata"``
    The caller's JSON object. It must be plain JSON: objects with string keys,
    arrays, strings, integers, finite floats, ``true``/``false``/``null``, nested at
    most :data:`MAX_JSON_DEPTH` levels (a lone surrogate in a string is written as a
    ``\\uXXXX`` escape). ``NaN`` and ``Infinity`` are *not* allowed
    (standard JSON has no spelling for them; keep non-finite values in arrays,
    where they are raw IEEE-754 bytes). Duplicate object keys are rejected.

Reading checks, in this order: the magic, the version (a newer one is reported as
such before anything else is parsed), the header length against the file size
(before the header is read), the JSON (strict UTF-8, plain JSON, no duplicate keys,
bounded nesting), the header schema and every type in it, the dtype whitelist, that
``prod(shape) * itemsize == nbytes``, the canonical offsets, that the total size is
exactly ``P + H + N + 32`` (before any array is allocated), the zero padding, that
bool bytes are 0 or 1, and finally the digest; the header's cost in memory once parsed is
estimated from its tokens before it is parsed and bounded by three times the file size
(plus 1 MiB). So no allocation exceeds a small multiple of the real file size;
``max_bytes`` bounds that size. Every failure is a
:class:`~nbayes.exceptions.ModelFileError`; when the digest does not match either,
the message says the file was damaged (checksum mismatch) rather than badly written.

The SHA-256 digest detects accidental corruption (truncation, bit rot, partial
copies). It is not a signature: it does not prove who wrote the file.

Compatibility: a reader accepts every format version from 1 up to its own
:data:`FORMAT_VERSION`; a file of a newer version is rejected with a message naming
the version it needs.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> from nbayes.io._modelfile import write_model_file
>>> tmp = tempfile.TemporaryDirectory()
>>> path = os.path.join(tmp.name, "model.nbayes")
>>> write_model_file(path, {"model": "MultinomialNB", "alpha": 1.0},
...                  {"feature_count": np.arange(6.0).reshape(2, 3)})
>>> metadata, arrays = read_model_file(path)
>>> metadata
{'model': 'MultinomialNB', 'alpha': 1.0}
>>> arrays["feature_count"]
array([[0., 1., 2.],
       [3., 4., 5.]])
>>> tmp.cleanup()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nbayes.io._modelfile.layout import FORMAT_NAME, FORMAT_VERSION, MAGIC, MAX_JSON_DEPTH
from nbayes.io._modelfile.reading import read_model_file, read_model_header

if TYPE_CHECKING:
    from nbayes.io._modelfile.writing import write_model_file


def __getattr__(name: str) -> Any:
    # the writer (and numpy) is imported on first use: `nbayes filter` reads a model file
    # (read_model_file(..., raw=True)) without numpy
    if name == "write_model_file":
        from nbayes.io._modelfile.writing import write_model_file

        return write_model_file
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_JSON_DEPTH",
    "read_model_file",
    "read_model_header",
    "write_model_file",
]
