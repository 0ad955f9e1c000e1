/* What the kernel's two batch calls share (Encoder.encode_batch in encoder_batch.c, ChunkTable.encode_batch
 * in chunks_encode.c): holding the texts, running a window on threads, and making a packed row (an object
 * of tokenizer_core/fast/packed.py's PackedEncoding). */
#include "kernel.h"

#include <pthread.h>

/* Every text is checked to be a str before any is encoded, and each is held here: another thread may
 * change the caller's list while this one has let the GIL go. */
static PyObject **batch_hold_texts(PyObject *texts, Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(texts, "encode_batch takes a sequence of str");
    if (!seq) return NULL;
    *n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PyMem_Malloc((size_t)(*n ? *n : 1) * sizeof(PyObject *));
    if (!items) {
        Py_DECREF(seq);
        return (PyObject **)PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < *n; k++) {
        PyObject *text = PySequence_Fast_GET_ITEM(seq, k);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
            batch_release_texts(items, k);
            Py_DECREF(seq);
            return NULL;
        }
        items[k] = Py_NewRef(text);
    }
    Py_DECREF(seq);
    return items;
}

/* A batch call's start: `threads` checked (1 to 64), then the texts held (batch_hold_texts). */
PyObject **batch_start(PyObject *texts, Py_ssize_t threads, Py_ssize_t *n) {
    if (threads < 1 || threads > 64) {
        PyErr_SetString(PyExc_ValueError, "threads must be between 1 and 64");
        return NULL;
    }
    return batch_hold_texts(texts, n);
}

void batch_release_texts(PyObject **items, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++) Py_DECREF(items[k]);
    PyMem_Free(items);
}

void batch_run_threads(void *(*worker)(void *), void *job, int threads) {
    pthread_t ids[64];
    int started = 0;
    for (int t = 1; t < threads && t < 64; t++)
        if (pthread_create(&ids[started], NULL, worker, job) == 0) started++;
    worker(job); /* a thread that could not start leaves its share to the others */
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
}

/* A row can be in no reference cycle (bytes, an int, the shared token list; the lists it makes when
 * read hold ints, strs and tuples of ints): it is left out of the cyclic GC, which would otherwise
 * walk every row of a large batch again at its next collection. */
PyObject *batch_packed_object(PyTypeObject *type, const Py_ssize_t slots[3], PyObject *cols, PyObject *seq_obj,
                              PyObject *strs) {
    PyObject *obj = cols ? type->tp_alloc(type, 0) : NULL;
    if (!obj) {
        Py_XDECREF(cols);
        return NULL;
    }
    *(PyObject **)((char *)obj + slots[0]) = cols;
    *(PyObject **)((char *)obj + slots[1]) = Py_NewRef(seq_obj);
    *(PyObject **)((char *)obj + slots[2]) = Py_NewRef(strs);
    if (PyObject_IS_GC(obj) && PyObject_GC_IsTracked(obj)) PyObject_GC_UnTrack(obj);
    return obj;
}
