/* Encoder.encode_batch: many texts encoded a window at a time on threads without the GIL, then their
 * rows made: tuples of an Encoding's eight lists, objects of a slotted Encoding class
 * (tokenizer_core.types.Encoding, filled slot by slot) or packed rows (tokenizer_core/fast/packed.py's
 * PackedEncoding). tokenizer_core/fast/byte_level.py calls it; each row is what encoding its text
 * alone gives (encode, encoder.c). */
#include "encoder_type.h"

#include <structmember.h>

#include <pthread.h>

/* A list of n references to one object. */
static PyObject *repeated(PyObject *o, Py_ssize_t n) {
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_INCREF(o);
        PyList_SET_ITEM(l, k, o);
    }
    return l;
}

/* ------------------------------------------------------------------ Encoding objects */

/* The fields of tokenizer_core.types.Encoding, in the order of a batch row (then "overflowing"). */
static const char *const ENCODING_FIELDS[9] = {"ids", "tokens", "offsets", "type_ids", "attention_mask",
                                               "special_tokens_mask", "word_ids", "sequence_ids", "overflowing"};

/* The byte offsets of a slotted class's slots `names` (its __slots__' member descriptors), so that rows
 * become objects of that class without a Python __init__ each (a quarter-million dataclass calls cost
 * as much as encoding the batch). 0 on success; TypeError otherwise. */
int slot_offsets(PyTypeObject *type, const char *const *names, int n, Py_ssize_t *offsets) {
    for (int f = 0; f < n; f++) {
        PyObject *d = PyObject_GetAttrString((PyObject *)type, names[f]);
        if (!d) return -1;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok) offsets[f] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "%.100s.%s is not a slot", type->tp_name, names[f]);
            return -1;
        }
    }
    return 0;
}

/* The slots of a packed Encoding class (tokenizer_core.fast.packed.PackedEncoding). */
static const char *const PACKED_SLOTS[3] = {"_packed", "_seq", "_strs"};

/* A packed row: (columns, sequence_id, token_strs) (see result_packed), or an object of `type` with
 * those in its three packed slots and every other slot unset: two objects a text. */
static PyObject *packed_row(Encoder *e, const Result *r, PyObject *seq_obj, PyTypeObject *type,
                            const Py_ssize_t offsets[3]) {
    PyObject *cols = result_packed(r);
    if (!cols) return NULL;
    if (!type) return Py_BuildValue("(NOO)", cols, seq_obj, e->token_strs);
    return batch_packed_object(type, offsets, cols, seq_obj, e->token_strs);
}

/* An object of `type` holding the row's eight lists and a new empty "overflowing" list (steals row). */
static PyObject *encoding_from_row(PyTypeObject *type, const Py_ssize_t offsets[9], PyObject *row) {
    PyObject *overflowing = PyList_New(0);
    PyObject *obj = overflowing ? type->tp_alloc(type, 0) : NULL;
    if (!obj) {
        Py_XDECREF(overflowing);
        Py_DECREF(row);
        return NULL;
    }
    for (int f = 0; f < 8; f++) {
        PyObject *v = PyTuple_GET_ITEM(row, f);
        Py_INCREF(v);
        *(PyObject **)((char *)obj + offsets[f]) = v;
    }
    *(PyObject **)((char *)obj + offsets[8]) = overflowing;
    Py_DECREF(row);
    return obj;
}

/* ------------------------------------------------------------------ batches on threads */

/* A window of a batch encoded by several threads without the GIL: each takes the next text in
 * turn (an atomic counter) with a Scratch of its own; the Encoder's tables are read-only and its
 * cache is behind its lock. The error of the lowest-numbered text that failed is kept, so the
 * batch raises what encoding the texts one by one would raise first. */
typedef struct {
    Encoder *e;
    PyObject **texts;
    Result *res;
    Py_ssize_t n;
    Py_ssize_t next;            /* the next text to take (atomic) */
    pthread_mutex_t mu;         /* guards error and error_at */
    int error;
    Py_ssize_t error_at;
} BatchJob;

static void *batch_worker(void *arg) {
    BatchJob *job = arg;
    Scratch sc = {0};
    for (;;) {
        Py_ssize_t k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (k >= job->n) break;
        job->res[k].out.n = 0;
        int rc = encode_text(job->e, &sc, job->texts[k], 0, 0, NULL, &job->res[k]);
        if (rc < 0) {
            pthread_mutex_lock(&job->mu);
            if (!job->error || k < job->error_at) {
                job->error = rc;
                job->error_at = k;
            }
            pthread_mutex_unlock(&job->mu);
        }
    }
    scratch_free(&sc);
    return NULL;
}

/* Texts per window, and characters: the Results of a window are all held at once. */
#define WINDOW_TEXTS 4096
#define WINDOW_CHARS ((Py_ssize_t)1 << 21)

const char encoder_encode_batch_doc[] =
"encode_batch(texts, sequence_id, threads=1, *, encoding=None, packed=False) -> one row per text:\n"
"(ids, tokens, offsets, type_ids, attention_mask, special_tokens_mask, word_ids, sequence_ids),\n"
"the fields of an Encoding in order (type and sequence ids are sequence_id); with encoding (a\n"
"slotted class with those fields and \"overflowing\"), objects of that class instead.\n"
"packed: each row (columns, sequence_id, token_strs) with encode(packed=True)'s columns and the\n"
"Encoder's list of token strings by id; with encoding (a slotted class with the slots _packed, _seq\n"
"and _strs), an object of that class holding them there, its other slots unset.\n\n"
"Texts are encoded a window at a time (about 2M characters) on `threads` threads without the\n"
"GIL, then the window's lists are made. The lists hold only ints, strs and tuples of ints, so they\n"
"can be in no reference cycle; they are left out of the cyclic GC, which would otherwise walk\n"
"every token of a large batch again at each collection.";

