"""Tests of the nbayes model-file container (``nbayes.io._modelfile``)."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import pickle
import random
import stat
import struct
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MAGIC,
    MAX_JSON_DEPTH,
    read_model_file,
    reading,
    write_model_file,
    writing,
)

ALLOWED = [
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
]
HYPOTHESIS = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def load_bytes(data: bytes, max_bytes: int | None = None) -> tuple[dict, dict]:
    """Load a model file from memory, through the same code as ``read_model_file``."""
    return reading._read_stream(io.BytesIO(data), len(data), "<memory>", max_bytes)


def dump_bytes(tmp_path: Path, metadata: dict, arrays: dict) -> bytes:
    path = tmp_path / "dump.nbayes"
    write_model_file(path, metadata, arrays)
    return path.read_bytes()


def assert_same_array(got: np.ndarray, want: np.ndarray) -> None:
    """Exact equality: dtype, shape and every bit (NaN payloads, -0.0)."""
    assert isinstance(got, np.ndarray)
    assert type(got) is np.ndarray
    assert got.dtype == want.dtype.newbyteorder("=")
    assert got.dtype.isnative
    assert got.shape == want.shape
    assert got.tobytes() == np.asarray(want, dtype=got.dtype).tobytes()
    assert got.flags.writeable
    assert got.flags.c_contiguous


def assert_same_arrays(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for name in want:
        assert_same_array(got[name], want[name])


def seal(
    header: dict | bytes,
    data: bytes = b"",
    *,
    version: int = FORMAT_VERSION,
    header_len: int | None = None,
    pad: bool = True,
) -> bytes:
    """Build a file by the documented layout, with a valid checksum: the hostile-writer kit."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    if pad:
        raw += b" " * ((-(20 + len(raw))) % 64)
    length = len(raw) if header_len is None else header_len
    body = MAGIC + struct.pack("<IQ", version, length) + raw + data
    return body + hashlib.sha256(body).digest()


def header_of(data: bytes) -> tuple[dict, bytes]:
    """Split a valid file into its parsed header and its data section."""
    (length,) = struct.unpack("<Q", data[12:20])
    header = json.loads(data[20 : 20 + length])
    return header, data[20 + length : -32]


def assert_no_temp_files(directory: Path) -> None:
    leftovers = [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


SAMPLE_METADATA: dict[str, Any] = {
    "nbayes_version": "0.1.0",
    "model": "MultinomialNB",
    "hyperparameters": {"alpha": 1.0, "fit_prior": True, "class_prior": None},
    "classes": ["spam", "ham", "é✓ 中文 🙂"],
    "vocabulary": {"the": 0, "cat": 1, "sat": 2},
    "n_features": 3,
    "big": 2**70,
    "tiny": 5e-324,
    "neg_zero": -0.0,
}


def sample_arrays() -> dict[str, np.ndarray]:
    return {
        "class_count": np.array([3.0, np.nan, -np.inf]),
        "feature_count": np.arange(12, dtype=np.int64).reshape(3, 4),
        "mask": np.array([[True, False], [False, True]]),
        "scalar": np.array(-0.0, dtype=np.float32),
        "empty": np.zeros((0, 5), dtype=np.uint16),
    }


def small_file(tmp_path: Path) -> bytes:
    """A valid ~500-byte file exercising several dtypes, 0-d and empty arrays."""
    arrays = {
        "a": np.array([1, -2, 3], dtype=np.int64),
        "m": np.array([[True, False], [False, True]]),
        "s": np.array(np.nan, dtype=np.float32),
        "e": np.zeros((2, 0), dtype=np.uint8),
    }
    return dump_bytes(tmp_path, {"model": "GaussianNB", "classes": [0, 1]}, arrays)


# --------------------------------------------------------------------------------------
# round trips
# --------------------------------------------------------------------------------------


def test_round_trip_sample(tmp_path: Path) -> None:
    path = tmp_path / "model.nbayes"
    arrays = sample_arrays()
    write_model_file(path, SAMPLE_METADATA, arrays)
    metadata, loaded = read_model_file(path)
    assert metadata == SAMPLE_METADATA
    assert str(metadata["neg_zero"]) == "-0.0"
    assert list(metadata) == list(SAMPLE_METADATA)
    assert_same_arrays(loaded, arrays)
    assert np.isnan(loaded["class_count"][1])
    assert np.signbit(loaded["scalar"])
    assert loaded["scalar"].shape == ()
    loaded["feature_count"][0, 0] = 99  # writeable, and owned by nobody else
    assert read_model_file(path)[1]["feature_count"][0, 0] == 0
    # str path works too
    assert read_model_file(str(path))[0] == SAMPLE_METADATA


@pytest.mark.parametrize("dtype", ALLOWED)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 0, 2), (2, 3, 5)])
def test_round_trip_every_dtype_and_shape(tmp_path: Path, dtype: str, shape: tuple) -> None:
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize)
    if dtype == "bool":
        raw = raw % 2
    array = raw.astype(np.uint8).view(dtype).reshape(shape)  # random bits, NaN payloads too
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {"x": array})
    metadata, loaded = read_model_file(path)
    assert metadata == {}
    assert_same_arrays(loaded, {"x": array})


def test_special_floats_round_trip_bit_exactly(tmp_path: Path) -> None:
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, np.finfo(np.float64).max]
    arrays = {
        "f8": np.array(values, dtype=np.float64),
        "f4": np.array(values[:-1], dtype=np.float32),
        "payload": np.array([0x7FF8DEADBEEF0001], dtype=np.uint64).view(np.float64),
    }
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, arrays)
    assert_same_arrays(read_model_file(path)[1], arrays)


def test_byte_order_and_layout_are_normalised(tmp_path: Path) -> None:
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    arrays = {
        "big_endian": base.astype(">f8"),
        "big_endian_int": np.arange(5, dtype=">u4"),
        "fortran": np.asfortranarray(base),
        "strided": base[::2, ::-3],
        "transposed": base.T,
        "broadcast": np.broadcast_to(np.arange(3, dtype=np.int16), (4, 3)),
        "readonly": np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8),
    }
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, arrays)
    _, loaded = read_model_file(path)
    assert_same_arrays(loaded, arrays)
    for array in loaded.values():
        assert array.dtype.isnative and array.flags.c_contiguous and array.flags.writeable
    assert loaded["big_endian"].dtype == np.dtype("float64")
    np.testing.assert_array_equal(loaded["fortran"], base)


