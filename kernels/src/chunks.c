/* ChunkTable: encodings put together from the remembered encodings of a text's chunks.
 *
 * The chunked fast paths of tokenizer_core (fast/chunked.py, fast/sentencepiece.py, fast/chain.py)
 * cut a text into chunks that no token crosses, encode each distinct chunk once with the general
 * Python path and remember it (ids, starts and ends relative to the chunk, word ids relative to its
 * first piece). This type holds those entries and does the per-chunk work in C, on threads without
 * the GIL for a batch: cut, look up, append. Python fills it (missing() names the chunks it lacks,
 * put() stores one); a chunk it cannot serve (not stored, too long, or a Unigram near tie, below)
 * stops the call there, and the caller encodes that chunk itself and goes on from its end. The Python
 * half is tokenizer_core/fast/chunk_table.py (CompiledChunks).
 *
 * Rules: RULE_WORDS cuts maximal runs of characters other than space, tab, LF and CR and drops
 * those four; RULE_SPACES makes every character part of a chunk: a run of spaces and the run of
 * other characters after it, or the spaces that end the text. "Spaces" there are ' ' and the
 * characters a call names (those a SentencePiece rule table maps to a space). With first_entries,
 * a chunk that starts the text is remembered apart (SentencePiece's dummy prefix).
 *
 * Scored tables (SentencePiece Unigram) carry the Viterbi path's float32 score along the text as
 * sentencepiece adds it; an entry whose smallest gap between two candidates that rounding at the
 * current score could close stops the call (fast/sentencepiece.py segments it again from there).
 *
 * Thread safety: lookups run under a read lock (taken without the GIL held), put() under the write
 * lock; the GIL is never waited for while a lock is held by the waiting thread.
 */
#include "chunks.h"

#include <math.h>

static inline int is_space(int rule, const Spaces *sp, Py_UCS4 c) {
    if (rule == RULE_WORDS) return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (c == ' ') return 1;
    for (int k = 0; k < sp->n; k++)
        if (sp->cp[k] == c) return 1;
    return 0;
}

/* The next chunk [*s, *e) at or after i: 1; 0 when the text has no more; an ENC_ code. Under
 * RULE_PIECES the calls on one text must go in order from 0 with one Scratch (the split program
 * keeps where each level's piece ends there). */
int chunks_next_chunk(const ChunkTable *c, const Spaces *sp, Scratch *sc, const Text *t, Py_ssize_t i, Py_ssize_t *s,
                      Py_ssize_t *e) {
    Py_ssize_t n = t->len;
    int rule = c->rule;
    if (rule == RULE_PIECES) {
        if (i >= n) return 0;
        Py_ssize_t end = program_next((const Encoder *)c->splitter, sc, t, i);
        if (end < 0) return (int)end;
        *s = i;
        *e = end;
        return 1;
    }
    if (rule == RULE_WORDS) {
        while (i < n && is_space(rule, sp, AT(t, i))) i++;
        if (i >= n) return 0;
        *s = i;
        while (i < n && !is_space(rule, sp, AT(t, i))) i++;
        *e = i;
        return 1;
    }
    if (i >= n) return 0;
    *s = i;
    while (i < n && is_space(rule, sp, AT(t, i))) i++;
    while (i < n && !is_space(rule, sp, AT(t, i))) i++;
    *e = i;
    return 1;
}

/* The key of a chunk: its first flag, then its code points, as uint32 in buf (MAX_KEY_CHARS + 1). */
Py_ssize_t chunks_chunk_key(const Text *t, Py_ssize_t s, Py_ssize_t e, int first, uint32_t *buf) {
    buf[0] = (uint32_t)first;
    for (Py_ssize_t i = s; i < e; i++) buf[1 + i - s] = AT(t, i);
    return (1 + e - s) * (Py_ssize_t)sizeof(uint32_t);
}

