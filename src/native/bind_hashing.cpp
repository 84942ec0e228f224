// nbayes._native, binding of hashed counting and hashed rows (hashing.hpp), scikit-learn's
// MurmurHash3 buckets, of unigrams or of word n-grams (min_n, max_n).
#include "binding.hpp"
#include "hashing.hpp"
#include "lookup.hpp"

using namespace nbk;

// Whether (min_n, max_n) is a word n-gram range (else a ValueError is set).
static bool ngram_range(long long min_n, long long max_n) {
    if (min_n < 1 || max_n < min_n) {
        PyErr_Format(PyExc_ValueError,
                     "min_n = %lld, max_n = %lld is not an n-gram range: 1 <= min_n <= max_n",
                     min_n, max_n);
        return false;
    }
    return true;
}

static PyObject* py_hash_run(PyObject*, PyObject* args) {
    PyObject *odocs, *oy, *otlow, *otid, *ofc, *oaux, *ostop;
    int binary;
    long long n_features, min_n = 1, max_n = 1;
    if (!PyArg_ParseTuple(args, "OOOOpLOOO|LL", &odocs, &oy, &otlow, &otid, &binary, &n_features,
                          &ofc, &oaux, &ostop, &min_n, &max_n) ||
        !ngram_range(min_n, max_n))
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
            if (min_n == 1 && max_n == 1)
                total = hash_run(*ds, y.p, tlow.p, tid.p, binary != 0, n_features, fp, stride,
                                 aux.p, stop);
            else
                total = hash_ngram_run(*ds, y.p, tlow.p, tid.p, binary != 0, n_features, fp,
                                       stride, aux.p, stop, min_n, max_n);
        }))
        return nullptr;
    return PyLong_FromLongLong(total);
}
NBK_ENTRY(hash_run, METH_VARARGS,
          "hash_run(docs, rows, tlow, tid, binary, n_features, fc, aux, stop, min_n=1, max_n=1)"
          " -> n-grams counted");

static PyObject* py_hash_transform_run(PyObject*, PyObject* args) {
    PyObject *odocs, *otlow, *otid, *ostop;
    long long lo, hi, n_features, min_n = 1, max_n = 1;
    int alternate;
    if (!PyArg_ParseTuple(args, "OLLOOLpO|LL", &odocs, &lo, &hi, &otlow, &otid, &n_features,
                          &alternate, &ostop, &min_n, &max_n) ||
        !ngram_range(min_n, max_n))
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
            if (min_n == 1 && max_n == 1)
                c = hash_transform_run(*ds, lo, hi, tlow.p, tid.p, n_features, alternate != 0,
                                       stop);
            else
                c = hash_ngram_transform_run(*ds, lo, hi, tlow.p, tid.p, n_features,
                                             alternate != 0, stop, min_n, max_n);
        }))
        return nullptr;
    return csr_tuple(std::move(c), false);
}
NBK_ENTRY(hash_transform_run, METH_VARARGS,
          "hash_transform_run(docs, lo, hi, tlow, tid, n_features, alternate, stop, min_n=1, "
          "max_n=1) -> (indptr, indices, values)");