/* Encodes the window items[0 .. n) (chars characters in all) into res: on `threads` threads without
 * the GIL from 4 * RELEASE_GIL_CHARS characters, on this one without it from RELEASE_GIL_CHARS, with
 * it below. 0, or -1 with the error of the window's lowest-numbered text that failed raised. */
static int encode_window(Encoder *e, PyObject **items, Py_ssize_t n, Py_ssize_t chars, Py_ssize_t threads,
                         Result *res) {
    BatchJob job = {e, items, res, n, 0, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    int use = chars < 4 * RELEASE_GIL_CHARS ? 1 : (int)threads;
    if (use == 1 && chars < RELEASE_GIL_CHARS) {
        batch_worker(&job);
    } else {
        Py_BEGIN_ALLOW_THREADS
        batch_run_threads(batch_worker, &job, use);
        Py_END_ALLOW_THREADS
    }
    if (job.error) return raise_encode_error(job.error, items[job.error_at]);
    return 0;
}

/* One text's row of the eight lists of an Encoding (ids, tokens, offsets, type_ids, attention_mask,
 * special_tokens_mask, word_ids, sequence_ids), the row and its lists left out of the cyclic GC;
 * NULL with the exception set. */
static PyObject *list_row(Encoder *e, const Result *r, PyObject *seq_obj, PyObject *zero, PyObject *one) {
    PyObject *lists = result_lists(e, r);
    if (!lists) return NULL;
    Py_ssize_t m = r->out.n;
    PyObject *row = PyTuple_New(8);
    if (!row) { Py_DECREF(lists); return NULL; }
    for (int f = 0; f < 3; f++) {          /* ids, tokens, offsets */
        PyObject *l = PyTuple_GET_ITEM(lists, f);
        Py_INCREF(l);
        PyTuple_SET_ITEM(row, f, l);
    }
    PyObject *w = PyTuple_GET_ITEM(lists, 3);
    Py_INCREF(w);
    PyTuple_SET_ITEM(row, 6, w);           /* word_ids */
    Py_DECREF(lists);
    PyObject *type_ids = repeated(seq_obj, m), *mask = repeated(one, m), *special = repeated(zero, m),
             *seq_ids = repeated(seq_obj, m);
    if (type_ids) PyTuple_SET_ITEM(row, 3, type_ids);
    if (mask) PyTuple_SET_ITEM(row, 4, mask);
    if (special) PyTuple_SET_ITEM(row, 5, special);
    if (seq_ids) PyTuple_SET_ITEM(row, 7, seq_ids);
    if (!type_ids || !mask || !special || !seq_ids) { Py_DECREF(row); return NULL; }
    for (int f = 0; f < 8; f++) PyObject_GC_UnTrack(PyTuple_GET_ITEM(row, f));
    PyObject_GC_UnTrack(row);
    return row;
}

PyObject *Encoder_encode_batch(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"texts", "sequence_id", "threads", "encoding", "packed", NULL};
    PyObject *texts, *seq_obj;
    PyTypeObject *encoding = NULL;
    Py_ssize_t threads = 1, offsets[9], packed_at[3] = {0, 0, 0};
    int packed = 0;
    if (encoder_check_ready(e) < 0 || encoder_check_own_split(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO!|n$O!p", names, &texts, &PyLong_Type, &seq_obj, &threads,
                                     &PyType_Type, &encoding, &packed))
        return NULL;
    if (encoding && (packed ? slot_offsets(encoding, PACKED_SLOTS, 3, packed_at)
                            : slot_offsets(encoding, ENCODING_FIELDS, 9, offsets)) < 0)
        return NULL;
    Py_ssize_t n = 0;
    PyObject **items = batch_start(texts, threads, &n);
    if (!items) return NULL;
    Result *res = PyMem_Calloc(WINDOW_TEXTS, sizeof(Result));
    PyObject *out = PyList_New(n), *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1);
    int gc_was_on = 0;
    if (!res) { PyErr_NoMemory(); goto fail; }
    if (!out || !zero || !one) goto fail;
    gc_was_on = PyGC_Disable();
    for (Py_ssize_t first = 0; first < n;) {
        Py_ssize_t last = first, chars = 0;
        while (last < n && last - first < WINDOW_TEXTS && (chars < WINDOW_CHARS || last == first))
            chars += PyUnicode_GET_LENGTH(items[last++]);
        if (encode_window(e, items + first, last - first, chars, threads, res) < 0) goto fail;
        for (Py_ssize_t k = first; k < last; k++) {
            Result *r = &res[k - first];
            PyObject *row = packed ? packed_row(e, r, seq_obj, encoding, packed_at)
                                   : list_row(e, r, seq_obj, zero, one);
            if (!row) goto fail;
            if (!packed && encoding && !(row = encoding_from_row(encoding, offsets, row))) goto fail;
            PyList_SET_ITEM(out, k, row);
        }
        first = last;
    }
    if (gc_was_on) PyGC_Enable();
    for (Py_ssize_t k = 0; k < WINDOW_TEXTS; k++) result_free(&res[k]);
    PyMem_Free(res);
    batch_release_texts(items, n);
    Py_DECREF(zero);
    Py_DECREF(one);
    return out;
fail:
    if (gc_was_on) PyGC_Enable();
    if (res)
        for (Py_ssize_t k = 0; k < WINDOW_TEXTS; k++) result_free(&res[k]);
    PyMem_Free(res);
    batch_release_texts(items, n);
    Py_XDECREF(zero);
    Py_XDECREF(one);
    Py_XDECREF(out);
    return NULL;
}
