/* Building an Encoder (its __init__) and freeing it: the arguments checked in a fixed order, then the
 * tables made: the split programs' own copies, the vocabulary (token bytes -> id), the pair table
 * (merges by rank) and the ids' int objects. tokenizer_core/bpe/kernel.py (kernel_encoder) gives the
 * arguments, from a model that tokenizer_core/bpe/tables.py checked (merge_ids.c packs its merges). */
#include "encoder_type.h"

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

void Encoder_dealloc(Encoder *e) {
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

/* The class table's size, the pattern's code, and program with program_table going with pattern 3 only. */
static int check_split(PyObject *classes, int pattern, PyObject *program, PyObject *program_table) {
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
    return 0;
}

/* One program (bytes) or a chain (a tuple of bytes), and as many tables, into progs and tables
 * (borrowed), each checked (program_check); *nprog stays 0 without a program. */
static int read_programs(PyObject *program, PyObject *program_table, PyObject **progs, PyObject **tables,
                         int *nprog) {
    if (!program) return 0;
    int chain = PyTuple_Check(program);
    if (chain != PyTuple_Check(program_table) ||
        (chain && (PyTuple_GET_SIZE(program) != PyTuple_GET_SIZE(program_table) ||
                   PyTuple_GET_SIZE(program) < 1 || PyTuple_GET_SIZE(program) > MAX_CHAIN))) {
        PyErr_SetString(PyExc_ValueError, "program and program_table: bytes each, or tuples of 1 to 4 bytes, as many");
        return -1;
    }
    *nprog = chain ? (int)PyTuple_GET_SIZE(program) : 1;
    for (int k = 0; k < *nprog; k++) {
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
    return 0;
}

/* merges' form (a list of id triples, or bytes of int32 triples: merge_ids.c's answer) into
 * *packed_merges, and the numbers of tokens and merges, which must fit the tables (int32 ids,
 * uint32 ranks). */
static int check_merges(PyObject *merges, PyObject *token_bytes, int *packed_merges, Py_ssize_t *nv,
                        Py_ssize_t *nm) {
    *packed_merges = PyBytes_Check(merges);
    if (!*packed_merges && !PyList_Check(merges)) {
        PyErr_SetString(PyExc_TypeError, "merges must be a list of (left, right, merged) ids or bytes of int32 triples");
        return -1;
    }
    if (*packed_merges && PyBytes_GET_SIZE(merges) % 12) {
        PyErr_SetString(PyExc_ValueError, "packed merges must hold whole int32 triples");
        return -1;
    }
    *nv = PyList_GET_SIZE(token_bytes);
    *nm = *packed_merges ? PyBytes_GET_SIZE(merges) / 12 : PyList_GET_SIZE(merges);
    if (*nv > INT32_MAX || (uint64_t)*nm > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "at most 2**31-1 tokens and 2**32-1 merges");
        return -1;
    }
    return 0;
}

/* The 256 ids of the byte symbols into e->byte_id. */
static int read_byte_ids(Encoder *e, PyObject *byte_ids) {
    PyObject *seq = PySequence_Fast(byte_ids, "byte_ids must be a sequence of 256 ids");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must hold 256 ids");
        return -1;
    }
    for (int b = 0; b < 256; b++)
        if (read_id(PySequence_Fast_GET_ITEM(seq, b), &e->byte_id[b], "byte id") < 0) { Py_DECREF(seq); return -1; }
    Py_DECREF(seq);
    return 0;
}

/* The Encoder's own copies of its programs and their tables (aligned, and safe from the caller). */
static int copy_programs(Encoder *e, PyObject *const *progs, PyObject *const *tables, int nprog) {
    for (int k = 0; k < nprog; k++) {
        size_t words = (size_t)PyBytes_GET_SIZE(progs[k]);
        e->prog[k] = PyMem_Malloc(words);
        e->prog_table[k] = PyMem_Malloc(2 * (size_t)N_CODEPOINTS);
        if (!e->prog[k] || !e->prog_table[k]) { PyErr_NoMemory(); return -1; }
        memcpy(e->prog[k], PyBytes_AS_STRING(progs[k]), words);
        memcpy(e->prog_table[k], PyBytes_AS_STRING(tables[k]), 2 * (size_t)N_CODEPOINTS);
    }
    return 0;
}

/* e->id_objs: the int object of every id, made once (the encodings' lists share them). */
static int make_id_objs(Encoder *e, Py_ssize_t nv) {
    if (!(e->id_objs = PyList_New(nv))) return -1;
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *o = PyLong_FromSsize_t(k);
        if (!o) return -1;
        PyList_SET_ITEM(e->id_objs, k, o);
    }
    return 0;
}

