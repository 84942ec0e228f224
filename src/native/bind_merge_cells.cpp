// nbayes._native, binding of merging text statistics (merge_cells.hpp): the union of
// packed vocabularies, sums of count tables given as cells, the non-zero cells of a table.
#include "binding.hpp"
#include "merge_cells.hpp"

using namespace nbk;

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
NBK_ENTRY(union_terms, METH_VARARGS, union_terms_doc);

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
NBK_ENTRY(nonzero_cells, METH_O, nonzero_cells_doc);

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
NBK_ENTRY(sum_cells, METH_VARARGS, sum_cells_doc);
