// nbayes._native: the compiled text kernels, bound to Python through the CPython and
// NumPy C APIs.
//
// Every entry point validates what it is given (dtypes, shapes, index ranges) before it
// touches memory, releases the GIL around its loops, and stops with KeyboardInterrupt
// when the user interrupts (signals are checked from the main thread, and a cancel flag
// set by nbayes/text/_tokenize.py reaches worker threads). Strings are read through
// PyUnicode_KIND / PyUnicode_DATA on objects the DocSet keeps alive.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "common.hpp"
#include "count.hpp"
#include "hashing.hpp"
#include "intern.hpp"
#include "lookup.hpp"
#include "merge_cells.hpp"
#include "scan.hpp"
#include "scoring.hpp"
#include "sort_merge.hpp"
#include "table.hpp"

using namespace nbk;

// ------------------------------------------------------------------------------------
// errors, the GIL, interruption
// ------------------------------------------------------------------------------------

static unsigned long g_main_ident = 0;

static int check_signals_main() {
    PyGILState_STATE g = PyGILState_Ensure();
    const int r = PyErr_CheckSignals();
    PyGILState_Release(g);
    return r;
}

static Poll make_poll() {
    Poll p;
    if (PyThread_get_thread_ident() == g_main_ident) p.check = check_signals_main;
    return p;
}