/* The entry of chunk [s, e) in table (then extra), or NULL. */
const Entry *chunks_lookup(const ChunkTable *c, const ChunkTable *extra, const Text *t, Py_ssize_t s, Py_ssize_t e,
                           uint32_t *buf) {
    if (e - s > MAX_KEY_CHARS) return NULL;
    int first = c->first_entries && s == 0;
    Py_ssize_t n = chunks_chunk_key(t, s, e, first, buf);
    int64_t at;
    if (btab_find(&c->keys, (const unsigned char *)buf, n, &at)) return &c->entries[at];
    if (extra && btab_find(&extra->keys, (const unsigned char *)buf, n, &at)) return &extra->entries[at];
    return NULL;
}

/* ------------------------------------------------------------------ one text */


void chunks_row_free(Row *r) {
    PyMem_RawFree(r->id);
    PyMem_RawFree(r->start);
    PyMem_RawFree(r->end);
    PyMem_RawFree(r->word);
    memset(r, 0, sizeof(*r));
}

int chunks_row_reserve(Row *r, Py_ssize_t more) {
    if (r->n + more <= r->cap) return 0;
    Py_ssize_t cap = r->cap ? r->cap : 64;
    while (cap < r->n + more) cap *= 2;
    int32_t *id = PyMem_RawRealloc(r->id, (size_t)cap * sizeof(int32_t));
    if (id) r->id = id;
    int64_t *st = id ? PyMem_RawRealloc(r->start, (size_t)cap * sizeof(int64_t)) : NULL;
    if (st) r->start = st;
    int64_t *en = st ? PyMem_RawRealloc(r->end, (size_t)cap * sizeof(int64_t)) : NULL;
    if (en) r->end = en;
    int64_t *wo = en ? PyMem_RawRealloc(r->word, (size_t)cap * sizeof(int64_t)) : NULL;
    if (!wo) return -1;
    r->word = wo;
    r->cap = cap;
    return 0;
}

/* Tokens of text from `from` on, appended to r, until a chunk the tables cannot serve (the read
 * lock held; no GIL needed). */
void chunks_encode_from(const ChunkTable *c, const ChunkTable *extra, const Spaces *sp, Scratch *sc, const Text *t,
                        Py_ssize_t from, double total, int64_t words, uint32_t *buf, Row *r) {
    Py_ssize_t s, e, i = from;
    float f = (float)total;
    int got;
    /* A split program starts a text at 0; a chain of several cannot resume inside its pieces. */
    int resumable = c->rule != RULE_PIECES || ((const Encoder *)c->splitter)->nprog == 1;
    if (c->rule == RULE_PIECES && from > 0 && !resumable) {
        r->stop = from, r->stop_end = -1, r->total = f, r->words = words;
        return;
    }
    if (c->rule == RULE_PIECES && from > 0)  /* one level: its next piece starts here, as in context */
        for (int k = 0; k < MAX_CHAIN; k++) sc->chain_end[k] = from;
    while ((got = chunks_next_chunk(c, sp, sc, t, i, &s, &e)) > 0) {
        const Entry *en = chunks_lookup(c, extra, t, s, e, buf);
        const ChunkTable *owner = en && en >= c->entries && en < c->entries + c->n_entries ? c : extra;
        if (en && c->scored) {
            /* Each candidate's sum rounds at most once a piece, by half a float32 unit at its size:
             * where that could close the entry's gap, the chunk is segmented again from here. */
            double size = fabs((double)f) + en->norm_len * c->max_score + 1.0;
            if (!(en->gap > 4.0 * en->norm_len * size * ldexp(1.0, -24))) {
                int rc = chunks_resegment(c, owner, en, &f, s, words, r);
                if (rc < 0) {
                    r->no_memory = 1;
                    return;
                }
                if (rc > 0) {
                    words += en->pieces;
                    i = e;
                    continue;
                }
                en = NULL;  /* the caller segments it */
            }
        }
        if (!en) {
            r->stop = s;
            r->stop_end = resumable ? e : -1;
            r->total = f;
            r->words = words;
            return;
        }
        if (chunks_row_reserve(r, en->n) < 0) {
            r->no_memory = 1;
            return;
        }
        for (int32_t k = 0; k < en->n; k++) {
            int64_t q = en->tok + k;
            r->id[r->n] = owner->tok_id[q];
            if (owner->tok_id[q] >= c->n_real) r->stand_in = 1;
            r->start[r->n] = s + owner->tok_start[q];
            r->end[r->n] = s + owner->tok_end[q];
            r->word[r->n] = words + owner->tok_word[q];
            r->n++;
        }
        for (int32_t k = 0; k < en->nscore; k++) f = (float)((double)f + owner->scores[en->score + k]);
        words += en->pieces;
        i = e;
    }
    if (got < 0) {  /* the split program's error: the general path reports it */
        r->stop = i, r->stop_end = -1, r->total = f, r->words = words;
        return;
    }
    r->stop = r->stop_end = t->len;
    r->total = f;
    r->words = words;
}

