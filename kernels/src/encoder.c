/* Encoder: byte-level BPE over the GPT-2 or cl100k_base split, in bulk.
 *
 * Each piece's UTF-8 bytes start as one symbol each; the adjacent pair with the lowest rank merges
 * first, the leftmost on equal ranks (a scan for short pieces, a heap over a linked list for long
 * ones, O(n log n)); results are cached per piece; the encoding's lists (ids, token strings, offsets
 * in characters, word ids) are built without a Python loop. tokenizer_core/bpe/kernel.py builds it. */
#include "encoder.h"

#include <structmember.h>

#include <pthread.h>

/* Objects come from tp_new zeroed and usable before __init__ (Encoder.__new__(Encoder)): every
 * method starts here so that such an object raises instead of following NULL tables. */
static int check_ready(const Encoder *e) {
    if (e->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "Encoder is not initialised: build it with Encoder(...)");
    return -1;
}

static int check_text(PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    return 0;
}

int raise_encode_error(int code, PyObject *text) {
    if (PyErr_Occurred()) return -1;
    if (code == ENC_SURROGATE) {
        /* A lone surrogate has no UTF-8: the codec's own UnicodeEncodeError, which the pipeline
         * answers by reading it as U+FFFD (as the Python path does). */
        PyObject *b = PyUnicode_AsUTF8String(text);
        Py_XDECREF(b);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_UnicodeError, "lone surrogate");
    } else if (code == ENC_TOO_LONG) {
        PyErr_SetString(PyExc_ValueError, "a piece of 2**31-1 bytes or more is too long for the kernel");
    } else if (code == ENC_TOO_COMPLEX) {
        PyErr_SetString(PyExc_ValueError, "the split pattern backtracks too much on this text (over 2**24 steps for "
                                          "one piece)");
    } else {
        PyErr_NoMemory();
    }
    return -1;
}

/* Texts at least this long are encoded without the GIL (shorter ones take less time than the
 * switch costs). */
#define RELEASE_GIL_CHARS 2048

/* An Encoder without a pattern of its own (PAT_EXTERNAL) only encodes pieces it is given. */
static int check_own_split(const Encoder *e) {
    if (e->pattern != PAT_EXTERNAL) return 0;
    PyErr_SetString(PyExc_ValueError, "this Encoder has no split pattern of its own: give the pieces with encode_split");
    return -1;
}

/* encode_text on one text, without the GIL when it is long; raises on error. */
static int encode_one(Encoder *e, PyObject *text, Py_ssize_t base, int64_t first_word, const int64_t *cuts,
                      Result *r) {
    Scratch sc = {0};
    int rc;
    if (PyUnicode_GET_LENGTH(text) >= RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        rc = encode_text(e, &sc, text, base, first_word, cuts, r);
        Py_END_ALLOW_THREADS
    } else {
        rc = encode_text(e, &sc, text, base, first_word, cuts, r);
    }
    scratch_free(&sc);
    return rc < 0 ? raise_encode_error(rc, text) : 0;
}

PyDoc_STRVAR(encode_ids_doc, "encode_ids(text) -> list[int]: the token ids of the whole text.");

static PyObject *Encoder_encode_ids(Encoder *e, PyObject *text) {
    if (check_ready(e) < 0 || check_own_split(e) < 0 || check_text(text) < 0) return NULL;
    Result r = {0};
    PyObject *ids = encode_one(e, text, 0, 0, NULL, &r) < 0 ? NULL : ids_list(e, &r);
    result_free(&r);
    return ids;
}

PyDoc_STRVAR(encode_doc,
"encode(text, base, first_word, *, packed=False) -> (ids, tokens, offsets, word_ids, pieces)\n\n"
"Token ids, token strings, (start, end) character offsets (plus base), the piece index of each\n"
"token (from first_word) and the number of pieces. A long text is encoded without the GIL.\n"
"packed: (columns, pieces, token_strs) instead: one bytes object holding n int32 ids, then n int64\n"
"starts, ends and word ids (native order: array('i') and array('q') read them), whatever the\n"
"text's length, and the Encoder's list of token strings by id.");