def test_no_arrays_and_empty_metadata(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {})
    assert read_model_file(path) == ({}, {})
    assert os.path.getsize(path) % 64 == 32  # no data section: prefix + header + digest


def test_array_order_is_preserved(tmp_path: Path) -> None:
    names = ["z", "a", "m", "", "with space", "ünïcode", "0"]
    arrays = {name: np.full(i, i, dtype=np.int32) for i, name in enumerate(names)}
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, arrays)
    assert list(read_model_file(path)[1]) == names


def test_metadata_normalisation(tmp_path: Path) -> None:
    class Str(str):
        pass

    class Float(float):
        pass

    metadata = {
        "tuple": (1, (2, 3)),
        "np_float": np.float64(0.1),
        "str_sub": Str("x"),
        "float_sub": Float(2.5),
        "bool": True,
        "deep": {"a": [{"b": [None]}]},
    }
    path = tmp_path / "m.nbayes"
    write_model_file(path, metadata, {})
    loaded, _ = read_model_file(path)
    assert loaded == {
        "tuple": [1, [2, 3]],
        "np_float": 0.1,
        "str_sub": "x",
        "float_sub": 2.5,
        "bool": True,
        "deep": {"a": [{"b": [None]}]},
    }
    assert type(loaded["np_float"]) is float
    assert type(loaded["bool"]) is bool


def test_large_arrays_round_trip_quickly(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    arrays = {
        "feature_log_prob": rng.standard_normal((20, 200_000)),
        "counts": rng.integers(0, 1000, size=(20, 200_000), dtype=np.int32),
    }
    vocabulary = [f"word{i}" for i in range(200_000)]
    path = tmp_path / "big.nbayes"
    start = time.perf_counter()
    write_model_file(path, {"vocabulary": vocabulary}, arrays)
    metadata, loaded = read_model_file(path)
    elapsed = time.perf_counter() - start
    assert metadata["vocabulary"] == vocabulary
    assert_same_arrays(loaded, arrays)
    assert elapsed < 10, elapsed


@HYPOTHESIS
@given(
    arrays=st.dictionaries(
        st.text(max_size=8),
        hnp.arrays(
            dtype=st.sampled_from(ALLOWED).map(np.dtype)
            | st.sampled_from([">i2", ">u8", ">f4", ">f8"]).map(np.dtype),
            shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
        ),
        max_size=4,
    ),
    metadata=st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=10),
            lambda children: (
                st.lists(children, max_size=3)
                | st.dictionaries(st.text(max_size=5), children, max_size=3)
            ),
            max_leaves=10,
        ),
        max_size=4,
    ),
)
def test_round_trip_property(tmp_path: Path, arrays: dict, metadata: dict) -> None:
    data = dump_bytes(tmp_path, metadata, arrays)
    loaded_metadata, loaded_arrays = load_bytes(data)
    assert loaded_metadata == metadata
    assert_same_arrays(loaded_arrays, arrays)


# --------------------------------------------------------------------------------------
# the on-disk contract
# --------------------------------------------------------------------------------------


def test_layout_matches_the_documented_contract(tmp_path: Path) -> None:
    arrays = sample_arrays()
    data = dump_bytes(tmp_path, SAMPLE_METADATA, arrays)
    assert data[:8] == MAGIC == b"\x89NBAYES\n"
    version, length = struct.unpack("<IQ", data[8:20])
    assert version == FORMAT_VERSION == 1
    assert (20 + length) % 64 == 0
    raw = data[20 : 20 + length]
    assert raw == raw.rstrip(b" ") + b" " * (len(raw) - len(raw.rstrip(b" ")))
    header = json.loads(raw.decode("utf-8"))
    assert set(header) == {"format", "format_version", "data_nbytes", "arrays", "metadata"}
    assert header["format"] == FORMAT_NAME == "nbayes-model"
    assert header["format_version"] == 1
    assert header["metadata"] == SAMPLE_METADATA
    assert len(data) == 20 + length + header["data_nbytes"] + 32
    assert data[-32:] == hashlib.sha256(data[:-32]).digest()
    section = data[20 + length : -32]
    end = 0
    for entry, (name, array) in zip(header["arrays"], arrays.items(), strict=True):
        assert entry == {
            "name": name,
            "dtype": str(array.dtype),
            "shape": list(array.shape),
            "offset": -(-end // 64) * 64,
            "nbytes": array.nbytes,
        }
        assert not any(section[end : entry["offset"]])
        chunk = section[entry["offset"] : entry["offset"] + entry["nbytes"]]
        assert chunk == array.astype(array.dtype.newbyteorder("<")).tobytes()
        end = entry["offset"] + entry["nbytes"]
    assert header["data_nbytes"] == -(-end // 64) * 64
    assert not any(section[end:])


def test_writing_is_deterministic(tmp_path: Path) -> None:
    a = dump_bytes(tmp_path, SAMPLE_METADATA, sample_arrays())
    b = dump_bytes(tmp_path, SAMPLE_METADATA, sample_arrays())
    assert a == b


def test_handcrafted_file_loads() -> None:
    """A file built only from the documentation (not by our writer) loads."""
    header = {
        "format": "nbayes-model",
        "format_version": 1,
        "data_nbytes": 128,
        "arrays": [
            {"name": "x", "dtype": "int16", "shape": [3], "offset": 0, "nbytes": 6},
            {"name": "y", "dtype": "float64", "shape": [], "offset": 64, "nbytes": 8},
        ],
        "metadata": {"k": "v"},
    }
    section = struct.pack("<3h", 1, -2, 3) + bytes(58) + struct.pack("<d", 0.5) + bytes(56)
    metadata, arrays = load_bytes(seal(header, section))
    assert metadata == {"k": "v"}
    assert_same_arrays(arrays, {"x": np.array([1, -2, 3], dtype=np.int16), "y": np.array(0.5)})


# --------------------------------------------------------------------------------------
# writer validation and atomicity
# --------------------------------------------------------------------------------------


class Unserialisable:
    pass


BAD_ARRAYS = [
    pytest.param({"x": np.array([object()], dtype=object)}, TypeError, id="object"),
    pytest.param({"x": np.array(["a", "b"])}, TypeError, id="unicode"),
    pytest.param({"x": np.array([b"a"])}, TypeError, id="bytes"),
    pytest.param({"x": np.array([1 + 2j])}, TypeError, id="complex"),
    pytest.param({"x": np.array([1.0], dtype=np.float16)}, TypeError, id="float16"),
    pytest.param({"x": np.array([1.0], dtype=np.longdouble)}, TypeError, id="longdouble"),
    pytest.param({"x": np.array(["2020-01-01"], dtype="M8[D]")}, TypeError, id="datetime"),
    pytest.param({"x": np.array([1], dtype="m8[s]")}, TypeError, id="timedelta"),
    pytest.param({"x": np.zeros(2, dtype=[("a", "<i4")])}, TypeError, id="structured"),
    pytest.param({"x": np.zeros(2, dtype="V4")}, TypeError, id="void"),
    pytest.param({"x": [1, 2, 3]}, TypeError, id="list"),
    pytest.param({"x": np.float64(1.0)}, TypeError, id="numpy-scalar"),
    pytest.param({"x": np.ma.masked_array([1, 2], mask=[0, 1])}, TypeError, id="masked"),
    pytest.param({1: np.zeros(2)}, TypeError, id="int-name"),
    pytest.param([("x", np.zeros(2))], TypeError, id="not-a-mapping"),
    pytest.param(
        {"ok": np.zeros(3), "\ud83d\ude00": np.zeros(2)}, ValueError, id="split-pair-name"
    ),
]


@pytest.mark.parametrize(("arrays", "error"), BAD_ARRAYS)
def test_unserialisable_arrays_are_rejected_and_old_file_kept(
    tmp_path: Path, arrays: Any, error: type[Exception]
) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"old": True}, {"a": np.ones(3)})
    before = path.read_bytes()
    with pytest.raises(error):
        write_model_file(path, {"new": True}, arrays)
    assert path.read_bytes() == before
    assert_no_temp_files(tmp_path)