/* The vocabulary table (made empty by the caller): each token's bytes -> the first id that has them. */
static int fill_vocab(Encoder *e, PyObject *token_bytes, Py_ssize_t nv) {
    for (Py_ssize_t k = 0; k < nv; k++) {
        PyObject *b = PyList_GET_ITEM(token_bytes, k);
        if (b == Py_None) continue;
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "token_bytes must hold bytes or None");
            return -1;
        }
        if (PyBytes_GET_SIZE(b) >= INT32_MAX) { /* the tables keep lengths as int32 */
            PyErr_SetString(PyExc_ValueError, "a token of 2**31-1 bytes or more");
            return -1;
        }
        int64_t old;
        if (btab_find(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), &old)) continue;
        if (btab_put(&e->vocab, (const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), k) < 0) return -1;
    }
    return 0;
}

/* The pair table from packed merges: nm int32 triples, ranked in their order. */
static int packed_pairs(Encoder *e, PyObject *merges, Py_ssize_t nm) {
    const unsigned char *at = (const unsigned char *)PyBytes_AS_STRING(merges);
    for (Py_ssize_t k = 0; k < nm; k++) {
        int32_t t[3];
        memcpy(t, at + 12 * k, 12); /* bytes objects are not promised 4-byte aligned */
        if (t[0] < 0 || t[1] < 0 || t[2] < 0) {
            PyErr_SetString(PyExc_ValueError, "merge ids must be in 0..2**31-1");
            return -1;
        }
        if (pairs_put(&e->pairs, t[0], t[1], (uint32_t)k, t[2]) < 0) return -1;
    }
    return 0;
}

/* The pair table from a list of nm (left, right, merged) tuples, ranked in their order. */
static int listed_pairs(Encoder *e, PyObject *merges, Py_ssize_t nm) {
    /* read_id runs no Python code (ints only), so merges keeps the size nm measured before. */
    for (Py_ssize_t k = 0; k < nm; k++) {
        PyObject *m = PyList_GET_ITEM(merges, k);
        int32_t l, r, v;
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 3) {
            PyErr_SetString(PyExc_TypeError, "merges must hold (left id, right id, merged id) tuples");
            return -1;
        }
        if (read_id(PyTuple_GET_ITEM(m, 0), &l, "merge id") < 0 || read_id(PyTuple_GET_ITEM(m, 1), &r, "merge id") < 0 ||
            read_id(PyTuple_GET_ITEM(m, 2), &v, "merge id") < 0)
            return -1;
        if (pairs_put(&e->pairs, l, r, (uint32_t)k, v) < 0) return -1;
    }
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
int Encoder_init(Encoder *e, PyObject *args, PyObject *kw) {
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
    PyObject *progs[MAX_CHAIN] = {0}, *tables[MAX_CHAIN] = {0};
    int nprog = 0, packed_merges;
    Py_ssize_t nv, nm;
    if (check_split(classes, pattern, program, program_table) < 0 ||
        read_programs(program, program_table, progs, tables, &nprog) < 0 ||
        check_merges(merges, token_bytes, &packed_merges, &nv, &nm) < 0)
        return -1;
    /* From here on members are set one by one: any failure clears them all again (fail:), so
     * the object is either fully built (ready) or as tp_new made it (the byte ids are the first). */
    if (read_byte_ids(e, byte_ids) < 0) goto fail;
    Py_INCREF(classes);
    e->classes_obj = classes;
    e->cls = (const unsigned char *)PyBytes_AS_STRING(classes);
    e->pattern = pattern;
    if (copy_programs(e, progs, tables, nprog) < 0) goto fail;
    e->nprog = nprog;
    e->ignore_merges = ignore_merges;
    e->cache_budget = cache_budget < 0 ? 0 : (size_t)cache_budget;
    if (cache_guard_init(e) < 0) {
        PyErr_SetString(PyExc_MemoryError, "cannot allocate the piece cache's guard");
        goto fail;
    }
    Py_INCREF(token_strs);
    e->token_strs = token_strs;
    if (make_id_objs(e, nv) < 0) goto fail;
    if (btab_init(&e->vocab, (size_t)nv) < 0 || btab_init(&e->cache, 0) < 0) goto fail;
    if (fill_vocab(e, token_bytes, nv) < 0) goto fail;
    if (u64map_init(&e->pairs, tokens_rank ? (size_t)nv * 4 : (size_t)nm) < 0) goto fail;
    if (tokens_rank) {
        if (ranked_pairs(e, token_bytes, nv) < 0) goto fail;
    } else if (packed_merges) {
        if (packed_pairs(e, merges, nm) < 0) goto fail;
    } else {
        if (listed_pairs(e, merges, nm) < 0) goto fail;
    }
    e->ready = 1;
    return 0;
fail:
    encoder_clear(e);
    return -1;
}
