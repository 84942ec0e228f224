// The shared part of nbayes._native's binding (one bind_*.cpp per kernel header):
// errors, the GIL and interruption, arrays in and out, argument checks, capsules.
//
// Every entry point validates what it is given (dtypes, shapes, index ranges) before it
// touches memory, releases the GIL around its loops, and stops with KeyboardInterrupt
// when the user interrupts (signals are checked from the main thread, and a cancel flag
// set by nbayes/text/_tokenize.py reaches worker threads). Strings are read through
// PyUnicode_KIND / PyUnicode_DATA on objects the DocSet keeps alive.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
// one NumPy C API table for the module's translation units, filled by module.cpp
#define PY_ARRAY_UNIQUE_SYMBOL nbayes_native_ARRAY_API
#ifndef NBAYES_NATIVE_MODULE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <cstdarg>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"

namespace nbk {

// The module's entry points. Each binding file names each of its functions right after
// it (NBK_ENTRY), which adds it here when the library is loaded; PyInit__native makes the
// module's method table of them.
inline std::vector<PyMethodDef>& entries() {
    static std::vector<PyMethodDef> all;
    return all;
}

struct Entry {
    Entry(const char* name, PyCFunction f, int flags, const char* doc) {
        entries().push_back(PyMethodDef{name, f, flags, doc});
    }
};

// NBK_ENTRY(name, flags, doc): py_<name> is the module's function <name>.
#define NBK_ENTRY(name, flags, doc) \
    static const nbk::Entry entry_##name(#name, py_##name, flags, doc)

// ------------------------------------------------------------------------------------
// errors, the GIL, interruption
// ------------------------------------------------------------------------------------

inline unsigned long g_main_ident = 0;  // set by PyInit__native

inline int check_signals_main() {
    PyGILState_STATE g = PyGILState_Ensure();
    const int r = PyErr_CheckSignals();
    PyGILState_Release(g);
    return r;
}

inline Poll make_poll() {
    Poll p;
    if (PyThread_get_thread_ident() == g_main_ident) p.check = check_signals_main;
    return p;
}

// Run f without the GIL; translate C++ exceptions into Python errors (false: error set).
template <class F>
inline bool nogil(F&& f, bool release = true) {
    int err = 0;
    std::string msg;
    Poll poll = make_poll();
    Poll* outer = tl_poll;
    tl_poll = &poll;
    PyThreadState* save = release ? PyEval_SaveThread() : nullptr;
    try {
        f();
    } catch (const Interrupted&) {
        err = 1;
    } catch (const std::bad_alloc&) {
        err = 2;
    } catch (const TokenTooLong&) {
        err = 3;
    } catch (const std::exception& e) {
        err = 4;
        msg = e.what();
    }
    if (save != nullptr) PyEval_RestoreThread(save);
    tl_poll = outer;
    switch (err) {
        case 0:
            return true;
        case 1:
            if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
            return false;
        case 2:
            PyErr_NoMemory();
            return false;
        case 3:
            PyErr_SetString(PyExc_ValueError,
                            "a token is longer than 2**31 - 1 characters; split the text");
            return false;
        default:
            PyErr_SetString(PyExc_RuntimeError, msg.c_str());
            return false;
    }
}

inline bool fail(PyObject* type, const char* fmt, ...) {
    va_list vargs;
    va_start(vargs, fmt);
    PyErr_FormatV(type, fmt, vargs);
    va_end(vargs);
    return false;
}

// ------------------------------------------------------------------------------------
// arrays
// ------------------------------------------------------------------------------------

// The NumPy type number of T.
template <class T>
struct NpT {
    static constexpr int v = std::is_same_v<T, u8> ? NPY_UINT8 : std::is_same_v<T, i8> ? NPY_INT8
                           : std::is_same_v<T, u32> ? NPY_UINT32 : std::is_same_v<T, i32> ? NPY_INT32
                           : std::is_same_v<T, i64> ? NPY_INT64 : std::is_same_v<T, u64> ? NPY_UINT64
                                                                                   : NPY_FLOAT64;
    static_assert(v != NPY_FLOAT64 || std::is_same_v<T, double>, "no NumPy type for T");
};

// A read-only C-contiguous array of T (converted, safely, when it is not one).
template <class T>
struct In {
    PyArrayObject* a = nullptr;
    const T* p = nullptr;
    i64 n = 0;
    In() = default;
    In(const In&) = delete;
    ~In() { Py_XDECREF(a); }
    bool get(PyObject* o, const char* name, int ndim = 1) {
        a = reinterpret_cast<PyArrayObject*>(PyArray_FROMANY(o, NpT<T>::v, 0, 0, NPY_ARRAY_IN_ARRAY));
        if (a == nullptr) return false;
        if (ndim >= 0 && PyArray_NDIM(a) != ndim)
            return fail(PyExc_ValueError, "%s must be %d-dimensional, got %d dimensions", name,
                        ndim, PyArray_NDIM(a));
        p = static_cast<const T*>(PyArray_DATA(a));
        n = static_cast<i64>(PyArray_SIZE(a));
        return true;
    }
    i64 dim(int i) const { return static_cast<i64>(PyArray_DIM(a, i)); }
};

// An existing, writeable, C-contiguous array of exactly T (written in place).
template <class T>
struct Out {
    PyArrayObject* a = nullptr;
    T* p = nullptr;
    i64 n = 0;
    bool get(PyObject* o, const char* name, int ndim = 1) {
        if (!PyArray_Check(o))
            return fail(PyExc_TypeError, "%s must be a numpy array, got %s", name,
                        Py_TYPE(o)->tp_name);
        a = reinterpret_cast<PyArrayObject*>(o);
        if (!PyArray_EquivTypenums(PyArray_TYPE(a), NpT<T>::v) || !PyArray_ISCARRAY(a) ||
            PyArray_NDIM(a) != ndim)
            return fail(PyExc_ValueError,
                        "%s must be a writeable C-contiguous %d-dimensional array of the "
                        "kernel's dtype",
                        name, ndim);
        p = static_cast<T*>(PyArray_DATA(a));
        n = static_cast<i64>(PyArray_SIZE(a));
        return true;
    }
    i64 dim(int i) const { return static_cast<i64>(PyArray_DIM(a, i)); }
};

template <class T>
inline void free_vector(PyObject* cap) {
    delete static_cast<std::vector<T>*>(PyCapsule_GetPointer(cap, "nbayes._native.buffer"));
}

// A numpy array that owns the vector's memory (no copy). rows >= 0: shape (rows, cols).
template <class T>
inline PyObject* to_np(std::vector<T>&& v, i64 rows = -1, i64 cols = 0) {
    npy_intp dims[2];
    int nd = 1;
    if (rows >= 0) {
        dims[0] = static_cast<npy_intp>(rows);
        dims[1] = static_cast<npy_intp>(cols);
        nd = 2;
    } else {
        dims[0] = static_cast<npy_intp>(v.size());
    }
    if (v.empty()) return PyArray_ZEROS(nd, dims, NpT<T>::v, 0);
    if (v.capacity() > 2 * v.size() + 1024) {
        try {
            v.shrink_to_fit();
        } catch (const std::bad_alloc&) {  // keep the larger buffer
        }
    }
    auto* h = new (std::nothrow) std::vector<T>(std::move(v));
    if (h == nullptr) return PyErr_NoMemory();
    PyObject* arr = PyArray_SimpleNewFromData(nd, dims, NpT<T>::v, h->data());
    if (arr == nullptr) {
        delete h;
        return nullptr;
    }
    PyObject* cap = PyCapsule_New(h, "nbayes._native.buffer", free_vector<T>);
    if (cap == nullptr) {
        Py_DECREF(arr);
        delete h;
        return nullptr;
    }
    if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), cap) < 0) {
        Py_DECREF(arr);
        return nullptr;
    }
    return arr;
}

