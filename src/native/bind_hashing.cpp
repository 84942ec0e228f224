// nbayes._native, binding of hashed counting and hashed rows (hashing.hpp), scikit-learn's
// MurmurHash3 buckets.
#include "binding.hpp"
#include "hashing.hpp"
#include "lookup.hpp"

using namespace nbk;

static PyObject* py_hash_run(PyObject*, PyObject* args) {
    PyObject *odocs, *oy, *otlow, *otid, *ofc, *oaux, *ostop;
    int binary;
    long long n_features;
    if (!PyArg_ParseTuple(args, "OOOOpLOOO", &odocs, &oy, &otlow, &otid, &binary, &n_features,
                          &ofc, &oaux, &ostop))
        return nullptr;
    const DocSet* ds = get_docs(odocs);
    bool ok;
    const Lookup* stop = opt_unbox<Lookup>(ostop, LOOKUP, "Lookup", ok);
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
NBK_ENTRY(hash_run, METH_VARARGS,
          "hash_run(docs, rows, tlow, tid, binary, n_features, fc, aux, stop) -> tokens counted");

static PyObject* py_hash_transform_run(PyObject*, PyObject* args) {
    PyObject *odocs, *otlow, *otid, *ostop;
    long long lo, hi, n_features;
    int alternate;
    if (!PyArg_ParseTuple(args, "OLLOOLpO", &odocs, &lo, &hi, &otlow, &otid, &n_features,
                          &alternate, &ostop))
        return nullptr;
    const DocSet* ds = get_docs(odocs);
    bool ok;
    const Lookup* stop = opt_unbox<Lookup>(ostop, LOOKUP, "Lookup", ok);
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
NBK_ENTRY(hash_transform_run, METH_VARARGS,
          "hash_transform_run(docs, lo, hi, tlow, tid, n_features, alternate, stop) -> (indptr, indices, values)");
