/* ChunkTable.encode_joined(): one text cut at its added tokens (a regular expression's split with one
 * group: text, token, text, ..., text), encoded as one set of packed columns: each text's chunks from
 * the table, each added token a row of its own. For tokenizer_core/fast/chunk_table.py's
 * CompiledChunks.encode_joined (Gemma's "\n" is an added token: a long text is thousands of parts).
 * Python's mirror is the general path: AddedVocabulary.split, then each text between encoded alone. */
#include "chunks.h"

const char chunks_encode_joined_doc[] =
"encode_joined(parts, ids, threads=1, *, spaces=None, extra=None) -> bytes or None: `parts` alternate\n"
"text and added token (text, token, text, ..., text: an odd count), `ids` the tokens' ids (int64,\n"
"native order, one per token). The packed columns of the whole text: each non-empty text's chunks and\n"
"each token in turn, positions in the joined text, word ids counting the non-empty texts and the\n"
"tokens (the general path's words). None when a chunk is not served (the caller fills the table, or\n"
"takes the general path). Ids may be stand-ins (>= the table's real ids), as encode() gives them.";

typedef struct {
    const ChunkTable *c, *extra;
    const Spaces *sp;
    PyObject **parts;
    const int64_t *ids, *base, *word;  /* per part: its first character and word id in the joined text */
    Py_ssize_t from, to;               /* this shard's parts */
    Row row;
    int stopped;
} Shard;

static void *run_shard(void *arg) {
    Shard *sh = arg;
    Row *r = &sh->row;
    uint32_t *buf = PyMem_RawMalloc((MAX_KEY_CHARS + 1) * sizeof(uint32_t));
    Scratch sc = {0};
    if (!buf) r->no_memory = 1;
    for (Py_ssize_t k = sh->from; k < sh->to && buf && !r->no_memory && !sh->stopped; k++) {
        Py_ssize_t len = PyUnicode_GET_LENGTH(sh->parts[k]);
        if (k % 2) {  /* an added token: one row */
            if (chunks_row_reserve(r, 1) < 0) {
                r->no_memory = 1;
                break;
            }
            r->id[r->n] = (int32_t)sh->ids[k / 2];
            r->start[r->n] = sh->base[k], r->end[r->n] = sh->base[k] + len, r->word[r->n] = sh->word[k];
            r->n++;
            continue;
        }
        if (!len) continue;
        Text t = text_of(sh->parts[k]);
        Py_ssize_t first = r->n;
        chunks_encode_from(sh->c, sh->extra, sh->sp, &sc, &t, 0, 0.0, sh->word[k], buf, r);
        if (r->stop < len) sh->stopped = 1;
        for (Py_ssize_t q = first; q < r->n; q++) r->start[q] += sh->base[k], r->end[q] += sh->base[k];
    }
    scratch_free(&sc);
    PyMem_RawFree(buf);
    return NULL;
}

static void *run_shards(void *arg) {  /* batch_run_threads' worker: takes shards until none is left */
    struct { Shard *shards; int n, next; } *all = arg;
    for (;;) {
        int k = __atomic_fetch_add(&all->next, 1, __ATOMIC_RELAXED);
        if (k >= all->n) return NULL;
        run_shard(&all->shards[k]);
    }
}

/* The shards' rows one after the other, as packed columns (ids, starts, ends, words). */
static PyObject *joined_columns(const Shard *shards, int n) {
    Py_ssize_t total = 0;
    for (int k = 0; k < n; k++) total += shards[k].row.n;
    if (total > PY_SSIZE_T_MAX / PACKED_ROW_BYTES) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, total * PACKED_ROW_BYTES);
    if (!out) return NULL;
    char *p = PyBytes_AS_STRING(out);
    char *ids = p, *starts = p + 4 * total, *ends = p + 12 * total, *words = p + 20 * total;
    for (int k = 0; k < n; k++) {
        const Row *r = &shards[k].row;
        size_t m = (size_t)r->n;
        if (!m) continue;
        memcpy(ids, r->id, m * 4), ids += m * 4;
        memcpy(starts, r->start, m * 8), starts += m * 8;
        memcpy(ends, r->end, m * 8), ends += m * 8;
        memcpy(words, r->word, m * 8), words += m * 8;
    }
    return out;
}