BAD_METADATA = [
    pytest.param({"x": float("nan")}, ValueError, "NaN", id="nan"),
    pytest.param({"x": [float("inf")]}, ValueError, "infinity", id="inf"),
    pytest.param({"x": np.int64(3)}, TypeError, r"\.item\(\)", id="np-int"),
    pytest.param({"x": np.bool_(True)}, TypeError, "numpy", id="np-bool"),
    pytest.param({"x": np.arange(3)}, TypeError, r"\.tolist\(\)", id="ndarray"),
    pytest.param({1: "int key"}, TypeError, "keys must be str", id="int-key"),
    pytest.param({"x": {(1, 2): 3}}, TypeError, "keys must be str", id="tuple-key"),
    pytest.param({"x": {1, 2}}, TypeError, "set", id="set"),
    pytest.param({"x": b"bytes"}, TypeError, "bytes", id="bytes"),
    pytest.param({"x": Unserialisable()}, TypeError, "Unserialisable", id="object"),
    pytest.param({"x": "a\ud83d\ude00"}, ValueError, "surrogate pair", id="split-pair"),
    pytest.param([("x", 1)], TypeError, "dict", id="not-a-dict"),
]


@pytest.mark.parametrize(("metadata", "error", "match"), BAD_METADATA)
def test_non_json_metadata_is_rejected_and_old_file_kept(
    tmp_path: Path, metadata: Any, error: type[Exception], match: str
) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"old": True}, {"a": np.ones(3)})
    before = path.read_bytes()
    with pytest.raises(error, match=match):
        write_model_file(path, metadata, {"a": np.zeros(3)})
    assert path.read_bytes() == before
    assert_no_temp_files(tmp_path)


def test_metadata_depth_limit(tmp_path: Path) -> None:
    def nested(depth: int) -> dict:
        value: Any = {}
        for _ in range(depth - 1):
            value = {"k": value}
        return value

    path = tmp_path / "m.nbayes"
    write_model_file(path, nested(MAX_JSON_DEPTH), {})
    assert read_model_file(path)[0] == nested(MAX_JSON_DEPTH)
    with pytest.raises(ValueError, match="nested deeper"):
        write_model_file(path, nested(MAX_JSON_DEPTH + 1), {})
    # and a hostile file nested one level deeper is refused on reading
    header, _ = header_of(path.read_bytes())
    header["metadata"] = nested(MAX_JSON_DEPTH + 1)
    with pytest.raises(ModelFileError, match="nested deeper"):
        load_bytes(seal(header))


class Boom(Exception):
    pass


def test_failure_in_the_middle_of_writing_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"old": True}, {"a": np.ones(3)})
    before = path.read_bytes()
    original = writing._write_body
    seen_temp: list[str] = []

    def write_half_then_fail(f: Any, *args: Any) -> None:
        original(f, *args)
        f.flush()
        seen_temp.extend(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp"))
        raise Boom("disk on fire")

    monkeypatch.setattr(writing, "_write_body", write_half_then_fail)
    with pytest.raises(Boom):
        write_model_file(path, {"new": True}, {"a": np.zeros(1000)})
    assert len(seen_temp) == 1 and seen_temp[0].startswith(".m.nbayes.")  # it was there
    assert path.read_bytes() == before
    assert_no_temp_files(tmp_path)


@pytest.mark.parametrize("step", ["fsync", "replace", "interrupt"])
def test_failure_of_a_system_call_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"old": True}, {"a": np.ones(3)})
    before = path.read_bytes()
    error: type[BaseException] = OSError

    def fail(*args: Any) -> None:
        raise error("simulated failure")

    if step == "fsync":
        monkeypatch.setattr(writing.os, "fsync", fail)
    elif step == "replace":
        monkeypatch.setattr(writing.os, "replace", fail)
    else:
        error = KeyboardInterrupt
        monkeypatch.setattr(writing.hashlib, "sha256", fail)
    with pytest.raises(error):
        write_model_file(path, {"new": True}, {"a": np.zeros(3)})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert_no_temp_files(tmp_path)


def test_new_file_failure_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(writing.os, "fsync", fail)
    with pytest.raises(OSError, match="no space"):
        write_model_file(tmp_path / "new.nbayes", {}, {"a": np.zeros(3)})
    assert list(tmp_path.iterdir()) == []


def test_overwrite_replaces_content(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"v": 1}, {"a": np.ones(3)})
    write_model_file(path, {"v": 2}, {"b": np.zeros(2, dtype=np.int8)})
    metadata, arrays = read_model_file(path)
    assert metadata == {"v": 2}
    assert_same_arrays(arrays, {"b": np.zeros(2, dtype=np.int8)})
    assert_no_temp_files(tmp_path)


