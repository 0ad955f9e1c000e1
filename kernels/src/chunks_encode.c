/* ChunkTable.encode() and encode_batch(): texts assembled from stored chunks (see chunks.c), for
 * CompiledChunks.encode and encode_batch in tokenizer_core/fast/chunk_table.py. */
#include "chunks.h"

#include <math.h>

static const char *const PACKED[3] = {"_packed", "_seq", "_strs"};

const char chunks_encode_doc[] =
"encode(text, *, spaces=None, start=0, total=0.0, first_word=0, extra=None)\n"
"-> (columns, stop, stop_end, total, words): the tokens of the text's chunks from `start` on, as\n"
"packed columns (n int32 ids, n int64 starts, ends and word ids), up to the first chunk neither this\n"
"table nor `extra` serves, [stop, stop_end) (stop == len(text): all of it); `total` is the path's\n"
"score there (scored tables, from `total` at start), `words` the next word id (from first_word).\n"
"stop_end == -1: the text cannot go on from there (a split program's error, or a chunk not served\n"
"inside a chain of several split programs): the caller takes the general path.";

PyObject *ChunkTable_encode(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "spaces", "start", "total", "first_word", "extra", NULL};
    PyObject *text, *spaces = NULL, *extra_o = NULL;
    Py_ssize_t start = 0;
    double total = 0.0;
    long long first_word = 0;
    Spaces sp;
    if (chunks_check_ready(c) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O!|$OndLO", names, &PyUnicode_Type, &text, &spaces, &start, &total,
                                     &first_word, &extra_o) ||
        chunks_read_spaces(c, spaces, &sp) < 0)
        return NULL;
    int has_extra = chunks_read_extra(c, extra_o);
    if (has_extra < 0) return NULL;
    const ChunkTable *extra = has_extra ? (const ChunkTable *)extra_o : NULL;
    Text t = text_of(text);
    if (start < 0 || start > t.len || first_word < 0) {
        PyErr_SetString(PyExc_ValueError, "start must lie in the text and first_word must not be negative");
        return NULL;
    }
    Row r = {0};
    uint32_t *buf = PyMem_RawMalloc((MAX_KEY_CHARS + 1) * sizeof(uint32_t));
    if (!buf) return PyErr_NoMemory();
    Scratch sc = {0};
    if (t.len - start >= RELEASE_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        pthread_rwlock_rdlock(&c->lock);
        chunks_encode_from(c, extra, &sp, &sc, &t, start, total, first_word, buf, &r);
        pthread_rwlock_unlock(&c->lock);
        Py_END_ALLOW_THREADS
    } else {
        chunks_read_lock(c);
        chunks_encode_from(c, extra, &sp, &sc, &t, start, total, first_word, buf, &r);
        chunks_unlock(c);
    }
    scratch_free(&sc);
    PyMem_RawFree(buf);
    PyObject *cols = r.no_memory ? PyErr_NoMemory() : chunks_row_columns(&r);
    PyObject *out = cols ? Py_BuildValue("(NnndL)", cols, r.stop, r.stop_end, r.total, (long long)r.words) : NULL;
    chunks_row_free(&r);
    return out;
}

/* ------------------------------------------------------------------ batches */

typedef struct {
    const ChunkTable *c, *extra;
    const Spaces *sp;
    PyObject **texts;
    Row *rows;
    Py_ssize_t n;
    Py_ssize_t next;    /* the next text to take (atomic) */
} Job;

static void *worker(void *arg) {
    Job *job = arg;
    uint32_t *buf = PyMem_RawMalloc((MAX_KEY_CHARS + 1) * sizeof(uint32_t));
    Scratch sc = {0};
    for (;;) {
        Py_ssize_t k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (k >= job->n) break;
        Row *r = &job->rows[k];
        r->n = 0;
        r->no_memory = r->stand_in = 0;
        if (!buf) { r->no_memory = 1; continue; }
        Text t = text_of(job->texts[k]);
        chunks_encode_from(job->c, job->extra, job->sp, &sc, &t, 0, 0.0, 0, buf, r);
    }
    scratch_free(&sc);
    PyMem_RawFree(buf);
    return NULL;
}