// Vectors as a tuple of numpy arrays that own their memory, made one after the other
// (none after one fails: nullptr, the ones made released).
template <class... T>
inline PyObject* vectors_to_np(std::vector<T>&&... v) {
    PyObject* made[sizeof...(T)] = {};
    std::size_t n = 0;
    const bool ok = ((made[n] = to_np(std::move(v)), made[n++] != nullptr) && ...);
    PyObject* out = ok ? PyTuple_New(static_cast<Py_ssize_t>(n)) : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        if (out == nullptr)
            Py_XDECREF(made[i]);
        else
            PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), made[i]);
    }
    return out;
}

inline void free_malloced(PyObject* cap) {
    std::free(PyCapsule_GetPointer(cap, "nbayes._native.zbuffer"));
}

// A numpy array of the first ``count`` elements of a calloc'd buffer (no copy).
template <class T>
inline PyObject* zb_to_np(ZBuf<T>&& z, i64 count) {
    npy_intp dims[1] = {static_cast<npy_intp>(count)};
    if (count <= 0 || z.data() == nullptr) return PyArray_ZEROS(1, dims, NpT<T>::v, 0);
    T* mem = z.release();
    PyObject* arr = PyArray_SimpleNewFromData(1, dims, NpT<T>::v, mem);
    if (arr == nullptr) {
        std::free(mem);
        return nullptr;
    }
    PyObject* cap = PyCapsule_New(mem, "nbayes._native.zbuffer", free_malloced);
    if (cap == nullptr) {
        Py_DECREF(arr);
        std::free(mem);
        return nullptr;
    }
    if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), cap) < 0) {
        Py_DECREF(arr);
        return nullptr;
    }
    return arr;
}

