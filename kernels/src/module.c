/* The module: its types (see kernel.h for what each file holds) and the integer codes of
 * codes.h, exported under their C names so that a test can hold Python's enums to them (mirror:
 * tokenizer_core/kernel/codes.py, checked by tests/kernel/test_kernel_constants.py). */
#include "kernel.h"

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "tokenizer_kernel",
    "Compiled fast path of tokenizer_core's byte-level BPE and BPE training (the Python code is the reference).",
    -1, merge_ids_methods,
};

static const struct { const char *name; long value; } codes[] = {
    {"PAT_GPT2", PAT_GPT2}, {"PAT_CL100K", PAT_CL100K}, {"PAT_EXTERNAL", PAT_EXTERNAL}, {"PAT_PROGRAM", PAT_PROGRAM},
    {"SPLIT_GPT2", SPLIT_GPT2}, {"SPLIT_WHITESPACE", SPLIT_WHITESPACE},
    {"SPLIT_WORDSPLIT", SPLIT_WORDSPLIT}, {"SPLIT_WHITESPACESPLIT", SPLIT_WHITESPACESPLIT},
    {"SPLIT_SPACES", SPLIT_SPACES}, {"RULE_WORDS", RULE_WORDS}, {"RULE_SPACES", RULE_SPACES},
    {"RULE_PIECES", RULE_PIECES}, {"PACKED_ROW_BYTES", PACKED_ROW_BYTES},
    {"C_L", C_L}, {"C_N", C_N}, {"C_S", C_S}, {"C_W", C_W}, {"C_CASELESS_SHIFT", C_CASELESS_SHIFT},
};

PyMODINIT_FUNC PyInit_tokenizer_kernel(void) {
    static const struct { const char *name; PyTypeObject *type; } types[] = {
        {"Encoder", &EncoderType}, {"PieceCounter", &PieceCounterType}, {"MergeState", &MergeStateType},
        {"WordSet", &WordSetType}, {"UnigramCorpus", &UnigramCorpusType},
        {"ChunkTable", &ChunkTableType}, {"PairRanks", &PairRanksType},
    };
    kernel_seed_init(); /* before any table is built; never exported */
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    if (PyModule_AddFunctions(m, columns_methods) < 0) goto fail;
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        if (PyType_Ready(types[k].type) < 0) goto fail;
        Py_INCREF(types[k].type);
        if (PyModule_AddObject(m, types[k].name, (PyObject *)types[k].type) < 0) {
            Py_DECREF(types[k].type);
            goto fail;
        }
    }
    for (size_t k = 0; k < sizeof(codes) / sizeof(codes[0]); k++)
        if (PyModule_AddIntConstant(m, codes[k].name, codes[k].value) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "ABI", 7) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