/* The checks and the lists of encode and encode_split (cuts: NULL, or n checked piece ends). */
static PyObject *encode_lists(Encoder *e, PyObject *text, Py_ssize_t base, long long first_word, const int64_t *cuts,
                              int packed) {
    /* Offsets (base + position) and word ids (first_word + piece number) are int64 sums that must
     * not overflow, and negative values would mean nothing to the caller. */
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (base < 0 || base > PY_SSIZE_T_MAX - len) {
        PyErr_Format(PyExc_ValueError, "base must be between 0 and 2**63-1 - len(text), not %zd", base);
        return NULL;
    }
    if (first_word < 0 || first_word > INT64_MAX - len) {
        PyErr_Format(PyExc_ValueError, "first_word must be between 0 and 2**63-1 - len(text), not %lld", first_word);
        return NULL;
    }
    Result r = {0};
    PyObject *out = NULL;
    if (encode_one(e, text, base, first_word, cuts, &r) == 0) {
        if (packed) {
            PyObject *cols = result_packed(&r);
            out = cols ? Py_BuildValue("(NnO)", cols, r.pieces, e->token_strs) : NULL;
        } else {
            /* Millions of new objects, none of which can form a cycle: no collections while they are made. */
            int gc_was_on = PyGC_Disable();
            out = result_lists(e, &r);
            if (gc_was_on) PyGC_Enable();
        }
    }
    result_free(&r);
    return out;
}

static PyObject *Encoder_encode(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "base", "first_word", "packed", NULL};
    PyObject *text;
    Py_ssize_t base;
    long long first_word;
    int packed = 0;
    if (check_ready(e) < 0 || check_own_split(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "UnL|$p", names, &text, &base, &first_word, &packed))
        return NULL;
    return encode_lists(e, text, base, first_word, NULL, packed);
}

PyDoc_STRVAR(encode_split_doc,
"encode_split(text, ends, base, first_word, *, packed=False) -> (ids, tokens, offsets, word_ids, pieces)\n\n"
"encode() with the pieces given: ends holds the end of every piece as native int64 (an\n"
"array('q') or its bytes), increasing, the last one len(text); each piece is merged as encode()\n"
"merges the pieces of its own pattern.");

static PyObject *Encoder_encode_split(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"text", "ends", "base", "first_word", "packed", NULL};
    PyObject *text;
    Py_buffer ends;
    Py_ssize_t base;
    long long first_word;
    int packed = 0;
    if (check_ready(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "Uy*nL|$p", names, &text, &ends, &base, &first_word, &packed))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), n = ends.len / (Py_ssize_t)sizeof(int64_t);
    /* The ends are copied (aligned, and safe from a caller changing the buffer meanwhile), then
     * checked: each piece non-empty and inside the text, the last one ending it. */
    int64_t *cuts = NULL;
    if (ends.len % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyErr_SetString(PyExc_ValueError, "ends must hold whole int64 values (array('q'))");
        goto done;
    }
    if ((len == 0) != (n == 0)) {
        PyErr_SetString(PyExc_ValueError, "ends must cover the text: none for an empty text, else the last is len(text)");
        goto done;
    }
    cuts = PyMem_Malloc(n ? (size_t)n * sizeof(int64_t) : 1);
    if (!cuts) { PyErr_NoMemory(); goto done; }
    memcpy(cuts, ends.buf, (size_t)n * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t prev = k ? cuts[k - 1] : 0;
        if (cuts[k] <= prev || cuts[k] > len || (k == n - 1 && cuts[k] != len)) {
            PyErr_Format(PyExc_ValueError, "ends must increase from above 0 to len(text) = %zd (end %zd is %lld)",
                         len, k, (long long)cuts[k]);
            goto done;
        }
    }
    out = encode_lists(e, text, base, first_word, cuts, packed);
done:
    PyMem_Free(cuts);
    PyBuffer_Release(&ends);
    return out;
}

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

PyDoc_STRVAR(encode_batch_doc,
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
"every token of a large batch again at each collection.");