def test_write_to_a_directory_or_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_model_file(tmp_path, {}, {})
    with pytest.raises(FileNotFoundError):
        write_model_file(tmp_path / "missing" / "m.nbayes", {}, {})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_new_file_permissions_follow_the_umask(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    with open(reference, "wb"):
        pass
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {})
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(reference.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    # a model holds words of someone's mail: chmod 600 must survive the next save
    path = tmp_path / "m.nbayes"
    write_model_file(path, {"v": 1}, {})
    for mode in (0o600, 0o640, 0o444):
        path.chmod(mode)
        write_model_file(path, {"v": mode}, {})
        assert stat.S_IMODE(path.stat().st_mode) == mode
        assert read_model_file(path)[0] == {"v": mode}
    assert_no_temp_files(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_writing_through_a_symlink_replaces_its_target_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    real = tmp_path / "store" / "real.nbayes"
    real.parent.mkdir()
    write_model_file(real, {"v": 1}, {})
    link = tmp_path / "link.nbayes"
    link.symlink_to(real)
    write_model_file(link, {"v": 2}, {})
    assert link.is_symlink() and link.resolve() == real
    assert read_model_file(real)[0] == {"v": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.nbayes", "store"]
    assert_no_temp_files(real.parent)


# --------------------------------------------------------------------------------------
# reader: files that are not model files, paths, versions
# --------------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.nbayes"
    with pytest.raises(ModelFileError, match="does not exist") as info:
        read_model_file(path)
    assert "nope.nbayes" in str(info.value)
    assert isinstance(info.value.__cause__, FileNotFoundError)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="is a directory"):
        read_model_file(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError, match="not a regular file"):
        read_model_file(fifo)


@pytest.mark.skipif(
    os.name != "posix" or (hasattr(os, "geteuid") and os.geteuid() == 0),
    reason="needs POSIX permissions and a non-root user",
)
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {})
    path.chmod(0)
    try:
        with pytest.raises(ModelFileError, match="cannot read") as info:
            read_model_file(path)
        assert isinstance(info.value.__cause__, PermissionError)
    finally:
        path.chmod(0o600)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    path.write_bytes(b"")
    with pytest.raises(ModelFileError, match="empty"):
        read_model_file(path)


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("model.json", "{}")
    return buffer.getvalue()


def _npy_bytes() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.arange(3))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (pickle.dumps({"a": 1}, protocol=4), r"starts with b'\\x80\\x04.*pickle"),
        (pickle.dumps({"a": 1}, protocol=2), r"starts with b'\\x80\\x02.*pickle"),
        (_zip_bytes(), "starts with b.PK.*zip"),
        (_npy_bytes(), r"starts with b.\\x93NUMPY.*\.npy"),
        (b'{"format": "nbayes-model"}', "JSON"),
        (b"hello world, this is plain text that goes on\n", "starts with b'hello world, thi'"),
        (b"x", "starts with b'x'"),
        (b"\x89NBAYES\r\n" + bytes(200), r"not an nbayes model file"),  # CRLF-mangled
    ],
)
def test_not_a_model_file(tmp_path: Path, content: bytes, match: str) -> None:
    path = tmp_path / "m.nbayes"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match="not an nbayes model file") as info:
        read_model_file(path)
    assert info.match(match)
    assert "m.nbayes" in str(info.value)


def test_newer_format_version(tmp_path: Path) -> None:
    data = bytearray(small_file(tmp_path))
    data[8:12] = struct.pack("<I", 3)
    path = tmp_path / "future.nbayes"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError) as info:
        read_model_file(path)
    assert (
        "this file needs nbayes model-file format version 3; this nbayes reads up to "
        "version 1: upgrade nbayes"
    ) in str(info.value)


def test_newer_version_is_reported_before_anything_else() -> None:
    """A future file may have a header we cannot parse at all; the version wins."""
    data = MAGIC + struct.pack("<IQ", 2, 2**64 - 1) + b"\xff" * 10
    with pytest.raises(ModelFileError, match="needs nbayes model-file format version 2"):
        load_bytes(data)


def test_version_zero() -> None:
    with pytest.raises(ModelFileError, match="invalid format version 0"):
        load_bytes(MAGIC + struct.pack("<IQ", 0, 44) + bytes(100))


