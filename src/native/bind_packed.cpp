// nbayes._native, binding of packed vocabularies (packed.hpp): UTF-8 bytes + offsets, as
// model files store them; strings looked up in them (the PackedIndex capsule).
#include "binding.hpp"
#include "packed.hpp"

using namespace nbk;

static PyObject* py_packed_check(PyObject*, PyObject* args) {
    PyObject *obytes, *ooff;
    if (!PyArg_ParseTuple(args, "OO", &obytes, &ooff)) return nullptr;
    In<u8> data;
    In<i64> off;
    if (!data.get(obytes, "bytes") || !off.get(ooff, "offsets")) return nullptr;
    PackedCheck r;
    if (!nogil([&] { r = packed_check(data.p, data.n, off.p, off.n); })) return nullptr;
    return Py_BuildValue("(iLLO)", r.status, static_cast<long long>(r.at), static_cast<long long>(r.other),
                         r.sorted ? Py_True : Py_False);
}
NBK_ENTRY(packed_check, METH_VARARGS,
          "packed_check(bytes, offsets) -> (status 0 ok / 1 offsets / 2 UTF-8 / 3 duplicate, at, other, sorted)");

// The arguments (bytes, offsets): a packing.
static bool get_packed_args(PyObject* args, In<u8>& data, In<i64>& off) {
    PyObject *obytes, *ooff;
    if (!PyArg_ParseTuple(args, "OO", &obytes, &ooff)) return false;
    return get_packed(obytes, ooff, data, off);
}

// The arguments (bytes, offsets, cols): a packing and term indices into it.
static bool get_packed_cols(PyObject* args, In<u8>& data, In<i64>& off, In<i64>& cols) {
    PyObject *obytes, *ooff, *ocols;
    if (!PyArg_ParseTuple(args, "OOO", &obytes, &ooff, &ocols)) return false;
    if (!get_packed(obytes, ooff, data, off) || !cols.get(ocols, "cols")) return false;
    return check_range(cols.p, cols.n, 0, off.n - 1, "cols");
}

static PyObject* py_packed_sort(PyObject*, PyObject* args) {
    In<u8> data;
    In<i64> off, cols;
    if (!get_packed_cols(args, data, off, cols)) return nullptr;
    std::vector<i64> out(cols.p, cols.p + cols.n);
    if (!nogil([&] { packed_sort(data.p, off.p, out); })) return nullptr;
    return to_np(std::move(out));
}
NBK_ENTRY(packed_sort, METH_VARARGS, "packed_sort(bytes, offsets, cols) -> cols sorted by term");

// The terms cols, in that order, packed anew: (bytes, offsets). One pass over the
// lengths, one copy of the bytes.
static PyObject* py_packed_take(PyObject*, PyObject* args) {
    In<u8> data;
    In<i64> off, cols;
    if (!get_packed_cols(args, data, off, cols)) return nullptr;
    std::vector<i64> offsets;
    std::vector<u8> bytes;
    try {
        offsets.resize(static_cast<std::size_t>(cols.n) + 1);
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    offsets[0] = 0;
    for (i64 i = 0; i < cols.n; ++i) {
        const i64 t = cols.p[i];
        offsets[static_cast<std::size_t>(i) + 1] = offsets[static_cast<std::size_t>(i)] + off.p[t + 1] - off.p[t];
    }
    try {
        bytes.resize(static_cast<std::size_t>(offsets.back()));
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    if (!nogil([&] {
            u8* out = bytes.data();
            for (i64 i = 0; i < cols.n; ++i) {
                const i64 t = cols.p[i];
                const i64 len = off.p[t + 1] - off.p[t];
                if (len > 0) std::memcpy(out + offsets[static_cast<std::size_t>(i)], data.p + off.p[t],
                                         static_cast<std::size_t>(len));
            }
        }))
        return nullptr;
    return vectors_to_np(std::move(bytes), std::move(offsets));
}
NBK_ENTRY(packed_take, METH_VARARGS,
          "packed_take(bytes, offsets, cols) -> (bytes, offsets) of the terms cols");

// The terms as a list of str (first use of a packed vocabulary's strings: one
// PyUnicode_DecodeUTF8 per term, "surrogatepass" as the bytes were written).
static PyObject* py_packed_strings(PyObject*, PyObject* args) {
    In<u8> data;
    In<i64> off;
    if (!get_packed_args(args, data, off)) return nullptr;
    const i64 n = off.n - 1;
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(n));
    if (out == nullptr) return nullptr;
    const char* base = reinterpret_cast<const char*>(data.p);
    for (i64 i = 0; i < n; ++i) {
        PyObject* s = PyUnicode_DecodeUTF8(base + off.p[i], static_cast<Py_ssize_t>(off.p[i + 1] - off.p[i]),
                                           "surrogatepass");
        if (s == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), s);
    }
    return out;
}
NBK_ENTRY(packed_strings, METH_VARARGS, "packed_strings(bytes, offsets) -> list of str");