// Run f without the GIL; translate C++ exceptions into Python errors (false: error set).
template <class F>
static bool nogil(F&& f, bool release = true) {
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

static bool fail(PyObject* type, const char* fmt, ...) {
    va_list vargs;
    va_start(vargs, fmt);
    PyErr_FormatV(type, fmt, vargs);
    va_end(vargs);
    return false;
}

// ------------------------------------------------------------------------------------
// arrays
// ------------------------------------------------------------------------------------

template <class T>
struct NpT;
template <>
struct NpT<u8> {
    static constexpr int v = NPY_UINT8;
};
template <>
struct NpT<i8> {
    static constexpr int v = NPY_INT8;
};
template <>
struct NpT<u32> {
    static constexpr int v = NPY_UINT32;
};
template <>
struct NpT<i32> {
    static constexpr int v = NPY_INT32;
};
template <>
struct NpT<i64> {
    static constexpr int v = NPY_INT64;
};
template <>
struct NpT<u64> {
    static constexpr int v = NPY_UINT64;
};
template <>
struct NpT<double> {
    static constexpr int v = NPY_FLOAT64;
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
static void free_vector(PyObject* cap) {
    delete static_cast<std::vector<T>*>(PyCapsule_GetPointer(cap, "nbayes._native.buffer"));
}

// A numpy array that owns the vector's memory (no copy). rows >= 0: shape (rows, cols).
template <class T>
static PyObject* to_np(std::vector<T>&& v, i64 rows = -1, i64 cols = 0) {
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
static PyObject* vectors_to_np(std::vector<T>&&... v) {
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

static void free_malloced(PyObject* cap) {
    std::free(PyCapsule_GetPointer(cap, "nbayes._native.zbuffer"));
}

// A numpy array of the first ``count`` elements of a calloc'd buffer (no copy).
template <class T>
static PyObject* zb_to_np(ZBuf<T>&& z, i64 count) {
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
static bool check_terms(const In<i64>& tstart, const In<i64>& tlen, i64 pool_n) {
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
static bool check_range(const I* v, i64 n, i64 lo, i64 hi, const char* name) {
    for (i64 i = 0; i < n; ++i)
        if (static_cast<i64>(v[i]) < lo || static_cast<i64>(v[i]) >= hi)
            return fail(PyExc_ValueError, "%s[%lld] = %lld is out of range [%lld, %lld)", name,
                        static_cast<long long>(i), static_cast<long long>(v[i]),
                        static_cast<long long>(lo), static_cast<long long>(hi));
    return true;
}

// A CSR-like pointer: nondecreasing, from >= 0 to <= n.
static bool check_ptr(const i64* ptr, i64 m, i64 n, const char* name) {
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

static bool get_table(PyObject* o, In<u32>& t, const char* name) {
    if (!t.get(o, name)) return false;
    if (t.n != MAX_CP)
        return fail(PyExc_ValueError, "%s must have 0x110000 entries, got %lld", name,
                    static_cast<long long>(t.n));
    return true;
}

// ------------------------------------------------------------------------------------
// capsules: documents, counting runs, lookup tables
// ------------------------------------------------------------------------------------

static const char* DOCSET = "nbayes._native.DocSet";
static const char* RUN = "nbayes._native.Run";
static const char* LOOKUP = "nbayes._native.Lookup";

struct DocSetBox {
    DocSet ds;
    PyObject* hold = nullptr;  // the tuple of documents
    std::vector<PyObject*> keep;  // documents lowered by Python
};

static void docset_free(PyObject* cap) {
    auto* b = static_cast<DocSetBox*>(PyCapsule_GetPointer(cap, DOCSET));
    if (b == nullptr) return;
    Py_XDECREF(b->hold);
    for (PyObject* o : b->keep) Py_DECREF(o);
    delete b;
}

template <class T>
static void box_free(PyObject* cap) {
    const char* name = PyCapsule_GetName(cap);
    delete static_cast<T*>(PyCapsule_GetPointer(cap, name));
}

template <class T>
static T* unbox(PyObject* o, const char* name, const char* what) {
    if (!PyCapsule_IsValid(o, name)) {
        PyErr_Format(PyExc_TypeError, "expected a %s (from nbayes._native), got %s", what,
                     Py_TYPE(o)->tp_name);
        return nullptr;
    }
    return static_cast<T*>(PyCapsule_GetPointer(o, name));
}

static const DocSet* get_docs(PyObject* o) {
    auto* b = unbox<DocSetBox>(o, DOCSET, "DocSet");
    return b == nullptr ? nullptr : &b->ds;
}

static bool str_view(PyObject* s, StrView& v) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return false;
#endif
    v.kind = static_cast<i32>(PyUnicode_KIND(s));
    v.data = PyUnicode_DATA(s);
    v.n = static_cast<i64>(PyUnicode_GET_LENGTH(s));
    return true;
}

// Does a 2- or 4-byte string hold U+0130 or U+03A3 (whose lowercase needs Python)?
static bool needs_python_lower(const StrView& v) {
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

PyDoc_STRVAR(doc_set_doc,
             "doc_set(docs, lowercase) -> (DocSet, lengths)\n\n"
             "Views of the str objects of ``docs`` for the kernels (kept alive with them).\n"
             "With ``lowercase``, documents holding U+0130 or U+03A3 are lowercased by\n"
             "Python's str.lower first; ``lengths`` are the lengths the kernels read.");

static PyObject* py_doc_set(PyObject*, PyObject* args) {
    PyObject* docs;
    int lowercase;
    if (!PyArg_ParseTuple(args, "Op", &docs, &lowercase)) return nullptr;
    PyObject* hold = PySequence_Tuple(docs);
    if (hold == nullptr) return nullptr;
    auto* box = new (std::nothrow) DocSetBox;
    if (box == nullptr) {
        Py_DECREF(hold);
        return PyErr_NoMemory();
    }
    box->hold = hold;
    PyObject* cap = PyCapsule_New(box, DOCSET, docset_free);
    if (cap == nullptr) {
        Py_DECREF(hold);
        delete box;
        return nullptr;
    }
    // from here on, releasing cap frees everything
    const Py_ssize_t n = PyTuple_GET_SIZE(hold);
    std::vector<i64> lengths;
    try {
        box->ds.views.resize(static_cast<std::size_t>(n));
        box->ds.nolow.assign(static_cast<std::size_t>(n), 0);
        lengths.resize(static_cast<std::size_t>(n));
    } catch (const std::bad_alloc&) {
        Py_DECREF(cap);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* s = PyTuple_GET_ITEM(hold, i);
        StrView v;
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "docs[%zd] is of type %s, expected str", i,
                         Py_TYPE(s)->tp_name);
            Py_DECREF(cap);
            return nullptr;
        }
        if (!str_view(s, v)) {
            Py_DECREF(cap);
            return nullptr;
        }
        if (lowercase && needs_python_lower(v)) {
            PyObject* low = PyObject_CallMethod(reinterpret_cast<PyObject*>(&PyUnicode_Type),
                                                "lower", "O", s);
            if (low == nullptr) {
                Py_DECREF(cap);
                return nullptr;
            }
            box->keep.push_back(low);
            if (!str_view(low, v)) {
                Py_DECREF(cap);
                return nullptr;
            }
            box->ds.nolow[static_cast<std::size_t>(i)] = 1;
        }
        box->ds.views[static_cast<std::size_t>(i)] = v;
        lengths[static_cast<std::size_t>(i)] = v.n;
    }
    PyObject* lens = to_np(std::move(lengths));
    if (lens == nullptr) {
        Py_DECREF(cap);
        return nullptr;
    }
    return Py_BuildValue("(NN)", cap, lens);
}

// -- counting runs ---------------------------------------------------------------------

static PyObject* py_run_new(PyObject*, PyObject* args) {
    long long n_classes, expect = 0;
    int small;
    if (!PyArg_ParseTuple(args, "Lp|L", &n_classes, &small, &expect)) return nullptr;
    if (n_classes < 1 || n_classes > (1LL << 31))
        return PyErr_Format(PyExc_ValueError, "n_classes must be in [1, 2**31], got %lld", n_classes);
    if (expect < 0 || expect > (1LL << 40))
        return PyErr_Format(PyExc_ValueError, "expect out of range: %lld", expect);
    Run* r = nullptr;
    try {
        r = new Run(n_classes, small != 0, expect);
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    PyObject* cap = PyCapsule_New(r, RUN, box_free<Run>);
    if (cap == nullptr) delete r;
    return cap;
}

static PyObject* py_run_count(PyObject*, PyObject* args) {
    PyObject *orun, *odocs, *oy, *otlow, *otid;
    long long lo, hi;
    int binary;
    if (!PyArg_ParseTuple(args, "OOLLOOOp", &orun, &odocs, &lo, &hi, &oy, &otlow, &otid, &binary))
        return nullptr;
    Run* r = unbox<Run>(orun, RUN, "Run");
    const DocSet* ds = get_docs(odocs);
    if (r == nullptr || ds == nullptr) return nullptr;
    In<i64> y;
    In<u32> tlow, tid;
    if (!y.get(oy, "y") || !get_table(otlow, tlow, "tlow") || !get_table(otid, tid, "tid"))
        return nullptr;
    const i64 n_docs = static_cast<i64>(ds->views.size());
    if (lo < 0 || lo > hi || hi > n_docs)
        return PyErr_Format(PyExc_ValueError, "documents %lld..%lld out of range (%lld documents)",
                            lo, hi, static_cast<long long>(n_docs));
    if (y.n < hi) return PyErr_Format(PyExc_ValueError, "y has %lld labels for %lld documents",
                                      static_cast<long long>(y.n), hi);
    if (!check_range(y.p + lo, hi - lo, 0, r->n_classes, "y")) return nullptr;
    if (!nogil([&] { count_run(*ds, lo, hi, y.p, tlow.p, tid.p, binary != 0, *r); }))
        return nullptr;
    Py_RETURN_NONE;
}

static PyObject* py_run_reserve(PyObject*, PyObject* args) {
    PyObject* orun;
    long long expect;
    if (!PyArg_ParseTuple(args, "OL", &orun, &expect)) return nullptr;
    Run* r = unbox<Run>(orun, RUN, "Run");
    if (r == nullptr) return nullptr;
    if (expect > (1LL << 40)) return PyErr_Format(PyExc_ValueError, "expect out of range: %lld", expect);
    if (!nogil([&] { r->reserve(expect); })) return nullptr;
    Py_RETURN_NONE;
}

static PyObject* py_run_terms(PyObject*, PyObject* arg) {
    Run* r = unbox<Run>(arg, RUN, "Run");
    if (r == nullptr) return nullptr;
    return PyLong_FromLongLong(r->n_terms);
}

static PyObject* sort_out_tuple(SortOut&& s) {
    return Py_BuildValue("(NNiNN)", to_np(std::move(s.order)), to_np(std::move(s.first)), s.per,
                         to_np(std::move(s.skeys)), to_np(std::move(s.slen)));
}

PyDoc_STRVAR(run_finish_doc,
             "run_finish(run) -> (pool, tstart, tlen, counts, df, order, first, per, skeys, slen)\n\n"
             "The run's terms, id-major counts and document frequencies, and its terms\n"
             "sorted (see sort_terms). The run is empty afterwards.");

static PyObject* py_run_finish(PyObject*, PyObject* arg) {
    Run* r = unbox<Run>(arg, RUN, "Run");
    if (r == nullptr) return nullptr;
    ZBuf<u32> pool;
    ZBuf<i64> tstart, tlen;
    ZBuf<i32> c32;
    ZBuf<i64> c64;
    std::vector<i64> df;
    SortOut s;
    const bool small = r->small;
    const i64 n = r->n_terms, used = r->pool_used, nc = r->n_classes;
    if (!nogil([&] {
            df = run_df(*r);
            pool = std::move(r->pool);
            tstart = std::move(r->tstart);
            tlen = std::move(r->tlen);
            c32 = std::move(r->c32);
            c64 = std::move(r->c64);
            *r = Run(nc, small, 0);  // the run is empty (and usable) afterwards
            Terms T{pool.data(), used, tstart.data(), tlen.data(), n};
            s = sort_terms(T);
        }))
        return nullptr;
    PyObject* counts = small ? zb_to_np(std::move(c32), n * nc) : zb_to_np(std::move(c64), n * nc);
    return Py_BuildValue("(NNNNNNNiNN)", zb_to_np(std::move(pool), used), zb_to_np(std::move(tstart), n),
                         zb_to_np(std::move(tlen), n), counts, to_np(std::move(df)),
                         to_np(std::move(s.order)), to_np(std::move(s.first)), s.per,
                         to_np(std::move(s.skeys)), to_np(std::move(s.slen)));
}

// -- sorting and merging -----------------------------------------------------------------

struct TermArgs {
    In<u32> pool;
    In<i64> tstart, tlen;
    bool get(PyObject* op, PyObject* os, PyObject* ol) {
        return pool.get(op, "pool") && tstart.get(os, "tstart") && tlen.get(ol, "tlen") &&
               check_terms(tstart, tlen, pool.n);
    }
    Terms terms() const { return Terms{pool.p, pool.n, tstart.p, tlen.p, tstart.n}; }
};

static PyObject* py_sort_terms(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol;
    if (!PyArg_ParseTuple(args, "OOO", &op, &os, &ol)) return nullptr;
    TermArgs A;
    if (!A.get(op, os, ol)) return nullptr;
    SortOut s;
    if (!nogil([&] { s = sort_terms(A.terms()); })) return nullptr;
    return sort_out_tuple(std::move(s));
}

static PyObject* py_prefix_keys(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol;
    if (!PyArg_ParseTuple(args, "OOO", &op, &os, &ol)) return nullptr;
    TermArgs A;
    if (!A.get(op, os, ol)) return nullptr;
    std::vector<u64> keys;
    if (!nogil([&] { keys = prefix_keys(A.terms()); })) return nullptr;
    return to_np(std::move(keys));
}

static PyObject* py_split_sorted(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol, *ok, *oo, *ob;
    long long n_pieces;
    if (!PyArg_ParseTuple(args, "OOOOOOL", &op, &os, &ol, &ok, &oo, &ob, &n_pieces)) return nullptr;
    TermArgs A;
    In<u64> keys;
    In<i64> order, bounds;
    if (!A.get(op, os, ol) || !keys.get(ok, "keys") || !order.get(oo, "order") ||
        !bounds.get(ob, "bounds"))
        return nullptr;
    const i64 n = A.tstart.n;
    if (keys.n != n) return PyErr_Format(PyExc_ValueError, "keys must have one entry per term");
    if (n_pieces < 1 || n_pieces > 1 << 20) return PyErr_Format(PyExc_ValueError, "n_pieces out of range");
    if (bounds.n < 2) return PyErr_Format(PyExc_ValueError, "bounds needs at least 2 entries");
    if (!check_ptr(bounds.p, bounds.n, order.n, "bounds") ||
        !check_range(order.p, order.n, 0, n, "order"))
        return nullptr;
    std::vector<i64> cuts;
    const i64 k = bounds.n - 1;
    if (!nogil([&] { cuts = split_sorted(A.terms(), keys.p, order.p, bounds.p, k, n_pieces); }))
        return nullptr;
    return to_np(std::move(cuts), n_pieces + 1, k);
}

static PyObject* py_merge_piece(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol, *ok, *oo, *ost, *oen, *opk, *opl;
    unsigned long long low;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOK", &op, &os, &ol, &ok, &oo, &ost, &oen, &opk, &opl, &low))
        return nullptr;
    TermArgs A;
    In<u64> keys, pkeys;
    In<i64> order, starts, ends, plen;
    if (!A.get(op, os, ol) || !keys.get(ok, "keys") || !order.get(oo, "order") ||
        !starts.get(ost, "starts") || !ends.get(oen, "ends") || !pkeys.get(opk, "pkeys") ||
        !plen.get(opl, "plen"))
        return nullptr;
    const i64 n = A.tstart.n;
    if (keys.n != n || pkeys.n != order.n || plen.n != order.n || starts.n != ends.n || starts.n < 1)
        return PyErr_Format(PyExc_ValueError, "merge_piece: inconsistent array lengths");
    for (i64 r = 0; r < starts.n; ++r)
        if (starts.p[r] < 0 || starts.p[r] > ends.p[r] || ends.p[r] > order.n)
            return PyErr_Format(PyExc_ValueError, "merge_piece: run %lld out of range", static_cast<long long>(r));
    if (!check_range(order.p, order.n, 0, n, "order")) return nullptr;
    std::vector<i64> sel;
    i64 chars = 0, m = 0;
    const i64 k = starts.n;
    if (!nogil([&] {
            m = merge_piece(A.terms(), keys.p, order.p, starts.p, ends.p, k, pkeys.p, plen.p,
                            static_cast<u64>(low), sel, chars);
        }))
        return nullptr;
    return Py_BuildValue("(NL)", to_np(std::move(sel), m, k), static_cast<long long>(chars));
}

static PyObject* py_fill_blob(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol, *osel, *oblob;
    long long o;
    unsigned int sep;
    if (!PyArg_ParseTuple(args, "OOOOOLI", &op, &os, &ol, &osel, &oblob, &o, &sep)) return nullptr;
    TermArgs A;
    In<i64> sel;
    Out<u32> blob;
    if (!A.get(op, os, ol) || !sel.get(osel, "sel", 2) || !blob.get(oblob, "blob")) return nullptr;
    const i64 n = sel.dim(0), k = sel.dim(1);
    if (k < 1 && n > 0) return PyErr_Format(PyExc_ValueError, "sel has no columns");
    i64 need = 0;
    for (i64 j = 0; j < n; ++j) {
        i64 r = 0;
        while (sel.p[j * k + r] < 0 && r < k - 1) ++r;
        const i64 t = sel.p[j * k + r];
        if (t < 0 || t >= A.tstart.n) return PyErr_Format(PyExc_ValueError, "sel row %lld names no term", static_cast<long long>(j));
        need += A.tlen.p[t] + 1;
    }
    if (o < 0 || o > blob.n - need) return PyErr_Format(PyExc_ValueError, "blob too small");
    if (!nogil([&] { fill_blob(A.terms(), sel.p, n, k, blob.p, o, sep); })) return nullptr;
    Py_RETURN_NONE;
}

template <class C, class O>
static bool fill_counts_typed(const std::vector<PyArrayObject*>& counts,
                              const std::vector<const i64*>& df, const std::vector<i64>& off,
                              const In<i64>& sel, i64 C_, PyArrayObject* out, i64* out_df,
                              double* out_tf, i64 col0) {
    const i64 n = sel.dim(0), k = sel.dim(1);
    std::vector<const C*> cp;
    for (PyArrayObject* a : counts) cp.push_back(static_cast<const C*>(PyArray_DATA(a)));
    O* op = static_cast<O*>(PyArray_DATA(out));
    return nogil([&] {
        fill_counts(cp.data(), df.data(), off.data(), sel.p, n, k, C_, op, out_df, out_tf, col0);
    });
}

// fill_counts(counts_per_run, df_per_run, sel, n_classes, out, out_df, col0[, out_tf]): sel's
// ids are global (run r's ids follow those of runs 0..r-1), column r of sel names run r's
// terms; out_tf (float64, optional) receives each row's total. The rows col0..col0+n-1 of
// out, out_df and out_tf are written, not added to (they need not be zeroed).
static PyObject* py_fill_counts(PyObject*, PyObject* args) {
    PyObject *oc, *odf, *osel, *oout, *ood, *otf = Py_None;
    long long C_, col0;
    if (!PyArg_ParseTuple(args, "OOOLOOL|O", &oc, &odf, &osel, &C_, &oout, &ood, &col0, &otf))
        return nullptr;
    In<i64> sel;
    Out<i64> out_df;
    Out<double> out_tf;
    if (!sel.get(osel, "sel", 2) || !out_df.get(ood, "out_df")) return nullptr;
    if (otf != Py_None && !out_tf.get(otf, "out_tf")) return nullptr;
    if (!PyTuple_Check(oc) || !PyTuple_Check(odf))
        return PyErr_Format(PyExc_TypeError, "counts and df must be tuples of arrays, one per run");
    const i64 k = sel.dim(1);
    if (PyTuple_GET_SIZE(oc) != k || PyTuple_GET_SIZE(odf) != k)
        return PyErr_Format(PyExc_ValueError, "fill_counts: one counts and one df array per column of sel");
    if (!PyArray_Check(oout)) return PyErr_Format(PyExc_TypeError, "out must be a numpy array");
    auto* out = reinterpret_cast<PyArrayObject*>(oout);
    const int ot = PyArray_TYPE(out);
    const bool oi = PyArray_EquivTypenums(ot, NPY_INT64), of = PyArray_EquivTypenums(ot, NPY_FLOAT64);
    if (!(oi || of) || !PyArray_ISCARRAY(out) || PyArray_NDIM(out) != 2)
        return PyErr_Format(PyExc_ValueError, "out must be a writeable C-contiguous int64 or float64 matrix");
    if (C_ < 1 || PyArray_DIM(out, 1) != C_)
        return PyErr_Format(PyExc_ValueError, "fill_counts: shapes do not match n_classes");
    std::vector<PyArrayObject*> counts;
    std::vector<In<i64>> dfs(static_cast<std::size_t>(k));
    std::vector<const i64*> dfp;
    std::vector<i64> off, size;
    int ct = -1;
    i64 total = 0;
    for (i64 r = 0; r < k; ++r) {
        PyObject* c = PyTuple_GET_ITEM(oc, r);
        if (!PyArray_Check(c)) return PyErr_Format(PyExc_TypeError, "counts must be numpy arrays");
        auto* ca = reinterpret_cast<PyArrayObject*>(c);
        const int t = PyArray_TYPE(ca);
        const bool ok_t = PyArray_EquivTypenums(t, NPY_INT32) || PyArray_EquivTypenums(t, NPY_INT64);
        if (!ok_t || !PyArray_IS_C_CONTIGUOUS(ca) || PyArray_NDIM(ca) != 1 ||
            (ct != -1 && !PyArray_EquivTypenums(t, ct)))
            return PyErr_Format(PyExc_ValueError, "counts must be C-contiguous int32 or int64 vectors of one dtype");
        ct = t;
        auto& d = dfs[static_cast<std::size_t>(r)];
        if (!d.get(PyTuple_GET_ITEM(odf, r), "df")) return nullptr;
        if (static_cast<i64>(PyArray_SIZE(ca)) / C_ < d.n)
            return PyErr_Format(PyExc_ValueError, "fill_counts: counts of run %lld shorter than n_terms * n_classes",
                                static_cast<long long>(r));
        counts.push_back(ca);
        dfp.push_back(d.p);
        off.push_back(total);
        size.push_back(d.n);
        total += d.n;
    }
    const i64 n = sel.dim(0);
    if (col0 < 0 || col0 > PyArray_DIM(out, 0) - n || col0 > out_df.n - n ||
        (otf != Py_None && col0 > out_tf.n - n))
        return PyErr_Format(PyExc_ValueError, "fill_counts: rows out of range");
    double* tf = otf == Py_None ? nullptr : out_tf.p;
    for (i64 i = 0; i < sel.n; ++i) {
        const i64 r = i % k, g = sel.p[i];
        if (g >= 0 && (g < off[static_cast<std::size_t>(r)] ||
                       g - off[static_cast<std::size_t>(r)] >= size[static_cast<std::size_t>(r)]))
            return PyErr_Format(PyExc_ValueError, "sel names an unknown term");
    }
    const bool c32 = PyArray_EquivTypenums(ct, NPY_INT32);
    bool ok;
    if (c32 && oi) ok = fill_counts_typed<i32, i64>(counts, dfp, off, sel, C_, out, out_df.p, tf, col0);
    else if (c32) ok = fill_counts_typed<i32, double>(counts, dfp, off, sel, C_, out, out_df.p, tf, col0);
    else if (oi) ok = fill_counts_typed<i64, i64>(counts, dfp, off, sel, C_, out, out_df.p, tf, col0);
    else ok = fill_counts_typed<i64, double>(counts, dfp, off, sel, C_, out, out_df.p, tf, col0);
    if (!ok) return nullptr;
    Py_RETURN_NONE;
}

static PyObject* box_lookup(Lookup&& lk) {
    Lookup* p = new (std::nothrow) Lookup(std::move(lk));
    if (p == nullptr) return PyErr_NoMemory();
    PyObject* cap = PyCapsule_New(p, LOOKUP, box_free<Lookup>);
    if (cap == nullptr) delete p;
    return cap;
}

static PyObject* py_build_lookup(PyObject*, PyObject* args) {
    PyObject *odocs, *ocols, *otid;
    if (!PyArg_ParseTuple(args, "OOO", &odocs, &ocols, &otid)) return nullptr;
    const DocSet* ds = get_docs(odocs);
    if (ds == nullptr) return nullptr;
    In<i64> cols;
    In<u32> tid;
    if (!cols.get(ocols, "cols") || !get_table(otid, tid, "tid")) return nullptr;
    if (cols.n != static_cast<i64>(ds->views.size()))
        return PyErr_Format(PyExc_ValueError, "cols must have one entry per term");
    if (!check_range(cols.p, cols.n, -1, 0xFFFFFFFELL, "cols")) return nullptr;
    std::unique_ptr<Lookup> lk;
    if (!nogil([&] { lk = std::make_unique<Lookup>(build_lookup(*ds, cols.p, tid.p)); })) return nullptr;
    return box_lookup(std::move(*lk));
}

static PyObject* py_build_lookup_blob(PyObject*, PyObject* args) {
    PyObject *oblob, *ocols, *otid;
    if (!PyArg_ParseTuple(args, "OOO", &oblob, &ocols, &otid)) return nullptr;
    In<u32> blob, tid;
    In<i64> cols;
    if (!blob.get(oblob, "blob") || !cols.get(ocols, "cols") || !get_table(otid, tid, "tid"))
        return nullptr;
    for (i64 i = 0; i < blob.n; ++i)
        if (blob.p[i] >= MAX_CP) return PyErr_Format(PyExc_ValueError, "blob holds a value above U+10FFFF");
    if (!check_range(cols.p, cols.n, -1, 0xFFFFFFFELL, "cols")) return nullptr;
    std::unique_ptr<Lookup> lk;
    if (!nogil([&] { lk = std::make_unique<Lookup>(build_lookup_blob(blob.p, blob.n, cols.p, cols.n, tid.p)); }))
        return nullptr;
    return box_lookup(std::move(*lk));
}

// ------------------------------------------------------------------------------------
// packed vocabularies: UTF-8 bytes + offsets (packed.hpp), as model files store them
// ------------------------------------------------------------------------------------

// bytes (uint8) and offsets (int64) whose offsets are safe to index with: n + 1 >= 1
// nondecreasing values from 0 to at most the number of bytes.
static bool get_packed(PyObject* obytes, PyObject* ooff, In<u8>& data, In<i64>& off) {
    if (!data.get(obytes, "bytes") || !off.get(ooff, "offsets")) return false;
    if (!check_ptr(off.p, off.n, data.n, "offsets")) return false;
    if (off.p[0] != 0) return fail(PyExc_ValueError, "offsets[0] is %lld, not 0", static_cast<long long>(off.p[0]));
    return true;
}

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

// The terms as a list of str (first use of a packed vocabulary's strings: one
// PyUnicode_DecodeUTF8 per term, "surrogatepass" as the bytes were written).
static PyObject* py_packed_strings(PyObject*, PyObject* args) {
    PyObject *obytes, *ooff;
    if (!PyArg_ParseTuple(args, "OO", &obytes, &ooff)) return nullptr;
    In<u8> data;
    In<i64> off;
    if (!get_packed(obytes, ooff, data, off)) return nullptr;
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

static PyObject* py_build_lookup_packed(PyObject*, PyObject* args) {
    PyObject *obytes, *ooff, *ocols, *otid;
    if (!PyArg_ParseTuple(args, "OOOO", &obytes, &ooff, &ocols, &otid)) return nullptr;
    In<u8> data;
    In<i64> off, cols;
    In<u32> tid;
    if (!get_packed(obytes, ooff, data, off) || !cols.get(ocols, "cols") || !get_table(otid, tid, "tid"))
        return nullptr;
    if (cols.n != off.n - 1) return PyErr_Format(PyExc_ValueError, "cols must have one entry per term");
    if (!check_range(cols.p, cols.n, -1, 0xFFFFFFFELL, "cols")) return nullptr;
    std::unique_ptr<Lookup> lk;
    if (!nogil([&] { lk = std::make_unique<Lookup>(build_lookup_packed(data.p, off.p, cols.n, cols.p, tid.p)); }))
        return nullptr;
    return box_lookup(std::move(*lk));
}

static PyObject* py_lookup_size(PyObject*, PyObject* arg) {
    Lookup* lk = unbox<Lookup>(arg, LOOKUP, "Lookup");
    if (lk == nullptr) return nullptr;
    return Py_BuildValue("(LL)", static_cast<long long>(lk->n_terms), static_cast<long long>(lk->max_col));
}

static const Lookup* opt_lookup(PyObject* o, bool& ok) {
    ok = true;
    if (o == Py_None) return nullptr;
    Lookup* lk = unbox<Lookup>(o, LOOKUP, "Lookup");
    ok = lk != nullptr;
    return lk;
}

static PyObject* csr_tuple(Csr&& c, bool with_first) {
    if (with_first)
        return Py_BuildValue("(NNNN)", to_np(std::move(c.indptr)), to_np(std::move(c.indices)),
                             to_np(std::move(c.values)), to_np(std::move(c.first)));
    return Py_BuildValue("(NNN)", to_np(std::move(c.indptr)), to_np(std::move(c.indices)),
                         to_np(std::move(c.values)));
}

static bool doc_span(const DocSet* ds, long long lo, long long hi) {
    const auto n = static_cast<long long>(ds->views.size());
    if (lo < 0 || lo > hi || hi > n)
        return fail(PyExc_ValueError, "documents %lld..%lld out of range (%lld documents)", lo, hi, n);
    return true;
}

static PyObject* py_transform_run(PyObject*, PyObject* args) {
    PyObject *odocs, *otlow, *otid, *olk;
    long long lo, hi, n_cols;
    int track = 0;
    if (!PyArg_ParseTuple(args, "OLLOOOL|p", &odocs, &lo, &hi, &otlow, &otid, &olk, &n_cols, &track))
        return nullptr;
    const DocSet* ds = get_docs(odocs);
    Lookup* lk = unbox<Lookup>(olk, LOOKUP, "Lookup");
    if (ds == nullptr || lk == nullptr || !doc_span(ds, lo, hi)) return nullptr;
    In<u32> tlow, tid;
    if (!get_table(otlow, tlow, "tlow") || !get_table(otid, tid, "tid")) return nullptr;
    if (n_cols < 0 || n_cols > (1LL << 40) || lk->max_col >= n_cols)
        return PyErr_Format(PyExc_ValueError, "the lookup table has column %lld, n_cols is %lld",
                            static_cast<long long>(lk->max_col), n_cols);
    Csr c;
    if (!nogil([&] { c = transform_run(*ds, lo, hi, tlow.p, tid.p, *lk, n_cols, track != 0); }))
        return nullptr;
    return csr_tuple(std::move(c), true);
}

static PyObject* py_count_one(PyObject*, PyObject* args) {
    PyObject *odoc, *ot, *olk;
    int lowercase;
    if (!PyArg_ParseTuple(args, "OOpO", &odoc, &ot, &lowercase, &olk)) return nullptr;
    if (!PyUnicode_Check(odoc))
        return PyErr_Format(PyExc_TypeError, "doc must be a str, got %s", Py_TYPE(odoc)->tp_name);
    Lookup* lk = unbox<Lookup>(olk, LOOKUP, "Lookup");
    if (lk == nullptr) return nullptr;
    In<u32> t;
    if (!get_table(ot, t, "t")) return nullptr;
    StrView v;
    if (!str_view(odoc, v)) return nullptr;
    std::vector<i64> uniq, counts;
    if (lowercase && needs_python_lower(v))
        return Py_BuildValue("(ONN)", Py_False, to_np(std::move(uniq)), to_np(std::move(counts)));
    if (!nogil([&] { count_one(v, t.p, *lk, uniq, counts); }, v.n > 100000)) return nullptr;
    return Py_BuildValue("(ONN)", Py_True, to_np(std::move(uniq)), to_np(std::move(counts)));
}

// -- hashing -----------------------------------------------------------------------------

static PyObject* py_hash_run(PyObject*, PyObject* args) {
    PyObject *odocs, *oy, *otlow, *otid, *ofc, *oaux, *ostop;
    int binary;
    long long n_features;
    if (!PyArg_ParseTuple(args, "OOOOpLOOO", &odocs, &oy, &otlow, &otid, &binary, &n_features,
                          &ofc, &oaux, &ostop))
        return nullptr;
    const DocSet* ds = get_docs(odocs);
    bool ok;
    const Lookup* stop = opt_lookup(ostop, ok);
    if (ds == nullptr || !ok) return nullptr;
    In<i64> y;
    In<u32> tlow, tid;
    Out<u64> aux;
    if (!y.get(oy, "rows") || !get_table(otlow, tlow, "tlow") || !get_table(otid, tid, "tid") ||
        !aux.get(oaux, "aux"))
        return nullptr;
    if (!PyArray_Check(ofc)) return PyErr_Format(PyExc_TypeError, "fc must be a numpy array");
    auto* fc = reinterpret_cast<PyArrayObject*>(ofc);
    if (!PyArray_EquivTypenums(PyArray_TYPE(fc), NPY_FLOAT64) || PyArray_NDIM(fc) != 2 ||
        !PyArray_ISWRITEABLE(fc) || !PyArray_ISALIGNED(fc) || PyArray_STRIDE(fc, 1) != 8 ||
        PyArray_STRIDE(fc, 0) % 8 != 0 || PyArray_STRIDE(fc, 0) < 0)
        return PyErr_Format(PyExc_ValueError, "fc must be a writeable float64 matrix with contiguous rows");
    const i64 n_docs = static_cast<i64>(ds->views.size());
    if (n_features < 1 || n_features > PyArray_DIM(fc, 1) || aux.n < n_features)
        return PyErr_Format(PyExc_ValueError, "n_features = %lld does not fit the arrays", n_features);
    if (y.n != n_docs) return PyErr_Format(PyExc_ValueError, "one row per document is needed");
    if (!check_range(y.p, y.n, 0, PyArray_DIM(fc, 0), "rows")) return nullptr;
    double* fp = static_cast<double*>(PyArray_DATA(fc));
    const i64 stride = PyArray_STRIDE(fc, 0) / 8;
    i64 total = 0;
    if (!nogil([&] {
            total = hash_run(*ds, y.p, tlow.p, tid.p, binary != 0, n_features, fp, stride, aux.p,
                             stop);
        }))
        return nullptr;
    return PyLong_FromLongLong(total);
}

static PyObject* py_hash_transform_run(PyObject*, PyObject* args) {
    PyObject *odocs, *otlow, *otid, *ostop;
    long long lo, hi, n_features;
    int alternate;
    if (!PyArg_ParseTuple(args, "OLLOOLpO", &odocs, &lo, &hi, &otlow, &otid, &n_features,
                          &alternate, &ostop))
        return nullptr;
    const DocSet* ds = get_docs(odocs);
    bool ok;
    const Lookup* stop = opt_lookup(ostop, ok);
    if (ds == nullptr || !ok || !doc_span(ds, lo, hi)) return nullptr;
    In<u32> tlow, tid;
    if (!get_table(otlow, tlow, "tlow") || !get_table(otid, tid, "tid")) return nullptr;
    if (n_features < 1 || n_features > (1LL << 40))
        return PyErr_Format(PyExc_ValueError, "n_features must be positive, got %lld", n_features);
    Csr c;
    if (!nogil([&] {
            c = hash_transform_run(*ds, lo, hi, tlow.p, tid.p, n_features, alternate != 0, stop);
        }))
        return nullptr;
    return csr_tuple(std::move(c), false);
}

// -- the copying path ---------------------------------------------------------------------

template <class B>
static bool intern_typed(PyArrayObject* buf, const In<i64>& spans, const In<u8>& is_word,
                         InternArrays& A, Out<i32>& tok, Out<i64>& ptr, Out<i64>& pos,
                         int& status) {
    const B* bp = static_cast<const B*>(PyArray_DATA(buf));
    const i64 n = static_cast<i64>(PyArray_SIZE(buf));
    if (std::is_same<B, u32>::value) {
        for (i64 i = 0; i < n; ++i)
            if (static_cast<i64>(bp[i]) >= is_word.n)
                return fail(PyExc_ValueError, "buf holds a code point above the word table");
    } else if (is_word.n < 256) {
        return fail(PyExc_ValueError, "the word table needs 256 entries for a uint8 buffer");
    }
    return nogil([&] {
        status = intern_run(bp, spans.p, spans.dim(0), is_word.p, A, tok.p, tok.n, ptr.p, pos.p);
    });
}

static PyObject* py_intern_run(PyObject*, PyObject* args) {
    PyObject *obuf, *ospans, *oword, *oslots, *othash, *otstart, *otlen, *ostop, *opool, *octr,
        *otok, *optr, *opos;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOO", &obuf, &ospans, &oword, &oslots, &othash,
                          &otstart, &otlen, &ostop, &opool, &octr, &otok, &optr, &opos))
        return nullptr;
    In<i64> spans;
    In<u8> is_word;
    Out<i32> slots, tlen, tok;
    Out<u64> thash;
    Out<i64> tstart, counters, ptr, pos;
    Out<u8> is_stop;
    Out<u32> pool;
    if (!spans.get(ospans, "spans", 2) || !is_word.get(oword, "is_word") ||
        !slots.get(oslots, "slots") || !thash.get(othash, "thash") ||
        !tstart.get(otstart, "tstart") || !tlen.get(otlen, "tlen") ||
        !is_stop.get(ostop, "is_stop") || !pool.get(opool, "pool") ||
        !counters.get(octr, "counters") || !tok.get(otok, "tok") || !ptr.get(optr, "ptr") ||
        !pos.get(opos, "pos"))
        return nullptr;
    if (!PyArray_Check(obuf)) return PyErr_Format(PyExc_TypeError, "buf must be a numpy array");
    auto* buf = reinterpret_cast<PyArrayObject*>(obuf);
    const bool b8 = PyArray_EquivTypenums(PyArray_TYPE(buf), NPY_UINT8);
    const bool b32 = PyArray_EquivTypenums(PyArray_TYPE(buf), NPY_UINT32);
    if (!(b8 || b32) || !PyArray_IS_C_CONTIGUOUS(buf) || !PyArray_ISALIGNED(buf) || PyArray_NDIM(buf) != 1)
        return PyErr_Format(PyExc_ValueError, "buf must be a contiguous uint8 or uint32 vector");
    const i64 nbuf = static_cast<i64>(PyArray_SIZE(buf));
    const i64 n_docs = spans.dim(0);
    if (spans.dim(1) != 2) return PyErr_Format(PyExc_ValueError, "spans must have shape (n, 2)");
    for (i64 d = 0; d < n_docs; ++d)
        if (spans.p[2 * d] < 0 || spans.p[2 * d] > spans.p[2 * d + 1] || spans.p[2 * d + 1] > nbuf)
            return PyErr_Format(PyExc_ValueError, "span %lld out of range", static_cast<long long>(d));
    const i64 cap = thash.n;
    if (tstart.n != cap || tlen.n != cap || is_stop.n != cap || slots.n < 2 ||
        (slots.n & (slots.n - 1)) != 0 || counters.n != 2 || pos.n != 3 || ptr.n != n_docs + 1)
        return PyErr_Format(PyExc_ValueError, "intern_run: inconsistent table arrays");
    const i64 n_terms = counters.p[0], used = counters.p[1];
    if (n_terms < 0 || n_terms > cap || used < 0 || used > pool.n || pos.p[0] < 0 ||
        pos.p[0] > n_docs || pos.p[2] < 0 || pos.p[2] > tok.n || pos.p[1] < 0 || pos.p[1] > nbuf)
        return PyErr_Format(PyExc_ValueError, "intern_run: counters out of range");
    i64 filled = 0;
    for (i64 j = 0; j < slots.n; ++j) {
        if (slots.p[j] < -1 || slots.p[j] >= n_terms)
            return PyErr_Format(PyExc_ValueError, "intern_run: slot %lld out of range", static_cast<long long>(j));
        filled += slots.p[j] >= 0;
    }
    // one slot per term and at least half the slots free: every probe reaches an empty slot
    if (filled != n_terms || 2 * n_terms > slots.n)
        return PyErr_Format(PyExc_ValueError, "intern_run: the slot table does not hold the %lld terms",
                            static_cast<long long>(n_terms));
    for (i64 t = 0; t < n_terms; ++t)
        if (tstart.p[t] < 0 || tlen.p[t] < 0 || tlen.p[t] > used || tstart.p[t] > used - tlen.p[t])
            return PyErr_Format(PyExc_ValueError, "intern_run: term %lld outside the pool", static_cast<long long>(t));
    InternArrays A{slots.p, slots.n, thash.p, tstart.p, tlen.p, is_stop.p, cap, pool.p, pool.n, counters.p};
    int status = 0;
    const bool ok = b8 ? intern_typed<u8>(buf, spans, is_word, A, tok, ptr, pos, status)
                       : intern_typed<u32>(buf, spans, is_word, A, tok, ptr, pos, status);
    if (!ok) return nullptr;
    return PyLong_FromLong(status);
}

static PyObject* py_rehash(PyObject*, PyObject* args) {
    PyObject *oslots, *othash;
    long long n_terms;
    if (!PyArg_ParseTuple(args, "OOL", &oslots, &othash, &n_terms)) return nullptr;
    Out<i32> slots;
    In<u64> thash;
    if (!slots.get(oslots, "slots") || !thash.get(othash, "thash")) return nullptr;
    if (slots.n < 1 || (slots.n & (slots.n - 1)) != 0 || n_terms < 0 || n_terms > thash.n ||
        2 * n_terms > slots.n)
        return PyErr_Format(PyExc_ValueError, "rehash: table too small");
    for (i64 j = 0; j < slots.n; ++j)
        if (slots.p[j] != -1) return PyErr_Format(PyExc_ValueError, "rehash: slots must be empty (-1)");
    rehash(slots.p, slots.n, thash.p, n_terms);
    Py_RETURN_NONE;
}

static PyObject* py_pair_ids(PyObject*, PyObject* args) {
    PyObject *otok, *optr;
    if (!PyArg_ParseTuple(args, "OO", &otok, &optr)) return nullptr;
    In<i32> tok;
    In<i64> ptr;
    if (!tok.get(otok, "tok") || !ptr.get(optr, "ptr") || !check_ptr(ptr.p, ptr.n, tok.n, "ptr"))
        return nullptr;
    Pairs P;
    if (!nogil([&] { P = pair_ids(tok.p, ptr.p, ptr.n - 1); })) return nullptr;
    return Py_BuildValue("(NNNN)", to_np(std::move(P.out)), to_np(std::move(P.optr)),
                         to_np(std::move(P.first)), to_np(std::move(P.second)));
}

struct StreamArgs {
    In<i32> tok, ptok;
    In<i64> ptr, pptr;
    Streams S{};
    bool get(PyObject* a, PyObject* b, PyObject* c, PyObject* d, long long n_uni, long long n_ids,
             int use_uni, int use_pair) {
        if (!tok.get(a, "tok") || !ptr.get(b, "ptr") || !ptok.get(c, "ptok") || !pptr.get(d, "pptr"))
            return false;
        if (n_uni < 0 || n_ids < n_uni) return fail(PyExc_ValueError, "n_uni out of range");
        const i64 n_docs = ptr.n - 1;
        if (use_uni && (!check_ptr(ptr.p, ptr.n, tok.n, "ptr") ||
                        !check_range(tok.p + ptr.p[0], ptr.p[ptr.n - 1] - ptr.p[0], 0, n_uni, "tok")))
            return false;
        if (use_pair) {
            if (pptr.n != ptr.n) return fail(PyExc_ValueError, "ptr and pptr differ in length");
            if (!check_ptr(pptr.p, pptr.n, ptok.n, "pptr") ||
                !check_range(ptok.p + pptr.p[0], pptr.p[pptr.n - 1] - pptr.p[0], 0, n_ids - n_uni, "ptok"))
                return false;
        }
        if (n_docs < 0) return fail(PyExc_ValueError, "ptr is empty");
        S = Streams{tok.p, ptr.p, ptok.p, pptr.p, n_docs, n_uni, use_uni != 0, use_pair != 0};
        return true;
    }
};

static PyObject* py_first_occurrence(PyObject*, PyObject* args) {
    PyObject *a, *b, *c, *d;
    long long n_uni, n_pair;
    int use_uni, use_pair;
    if (!PyArg_ParseTuple(args, "OOOOLLpp", &a, &b, &c, &d, &n_uni, &n_pair, &use_uni, &use_pair))
        return nullptr;
    StreamArgs S;
    if (n_pair < 0 || !S.get(a, b, c, d, n_uni, n_uni + n_pair, use_uni, use_pair)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "n_pair out of range");
        return nullptr;
    }
    std::vector<i64> col;
    i64 n = 0;
    if (!nogil([&] { n = first_occurrence(S.S, n_uni + n_pair, col); })) return nullptr;
    return Py_BuildValue("(NL)", to_np(std::move(col)), static_cast<long long>(n));
}

static PyObject* py_build_rows(PyObject*, PyObject* args) {
    PyObject *a, *b, *c, *d, *ocol;
    long long n_uni, n_cols;
    int use_uni, use_pair;
    if (!PyArg_ParseTuple(args, "OOOOLppOL", &a, &b, &c, &d, &n_uni, &use_uni, &use_pair, &ocol, &n_cols))
        return nullptr;
    In<i64> col;
    StreamArgs S;
    if (!col.get(ocol, "col") || !S.get(a, b, c, d, n_uni, col.n, use_uni, use_pair) ||
        !check_range(col.p, col.n, -1, n_cols, "col"))
        return nullptr;
    std::vector<i64> indptr, indices;
    std::vector<i32> values;
    if (!nogil([&] { build_rows(S.S, col.p, n_cols, indptr, indices, values); })) return nullptr;
    return Py_BuildValue("(NNN)", to_np(std::move(indptr)), to_np(std::move(indices)),
                         to_np(std::move(values)));
}

static PyObject* py_stream_class_sums(PyObject*, PyObject* args) {
    PyObject *a, *b, *c, *d, *ocol, *oy;
    long long n_uni, n_cols, n_classes;
    int use_uni, use_pair, binary, as_float;
    if (!PyArg_ParseTuple(args, "OOOOLppOLOLpp", &a, &b, &c, &d, &n_uni, &use_uni, &use_pair, &ocol,
                          &n_cols, &oy, &n_classes, &binary, &as_float))
        return nullptr;
    In<i64> col, y;
    StreamArgs S;
    if (!col.get(ocol, "col") || !y.get(oy, "y") || !S.get(a, b, c, d, n_uni, col.n, use_uni, use_pair) ||
        !check_range(col.p, col.n, -1, n_cols, "col"))
        return nullptr;
    if (y.n < S.S.n_docs) return PyErr_Format(PyExc_ValueError, "y has fewer labels than documents");
    if (n_classes < 1 || n_cols < 0 || n_cols > (1LL << 40) || n_classes > (1LL << 31))
        return PyErr_Format(PyExc_ValueError, "n_classes or n_cols out of range");
    if (!check_range(y.p, S.S.n_docs, 0, n_classes, "y")) return nullptr;
    npy_intp dims[2] = {static_cast<npy_intp>(n_classes), static_cast<npy_intp>(n_cols)};
    PyObject* out = PyArray_ZEROS(2, dims, as_float ? NPY_FLOAT64 : NPY_INT64, 0);
    if (out == nullptr) return nullptr;
    npy_intp one = static_cast<npy_intp>(n_cols);
    PyObject* df = PyArray_ZEROS(1, &one, NPY_INT64, 0);
    if (df == nullptr) {
        Py_DECREF(out);
        return nullptr;
    }
    void* op = PyArray_DATA(reinterpret_cast<PyArrayObject*>(out));
    i64* dp = static_cast<i64*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(df)));
    const bool ok = nogil([&] {
        if (as_float)
            stream_class_sums(S.S, col.p, n_cols, y.p, binary != 0, static_cast<double*>(op), dp);
        else
            stream_class_sums(S.S, col.p, n_cols, y.p, binary != 0, static_cast<i64*>(op), dp);
    });
    if (!ok) {
        Py_DECREF(out);
        Py_DECREF(df);
        return nullptr;
    }
    return Py_BuildValue("(NN)", out, df);
}

static PyObject* py_ngram_blob(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol, *of, *osec, *oids;
    long long n_uni;
    if (!PyArg_ParseTuple(args, "OOOLOOO", &op, &os, &ol, &n_uni, &of, &osec, &oids)) return nullptr;
    TermArgs A;
    In<i32> first, second;
    In<i64> ids;
    if (!A.get(op, os, ol) || !first.get(of, "first") || !second.get(osec, "second") || !ids.get(oids, "ids"))
        return nullptr;
    if (n_uni != A.tstart.n || first.n != second.n)
        return PyErr_Format(PyExc_ValueError, "ngram_blob: inconsistent lengths");
    if (!check_range(ids.p, ids.n, 0, n_uni + first.n, "ids") ||
        !check_range(first.p, first.n, 0, n_uni, "first") ||
        !check_range(second.p, second.n, 0, n_uni, "second"))
        return nullptr;
    std::vector<u32> blob;
    if (!nogil([&] {
            blob = ngram_blob(A.pool.p, A.tstart.p, A.tlen.p, n_uni, first.p, second.p, ids.p, ids.n);
        }))
        return nullptr;
    return to_np(std::move(blob));
}

static PyObject* py_order_rows(PyObject*, PyObject* args) {
    PyObject *oip, *oind, *oval, *okey;
    long long lo, hi;
    if (!PyArg_ParseTuple(args, "OOOOLL", &oip, &oind, &oval, &okey, &lo, &hi)) return nullptr;
    In<i64> indptr, key;
    Out<i64> indices, values;
    if (!indptr.get(oip, "indptr") || !indices.get(oind, "indices") || !values.get(oval, "values") ||
        !key.get(okey, "key"))
        return nullptr;
    if (lo < 0 || lo > hi || hi > indptr.n - 1)
        return PyErr_Format(PyExc_ValueError, "rows %lld..%lld out of range", lo, hi);
    if (!check_ptr(indptr.p, indptr.n, std::min(indices.n, values.n), "indptr") ||
        !check_range(indices.p, indices.n, 0, key.n, "indices"))
        return nullptr;
    if (!nogil([&] { order_rows(indptr.p, indices.p, values.p, key.p, lo, hi); })) return nullptr;
    Py_RETURN_NONE;
}

// -- scoring -----------------------------------------------------------------------------

template <class I>
static bool rows_dot_typed(const In<i64>& indptr, PyObject* oind, const In<double>& data,
                           const In<double>& W, Out<double>& out, i64 lo, i64 hi) {
    In<I> ind;
    if (!ind.get(oind, "indices")) return false;
    const i64 m = W.dim(0), k = W.dim(1);
    if (!check_ptr(indptr.p, indptr.n, std::min(ind.n, data.n), "indptr") ||
        !check_range(ind.p + indptr.p[lo], indptr.p[hi] - indptr.p[lo], 0, m, "indices"))
        return false;
    if (out.dim(0) < hi || out.dim(1) != k) return fail(PyExc_ValueError, "out has the wrong shape");
    return nogil([&] { rows_dot(indptr.p, ind.p, data.p, W.p, k, out.p, lo, hi); });
}

static PyObject* py_rows_dot(PyObject*, PyObject* args) {
    PyObject *oip, *oind, *odata, *oW, *oout;
    long long lo, hi;
    if (!PyArg_ParseTuple(args, "OOOOOLL", &oip, &oind, &odata, &oW, &oout, &lo, &hi)) return nullptr;
    In<i64> indptr;
    In<double> data, W;
    Out<double> out;
    if (!indptr.get(oip, "indptr") || !data.get(odata, "data") || !W.get(oW, "W", 2) ||
        !out.get(oout, "out", 2))
        return nullptr;
    if (lo < 0 || lo > hi || hi > indptr.n - 1)
        return PyErr_Format(PyExc_ValueError, "rows %lld..%lld out of range", lo, hi);
    const bool i32idx = PyArray_Check(oind) &&
                        PyArray_EquivTypenums(PyArray_TYPE(reinterpret_cast<PyArrayObject*>(oind)), NPY_INT32);
    const bool ok = i32idx ? rows_dot_typed<i32>(indptr, oind, data, W, out, lo, hi)
                           : rows_dot_typed<i64>(indptr, oind, data, W, out, lo, hi);
    if (!ok) return nullptr;
    Py_RETURN_NONE;
}

// -- merging text statistics (merge_cells.hpp) ------------------------------------------

PyDoc_STRVAR(union_terms_doc,
             "union_terms(datas, offsets) -> (data, offsets, cols) or None\n\n"
             "The sorted union of packed vocabularies (datas[i]: uint8 UTF-8 bytes,\n"
             "offsets[i]: int64, n + 1, from 0 to len(datas[i]), never decreasing): the\n"
             "union packed alike and the column of every term of every vocabulary in it\n"
             "(int64, one vocabulary after the other). None when a vocabulary is not\n"
             "strictly increasing.");

static PyObject* py_union_terms(PyObject*, PyObject* args) {
    PyObject *odatas, *ooffs;
    if (!PyArg_ParseTuple(args, "OO", &odatas, &ooffs)) return nullptr;
    PyObject* sd = PySequence_Fast(odatas, "datas must be a sequence of arrays");
    if (sd == nullptr) return nullptr;
    PyObject* so = PySequence_Fast(ooffs, "offsets must be a sequence of arrays");
    if (so == nullptr) {
        Py_DECREF(sd);
        return nullptr;
    }
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(sd);
    std::vector<std::unique_ptr<In<u8>>> datas;
    std::vector<std::unique_ptr<In<i64>>> offs;
    std::vector<TermRun> runs;
    bool good = PySequence_Fast_GET_SIZE(so) == k;
    if (!good) PyErr_SetString(PyExc_ValueError, "union_terms: as many offsets as vocabularies");
    for (Py_ssize_t r = 0; good && r < k; ++r) {
        datas.emplace_back(new In<u8>());
        offs.emplace_back(new In<i64>());
        const In<u8>& d = *datas.back();
        const In<i64>& o = *offs.back();
        good = datas.back()->get(PySequence_Fast_GET_ITEM(sd, r), "data") &&
               offs.back()->get(PySequence_Fast_GET_ITEM(so, r), "offsets");
        if (!good) break;
        if (o.n < 1 || o.p[0] != 0 || o.p[o.n - 1] != d.n) {
            good = fail(PyExc_ValueError,
                        "union_terms: the offsets of vocabulary %zd do not pack its %lld bytes", r,
                        static_cast<long long>(d.n));
            break;
        }
        for (i64 i = 1; good && i < o.n; ++i)
            if (o.p[i] < o.p[i - 1])
                good = fail(PyExc_ValueError, "union_terms: the offsets of vocabulary %zd decrease", r);
        if (good) runs.push_back(TermRun{reinterpret_cast<const char*>(d.p), o.p, o.n - 1});
    }
    Py_DECREF(sd);
    Py_DECREF(so);
    if (!good) return nullptr;
    std::vector<u8> data;
    std::vector<i64> offsets, cols;
    bool sorted = false;
    if (!nogil([&] { sorted = union_runs(runs, data, offsets, cols); })) return nullptr;
    if (!sorted) Py_RETURN_NONE;
    return vectors_to_np(std::move(data), std::move(offsets), std::move(cols));
}

PyDoc_STRVAR(nonzero_cells_doc,
             "nonzero_cells(flat) -> (index, values)\n\n"
             "The non-zero cells of a float64 table read in memory order (1-D): their\n"
             "positions (int64, increasing) and values, in one pass.");

static PyObject* py_nonzero_cells(PyObject*, PyObject* arg) {
    In<double> flat;
    if (!flat.get(arg, "flat")) return nullptr;
    std::vector<i64> index;
    std::vector<double> values;
    if (!nogil([&] { nonzero_cells(flat.p, flat.n, index, values); })) return nullptr;
    return vectors_to_np(std::move(index), std::move(values));
}

PyDoc_STRVAR(sum_cells_doc,
             "sum_cells(tables, n_rows, n_columns) -> (dense, index, values)\n\n"
             "The sum of tables given as (index, values, rows, cols): the flat indices\n"
             "column * len(rows) + row of a table's cells, increasing (int64), their values\n"
             "(float64), and the row and column of the sum each of its rows and columns goes\n"
             "to. Returns the dense sums (float64, n_rows * n_columns cells column by column,\n"
             "each added in table order) and the cells any table holds, by increasing index,\n"
             "with their sums.");

static PyObject* py_sum_cells(PyObject*, PyObject* args) {
    PyObject* otables;
    long long n_rows, n_cols;
    if (!PyArg_ParseTuple(args, "OLL", &otables, &n_rows, &n_cols)) return nullptr;
    if (n_rows < 0 || n_cols < 0 || (n_rows > 0 && n_cols > (1LL << 62) / n_rows))
        return PyErr_Format(PyExc_ValueError, "sum_cells: bad shape (%lld, %lld)", n_rows, n_cols);
    const i64 size = n_rows * n_cols;
    PyObject* seq = PySequence_Fast(otables, "tables must be a sequence of 4-tuples");
    if (seq == nullptr) return nullptr;
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    std::vector<std::unique_ptr<In<i64>>> held;
    std::vector<std::unique_ptr<In<double>>> vals;
    std::vector<CellRun> runs;
    bool good = true;
    for (Py_ssize_t t = 0; good && t < k; ++t) {
        PyObject *oi, *ov, *orows, *ocols;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, t), "OOOO", &oi, &ov, &orows, &ocols)) {
            good = false;
            break;
        }
        auto* idx = new In<i64>();
        auto* rows = new In<i64>();
        auto* cols = new In<i64>();
        held.emplace_back(idx);
        held.emplace_back(rows);
        held.emplace_back(cols);
        vals.emplace_back(new In<double>());
        const In<double>& v = *vals.back();
        good = idx->get(oi, "index") && vals.back()->get(ov, "values") && rows->get(orows, "rows") &&
               cols->get(ocols, "cols");
        if (!good) break;
        if (idx->n != v.n) {
            good = fail(PyExc_ValueError, "sum_cells: table %zd has %lld indices and %lld values",
                        t, static_cast<long long>(idx->n), static_cast<long long>(v.n));
            break;
        }
        for (i64 i = 1; good && i < idx->n; ++i)
            if (idx->p[i] <= idx->p[i - 1])
                good = fail(PyExc_ValueError, "sum_cells: the indices of table %zd do not increase", t);
        good = good && (idx->n == 0 || idx->p[0] >= 0) &&
               (idx->n == 0 || idx->p[idx->n - 1] < rows->n * cols->n);
        if (!good) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "sum_cells: an index of table %zd is out of range", t);
            break;
        }
        good = check_range(rows->p, rows->n, 0, n_rows, "rows") &&
               check_range(cols->p, cols->n, 0, n_cols, "cols");
        if (good) runs.push_back(CellRun{idx->p, v.p, idx->n, rows->p, rows->n, cols->p});
    }
    Py_DECREF(seq);
    if (!good) return nullptr;
    ZBuf<double> dense;
    std::vector<i64> index;
    std::vector<double> values;
    const bool ok = nogil([&] {
        dense.alloc(static_cast<std::size_t>(size));
        ZBuf<u64> seen(static_cast<std::size_t>((size + 63) / 64));
        sum_cells(runs, n_rows, size, dense.data(), seen.data(), index, values);
    });
    if (!ok) return nullptr;
    PyObject* od = zb_to_np(std::move(dense), size);
    if (od == nullptr) return nullptr;
    PyObject* oi = to_np(std::move(index));
    PyObject* ov = oi == nullptr ? nullptr : to_np(std::move(values));
    if (ov == nullptr) {
        Py_DECREF(od);
        Py_XDECREF(oi);
        return nullptr;
    }
    return Py_BuildValue("NNN", od, oi, ov);
}

