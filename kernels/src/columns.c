/* The packed columns read in bulk: every row's ids as Python lists in one call.
 *
 * A packed row holds n int32 ids, then n int64 starts, ends and word ids, native byte order
 * (result_packed in encode.c writes them; tokenizer_core/fast/columns.py owns the layout and is the
 * mirror: its ROW_BYTES is PACKED_ROW_BYTES here, a test holds the two equal). A batch's
 * input_ids read row by row in Python (an array per row, then a list) took longer than the
 * kernel's whole encode_batch of gpt-oss's file: 0.075 s against 0.062 s for 18,175 lines. The
 * encodings are PackedEncoding objects (tokenizer_core/fast/packed.py); their slots are read at the
 * offsets of the class's member descriptors, as encoder.c writes them. */
#include "kernel.h"
#include "chunks.h" /* slot_offsets */

/* Recent ids' int objects, direct-mapped by the id's low bits: a batch repeats few ids many times,
 * so most tokens take a reference to an int made before instead of a new one. */
#define ID_CACHE 4096

typedef struct {
    PyObject *obj[ID_CACHE];
    int32_t id[ID_CACHE];
} IdCache;

static PyObject *id_object(IdCache *c, int32_t v) {
    size_t slot = (uint32_t)v & (ID_CACHE - 1);
    if (c->obj[slot] && c->id[slot] == v) {
        Py_INCREF(c->obj[slot]);
        return c->obj[slot];
    }
    PyObject *o = PyLong_FromLong(v);
    if (!o) return NULL;
    Py_XSETREF(c->obj[slot], o);
    c->id[slot] = v;
    Py_INCREF(o);
    return o;
}

static void id_cache_free(IdCache *c) {
    for (size_t k = 0; k < ID_CACHE; k++) Py_XDECREF(c->obj[k]);
    PyMem_Free(c);
}

/* The packed row of an encoding of `type` whose ids slot is unset (its list not made yet), else NULL. */
static PyObject *unread_row(PyObject *enc, PyTypeObject *type, Py_ssize_t ids_at, Py_ssize_t packed_at) {
    if (Py_TYPE(enc) != type || *(PyObject **)((char *)enc + ids_at) != NULL) return NULL;
    PyObject *row = *(PyObject **)((char *)enc + packed_at);
    return row && PyBytes_CheckExact(row) && PyBytes_GET_SIZE(row) % PACKED_ROW_BYTES == 0 ? row : NULL;
}

/* packed_ids(encodings, type) -> list: for each encoding of exactly `type` (PackedEncoding) whose ids
 * were not read yet, its ids as a new list of int read from its packed row; None for every other
 * encoding (the caller copies its ids list, which its owner may have changed). */
static PyObject *packed_ids(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *encodings;
    PyTypeObject *type;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &encodings, &PyType_Type, &type)) return NULL;
    static const char *const names[2] = {"ids", "_packed"};
    Py_ssize_t at[2];
    if (slot_offsets(type, names, 2, at) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(encodings);
    IdCache *cache = PyMem_Calloc(1, sizeof(IdCache));
    if (!cache) return PyErr_NoMemory();
    PyObject *out = PyList_New(n);
    if (!out) {
        PyMem_Free(cache);
        return NULL;
    }
    /* Lists of ints are never in a cycle: no collection runs while they are made (a batch's 18,000
     * lists started collections that took 40% of the call), and they are not tracked after it. */
    int gc_was_on = PyGC_Disable();
    /* No Python code runs in the loop (slots are read, ints and lists made): encodings keeps its size. */
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *row = unread_row(PyList_GET_ITEM(encodings, k), type, at[0], at[1]);
        if (!row) {
            PyList_SET_ITEM(out, k, Py_NewRef(Py_None));
            continue;
        }
        Py_ssize_t m = PyBytes_GET_SIZE(row) / PACKED_ROW_BYTES;
        const char *ids_at = PyBytes_AS_STRING(row);
        PyObject *ids = PyList_New(m);
        if (!ids) goto fail;
        for (Py_ssize_t i = 0; i < m; i++) {
            int32_t v;
            memcpy(&v, ids_at + 4 * i, sizeof v); /* the ids column starts the row, unaligned-safe */
            PyObject *o = id_object(cache, v);
            if (!o) {
                Py_DECREF(ids);
                goto fail;
            }
            PyList_SET_ITEM(ids, i, o);
        }
        PyObject_GC_UnTrack(ids);
        PyList_SET_ITEM(out, k, ids);
    }
    if (gc_was_on) PyGC_Enable();
    id_cache_free(cache);
    return out;
fail:
    if (gc_was_on) PyGC_Enable();
    id_cache_free(cache);
    Py_DECREF(out);
    return NULL;
}

PyMethodDef columns_methods[] = {
    {"packed_ids", (PyCFunction)packed_ids, METH_VARARGS,
     "packed_ids(encodings, type) -> each unread packed encoding's ids as a list of int, None for the others."},
    {NULL, NULL, 0, NULL},
};