// ------------------------------------------------------------------------------------
// strings looked up in a packing: the exact index (a capsule), binary searches
// ------------------------------------------------------------------------------------

static constexpr const char* PACKED_INDEX = "nbayes._native.PackedIndex";

static PyObject* py_packed_index(PyObject*, PyObject* args) {
    In<u8> data;
    In<i64> off;
    if (!get_packed_args(args, data, off)) return nullptr;
    const i64 n = off.n - 1;
    if (n >= static_cast<i64>(LO32) - 1)
        return PyErr_Format(PyExc_ValueError, "too many terms to index (%lld)", static_cast<long long>(n));
    std::unique_ptr<PackedIndex> ix;
    if (!nogil([&] { ix = std::make_unique<PackedIndex>(packed_index(data.p, off.p, n)); })) return nullptr;
    PyObject* cap = PyCapsule_New(ix.get(), PACKED_INDEX, box_free<PackedIndex>);
    if (cap != nullptr) ix.release();
    return cap;
}
NBK_ENTRY(packed_index, METH_VARARGS,
          "packed_index(bytes, offsets) -> PackedIndex (the exact hash index of the terms)");

// The str objects of a sequence, held in a tuple (none of them changes or goes away while
// the kernel reads them without the GIL); nullptr with an error set if one is not a str.
static PyObject* held_strings(PyObject* strings) {
    PyObject* hold = PySequence_Tuple(strings);
    if (hold == nullptr) return nullptr;
    const Py_ssize_t n = PyTuple_GET_SIZE(hold);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* s = PyTuple_GET_ITEM(hold, i);
        StrView v;
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "strings[%zd] is of type %s, expected str", i, Py_TYPE(s)->tp_name);
            Py_DECREF(hold);
            return nullptr;
        }
        if (!str_view(s, v)) {  // made ready (Python < 3.12) while the GIL is held
            Py_DECREF(hold);
            return nullptr;
        }
    }
    return hold;
}

static PyObject* py_packed_find(PyObject*, PyObject* args) {
    PyObject *oindex, *obytes, *ooff, *ostrings;
    if (!PyArg_ParseTuple(args, "OOOO", &oindex, &obytes, &ooff, &ostrings)) return nullptr;
    bool ok;
    const PackedIndex* ix = opt_unbox<PackedIndex>(oindex, PACKED_INDEX, "PackedIndex", ok);
    if (!ok) return nullptr;
    In<u8> data;
    In<i64> off;
    if (!get_packed(obytes, ooff, data, off)) return nullptr;
    // the index's term numbers are below n_terms: any packing of as many terms is read
    // safely; the size tells another packing apart (a caller's mistake) more often
    if (ix != nullptr && (ix->n_terms != off.n - 1 || ix->n_bytes != off.p[off.n - 1]))
        return PyErr_Format(PyExc_ValueError,
                            "the index was built for %lld terms of %lld bytes, not these %lld of %lld",
                            static_cast<long long>(ix->n_terms), static_cast<long long>(ix->n_bytes),
                            static_cast<long long>(off.n - 1), static_cast<long long>(off.p[off.n - 1]));
    PyObject* hold = held_strings(ostrings);
    if (hold == nullptr) return nullptr;
    const i64 n = static_cast<i64>(PyTuple_GET_SIZE(hold));
    std::vector<i64> out;
    try {
        out.resize(static_cast<std::size_t>(n));
    } catch (const std::bad_alloc&) {
        Py_DECREF(hold);
        return PyErr_NoMemory();
    }
    auto view = [hold](i64 i) {
        StrView v;
        PyObject* s = PyTuple_GET_ITEM(hold, static_cast<Py_ssize_t>(i));
        v.kind = static_cast<i32>(PyUnicode_KIND(s));
        v.data = PyUnicode_DATA(s);
        v.n = static_cast<i64>(PyUnicode_GET_LENGTH(s));
        return v;
    };
    const bool done = nogil([&] {
        if (ix != nullptr)
            packed_index_lookup(*ix, data.p, off.p, view, n, out.data());
        else
            packed_search_lookup(data.p, off.p, off.n - 1, view, n, out.data());
    });
    Py_DECREF(hold);
    if (!done) return nullptr;
    return to_np(std::move(out));
}
NBK_ENTRY(packed_find, METH_VARARGS,
          "packed_find(index, bytes, offsets, strings) -> the term of each string (-1: none): "
          "through the PackedIndex of the terms, or binary searches of sorted terms (index None)");