// (start, length) of every term within a pool of pool_n code points.
inline bool check_terms(const In<i64>& tstart, const In<i64>& tlen, i64 pool_n) {
    if (tstart.n != tlen.n)
        return fail(PyExc_ValueError, "tstart and tlen differ in length (%lld, %lld)",
                    static_cast<long long>(tstart.n), static_cast<long long>(tlen.n));
    for (i64 t = 0; t < tstart.n; ++t) {
        const i64 s = tstart.p[t], L = tlen.p[t];
        if (s < 0 || L < 0 || L > pool_n || s > pool_n - L)
            return fail(PyExc_ValueError, "term %lld lies outside the pool", static_cast<long long>(t));
    }
    return true;
}

template <class I>
inline bool check_range(const I* v, i64 n, i64 lo, i64 hi, const char* name) {
    for (i64 i = 0; i < n; ++i)
        if (static_cast<i64>(v[i]) < lo || static_cast<i64>(v[i]) >= hi)
            return fail(PyExc_ValueError, "%s[%lld] = %lld is out of range [%lld, %lld)", name,
                        static_cast<long long>(i), static_cast<long long>(v[i]),
                        static_cast<long long>(lo), static_cast<long long>(hi));
    return true;
}

// A CSR-like pointer: nondecreasing, from >= 0 to <= n.
inline bool check_ptr(const i64* ptr, i64 m, i64 n, const char* name) {
    if (m < 1) return fail(PyExc_ValueError, "%s is empty", name);
    if (ptr[0] < 0) return fail(PyExc_ValueError, "%s[0] is negative", name);
    for (i64 i = 1; i < m; ++i)
        if (ptr[i] < ptr[i - 1])
            return fail(PyExc_ValueError, "%s decreases at %lld", name, static_cast<long long>(i));
    if (ptr[m - 1] > n)
        return fail(PyExc_ValueError, "%s ends past its data (%lld > %lld)", name,
                    static_cast<long long>(ptr[m - 1]), static_cast<long long>(n));
    return true;
}

inline bool get_table(PyObject* o, In<u32>& t, const char* name) {
    if (!t.get(o, name)) return false;
    if (t.n != MAX_CP)
        return fail(PyExc_ValueError, "%s must have 0x110000 entries, got %lld", name,
                    static_cast<long long>(t.n));
    return true;
}

// ------------------------------------------------------------------------------------
// capsules: documents, counting runs, lookup tables, interning tables
// ------------------------------------------------------------------------------------

inline constexpr const char* DOCSET = "nbayes._native.DocSet";
inline constexpr const char* RUN = "nbayes._native.Run";
inline constexpr const char* LOOKUP = "nbayes._native.Lookup";
inline constexpr const char* INTERN = "nbayes._native.Intern";

struct DocSetBox {
    DocSet ds;
    PyObject* hold = nullptr;  // the tuple of documents
    std::vector<PyObject*> keep;  // documents lowered by Python
};

inline void docset_free(PyObject* cap) {
    auto* b = static_cast<DocSetBox*>(PyCapsule_GetPointer(cap, DOCSET));
    if (b == nullptr) return;
    Py_XDECREF(b->hold);
    for (PyObject* o : b->keep) Py_DECREF(o);
    delete b;
}

template <class T>
inline void box_free(PyObject* cap) {
    const char* name = PyCapsule_GetName(cap);
    delete static_cast<T*>(PyCapsule_GetPointer(cap, name));
}