PyObject *chunks_row_columns(const Row *r) {
    Py_ssize_t n = r->n;
    if (n > PY_SSIZE_T_MAX / PACKED_ROW_BYTES) return PyErr_NoMemory();
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * PACKED_ROW_BYTES);
    if (!out || !n) return out;
    char *p = PyBytes_AS_STRING(out);
    memcpy(p, r->id, (size_t)n * 4);
    memcpy(p + 4 * n, r->start, (size_t)n * 8);
    memcpy(p + 12 * n, r->end, (size_t)n * 8);
    memcpy(p + 20 * n, r->word, (size_t)n * 8);
    return out;
}

/* ------------------------------------------------------------------ locks */

void chunks_read_lock(ChunkTable *c) {  /* GIL held on entry and exit */
    if (pthread_rwlock_tryrdlock(&c->lock) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&c->lock);
    Py_END_ALLOW_THREADS
}

void chunks_write_lock(ChunkTable *c) {  /* GIL held on entry and exit */
    if (pthread_rwlock_trywrlock(&c->lock) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_wrlock(&c->lock);
    Py_END_ALLOW_THREADS
}

void chunks_unlock(ChunkTable *c) { pthread_rwlock_unlock(&c->lock); }

/* ------------------------------------------------------------------ arguments */

int chunks_check_ready(const ChunkTable *c) {
    if (c->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "ChunkTable is not initialised: build it with ChunkTable(...)");
    return -1;
}

int chunks_read_spaces(const ChunkTable *c, PyObject *spaces, Spaces *sp) {
    sp->n = 0;
    if (!spaces || spaces == Py_None) return 0;
    if (!PyUnicode_Check(spaces)) {
        PyErr_SetString(PyExc_TypeError, "spaces must be a str");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(spaces);
    if (n > MAX_SPACE_CHARS) {
        PyErr_Format(PyExc_ValueError, "at most %d characters may be spaces", MAX_SPACE_CHARS);
        return -1;
    }
    if (n && c->rule != RULE_SPACES) {
        PyErr_SetString(PyExc_ValueError, "only a RULE_SPACES table takes more spaces");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) sp->cp[sp->n++] = PyUnicode_READ_CHAR(spaces, k);
    return 0;
}

int chunks_read_extra(const ChunkTable *c, PyObject *extra) {
    if (!extra || extra == Py_None) return 0;
    if (!PyObject_TypeCheck(extra, Py_TYPE(c)) || !((ChunkTable *)extra)->ready) {
        PyErr_SetString(PyExc_TypeError, "extra must be a built ChunkTable");
        return -1;
    }
    const ChunkTable *x = (const ChunkTable *)extra;
    if (x->rule != c->rule || x->first_entries != c->first_entries || x->scored != c->scored ||
        x->max_score != c->max_score || x->splitter != c->splitter || (PyObject *)x == (PyObject *)c) {
        PyErr_SetString(PyExc_ValueError, "extra must be another ChunkTable built with the same settings");
        return -1;
    }
    return 1;
}

