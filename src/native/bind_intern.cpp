// nbayes._native, binding of the copying path (intern.hpp): interning a joined buffer,
// word pairs, first-occurrence columns, rows, class sums.
#include "binding.hpp"
#include "intern.hpp"

using namespace nbk;

// -- the interning table (a capsule) -----------------------------------------------------

static InternTable* get_intern(PyObject* o) {
    auto* t = unbox<InternTable>(o, INTERN, "Intern");
    if (t != nullptr && t->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this interning table is in use by another thread; give each thread "
                        "its own InternState");
        return nullptr;
    }
    if (t != nullptr && t->broken) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this interning table stopped in the middle of a scan (interrupted or "
                        "failed); start again with a new InternState");
        return nullptr;
    }
    return t;
}

static PyObject* py_intern_new(PyObject*, PyObject* args) {
    long long capacity = 1 << 12;
    if (!PyArg_ParseTuple(args, "|L", &capacity)) return nullptr;
    if (capacity < 0 || capacity > InternTable::MAX_TERMS)
        return PyErr_Format(PyExc_ValueError, "capacity must be in [0, 2**30], got %lld", capacity);
    InternTable* t = nullptr;
    try {
        t = new InternTable(capacity);
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    }
    PyObject* cap = PyCapsule_New(t, INTERN, box_free<InternTable>);
    if (cap == nullptr) delete t;
    return cap;
}
NBK_ENTRY(intern_new, METH_VARARGS,
          "intern_new(capacity=4096) -> Intern: an empty interning table.");

template <class B>
static bool intern_typed(InternTable& T, PyArrayObject* buf, const In<i64>& spans,
                         const In<u8>& is_word, Out<i32>& tok, Out<i64>& ptr, Out<i64>& pos,
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
    T.busy = true;
    const bool ok = nogil([&] {
        status = T.scan(bp, spans.p, spans.dim(0), is_word.p, tok.p, tok.n, ptr.p, pos.p);
    });
    T.busy = false;
    T.broken = !ok;
    return ok;
}

static PyObject* py_intern_run(PyObject*, PyObject* args) {
    PyObject *otable, *obuf, *ospans, *oword, *otok, *optr, *opos;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &otable, &obuf, &ospans, &oword, &otok, &optr, &opos))
        return nullptr;
    InternTable* T = get_intern(otable);
    if (T == nullptr) return nullptr;
    In<i64> spans;
    In<u8> is_word;
    Out<i32> tok;
    Out<i64> ptr, pos;
    if (!spans.get(ospans, "spans", 2) || !is_word.get(oword, "is_word") ||
        !tok.get(otok, "tok") || !ptr.get(optr, "ptr") || !pos.get(opos, "pos"))
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
    if (pos.n != 3 || ptr.n != n_docs + 1)
        return PyErr_Format(PyExc_ValueError, "intern_run: ptr needs n_docs + 1 entries and pos 3");
    if (pos.p[0] < 0 || pos.p[0] > n_docs || pos.p[2] < 0 || pos.p[2] > tok.n || pos.p[1] < 0 ||
        pos.p[1] > nbuf)
        return PyErr_Format(PyExc_ValueError, "intern_run: pos out of range");
    int status = 0;
    const bool ok = b8 ? intern_typed<u8>(*T, buf, spans, is_word, tok, ptr, pos, status)
                       : intern_typed<u32>(*T, buf, spans, is_word, tok, ptr, pos, status);
    if (!ok) return nullptr;
    return PyLong_FromLong(status);
}
NBK_ENTRY(intern_run, METH_VARARGS,
          "intern_run(table, buf, spans, is_word, tok, ptr, pos) -> status (0 done, 3 tok full: grow it, call again)");

static PyObject* py_intern_size(PyObject*, PyObject* arg) {
    InternTable* T = get_intern(arg);
    if (T == nullptr) return nullptr;
    return PyLong_FromLongLong(T->n_terms());
}
NBK_ENTRY(intern_size, METH_O, "Number of terms of an interning table.");

static PyObject* py_intern_stop(PyObject*, PyObject* args) {
    PyObject *otable, *oids;
    if (!PyArg_ParseTuple(args, "OO", &otable, &oids)) return nullptr;
    InternTable* T = get_intern(otable);
    if (T == nullptr) return nullptr;
    In<i32> ids;
    if (!ids.get(oids, "ids") || !check_range(ids.p, ids.n, 0, T->n_terms(), "ids")) return nullptr;
    for (i64 i = 0; i < ids.n; ++i) T->is_stop[static_cast<std::size_t>(ids.p[i])] = 1;
    Py_RETURN_NONE;
}
NBK_ENTRY(intern_stop, METH_VARARGS,
          "intern_stop(table, ids): the terms ids are stop words (left out of later scans).");

PyDoc_STRVAR(intern_terms_doc,
             "intern_terms(table, lo) -> list of str\n\n"
             "The terms lo, lo + 1, ... of an interning table, by id.");

