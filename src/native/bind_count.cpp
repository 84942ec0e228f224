// nbayes._native, binding of counting runs (count.hpp, table.hpp): a worker's interning
// and counting table behind a capsule, fed documents, finished into arrays.
#include "binding.hpp"
#include "count.hpp"
#include "sort_merge.hpp"
#include "table.hpp"

using namespace nbk;

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
NBK_ENTRY(run_new, METH_VARARGS, "run_new(n_classes, small, expect=0) -> Run");

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
NBK_ENTRY(run_count, METH_VARARGS,
          "run_count(run, docs, lo, hi, y, tlow, tid, binary): intern and count documents lo..hi-1.");

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
NBK_ENTRY(run_reserve, METH_VARARGS, "run_reserve(run, expect): room for expect terms.");

static PyObject* py_run_terms(PyObject*, PyObject* arg) {
    Run* r = unbox<Run>(arg, RUN, "Run");
    if (r == nullptr) return nullptr;
    return PyLong_FromLongLong(r->n_terms);
}
NBK_ENTRY(run_terms, METH_O, "Number of terms of a run.");

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
NBK_ENTRY(run_finish, METH_O, run_finish_doc);