// -- tables and cancellation ------------------------------------------------------------

PyDoc_STRVAR(word_table_doc,
             "word_table() -> uint8 array of 0x110000: 1 where re's \\w matches (str patterns).\n\n"
             "sre's definition: Py_UNICODE_ISALNUM(ch) or ch == '_'.");

static inline u32 word_flag(u32 c) {
    return (Py_UNICODE_ISALNUM(static_cast<Py_UCS4>(c)) || c == '_') ? WORD : 0u;
}

static PyObject* py_word_table(PyObject*, PyObject*) {
    std::vector<u8> t(static_cast<std::size_t>(MAX_CP));
    for (i64 c = 0; c < MAX_CP; ++c) t[static_cast<std::size_t>(c)] = word_flag(static_cast<u32>(c)) ? 1 : 0;
    return to_np(std::move(t));
}

PyDoc_STRVAR(char_table_doc,
             "char_table(lowercase) -> uint32 array of 0x110000 (empty if it cannot be built)\n\n"
             "t[cp] = (lowercased) code point | 1 << 31 if that is a word character. The\n"
             "lowercase is str.lower of every code point but U+0130 (two characters) and\n"
             "U+03A3 (context-dependent), which map to themselves: documents holding them\n"
             "are lowercased by Python first. Empty when str.lower maps another code point\n"
             "to several (a Unicode version this table cannot follow).");