static PyObject *Encoder_encode_batch(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"texts", "sequence_id", "threads", "encoding", "packed", NULL};
    PyObject *texts, *seq_obj;
    PyTypeObject *encoding = NULL;
    Py_ssize_t threads = 1, offsets[9], packed_at[3] = {0, 0, 0};
    int packed = 0;
    if (check_ready(e) < 0 || check_own_split(e) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO!|n$O!p", names, &texts, &PyLong_Type, &seq_obj, &threads,
                                     &PyType_Type, &encoding, &packed))
        return NULL;
    if (encoding && (packed ? slot_offsets(encoding, PACKED_SLOTS, 3, packed_at)
                            : slot_offsets(encoding, ENCODING_FIELDS, 9, offsets)) < 0)
        return NULL;
    if (threads < 1 || threads > 64) {
        PyErr_SetString(PyExc_ValueError, "threads must be between 1 and 64");
        return NULL;
    }
    Py_ssize_t n = 0;
    PyObject **items = batch_hold_texts(texts, &n);
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
        BatchJob job = {e, items + first, res, last - first, 0, PTHREAD_MUTEX_INITIALIZER, 0, 0};
        int use = chars < 4 * RELEASE_GIL_CHARS ? 1 : (int)threads;
        if (use == 1 && chars < RELEASE_GIL_CHARS) {
            batch_worker(&job);
        } else {
            Py_BEGIN_ALLOW_THREADS
            batch_run_threads(batch_worker, &job, use);
            Py_END_ALLOW_THREADS
        }
        if (job.error) {
            raise_encode_error(job.error, items[first + job.error_at]);
            goto fail;
        }
        for (Py_ssize_t k = first; k < last; k++) {
            Result *r = &res[k - first];
            if (packed) {
                PyObject *row = packed_row(e, r, seq_obj, encoding, packed_at);
                if (!row) goto fail;
                PyList_SET_ITEM(out, k, row);
                continue;
            }
            PyObject *lists = result_lists(e, r);
            if (!lists) goto fail;
            Py_ssize_t m = r->out.n;
            PyObject *row = PyTuple_New(8);
            if (!row) { Py_DECREF(lists); goto fail; }
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
            if (!type_ids || !mask || !special || !seq_ids) { Py_DECREF(row); goto fail; }
            for (int f = 0; f < 8; f++) PyObject_GC_UnTrack(PyTuple_GET_ITEM(row, f));
            PyObject_GC_UnTrack(row);
            if (encoding && !(row = encoding_from_row(encoding, offsets, row))) goto fail;
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

PyDoc_STRVAR(split_doc, "split(text) -> list[str]: the pieces of the split pattern, in order.");

static PyObject *Encoder_split(Encoder *e, PyObject *text) {
    if (check_ready(e) < 0 || check_own_split(e) < 0 || check_text(text) < 0) return NULL;
    Text t = text_of(text);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Scratch sc = {0};
    for (Py_ssize_t i = 0; i < t.len;) {
        Py_ssize_t j = next_piece(e, &sc, &t, i);
        if (j < 0) { scratch_free(&sc); Py_DECREF(out); raise_encode_error((int)j, text); return NULL; }
        PyObject *s = PyUnicode_Substring(text, i, j);
        if (!s || PyList_Append(out, s) < 0) { Py_XDECREF(s); Py_DECREF(out); scratch_free(&sc); return NULL; }
        Py_DECREF(s);
        i = j;
    }
    scratch_free(&sc);
    return out;
}

PyDoc_STRVAR(encode_piece_doc, "encode_piece(data: bytes) -> list[int]: BPE token ids of one piece's bytes (no cache).");

static PyObject *Encoder_encode_piece(Encoder *e, PyObject *data) {
    if (check_ready(e) < 0) return NULL;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "encode_piece takes bytes");
        return NULL;
    }
    Scratch sc = {0};
    PyObject *out = NULL;
    int rc = encode_piece(e, &sc, (const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), 0);
    if (rc < 0) raise_encode_error(rc, NULL);
    else if ((out = PyList_New(sc.piece.n))) {
        for (Py_ssize_t k = 0; k < sc.piece.n; k++) {
            PyObject *o = PyLong_FromLong(sc.piece.id[k]);
            if (!o) { Py_CLEAR(out); break; }
            PyList_SET_ITEM(out, k, o);
        }
    }
    scratch_free(&sc);
    return out;
}

PyDoc_STRVAR(cache_size_doc, "cache_size() -> int: the number of pieces remembered.");

/* Holds the cache as its writer, waiting for its turn without the GIL (another call may need the GIL
 * to finish). */
static void lock_cache(Encoder *e) {
    if (cache_write_try(e)) return;
    Py_BEGIN_ALLOW_THREADS
    cache_write_wait(e);
    Py_END_ALLOW_THREADS
}

static PyObject *Encoder_cache_size(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (check_ready(e) < 0) return NULL;
    lock_cache(e);
    size_t n = e->cache.count;
    cache_write_end(e);
    return PyLong_FromSize_t(n);
}

