/* The module: its three types (see kernel.h for what each file holds). */
#include "kernel.h"

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "tokenizer_kernel",
    "Compiled fast path of tokenizer_core's byte-level BPE and BPE training (the Python code is the reference).",
    -1, NULL,
};

PyMODINIT_FUNC PyInit_tokenizer_kernel(void) {
    static const struct { const char *name; PyTypeObject *type; } types[] = {
        {"Encoder", &EncoderType}, {"PieceCounter", &PieceCounterType}, {"MergeState", &MergeStateType},
    };
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        if (PyType_Ready(types[k].type) < 0) goto fail;
        Py_INCREF(types[k].type);
        if (PyModule_AddObject(m, types[k].name, (PyObject *)types[k].type) < 0) {
            Py_DECREF(types[k].type);
            goto fail;
        }
    }
    if (PyModule_AddIntConstant(m, "ABI", 3) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