const char chunks_encode_batch_doc[] =
"encode_batch(texts, sequence_id, threads=1, *, encoding, spaces=None, extra=None) -> list: for each\n"
"text an object of `encoding` (a slotted class with the slots _packed, _seq and _strs: the columns of\n"
"encode(), sequence_id and the table's token strings), or None where a chunk stopped it (the caller\n"
"encodes that text itself), or the columns alone where they hold an id past the token strings the\n"
"table was built with (stand-ins the caller puts back). Texts are taken a window at a time on `threads` threads without the GIL.";

PyObject *ChunkTable_encode_batch(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"texts", "sequence_id", "threads", "encoding", "spaces", "extra", NULL};
    PyObject *texts, *seq_obj, *spaces = NULL, *extra_o = NULL;
    PyTypeObject *encoding = NULL;
    Py_ssize_t threads = 1, at[3];
    Spaces sp;
    if (chunks_check_ready(c) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO!|n$O!OO", names, &texts, &PyLong_Type, &seq_obj, &threads,
                                     &PyType_Type, &encoding, &spaces, &extra_o) ||
        chunks_read_spaces(c, spaces, &sp) < 0)
        return NULL;
    if (!encoding) {
        PyErr_SetString(PyExc_TypeError, "encode_batch needs encoding=");
        return NULL;
    }
    int has_extra = chunks_read_extra(c, extra_o);
    if (has_extra < 0 || slot_offsets(encoding, PACKED, 3, at) < 0) return NULL;
    Py_ssize_t n = 0;
    PyObject **items = batch_start(texts, threads, &n);
    if (!items) return NULL;
    Row *rows = PyMem_Calloc(WINDOW_ROWS, sizeof(Row));
    PyObject *out = PyList_New(n);
    if (!rows) { PyErr_NoMemory(); goto fail; }
    if (!out) goto fail;
    for (Py_ssize_t first = 0; first < n;) {
        Py_ssize_t last = first, chars = 0;
        while (last < n && last - first < WINDOW_ROWS) chars += PyUnicode_GET_LENGTH(items[last++]);
        Job job = {c, has_extra ? (const ChunkTable *)extra_o : NULL, &sp, items + first, rows, last - first, 0};
        if (chars < RELEASE_CHARS) {
            chunks_read_lock(c);
            worker(&job);
            chunks_unlock(c);
        } else {
            Py_BEGIN_ALLOW_THREADS
            pthread_rwlock_rdlock(&c->lock);
            batch_run_threads(worker, &job, chars < 4 * RELEASE_CHARS ? 1 : (int)threads);
            pthread_rwlock_unlock(&c->lock);
            Py_END_ALLOW_THREADS
        }
        for (Py_ssize_t k = first; k < last; k++) {
            Row *r = &rows[k - first];
            if (r->no_memory) { PyErr_NoMemory(); goto fail; }
            if (r->stop < PyUnicode_GET_LENGTH(items[k])) {
                PyList_SET_ITEM(out, k, Py_NewRef(Py_None));
                continue;
            }
            PyObject *cols = chunks_row_columns(r);
            if (cols && r->stand_in) {  /* the driver puts the real ids back */
                PyList_SET_ITEM(out, k, cols);
                continue;
            }
            PyObject *obj = batch_packed_object(encoding, at, cols, seq_obj, c->token_strs);
            if (!obj) goto fail;
            PyList_SET_ITEM(out, k, obj);
        }
        first = last;
    }
    for (Py_ssize_t k = 0; k < WINDOW_ROWS; k++) chunks_row_free(&rows[k]);
    PyMem_Free(rows);
    batch_release_texts(items, n);
    return out;
fail:
    if (rows)
        for (Py_ssize_t k = 0; k < WINDOW_ROWS; k++) chunks_row_free(&rows[k]);
    PyMem_Free(rows);
    batch_release_texts(items, n);
    Py_XDECREF(out);
    return NULL;
}