static PyObject* py_intern_terms(PyObject*, PyObject* args) {
    PyObject* otable;
    long long lo;
    if (!PyArg_ParseTuple(args, "OL", &otable, &lo)) return nullptr;
    InternTable* T = get_intern(otable);
    if (T == nullptr) return nullptr;
    const i64 n = T->n_terms();
    if (lo < 0 || lo > n) return PyErr_Format(PyExc_ValueError, "lo = %lld is not in [0, %lld]", lo,
                                              static_cast<long long>(n));
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(n - lo));
    if (out == nullptr) return nullptr;
    for (i64 t = lo; t < n; ++t) {
        if (((t - lo) & 0xFFFF) == 0xFFFF && PyErr_CheckSignals() < 0) {
            Py_DECREF(out);
            return nullptr;
        }
        PyObject* s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, T->pool.p + T->tstart[static_cast<std::size_t>(t)],
                                                T->tlen[static_cast<std::size_t>(t)]);
        if (s == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(t - lo), s);
    }
    return out;
}
NBK_ENTRY(intern_terms, METH_VARARGS, intern_terms_doc);

// A copy of the table's terms for the sorting and blob kernels.
static PyObject* py_intern_arrays(PyObject*, PyObject* arg) {
    InternTable* T = get_intern(arg);
    if (T == nullptr) return nullptr;
    const i64 n = T->n_terms(), used = T->pool_used();
    std::vector<u32> pool;
    std::vector<i64> tstart, tlen;
    T->busy = true;
    const bool ok = nogil([&] {
        pool.assign(T->pool.p, T->pool.p + used);
        tstart.assign(T->tstart.p, T->tstart.p + n);
        tlen.assign(T->tlen.p, T->tlen.p + n);
    });
    T->busy = false;
    if (!ok) return nullptr;
    return vectors_to_np(std::move(pool), std::move(tstart), std::move(tlen));
}
NBK_ENTRY(intern_arrays, METH_O,
          "intern_arrays(table) -> (pool, tstart, tlen): a copy of the table's terms, their code "
          "points (uint32) and every term's start and length in them (int64), by id.");

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
NBK_ENTRY(pair_ids, METH_VARARGS, "pair_ids(tok, ptr) -> (pair_tok, pair_ptr, first, second)");

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
NBK_ENTRY(first_occurrence, METH_VARARGS,
          "first_occurrence(tok, ptr, ptok, pptr, n_uni, n_pair, use_uni, use_pair) -> (col, n)");

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
NBK_ENTRY(build_rows, METH_VARARGS,
          "build_rows(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols) -> (indptr, indices, values)");

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
    // the outputs are C++ buffers handed to numpy, not numpy's zeros: numpy asks for huge
    // pages on large arrays, and the first random writes into them stalled this call (and
    // Ctrl-C) for ~1 s on a machine that compacts memory to make them
    const auto cells = static_cast<std::size_t>(n_classes) * static_cast<std::size_t>(n_cols);
    std::vector<double> fout;
    std::vector<i64> iout, df;
    const bool ok = nogil([&] {
        df.assign(static_cast<std::size_t>(n_cols), 0);
        if (as_float) {
            fout.assign(cells, 0.0);
            stream_class_sums(S.S, col.p, n_cols, y.p, binary != 0, fout.data(), df.data());
        } else {
            iout.assign(cells, 0);
            stream_class_sums(S.S, col.p, n_cols, y.p, binary != 0, iout.data(), df.data());
        }
    });
    if (!ok) return nullptr;
    PyObject* out = as_float ? to_np(std::move(fout), n_classes, n_cols) : to_np(std::move(iout), n_classes, n_cols);
    if (out == nullptr) return nullptr;
    PyObject* dfa = to_np(std::move(df));
    if (dfa == nullptr) {
        Py_DECREF(out);
        return nullptr;
    }
    return Py_BuildValue("(NN)", out, dfa);
}
NBK_ENTRY(stream_class_sums, METH_VARARGS,
          "stream_class_sums(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols, y, n_classes, binary, as_float) -> (sums, df)");

static PyObject* py_ngram_blob(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol, *of, *osec, *oids;
    long long n_uni;
    if (!PyArg_ParseTuple(args, "OOOLOOO", &op, &os, &ol, &n_uni, &of, &osec, &oids)) return nullptr;
    TermArgs A;
    if (!A.get(op, os, ol)) return nullptr;
    if (n_uni != A.tstart.n) return PyErr_Format(PyExc_ValueError, "ngram_blob: n_uni is not the number of terms");
    NgramIdArgs P;
    if (!P.get(of, osec, oids, n_uni)) return nullptr;
    std::vector<u32> blob;
    if (!nogil([&] {
            blob = ngram_blob(A.pool.p, A.tstart.p, A.tlen.p, n_uni, P.first.p, P.second.p, P.ids.p, P.ids.n);
        }))
        return nullptr;
    return to_np(std::move(blob));
}
NBK_ENTRY(ngram_blob, METH_VARARGS,
          "ngram_blob(pool, tstart, tlen, n_uni, first, second, ids) -> code points");

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
NBK_ENTRY(order_rows, METH_VARARGS, "order_rows(indptr, indices, values, key, lo, hi)");