template <class T>
inline T* unbox(PyObject* o, const char* name, const char* what) {
    if (!PyCapsule_IsValid(o, name)) {
        PyErr_Format(PyExc_TypeError, "expected a %s (from nbayes._native), got %s", what,
                     Py_TYPE(o)->tp_name);
        return nullptr;
    }
    return static_cast<T*>(PyCapsule_GetPointer(o, name));
}

inline const DocSet* get_docs(PyObject* o) {
    auto* b = unbox<DocSetBox>(o, DOCSET, "DocSet");
    return b == nullptr ? nullptr : &b->ds;
}

inline bool str_view(PyObject* s, StrView& v) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return false;
#endif
    v.kind = static_cast<i32>(PyUnicode_KIND(s));
    v.data = PyUnicode_DATA(s);
    v.n = static_cast<i64>(PyUnicode_GET_LENGTH(s));
    return true;
}

// Does a 2- or 4-byte string hold U+0130 or U+03A3 (whose lowercase needs Python)?
inline bool needs_python_lower(const StrView& v) {
    if (v.kind == 2) {
        const u16* q = static_cast<const u16*>(v.data);
        for (i64 i = 0; i < v.n; ++i)
            if (q[i] == 0x130 || q[i] == 0x3A3) return true;
    } else if (v.kind == 4) {
        const u32* q = static_cast<const u32*>(v.data);
        for (i64 i = 0; i < v.n; ++i)
            if (q[i] == 0x130 || q[i] == 0x3A3) return true;
    }
    return false;
}

// A vocabulary's terms as (pool, tstart, tlen): code points and the (start, length) of
// every term within them, checked.
struct TermArgs {
    In<u32> pool;
    In<i64> tstart, tlen;
    bool get(PyObject* op, PyObject* os, PyObject* ol) {
        return pool.get(op, "pool") && tstart.get(os, "tstart") && tlen.get(ol, "tlen") &&
               check_terms(tstart, tlen, pool.n);
    }
};

// Word pairs (first[i], second[i]: word ids below n_words) and ids of words and pairs (an
// id below n_words is a word, n_words + i the pair i), as ngram_blob and ngram_order take.
struct NgramIdArgs {
    In<i32> first, second;
    In<i64> ids;
    bool get(PyObject* of, PyObject* os, PyObject* oi, i64 n_words) {
        if (!first.get(of, "first") || !second.get(os, "second") || !ids.get(oi, "ids")) return false;
        if (first.n != second.n) return fail(PyExc_ValueError, "first and second differ in length");
        return check_range(first.p, first.n, 0, n_words, "first") &&
               check_range(second.p, second.n, 0, n_words, "second") &&
               check_range(ids.p, ids.n, 0, n_words + first.n, "ids");
    }
};


// bytes (uint8) and offsets (int64) whose offsets are safe to index with: n + 1 >= 1
// nondecreasing values from 0 to at most the number of bytes.
inline bool get_packed(PyObject* obytes, PyObject* ooff, In<u8>& data, In<i64>& off) {
    if (!data.get(obytes, "bytes") || !off.get(ooff, "offsets")) return false;
    if (!check_ptr(off.p, off.n, data.n, "offsets")) return false;
    if (off.p[0] != 0) return fail(PyExc_ValueError, "offsets[0] is %lld, not 0", static_cast<long long>(off.p[0]));
    return true;
}

// An optional capsule: None -> nullptr (ok), else the capsule's object (ok: it is one).
template <class T>
inline const T* opt_unbox(PyObject* o, const char* name, const char* what, bool& ok) {
    ok = true;
    if (o == Py_None) return nullptr;
    T* p = unbox<T>(o, name, what);
    ok = p != nullptr;
    return p;
}

// CSR pieces (Csr of lookup.hpp) as a tuple of arrays, with the first-seen columns or not.
template <class C>
inline PyObject* csr_tuple(C&& c, bool with_first) {
    if (with_first)
        return Py_BuildValue("(NNNN)", to_np(std::move(c.indptr)), to_np(std::move(c.indices)),
                             to_np(std::move(c.values)), to_np(std::move(c.first)));
    return Py_BuildValue("(NNN)", to_np(std::move(c.indptr)), to_np(std::move(c.indices)),
                         to_np(std::move(c.values)));
}

inline bool doc_span(const DocSet* ds, long long lo, long long hi) {
    const auto n = static_cast<long long>(ds->views.size());
    if (lo < 0 || lo > hi || hi > n)
        return fail(PyExc_ValueError, "documents %lld..%lld out of range (%lld documents)", lo, hi, n);
    return true;
}

}  // namespace nbk