static PyObject* py_char_table(PyObject*, PyObject* arg) {
    const int lowercase = PyObject_IsTrue(arg);
    if (lowercase < 0) return nullptr;
    std::vector<u32> t;
    try {
        t.resize(static_cast<std::size_t>(MAX_CP));
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    if (!lowercase) {
        for (i64 c = 0; c < MAX_CP; ++c) t[static_cast<std::size_t>(c)] = static_cast<u32>(c) | word_flag(static_cast<u32>(c));
        return to_np(std::move(t));
    }
    // str.lower of the code points, 64 Ki at a time (little memory beside the table;
    // no lowercase mapping depends on context but final sigma, U+03A3, which maps to
    // itself here), U+0130 left out
    constexpr i64 STEP = 1 << 16;
    for (i64 lo = 0; lo < MAX_CP; lo += STEP) {
        const i64 hi = lo + STEP < MAX_CP ? lo + STEP : MAX_CP;
        const i64 n = hi - lo - ((lo <= 0x130 && 0x130 < hi) ? 1 : 0);
        PyObject* chunk = PyUnicode_New(n, 0x10FFFF);
        if (chunk == nullptr) return nullptr;
        Py_UCS4* w = PyUnicode_4BYTE_DATA(chunk);
        i64 o = 0;
        for (i64 c = lo; c < hi; ++c)
            if (c != 0x130) w[o++] = static_cast<Py_UCS4>(c);
        PyObject* low = PyObject_CallMethod(chunk, "lower", nullptr);
        Py_DECREF(chunk);
        if (low == nullptr) return nullptr;
        if (PyUnicode_GET_LENGTH(low) != n) {  // another one-to-many lowercase mapping
            Py_DECREF(low);
            t.clear();
            return to_np(std::move(t));
        }
        const int kind = PyUnicode_KIND(low);
        const void* data = PyUnicode_DATA(low);
        o = 0;
        for (i64 c = lo; c < hi; ++c) {
            u32 l = static_cast<u32>(c);
            if (c != 0x130) l = static_cast<u32>(PyUnicode_READ(kind, data, o++));
            if (c == 0x3A3) l = 0x3A3;
            t[static_cast<std::size_t>(c)] = l | word_flag(l);
        }
        Py_DECREF(low);
    }
    return to_np(std::move(t));
}

static PyObject* py_cancel(PyObject*, PyObject*) {
    g_cancel.store(true);
    Py_RETURN_NONE;
}

static PyObject* py_reset_cancel(PyObject*, PyObject*) {
    g_cancel.store(false);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"doc_set", py_doc_set, METH_VARARGS, doc_set_doc},
    {"run_new", py_run_new, METH_VARARGS, "run_new(n_classes, small, expect=0) -> Run"},
    {"run_count", py_run_count, METH_VARARGS,
     "run_count(run, docs, lo, hi, y, tlow, tid, binary): intern and count documents lo..hi-1."},
    {"run_reserve", py_run_reserve, METH_VARARGS, "run_reserve(run, expect): room for expect terms."},
    {"run_terms", py_run_terms, METH_O, "Number of terms of a run."},
    {"run_finish", py_run_finish, METH_O, run_finish_doc},
    {"sort_terms", py_sort_terms, METH_VARARGS,
     "sort_terms(pool, tstart, tlen) -> (order, first, per, skeys, slen)"},
    {"prefix_keys", py_prefix_keys, METH_VARARGS, "prefix_keys(pool, tstart, tlen) -> keys"},
    {"split_sorted", py_split_sorted, METH_VARARGS,
     "split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces) -> cuts"},
    {"merge_piece", py_merge_piece, METH_VARARGS,
     "merge_piece(pool, tstart, tlen, keys, order, starts, ends, pkeys, plen, low) -> (sel, chars)"},
    {"fill_blob", py_fill_blob, METH_VARARGS, "fill_blob(pool, tstart, tlen, sel, blob, o, sep)"},
    {"fill_counts", py_fill_counts, METH_VARARGS,
     "fill_counts(counts, df, sel, n_classes, out, out_df, col0)"},
    {"build_lookup", py_build_lookup, METH_VARARGS, "build_lookup(docs, cols, tid) -> Lookup"},
    {"build_lookup_blob", py_build_lookup_blob, METH_VARARGS,
     "build_lookup_blob(blob, cols, tid) -> Lookup"},
    {"lookup_size", py_lookup_size, METH_O, "(number of terms, largest column) of a Lookup."},
    // packed vocabularies (UTF-8 bytes + offsets)
    {"packed_check", py_packed_check, METH_VARARGS,
     "packed_check(bytes, offsets) -> (status 0 ok / 1 offsets / 2 UTF-8 / 3 duplicate, at, other, sorted)"},
    {"packed_sort", py_packed_sort, METH_VARARGS, "packed_sort(bytes, offsets, cols) -> cols sorted by term"},
    {"packed_take", py_packed_take, METH_VARARGS, "packed_take(bytes, offsets, cols) -> (bytes, offsets) of the terms cols"},
    {"build_lookup_packed", py_build_lookup_packed, METH_VARARGS,
     "build_lookup_packed(bytes, offsets, cols, tid) -> Lookup"},
    {"packed_strings", py_packed_strings, METH_VARARGS, "packed_strings(bytes, offsets) -> list of str"},
    {"transform_run", py_transform_run, METH_VARARGS,
     "transform_run(docs, lo, hi, tlow, tid, lookup, n_cols, track=False) -> (indptr, indices, values, first)"},
    {"count_one", py_count_one, METH_VARARGS,
     "count_one(doc, t, lowercase, lookup) -> (ok, columns, counts)"},
    {"hash_run", py_hash_run, METH_VARARGS,
     "hash_run(docs, rows, tlow, tid, binary, n_features, fc, aux, stop) -> tokens counted"},
    {"hash_transform_run", py_hash_transform_run, METH_VARARGS,
     "hash_transform_run(docs, lo, hi, tlow, tid, n_features, alternate, stop) -> (indptr, indices, values)"},
    {"intern_run", py_intern_run, METH_VARARGS,
     "intern_run(buf, spans, is_word, slots, thash, tstart, tlen, is_stop, pool, counters, tok, ptr, pos) -> status"},
    {"rehash", py_rehash, METH_VARARGS, "rehash(slots, thash, n_terms)"},
    {"pair_ids", py_pair_ids, METH_VARARGS, "pair_ids(tok, ptr) -> (pair_tok, pair_ptr, first, second)"},
    {"first_occurrence", py_first_occurrence, METH_VARARGS,
     "first_occurrence(tok, ptr, ptok, pptr, n_uni, n_pair, use_uni, use_pair) -> (col, n)"},
    {"build_rows", py_build_rows, METH_VARARGS,
     "build_rows(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols) -> (indptr, indices, values)"},
    {"stream_class_sums", py_stream_class_sums, METH_VARARGS,
     "stream_class_sums(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols, y, n_classes, binary, as_float) -> (sums, df)"},
    {"ngram_blob", py_ngram_blob, METH_VARARGS,
     "ngram_blob(pool, tstart, tlen, n_uni, first, second, ids) -> code points"},
    {"order_rows", py_order_rows, METH_VARARGS, "order_rows(indptr, indices, values, key, lo, hi)"},
    {"rows_dot", py_rows_dot, METH_VARARGS, "rows_dot(indptr, indices, data, W, out, lo, hi)"},
    {"union_terms", py_union_terms, METH_VARARGS, union_terms_doc},
    {"sum_cells", py_sum_cells, METH_VARARGS, sum_cells_doc},
    {"nonzero_cells", py_nonzero_cells, METH_O, nonzero_cells_doc},
    {"word_table", py_word_table, METH_NOARGS, word_table_doc},
    {"char_table", py_char_table, METH_O, char_table_doc},
    {"cancel", py_cancel, METH_NOARGS, "Ask every running kernel to stop (KeyboardInterrupt)."},
    {"reset_cancel", py_reset_cancel, METH_NOARGS, "Clear the cancel flag."},
    {nullptr, nullptr, 0, nullptr},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_native",
    "The compiled text kernels of nbayes (scanning, counting tables, sorting and merging,\n"
    "lookup and scoring, hashing). Internal: use nbayes.text.",
    -1, methods, nullptr, nullptr, nullptr, nullptr,
};

PyMODINIT_FUNC PyInit__native(void) {
    import_array();
    PyObject* threading = PyImport_ImportModule("threading");
    if (threading == nullptr) return nullptr;
    PyObject* main = PyObject_CallMethod(threading, "main_thread", nullptr);
    Py_DECREF(threading);
    if (main == nullptr) return nullptr;
    PyObject* ident = PyObject_GetAttrString(main, "ident");
    Py_DECREF(main);
    if (ident == nullptr) return nullptr;
    g_main_ident = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    if (PyErr_Occurred()) return nullptr;
    return PyModule_Create(&moduledef);
}