PyDoc_STRVAR(cache_bytes_doc,
"cache_bytes() -> int: the bytes the piece cache holds (its table, keys and tokens); never more\n"
"than the Encoder's cache_bytes budget (64 MB unless given): a piece that would pass it first\n"
"clears the cache.");

static PyObject *Encoder_cache_bytes(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (check_ready(e) < 0) return NULL;
    lock_cache(e);
    size_t n = cache_bytes(e);
    cache_write_end(e);
    return PyLong_FromSize_t(n);
}

PyDoc_STRVAR(clear_cache_doc, "clear_cache(): forget every remembered piece.");

static PyObject *Encoder_clear_cache(Encoder *e, PyObject *Py_UNUSED(ignored)) {
    if (check_ready(e) < 0) return NULL;
    lock_cache(e);
    btab_clear(&e->cache);
    e->pool_len = 0;
    cache_write_end(e);
    Py_RETURN_NONE;
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_VARARGS | METH_KEYWORDS, encode_doc},
    {"encode_split", (PyCFunction)(void (*)(void))Encoder_encode_split, METH_VARARGS | METH_KEYWORDS, encode_split_doc},
    {"encode_batch", (PyCFunction)(void (*)(void))Encoder_encode_batch, METH_VARARGS | METH_KEYWORDS, encode_batch_doc},
    {"encode_ids", (PyCFunction)Encoder_encode_ids, METH_O, encode_ids_doc},
    {"split", (PyCFunction)Encoder_split, METH_O, split_doc},
    {"encode_piece", (PyCFunction)Encoder_encode_piece, METH_O, encode_piece_doc},
    {"cache_size", (PyCFunction)Encoder_cache_size, METH_NOARGS, cache_size_doc},
    {"cache_bytes", (PyCFunction)Encoder_cache_bytes, METH_NOARGS, cache_bytes_doc},
    {"clear_cache", (PyCFunction)Encoder_clear_cache, METH_NOARGS, clear_cache_doc},
    {NULL, NULL, 0, NULL},
};

/* Everything __init__ built, released; the object is left as tp_new made it (not ready), so a
 * failed __init__ leaves nothing half-built behind and may be retried. */
static void encoder_clear(Encoder *e) {
    Py_CLEAR(e->classes_obj);
    Py_CLEAR(e->token_strs);
    Py_CLEAR(e->id_objs);
    u64map_free(&e->pairs);
    btab_free(&e->vocab);
    btab_free(&e->cache);
    PyMem_RawFree(e->pool_id);
    PyMem_RawFree(e->pool_end);
    for (int k = 0; k < MAX_CHAIN; k++) {
        PyMem_Free(e->prog[k]);
        PyMem_Free(e->prog_table[k]);
    }
    cache_guard_free(e);
    memset((char *)e + sizeof(PyObject), 0, sizeof(Encoder) - sizeof(PyObject));
}