PyObject *ChunkTable_encode_joined(ChunkTable *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"parts", "ids", "threads", "spaces", "extra", NULL};
    PyObject *parts_o, *spaces = NULL, *extra_o = NULL, *out = NULL;
    Py_buffer ids = {0};
    Py_ssize_t threads = 1, n = 0;
    Spaces sp;
    if (chunks_check_ready(c) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kw, "Oy*|n$OO", names, &parts_o, &ids, &threads, &spaces, &extra_o))
        return NULL;
    int has_extra = chunks_read_spaces(c, spaces, &sp) < 0 ? -1 : chunks_read_extra(c, extra_o);
    PyObject **parts = has_extra < 0 ? NULL : batch_start(parts_o, threads, &n);
    int64_t *base = NULL, *word = NULL;
    Shard *shards = NULL;
    int nshards = 0;
    if (!parts) goto done;
    if (n % 2 == 0 || ids.len != (Py_ssize_t)sizeof(int64_t) * (n / 2)) {
        PyErr_SetString(PyExc_ValueError, "parts must alternate text and token (an odd count), with one id a token");
        goto done;
    }
    if (ids.len && (uintptr_t)ids.buf % _Alignof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "ids must be aligned int64 (bytes or an array('q'))");
        goto done;
    }
    const int64_t *id = ids.buf;
    for (Py_ssize_t k = 0; k < n / 2; k++)
        if (id[k] < 0 || id[k] > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "an added token's id does not fit the id column (int32)");
            goto done;
        }
    base = PyMem_Malloc((size_t)n * sizeof(int64_t));
    word = PyMem_Malloc((size_t)n * sizeof(int64_t));
    if (!base || !word) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t at = 0, w = 0;
    for (Py_ssize_t k = 0; k < n; k++) {  /* the general path's words: each token, each non-empty text */
        Py_ssize_t len = PyUnicode_GET_LENGTH(parts[k]);
        base[k] = at, word[k] = w;
        at += len;
        w += (k % 2) || len > 0;
    }
    /* Shards of about equal length, cut between parts; a short text stays on this thread. */
    nshards = at < 4 * RELEASE_CHARS ? 1 : (int)threads;
    shards = PyMem_Calloc((size_t)nshards, sizeof(Shard));
    if (!shards) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0, k = 0; s < nshards; s++) {
        Shard *sh = &shards[s];
        *sh = (Shard){c, has_extra ? (const ChunkTable *)extra_o : NULL, &sp, parts, id, base, word, k, k, {0}, 0};
        int64_t end = at / nshards * (s + 1);
        while (sh->to < n && (s == nshards - 1 || base[sh->to] < end)) sh->to++;
        k = sh->to;
    }
    struct { Shard *shards; int n, next; } all = {shards, nshards, 0};
    if (at < RELEASE_CHARS) {
        chunks_read_lock(c);
        run_shards(&all);
        chunks_unlock(c);
    } else {
        Py_BEGIN_ALLOW_THREADS
        pthread_rwlock_rdlock(&c->lock);
        batch_run_threads(run_shards, &all, nshards);
        pthread_rwlock_unlock(&c->lock);
        Py_END_ALLOW_THREADS
    }
    int stopped = 0;
    for (int s = 0; s < nshards; s++) {
        if (shards[s].row.no_memory) {
            PyErr_NoMemory();
            goto done;
        }
        stopped |= shards[s].stopped;
    }
    out = stopped ? Py_NewRef(Py_None) : joined_columns(shards, nshards);
done:
    if (shards)
        for (int s = 0; s < nshards; s++) chunks_row_free(&shards[s].row);
    PyMem_Free(shards);
    PyMem_Free(base);
    PyMem_Free(word);
    if (parts) batch_release_texts(parts, n);
    if (ids.buf) PyBuffer_Release(&ids);
    return out;
}
