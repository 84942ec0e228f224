// nbayes._native, binding of scoring (scoring.hpp): CSR rows times a dense weight matrix.
#include "binding.hpp"
#include "scoring.hpp"

using namespace nbk;

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
NBK_ENTRY(rows_dot, METH_VARARGS, "rows_dot(indptr, indices, data, W, out, lo, hi)");