def test_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {"a": np.zeros(100)})
    size = path.stat().st_size
    assert read_model_file(path, max_bytes=size)[1]["a"].shape == (100,)
    with pytest.raises(ModelFileError, match="max_bytes"):
        read_model_file(path, max_bytes=size - 1)
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(ValueError, match="max_bytes must be"):
            read_model_file(path, max_bytes=bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# reader: specific corruptions and hostile headers (valid checksums)
# --------------------------------------------------------------------------------------


def _valid_header(tmp_path: Path) -> tuple[dict, bytes]:
    return header_of(small_file(tmp_path))


def test_checksum_mismatch_is_reported(tmp_path: Path) -> None:
    data = bytearray(small_file(tmp_path))
    header, section = header_of(bytes(data))
    data[len(data) - 32 - len(section)] ^= 1  # first byte of array "a"
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        load_bytes(bytes(data))
    data = bytearray(small_file(tmp_path))
    data[-1] ^= 0x80
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        load_bytes(bytes(data))


def test_damaged_header_is_diagnosed_as_checksum_mismatch(tmp_path: Path) -> None:
    """A bit flip that breaks the header mentions the checksum; a bad writer does not."""
    data = small_file(tmp_path)
    at = data.index(b'"dtype":"int64"') + len('"dtype":"int6')
    damaged = data[:at] + b"5" + data[at + 1 :]
    with pytest.raises(ModelFileError, match="checksum mismatch.*dtype 'int65'"):
        load_bytes(damaged)
    header, section = header_of(data)
    header["arrays"][0]["dtype"] = "int65"
    with pytest.raises(ModelFileError, match="dtype 'int65'") as info:
        load_bytes(seal(header, section))  # same problem, valid checksum
    assert "checksum" not in str(info.value)


def test_a_damaged_file_is_said_once_with_what_to_do(tmp_path: Path) -> None:
    """The checksum mismatch is the diagnosis, not also its first problem (the message
    said "file is corrupted" and "checksum mismatch" twice); a damaged file is told to
    be replaced."""
    path = tmp_path / "m.nbayes"
    good = small_file(tmp_path)
    header, section = header_of(good)
    at = {
        "data": len(good) - 32 - len(section),
        "digest": len(good) - 1,
        "header": good.index(b'"dtype":"int64"') + len('"dtype":"int6'),
    }
    for where, pos in at.items():
        data = bytearray(good)
        data[pos] ^= 0x0C  # (in the header: int64 becomes int65)
        path.write_bytes(bytes(data))
        for raw in (False, True):
            with pytest.raises(ModelFileError) as info:
                read_model_file(path, raw=raw)
            message = str(info.value)
            assert message.startswith(f"model file {str(path)!r}: file is corrupted: "), where
            assert message.count("corrupted") == message.count("checksum mismatch") == 1, message
            assert message.endswith("Restore it from a backup or a good copy, or train the "
                                    "model again."), message  # fmt: skip
            if where == "header":
                assert "; the first problem found: invalid header" in message, message
    path.write_bytes(good[:-10])
    with pytest.raises(ModelFileError, match=r"truncated.*\. Restore it from a backup"):
        read_model_file(path)


def test_os_error_while_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.nbayes"
    write_model_file(path, {}, {})

    def fail(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(reading, "open", fail, raising=False)
    with pytest.raises(ModelFileError, match="cannot read .*m.nbayes.*Permission denied") as info:
        read_model_file(path)
    assert isinstance(info.value.__cause__, PermissionError)


def test_truncations_are_reported_as_truncation(tmp_path: Path) -> None:
    data = small_file(tmp_path)
    for cut in (3, 15, 30, len(data) - 100, len(data) - 1):
        with pytest.raises(ModelFileError, match="truncated"):
            load_bytes(data[:cut])


def test_trailing_bytes(tmp_path: Path) -> None:
    data = small_file(tmp_path)
    with pytest.raises(ModelFileError, match="unexpected bytes after the end"):
        load_bytes(data + b"\x00")


def _mutated(header: dict, path: tuple, value: Any) -> dict:
    header = json.loads(json.dumps(header))
    target: Any = header
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return header


DELETE = object()

HOSTILE_HEADERS = [
    (("format",), "pickle", '"format" is'),
    (("format",), None, '"format" is'),
    (("format_version",), 2, '"format_version"'),
    (("format_version",), True, '"format_version"'),
    (("format_version",), "1", '"format_version"'),
    (("data_nbytes",), -64, "data_nbytes"),
    (("data_nbytes",), 2**70, "data_nbytes"),
    (("data_nbytes",), 1.0e3, "data_nbytes"),
    (("data_nbytes",), DELETE, "missing keys"),
    (("surprise",), 1, "unexpected keys"),
    (("metadata",), [], '"metadata" must be a JSON object'),
    (("metadata",), "x", '"metadata" must be a JSON object'),
    (("arrays",), {}, '"arrays" must be a JSON array'),
    (("arrays",), None, '"arrays" must be a JSON array'),
    (("arrays", 0), [], "exactly the keys"),
    (("arrays", 0), "a", "exactly the keys"),
    (("arrays", 0, "extra"), 1, "exactly the keys"),
    (("arrays", 0, "nbytes"), DELETE, "exactly the keys"),
    (("arrays", 0, "name"), 5, "name must be a string"),
    (("arrays", 0, "name"), None, "name must be a string"),
    (("arrays", 1, "name"), "a", "two arrays are named 'a'"),
    (("arrays", 0, "dtype"), "object", "dtype 'object'"),
    (("arrays", 0, "dtype"), "O", "dtype 'O'"),
    (("arrays", 0, "dtype"), "<i8", "dtype '<i8'"),
    (("arrays", 0, "dtype"), "float16", "dtype 'float16'"),
    (("arrays", 0, "dtype"), "complex128", "dtype 'complex128'"),
    (("arrays", 0, "dtype"), ["int64"], "dtype"),
    (("arrays", 0, "dtype"), "int32", "nbytes is 24 but shape"),
    (("arrays", 0, "shape"), [-3], "shape must be"),
    (("arrays", 0, "shape"), [3.0], "shape must be"),
    (("arrays", 0, "shape"), [True, 3], "shape must be"),
    (("arrays", 0, "shape"), "3", "shape must be"),
    (("arrays", 0, "shape"), 3, "shape must be"),
    (("arrays", 0, "shape"), [1] * 33, "shape must be"),
    (("arrays", 0, "shape"), [2**40, 2**40], "nbytes is 24 but shape"),
    (("arrays", 0, "shape"), [4], "nbytes is 24 but shape"),
    (("arrays", 0, "nbytes"), 2**62, "nbytes is"),
    (("arrays", 0, "nbytes"), -24, "non-negative"),
    (("arrays", 0, "offset"), -64, "non-negative"),
    (("arrays", 0, "offset"), 8, "offset 8 should be 0"),
    (("arrays", 0, "offset"), 64, "offset 64 should be 0"),
    (("arrays", 1, "offset"), 0, "offset 0 should be 64"),  # overlap
    (("arrays", 1, "offset"), 128, "offset 128 should be 64"),  # gap
    (("arrays", 1, "offset"), 2**64, "should be 64"),
    (("arrays", 0, "offset"), "0", "non-negative integers"),
    (("arrays", 0, "nbytes"), None, "non-negative integers"),
]


@pytest.mark.parametrize(("path", "value", "match"), HOSTILE_HEADERS)
def test_hostile_header_fields(tmp_path: Path, path: tuple, value: Any, match: str) -> None:
    header, section = _valid_header(tmp_path)
    data = seal(_mutated(header, path, value), section)
    with pytest.raises(ModelFileError, match="invalid header") as info:
        load_bytes(data)
    assert info.match(match)


def test_arrays_swapped_out_of_order(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    header["arrays"][0], header["arrays"][1] = header["arrays"][1], header["arrays"][0]
    with pytest.raises(ModelFileError, match="should be"):
        load_bytes(seal(header, section))


def test_data_section_size_disagreement(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    with pytest.raises(ModelFileError, match="truncated"):
        load_bytes(seal(header, section[:-64]))
    with pytest.raises(ModelFileError, match="unexpected bytes"):
        load_bytes(seal(header, section + bytes(64)))
    header["data_nbytes"] += 64
    with pytest.raises(ModelFileError, match='"data_nbytes" is'):
        load_bytes(seal(header, section + bytes(64)))


def test_array_past_the_data_section(tmp_path: Path) -> None:
    header = {
        "format": FORMAT_NAME,
        "format_version": 1,
        "data_nbytes": 64,
        "arrays": [{"name": "x", "dtype": "uint8", "shape": [100], "offset": 0, "nbytes": 100}],
        "metadata": {},
    }
    with pytest.raises(ModelFileError, match="past the data section"):
        load_bytes(seal(header, bytes(64)))


def test_zero_size_array_with_absurd_shape() -> None:
    header = {
        "format": FORMAT_NAME,
        "format_version": 1,
        "data_nbytes": 0,
        "arrays": [
            {"name": "x", "dtype": "float64", "shape": [0, 2**70], "offset": 0, "nbytes": 0}
        ],
        "metadata": {},
    }
    with pytest.raises(ModelFileError, match="unusable shape"):
        load_bytes(seal(header))


def test_nonzero_padding(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    section = section[:30] + b"\x01" + section[31:]  # array "a" is 24 bytes, then padding
    with pytest.raises(ModelFileError, match="non-zero padding"):
        load_bytes(seal(header, section))


def test_invalid_bool_bytes(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    offset = header["arrays"][1]["offset"]
    assert header["arrays"][1]["dtype"] == "bool"
    section = section[:offset] + b"\x02" + section[offset + 1 :]
    with pytest.raises(ModelFileError, match="bool array 'm'"):
        load_bytes(seal(header, section))


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"\xef\xbb\xbf{}", "not valid plain JSON"),  # a BOM
        (b"{", "not valid plain JSON"),
        (b"", "not valid plain JSON"),
        (b"[]", "expected a JSON object"),
        (b"null", "expected a JSON object"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"metadata": {"x": NaN}}', "NaN is not plain JSON"),
        (b'{"metadata": {"x": -Infinity}}', "-Infinity is not plain JSON"),
        (b'{"metadata": {"x": 1e999}}', "overflows to infinity"),
        (b'{"metadata": {"x": ' + b"9" * 5000 + b"}}", "not valid plain JSON"),
        # refused before parsing: far more memory than the file justifies
        (b"[" * 100_000 + b"]" * 100_000, "would take about"),
        (b"[" * 10_000 + b"]" * 10_000 + b" " * 2_000_000, "nested too deeply"),
        (b'{"metadata": ' + b'{"a":' * 5000 + b"1" + b"}" * 5001, "nested too deeply"),
        # refused before parsing on every Python (json's recursion limit differs: 3.11's
        # took 1,000 levels, 3.13's 5,000)
        (b'{"metadata": ' + b'{"a":' * 200 + b"1" + b"}" * 201, "nested too deeply"),
        (b'{"metadata": "' + b"[" * 300 + b'"}', "missing keys"),  # (in a string: none)
        (b"{} trailing", "not valid plain JSON"),
    ],
)
def test_malformed_json_header(raw: bytes, match: str) -> None:
    with pytest.raises(ModelFileError, match=match):
        load_bytes(seal(raw))


def test_error_messages_stay_short_for_huge_hostile_values(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    huge_int = int("9" * 4000)  # json can still print and parse it
    cases = [
        _mutated(header, ("format",), "x" * 1_000_000),
        _mutated(
            _mutated(header, ("arrays", 0, "name"), "n" * 10**6), ("arrays", 1, "name"), "n" * 10**6
        ),
        _mutated(header, ("arrays", 0, "shape"), [huge_int] * 32),  # product: 128k digits
        _mutated(header, ("arrays", 0, "shape"), list(range(10**5))),
        _mutated(header, ("arrays", 0, "nbytes"), huge_int),
        _mutated(header, ("data_nbytes",), huge_int),
        _mutated(header, ("arrays", 0, "dtype"), {"k" * 1000: ["v" * 1000] * 1000}),
    ]
    for hostile in cases:
        with pytest.raises(ModelFileError) as info:
            load_bytes(seal(hostile, section))
        assert len(str(info.value)) < 700, str(info.value)[:1000]
    with pytest.raises(ModelFileError, match="duplicate key") as info:
        load_bytes(seal(b'{"' + b"k" * 10**6 + b'": 1, "' + b"k" * 10**6 + b'": 2}'))
    assert len(str(info.value)) < 700


def test_unpadded_header_is_rejected(tmp_path: Path) -> None:
    header, section = _valid_header(tmp_path)
    raw = json.dumps(header).encode()
    raw += b" " * ((-(20 + len(raw))) % 64 + 1)
    with pytest.raises(ModelFileError, match="multiple of 64"):
        load_bytes(seal(raw, section, pad=False))


def _peak_bytes_during(func: Any) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def test_huge_claims_do_not_allocate(tmp_path: Path) -> None:
    """Headers and arrays claiming more than the file holds fail before allocating."""
    small = small_file(tmp_path)
    cases = []
    for length in (2**64 - 1, 2**63, 2**40, 10**9, len(small)):  # header length field
        data = bytearray(small)
        data[12:20] = struct.pack("<Q", length)
        cases.append(bytes(data))
    header = {
        "format": FORMAT_NAME,
        "format_version": 1,
        "data_nbytes": 8 * 10**9,
        "arrays": [
            {"name": "x", "dtype": "float64", "shape": [10**9], "offset": 0, "nbytes": 8 * 10**9}
        ],
        "metadata": {},
    }
    cases.append(seal(header, bytes(64)))
    header["data_nbytes"] = header["arrays"][0]["nbytes"] = 8 * 2**60
    header["arrays"][0]["shape"] = [2**30, 2**30]
    cases.append(seal(header, bytes(64)))
    for data in cases:

        def attempt(data: bytes = data) -> None:
            with pytest.raises(ModelFileError, match="truncated|corrupted"):
                load_bytes(data)

        assert _peak_bytes_during(attempt) < 256 * 1024


# --------------------------------------------------------------------------------------
# fuzzing
# --------------------------------------------------------------------------------------


class FuzzStats:
    """Counts fuzz cases per kind (printed with ``pytest -s``)."""

    counts: dict[str, int] = {}

    @classmethod
    def add(cls, kind: str, n: int = 1) -> None:
        cls.counts[kind] = cls.counts.get(kind, 0) + n


def check_mutant(mutant: bytes, original: bytes, want: tuple[dict, dict]) -> bool:
    """A mutant loads to exactly the original content if unchanged, else ModelFileError."""
    try:
        metadata, arrays = load_bytes(mutant)
    except ModelFileError:
        assert mutant != original, "a valid file was rejected"
        return False
    assert mutant == original, "a modified file loaded without error"
    assert metadata == want[0]
    assert_same_arrays(arrays, want[1])
    return True


def fuzz_corpus(tmp_path: Path) -> list[tuple[bytes, tuple[dict, dict]]]:
    specs = [
        ({"model": "GaussianNB", "classes": [0, 1]}, {"a": np.array([1, -2, 3])}),
        (SAMPLE_METADATA, sample_arrays()),
        ({}, {}),
        (
            {"vocabulary": ["a", "b", "ç"], "alpha": 0.5},
            {
                "fc": np.arange(30, dtype=np.float32).reshape(5, 6),
                "b": np.ones(70, dtype=bool),
                "u": np.array(2**64 - 1, dtype=np.uint64),
            },
        ),
    ]
    corpus = []
    for metadata, arrays in specs:
        data = dump_bytes(tmp_path, metadata, arrays)
        corpus.append((data, (metadata, arrays)))
    return corpus


def test_fuzz_every_truncation_via_files(tmp_path: Path) -> None:
    original = small_file(tmp_path)
    want = load_bytes(original)
    path = tmp_path / "cut.nbayes"
    for cut in range(len(original) + 1):
        path.write_bytes(original[:cut])
        try:
            metadata, arrays = read_model_file(path)
        except ModelFileError:
            assert cut < len(original)
        else:
            assert cut == len(original)
            assert metadata == want[0]
            assert_same_arrays(arrays, want[1])
    FuzzStats.add("truncation (files)", len(original) + 1)


def test_fuzz_every_bit_flip(tmp_path: Path) -> None:
    original = small_file(tmp_path)
    want = load_bytes(original)
    for i in range(len(original)):
        for bit in range(8):
            mutant = bytearray(original)
            mutant[i] ^= 1 << bit
            assert not check_mutant(bytes(mutant), original, want)
    FuzzStats.add("single bit flips", 8 * len(original))


def test_fuzz_every_insertion_and_deletion(tmp_path: Path) -> None:
    original = small_file(tmp_path)
    want = load_bytes(original)
    for i in range(len(original) + 1):
        assert not check_mutant(original[:i] + b"\x00" + original[i:], original, want)
        if i < len(original):
            assert not check_mutant(original[:i] + original[i + 1 :], original, want)
    FuzzStats.add("insertions + deletions", 2 * len(original) + 1)


def _random_mutant(rng: random.Random, data: bytes) -> bytes:
    mutant = bytearray(data)
    kind = rng.randrange(9)
    n = len(mutant)
    if kind == 0:  # random byte replacements
        for _ in range(rng.randint(1, 8)):
            mutant[rng.randrange(n)] = rng.randrange(256)
    elif kind == 1:  # random header length
        length = rng.choice([rng.randrange(2**64), rng.randrange(2 * n), rng.randrange(64) * 64])
        mutant[12:20] = struct.pack("<Q", length)
    elif kind == 2:  # random version
        mutant[8:12] = struct.pack("<I", rng.choice([0, 2, rng.randrange(2**32)]))
    elif kind == 3:  # truncate at a random point
        del mutant[rng.randrange(n) :]
    elif kind == 4:  # insert random bytes
        at = rng.randrange(n + 1)
        mutant[at:at] = rng.randbytes(rng.randint(1, 70))
    elif kind == 5:  # delete a random chunk
        at = rng.randrange(n)
        del mutant[at : at + rng.randint(1, 70)]
    elif kind == 6:  # duplicate a chunk
        at = rng.randrange(n)
        chunk = mutant[at : at + rng.randint(1, 70)]
        mutant[at:at] = chunk
    elif kind == 7:  # overwrite a run with a JSON-ish token
        at = rng.randrange(n)
        token = rng.choice([b"-1", b"1e999", b"NaN", b'"x"', b"[]", b"{}", b"null", b"99999999"])
        mutant[at : at + len(token)] = token
    else:  # random bit flips in many places
        for _ in range(rng.randint(2, 30)):
            mutant[rng.randrange(n)] ^= 1 << rng.randrange(8)
    return bytes(mutant)


def test_fuzz_random_mutations(tmp_path: Path) -> None:
    rng = random.Random(20240611)
    corpus = fuzz_corpus(tmp_path)
    cases = 0
    tracemalloc.start()
    try:
        for original, want in corpus:
            for _ in range(2500):
                mutant = _random_mutant(rng, original)
                tracemalloc.reset_peak()
                before, _ = tracemalloc.get_traced_memory()
                check_mutant(mutant, original, want)
                _, peak = tracemalloc.get_traced_memory()
                # never more than a small multiple of what the file can justify
                assert peak - before < 20 * len(mutant) + 256 * 1024
                cases += 1
    finally:
        tracemalloc.stop()
    FuzzStats.add("random byte-level mutations", cases)


JSON_POOL: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    3,
    64,
    2**31,
    2**63,
    2**64 + 1,
    -(2**63),
    10**30,
    0.0,
    -0.0,
    1.5,
    1e308,
    "",
    "a",
    "m",
    "bool",
    "int64",
    "float64",
    "float16",
    "object",
    "<f8",
    "nbayes-model",
    [],
    [0],
    [-1],
    [3],
    [2, 2],
    [0, 2**70],
    [2**62, 2**62],
    [1.0],
    [None],
    {},
    {"name": "a"},
]


def _json_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += _json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            paths += _json_paths(item, (*prefix, i))
    return paths


def _mutate_header(rng: random.Random, header: dict) -> dict:
    header = json.loads(json.dumps(header))
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _json_paths(header) if p]
        path = rng.choice(paths)
        parent: Any = header
        for key in path[:-1]:
            parent = parent[key]
        action = rng.randrange(6)
        if action < 3:
            parent[path[-1]] = copy.deepcopy(rng.choice(JSON_POOL))
        elif action == 3 and isinstance(parent[path[-1]], int) and parent[path[-1]] is not True:
            parent[path[-1]] += rng.choice([-64, -8, -1, 1, 8, 64])
        elif action == 4:
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(parent[0])))
        else:
            key = rng.choice(["extra", "name", "dtype", "shape"])
            parent[key] = copy.deepcopy(rng.choice(JSON_POOL))
    return header


