// nbayes._native, binding of fixed vocabularies (lookup.hpp): the exact lookup table
// behind a capsule (from strings, a code point blob, packed UTF-8 terms), documents -> CSR
// rows, one document -> counts.
#include "binding.hpp"
#include "lookup.hpp"

using namespace nbk;

// The lookup table that build() makes (without the GIL), in a capsule.
template <class F>
static PyObject* box_lookup(F&& build) {
    std::unique_ptr<Lookup> lk;
    if (!nogil([&] { lk = std::make_unique<Lookup>(build()); })) return nullptr;
    PyObject* cap = PyCapsule_New(lk.get(), LOOKUP, box_free<Lookup>);
    if (cap != nullptr) lk.release();
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
    return box_lookup([&] { return build_lookup(*ds, cols.p, tid.p); });
}
NBK_ENTRY(build_lookup, METH_VARARGS, "build_lookup(docs, cols, tid) -> Lookup");

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
    return box_lookup([&] { return build_lookup_blob(blob.p, blob.n, cols.p, cols.n, tid.p); });
}
NBK_ENTRY(build_lookup_blob, METH_VARARGS, "build_lookup_blob(blob, cols, tid) -> Lookup");

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
    return box_lookup([&] { return build_lookup_packed(data.p, off.p, cols.n, cols.p, tid.p); });
}
NBK_ENTRY(build_lookup_packed, METH_VARARGS,
          "build_lookup_packed(bytes, offsets, cols, tid) -> Lookup");

static PyObject* py_lookup_size(PyObject*, PyObject* arg) {
    Lookup* lk = unbox<Lookup>(arg, LOOKUP, "Lookup");
    if (lk == nullptr) return nullptr;
    return Py_BuildValue("(LL)", static_cast<long long>(lk->n_terms), static_cast<long long>(lk->max_col));
}
NBK_ENTRY(lookup_size, METH_O, "(number of terms, largest column) of a Lookup.");

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
NBK_ENTRY(transform_run, METH_VARARGS,
          "transform_run(docs, lo, hi, tlow, tid, lookup, n_cols, track=False) -> (indptr, indices, values, first)");

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
NBK_ENTRY(count_one, METH_VARARGS, "count_one(doc, t, lowercase, lookup) -> (ok, columns, counts)");