static void Encoder_dealloc(Encoder *e) {
    encoder_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

/* Ints only: an object's __index__ could run Python code that changes the lists being read
 * (their sizes were measured before the loops that call this). */
static int read_id(PyObject *o, int32_t *out, const char *what) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < 0 || v > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s %R is outside 0..2**31-1", what, o);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* Encoder(classes, pattern, byte_ids, merges, token_bytes, token_strs, *, tokens_rank, ignore_merges, cache_bytes)
 *   classes: bytes of N_CODEPOINTS class codes; pattern: 0 GPT-2, 1 cl100k, 2 pieces given (encode_split),
 *   3 a program (program, program_table: regex_program.py's words and class table, checked here);
 *   byte_ids: 256 ids of the byte symbols; merges: list of (left id, right id, merged id) in rank order,
 *   or the same as bytes of int32 triples (merge_ids.c);
 *   token_bytes: list (by id) of each token's bytes or None; token_strs: list (by id) of token strings;
 *   tokens_rank: derive the pairs from the vocabulary, rank = merged id (tiktoken's rule);
 *   cache_bytes: the piece cache's budget in bytes (64 MB by default; 0 = no cache). */
static int Encoder_init(Encoder *e, PyObject *args, PyObject *kw) {
    static char *names[] = {"classes", "pattern", "byte_ids", "merges", "token_bytes", "token_strs",
                            "tokens_rank", "ignore_merges", "cache_bytes", "program", "program_table", NULL};
    PyObject *classes, *byte_ids, *merges, *token_bytes, *token_strs, *program = NULL, *program_table = NULL;
    int pattern, tokens_rank = 0, ignore_merges = 0;
    Py_ssize_t cache_budget = CACHE_DEFAULT_BYTES;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "SiOOO!O!|$ppnOO", names, &classes, &pattern, &byte_ids,
                                     &merges, &PyList_Type, &token_bytes, &PyList_Type,
                                     &token_strs, &tokens_rank, &ignore_merges, &cache_budget, &program,
                                     &program_table))
        return -1;
    if (e->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is already initialised");
        return -1;
    }
    if (PyBytes_GET_SIZE(classes) != N_CODEPOINTS) {
        PyErr_SetString(PyExc_ValueError, "classes must hold one byte per code point (0x110000)");
        return -1;
    }
    if (pattern != PAT_GPT2 && pattern != PAT_CL100K && pattern != PAT_EXTERNAL && pattern != PAT_PROGRAM) {
        PyErr_SetString(PyExc_ValueError, "pattern must be 0 (GPT-2), 1 (cl100k_base), 2 (pieces given by the caller) "
                                          "or 3 (a program)");
        return -1;
    }
    if ((pattern == PAT_PROGRAM) != (program != NULL && program_table != NULL)) {
        PyErr_SetString(PyExc_ValueError, "program and program_table go with pattern 3, and only with it");
        return -1;
    }
    /* One program (bytes) or a chain (a tuple of bytes), and as many tables. */
    PyObject *progs[MAX_CHAIN] = {0}, *tables[MAX_CHAIN] = {0};
    int nprog = 0;
    if (program) {
        int chain = PyTuple_Check(program);
        if (chain != PyTuple_Check(program_table) ||
            (chain && (PyTuple_GET_SIZE(program) != PyTuple_GET_SIZE(program_table) ||
                       PyTuple_GET_SIZE(program) < 1 || PyTuple_GET_SIZE(program) > MAX_CHAIN))) {
            PyErr_SetString(PyExc_ValueError, "program and program_table: bytes each, or tuples of 1 to 4 bytes, as many");
            return -1;
        }
        nprog = chain ? (int)PyTuple_GET_SIZE(program) : 1;
        for (int k = 0; k < nprog; k++) {
            progs[k] = chain ? PyTuple_GET_ITEM(program, k) : program;
            tables[k] = chain ? PyTuple_GET_ITEM(program_table, k) : program_table;
            if (!PyBytes_Check(progs[k]) || !PyBytes_Check(tables[k])) {
                PyErr_SetString(PyExc_TypeError, "program and program_table must hold bytes");
                return -1;
            }
            if (PyBytes_GET_SIZE(progs[k]) % 4 || PyBytes_GET_SIZE(tables[k]) != 2 * N_CODEPOINTS) {
                PyErr_SetString(PyExc_ValueError, "program must hold int32 words and program_table two bytes per code point");
                return -1;
            }
            if (program_check((const int32_t *)PyBytes_AS_STRING(progs[k]), PyBytes_GET_SIZE(progs[k]) / 4) < 0)
                return -1;
        }
    }
    /* merges: a list of id triples, or bytes of int32 triples (merge_ids.c's answer). */
    int packed_merges = PyBytes_Check(merges);
    if (!packed_merges && !PyList_Check(merges)) {
        PyErr_SetString(PyExc_TypeError, "merges must be a list of (left, right, merged) ids or bytes of int32 triples");
        return -1;
    }
    if (packed_merges && PyBytes_GET_SIZE(merges) % 12) {
        PyErr_SetString(PyExc_ValueError, "packed merges must hold whole int32 triples");
        return -1;
    }
    /* Ids are int32 in the tables and merge ranks uint32. */
    Py_ssize_t nv = PyList_GET_SIZE(token_bytes);
    Py_ssize_t nm = packed_merges ? PyBytes_GET_SIZE(merges) / 12 : PyList_GET_SIZE(merges);
    if (nv > INT32_MAX || (uint64_t)nm > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "at most 2**31-1 tokens and 2**32-1 merges");
        return -1;
    }
    /* From here on members are set one by one: any failure clears them all again (fail:), so
     * the object is either fully built (ready) or as tp_new made it. */
    PyObject *seq = PySequence_Fast(byte_ids, "byte_ids must be a sequence of 256 ids");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must hold 256 ids");
        return -1;
    }
    for (int b = 0; b < 256; b++)
        if (read_id(PySequence_Fast_GET_ITEM(seq, b), &e->byte_id[b], "byte id") < 0) { Py_DECREF(seq); goto fail; }
    Py_DECREF(seq);
    Py_INCREF(classes);
    e->classes_obj = classes;
    e->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    e->pattern = pattern;
    for (int k = 0; k < nprog; k++) { /* copies: aligned, and the Encoder's own */
        size_t words = (size_t)PyBytes_GET_SIZE(progs[k]);
        e->prog[k] = PyMem_Malloc(words);
        e->prog_table[k] = PyMem_Malloc(2 * (size_t)N_CODEPOINTS);
        if (!e->prog[k] || !e->prog_table[k]) { PyErr_NoMemory(); goto fail; }
        memcpy(e->prog[k], PyBytes_AS_STRING(progs[k]), words);
        memcpy(e->prog_table[k], PyBytes_AS_STRING(tables[k]), 2 * (size_t)N_CODEPOINTS);
    }
    e->nprog = nprog;
    e->ignore_merges = ignore_merges;
    e->cache_budget = cache_budget < 0 ? 0 : (size_t)cache_budget;
    if (cache_guard_init(e) < 0) {
        PyErr_SetString(PyExc_MemoryError, "cannot allocate the piece cache's guard");
        goto fail;
    }
    Py_INCREF(token_strs);
    e->token_strs = token_strs;
    if (!(e->id_objs = PyList_New(nv))) goto fail;
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *o = PyLong_FromSsize_t(k);
        if (!o) goto fail;
        PyList_SET_ITEM(e->id_objs, k, o);
    }
    if (btab_init(&e->vocab, (size_t)nv) < 0 || btab_init(&e->cache, 0) < 0) goto fail;
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *b = PyList_GET_ITEM(token_bytes, k);
        if (b == Py_None) continue;
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "token_bytes must hold bytes or None");
            goto fail;
        }
        if (PyBytes_GET_SIZE(b) >= INT32_MAX) { /* the tables keep lengths as int32 */
            PyErr_SetString(PyExc_ValueError, "a token of 2**31-1 bytes or more");
            goto fail;
        }
        int64_t old;
        if (btab_find(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), &old)) continue;
        if (btab_put(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), k) < 0) goto fail;
    }
    if (u64map_init(&e->pairs, tokens_rank ? (size_t)nv * 4 : (size_t)nm) < 0) goto fail;
    if (tokens_rank) {
        if (ranked_pairs(e, token_bytes, nv) < 0) goto fail;
    } else if (packed_merges) {
        const unsigned char *at = (const unsigned char *)PyBytes_AS_STRING(merges);
        for (Py_ssize_t k = 0; k < nm; k++) {
            int32_t t[3];
            memcpy(t, at + 12 * k, 12); /* bytes objects are not promised 4-byte aligned */
            if (t[0] < 0 || t[1] < 0 || t[2] < 0) {
                PyErr_SetString(PyExc_ValueError, "merge ids must be in 0..2**31-1");
                goto fail;
            }
            if (pairs_put(&e->pairs, t[0], t[1], (uint32_t)k, t[2]) < 0) goto fail;
        }
    } else {
        /* read_id runs no Python code (ints only), so merges keeps the size nm measured above. */
        for (Py_ssize_t k = 0; k < nm; k++) {
            PyObject *m = PyList_GET_ITEM(merges, k);
            int32_t l, r, v;
            if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 3) {
                PyErr_SetString(PyExc_TypeError, "merges must hold (left id, right id, merged id) tuples");
                goto fail;
            }
            if (read_id(PyTuple_GET_ITEM(m, 0), &l, "merge id") < 0 || read_id(PyTuple_GET_ITEM(m, 1), &r, "merge id") < 0 ||
                read_id(PyTuple_GET_ITEM(m, 2), &v, "merge id") < 0)
                goto fail;
            if (pairs_put(&e->pairs, l, r, (uint32_t)k, v) < 0) goto fail;
        }
    }
    e->ready = 1;
    return 0;
fail:
    encoder_clear(e);
    return -1;
}

PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.Encoder",
    .tp_doc = PyDoc_STR("Byte-level BPE over the GPT-2 or cl100k_base split, in bulk (see tokenizer_core/kernel.py)."),
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
};
