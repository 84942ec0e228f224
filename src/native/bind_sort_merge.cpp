// nbayes._native, binding of vocabularies in str order and the union of sorted
// vocabularies (sort_merge.hpp).
#include "binding.hpp"
#include "sort_merge.hpp"

using namespace nbk;

static Terms terms_of(const TermArgs& A) {
    return Terms{A.pool.p, A.pool.n, A.tstart.p, A.tlen.p, A.tstart.n};
}

static PyObject* sort_out_tuple(SortOut&& s) {
    return Py_BuildValue("(NNiNN)", to_np(std::move(s.order)), to_np(std::move(s.first)), s.per,
                         to_np(std::move(s.skeys)), to_np(std::move(s.slen)));
}

static PyObject* py_sort_terms(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol;
    if (!PyArg_ParseTuple(args, "OOO", &op, &os, &ol)) return nullptr;
    TermArgs A;
    if (!A.get(op, os, ol)) return nullptr;
    SortOut s;
    if (!nogil([&] { s = sort_terms(terms_of(A)); })) return nullptr;
    return sort_out_tuple(std::move(s));
}
NBK_ENTRY(sort_terms, METH_VARARGS,
          "sort_terms(pool, tstart, tlen) -> (order, first, per, skeys, slen)");

static PyObject* py_prefix_keys(PyObject*, PyObject* args) {
    PyObject *op, *os, *ol;
    if (!PyArg_ParseTuple(args, "OOO", &op, &os, &ol)) return nullptr;
    TermArgs A;
    if (!A.get(op, os, ol)) return nullptr;
    std::vector<u64> keys;
    if (!nogil([&] { keys = prefix_keys(terms_of(A)); })) return nullptr;
    return to_np(std::move(keys));
}
NBK_ENTRY(prefix_keys, METH_VARARGS, "prefix_keys(pool, tstart, tlen) -> keys");

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
    if (!nogil([&] { cuts = split_sorted(terms_of(A), keys.p, order.p, bounds.p, k, n_pieces); }))
        return nullptr;
    return to_np(std::move(cuts), n_pieces + 1, k);
}
NBK_ENTRY(split_sorted, METH_VARARGS,
          "split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces) -> cuts");

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
            m = merge_piece(terms_of(A), keys.p, order.p, starts.p, ends.p, k, pkeys.p, plen.p,
                            static_cast<u64>(low), sel, chars);
        }))
        return nullptr;
    return Py_BuildValue("(NL)", to_np(std::move(sel), m, k), static_cast<long long>(chars));
}
NBK_ENTRY(merge_piece, METH_VARARGS,
          "merge_piece(pool, tstart, tlen, keys, order, starts, ends, pkeys, plen, low) -> (sel, chars)");

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
    if (!nogil([&] { fill_blob(terms_of(A), sel.p, n, k, blob.p, o, sep); })) return nullptr;
    Py_RETURN_NONE;
}
NBK_ENTRY(fill_blob, METH_VARARGS, "fill_blob(pool, tstart, tlen, sel, blob, o, sep)");

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
NBK_ENTRY(fill_counts, METH_VARARGS, "fill_counts(counts, df, sel, n_classes, out, out_df, col0)");

static PyObject* py_ngram_order(PyObject*, PyObject* args) {
    PyObject *oorder, *ofirst, *osecond, *oids;
    if (!PyArg_ParseTuple(args, "OOOO", &oorder, &ofirst, &osecond, &oids)) return nullptr;
    In<i64> order;
    if (!order.get(oorder, "order")) return nullptr;
    const i64 n = order.n;
    if (n >= (1LL << 31)) return PyErr_Format(PyExc_ValueError, "more than 2**31 - 1 words");
    NgramIdArgs P;
    if (!check_range(order.p, n, 0, n, "order") || !P.get(ofirst, osecond, oids, n)) return nullptr;
    std::vector<i64> out;
    if (!nogil([&] { out = ngram_order(order.p, n, P.first.p, P.second.p, P.ids.p, P.ids.n); }))
        return nullptr;
    return to_np(std::move(out));
}
NBK_ENTRY(ngram_order, METH_VARARGS,
          "ngram_order(order, first, second, ids) -> ids in the order of their strings (order: "
          "the word ids in string order; an id >= len(order) is the pair first/second of id - n)");
