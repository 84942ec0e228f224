// nbayes._native: the compiled text kernels, bound to Python through the CPython and
// NumPy C APIs. Each kernel header has its binding file (bind_<header>.cpp, its entry
// points and their argument checks); binding.hpp holds what they share (errors, the GIL
// and interruption, arrays, capsules). This file makes the module of their entry points.
#define NBAYES_NATIVE_MODULE  // this translation unit imports NumPy's C API table
#include "binding.hpp"

using namespace nbk;

static std::vector<PyMethodDef> methods;  // the entry points, zero-terminated

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_native",
    "The compiled text kernels of nbayes (scanning, counting tables, sorting and merging,\n"
    "lookup and scoring, hashing). Internal: use nbayes.text.",
    -1, nullptr, nullptr, nullptr, nullptr, nullptr,
};

PyMODINIT_FUNC PyInit__native(void) {
    import_array();
    if (methods.empty()) {
        try {
            methods = entries();
            methods.push_back(PyMethodDef{nullptr, nullptr, 0, nullptr});
        } catch (const std::bad_alloc&) {
            methods.clear();
            return PyErr_NoMemory();
        }
        moduledef.m_methods = methods.data();
    }
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