def _loaded_result_is_sane(metadata: dict, arrays: dict, tmp_path: Path) -> None:
    """Whatever a hostile-but-valid file yields, it is safe, plain and re-writable."""
    for array in arrays.values():
        assert type(array) is np.ndarray
        assert str(array.dtype) in ALLOWED
        assert array.flags.writeable and array.flags.c_contiguous
        if array.dtype == bool and array.size:
            assert array.view(np.uint8).max() <= 1
    again = load_bytes(dump_bytes(tmp_path, metadata, arrays))
    assert again[0] == metadata
    assert_same_arrays(again[1], arrays)


def test_fuzz_resealed_header_mutations(tmp_path: Path) -> None:
    """Structural mutations of the header with a *valid* checksum: the hostile-writer case."""
    rng = random.Random(7)
    corpus = fuzz_corpus(tmp_path)
    loaded = cases = 0
    for original, _want in corpus:
        header, section = header_of(original)
        for _ in range(1500):
            mutant_header = _mutate_header(rng, header)
            data_choice = rng.randrange(4)
            if data_choice == 0:
                mutant_section = section
            elif data_choice == 1:
                mutant_section = section[: rng.randrange(len(section) + 1)]
            elif data_choice == 2:
                mutant_section = section + bytes(rng.choice([1, 8, 64, 128]))
            else:
                mutant_section = rng.randbytes(len(section))
            try:
                metadata, arrays = load_bytes(seal(mutant_header, mutant_section))
            except ModelFileError:
                pass
            else:
                loaded += 1
                _loaded_result_is_sane(metadata, arrays, tmp_path)
            cases += 1
    assert loaded > 0  # some mutations (e.g. of metadata values) are legitimate
    FuzzStats.add("resealed header mutations", cases)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(JSON_POOL).map(copy.deepcopy),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "dtype", "shape", "offset", "nbytes", "x"])
            | st.text(max_size=4),
            children,
            max_size=5,
        )
    ),
    max_leaves=12,
)
array_entries = st.fixed_dictionaries(
    {
        "name": st.text(max_size=3) | json_values,
        "dtype": st.sampled_from(ALLOWED) | json_values,
        "shape": st.lists(st.integers(min_value=-2, max_value=2**65), max_size=3) | json_values,
        "offset": st.sampled_from([0, 64, 128]) | st.integers() | json_values,
        "nbytes": st.integers(min_value=-1, max_value=2**65) | json_values,
    }
)
headers = st.fixed_dictionaries(
    {
        "format": st.just(FORMAT_NAME) | json_values,
        "format_version": st.just(1) | json_values,
        "data_nbytes": st.sampled_from([0, 64, 128, 192]) | json_values,
        "arrays": st.lists(array_entries, max_size=3) | json_values,
        "metadata": st.dictionaries(st.text(max_size=4), json_values, max_size=3) | json_values,
    },
    optional={"extra": json_values},
)


