/* The packed columns read in bulk: every row's ids as Python lists in one call.
 *
 * A packed row holds n int32 ids, then n int64 starts, ends and word ids, native byte order
 * (result_packed in encode.c writes them; tokenizer_core/fast/columns.py owns the layout and is the
 * mirror: its ROW_BYTES is PACKED_ROW_BYTES here, a test holds the two equal). A batch's
 * input_ids read row by row in Python (an array per row, then a list) took longer than the
 * kernel's whole encode_batch of gpt-oss's file: 0.075 s against 0.062 s for 18,175 lines. The
 * encodings are PackedEncoding objects (tokenizer_core/fast/packed.py); their slots are read at the
 * offsets of the class's member descriptors, as encoder_batch.c writes them. */
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

/* concat_shifted(rows, bases, words) -> bytes: the packed rows one after the other as one packed
 * row, each row's starts and ends moved by its base and its word ids by its word (bases and words:
 * buffers of int64, one a row). A whole text cut at 18,174 added tokens ("\n" in Gemma) is that
 * many kernel rows and one-token rows: joined here in one pass, not a numpy call a part. */
static PyObject *concat_shifted(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rows;
    Py_buffer bases, words;
    if (!PyArg_ParseTuple(args, "O!y*y*", &PyList_Type, &rows, &bases, &words)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows), total = 0;
    if (bases.len != n * (Py_ssize_t)sizeof(int64_t) || words.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "bases and words must hold one int64 a row");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *row = PyList_GET_ITEM(rows, k);
        if (!PyBytes_CheckExact(row) || PyBytes_GET_SIZE(row) % PACKED_ROW_BYTES) {
            PyErr_Format(PyExc_ValueError, "row %zd is not a packed row (bytes, a multiple of %d long)", k,
                         PACKED_ROW_BYTES);
            goto done;
        }
        total += PyBytes_GET_SIZE(row) / PACKED_ROW_BYTES;
    }
    if (total > PY_SSIZE_T_MAX / PACKED_ROW_BYTES) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, total * PACKED_ROW_BYTES);
    if (!out) goto done;
    char *base_out = PyBytes_AS_STRING(out);
    const int64_t *shift = (const int64_t *)bases.buf, *first_word = (const int64_t *)words.buf;
    Py_ssize_t at = 0; /* tokens written so far */
    /* Only bytes are read and written: no Python code runs, rows keeps its size. */
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *row = PyList_GET_ITEM(rows, k);
        Py_ssize_t m = PyBytes_GET_SIZE(row) / PACKED_ROW_BYTES;
        const char *src = PyBytes_AS_STRING(row);
        memcpy(base_out + 4 * at, src, 4 * (size_t)m);
        for (int col = 0; col < 3; col++) { /* starts, ends, word ids */
            int64_t by = col < 2 ? shift[k] : first_word[k];
            char *dst = base_out + 4 * total + 8 * (col * total + at);
            const char *from = src + 4 * m + 8 * col * m;
            for (Py_ssize_t i = 0; i < m; i++) {
                int64_t v;
                memcpy(&v, from + 8 * i, sizeof v);
                v = (int64_t)((uint64_t)v + (uint64_t)by); /* wraps, never undefined */
                memcpy(dst + 8 * i, &v, sizeof v);
            }
        }
        at += m;
    }
done:
    PyBuffer_Release(&bases);
    PyBuffer_Release(&words);
    return out;
}

PyMethodDef columns_methods[] = {
    {"concat_shifted", (PyCFunction)concat_shifted, METH_VARARGS,
     "concat_shifted(rows, bases, words) -> one packed row: the rows in turn, positions and word ids shifted."},
    {"packed_ids", (PyCFunction)packed_ids, METH_VARARGS,
     "packed_ids(encodings, type) -> each unread packed encoding's ids as a list of int, None for the others."},
    {NULL, NULL, 0, NULL},
};