@settings(HYPOTHESIS, max_examples=400)
@given(header=headers, section=st.binary(max_size=200) | st.sampled_from([b"", bytes(64)]))
def test_fuzz_hypothesis_headers(tmp_path: Path, header: dict, section: bytes) -> None:
    """Random, often wrongly-typed JSON headers with valid checksums."""
    try:
        metadata, arrays = load_bytes(seal(header, section))
    except ModelFileError:
        pass
    else:
        _loaded_result_is_sane(metadata, arrays, tmp_path)
    FuzzStats.add("hypothesis random headers")


@settings(HYPOTHESIS, max_examples=300)
@given(data=st.binary(max_size=300), prefix=st.sampled_from([b"", MAGIC, MAGIC + b"\x01\0\0\0"]))
def test_fuzz_hypothesis_raw_bytes(data: bytes, prefix: bytes) -> None:
    with pytest.raises(ModelFileError):
        load_bytes(prefix + data)
    FuzzStats.add("hypothesis raw bytes")


def test_zz_report_fuzz_counts() -> None:
    """Print the number of fuzz cases run (visible with ``pytest -s``)."""
    total = sum(FuzzStats.counts.values())
    for kind, n in FuzzStats.counts.items():
        print(f"fuzz {kind}: {n}", file=sys.stderr)
    print(f"fuzz total: {total}", file=sys.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_save_over_what_is_no_regular_file_is_refused_and_leaves_it(tmp_path: Path) -> None:
    # the save renames a new file over its path: over /dev/null (as root) that turned the
    # device into a file; a FIFO stands for it here (never /dev/null in a test)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link.nbm"
    link.symlink_to(fifo)
    for path in (fifo, link):
        with pytest.raises(OSError, match=r"it is a FIFO, which a save would replace"):
            write_model_file(path, SAMPLE_METADATA, {})
        assert stat.S_ISFIFO(os.stat(fifo).st_mode) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.nbm", "pipe"]


def test_a_failed_write_names_the_model_file_not_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "[Errno 28] No space left on device" named nothing; "[Errno 30] ...: '.m.nbm.1a2b.tmp'"
    # a file its user never made
    import errno

    from nbayes.io._modelfile import writing

    path = tmp_path / "m.nbm"
    write_model_file(path, SAMPLE_METADATA, {})
    before = path.read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writing.os, "fsync", full)
    for target, old in ((path, "the old file is unchanged"), (tmp_path / "new.nbm", "renames it")):
        with pytest.raises(OSError) as caught:
            write_model_file(target, SAMPLE_METADATA, {"x": np.zeros(3)})
        said = str(caught.value)
        assert caught.value.errno == errno.ENOSPC and ".tmp" not in said
        assert said.startswith(f"cannot write the model file {str(target)!r}: no space left")
        assert old in said
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["m.nbm"]


def test_a_save_into_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    # it named a hidden temporary file: '.../no_such_dir/.m.nbm.bf556dbc9f17466b.tmp'
    target = tmp_path / "no_such_dir" / "m.nbm"
    with pytest.raises(FileNotFoundError, match=r"'.*no_such_dir' does not exist \(create"):
        write_model_file(target, SAMPLE_METADATA, {})
    (tmp_path / "a_file.txt").write_text("not a folder")
    for deep in (tmp_path / "a_file.txt" / "m.nbm", tmp_path / "a_file.txt" / "sub" / "m.nbm"):
        with pytest.raises(NotADirectoryError, match=r"'.*a_file.txt' is a file, not a folder"):
            write_model_file(deep, SAMPLE_METADATA, {})
