/* Building a MergeState (its __init__) and freeing it: the words and counts copied in and checked, then
 * the pair counts and the first queue, as tokenizer_core/bpe/pair_stats.py's count_pairs and pair_queue
 * make them (pairs in order of first appearance, each with the words holding it). merges.c holds the
 * training loop that runs on it. */
#include "merges.h"

/* Everything __init__ built, released; the object is left as tp_new made it (not ready), so a
 * failed __init__ leaves nothing half-built behind. */
static void merge_state_clear(MergeState *m) {
    PyMem_Free(m->sym);
    PyMem_Free(m->start);
    PyMem_Free(m->len);
    PyMem_Free(m->cnt);
    u64map_free(&m->pairs);
    PyMem_Free(m->heap);
    for (size_t k = 0; k < m->ln; k++) PyMem_Free(m->lists[k].w);
    PyMem_Free(m->lists);
    PyMem_Free(m->gkey);
    PyMem_Free(m->glist);
    u64map_free(&m->gmap);
    PyMem_Free(m->out);
    memset((char *)m + sizeof(PyObject), 0, sizeof(MergeState) - sizeof(PyObject));
}

void MergeState_dealloc(MergeState *m) {
    merge_state_clear(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

/* The words' symbols in all into *total, each word checked to be a list (nothing is set here). */
static int count_symbols(PyObject *words, Py_ssize_t nw, int64_t *total) {
    *total = 0;
    for (Py_ssize_t k = 0; k < nw; k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        if (!PyList_Check(w)) { PyErr_SetString(PyExc_TypeError, "words must be lists of ids"); return -1; }
        *total += PyList_GET_SIZE(w);
    }
    return 0;
}

/* The words' arrays (total symbols, nw words) and the two pair maps, empty. */
static int alloc_words(MergeState *m, int64_t total, Py_ssize_t nw) {
    m->sym = PyMem_Malloc((size_t)(total ? total : 1) * sizeof(int32_t));
    m->start = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int64_t));
    m->len = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int32_t));
    m->cnt = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(int64_t));
    if (!m->sym || !m->start || !m->len || !m->cnt) {
        PyErr_NoMemory();
        return -1;
    }
    /* Both maps grow with the distinct pairs. */
    if (u64map_init(&m->pairs, 1 << 15) < 0 || u64map_init(&m->gmap, 1 << 15) < 0) return -1;
    return 0;
}

/* Each word's symbols and count copied in, checked: ids within the shift's mask, counts >= 0 whose
 * pair counts cannot pass int64. */
static int copy_words(MergeState *m, PyObject *words, PyObject *counts) {
    int64_t at = 0, total_weight = 0;
    for (Py_ssize_t k = 0; k < m->nwords; k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        Py_ssize_t n = PyList_GET_SIZE(w);
        if (n >= INT32_MAX) { PyErr_SetString(PyExc_ValueError, "word too long"); return -1; }
        PyObject *co = PyList_GET_ITEM(counts, k);
        if (!PyLong_Check(co)) { PyErr_SetString(PyExc_TypeError, "counts must be ints"); return -1; }
        long long c = PyLong_AsLongLong(co);
        if (c == -1 && PyErr_Occurred()) return -1;
        if (c < 0) { PyErr_SetString(PyExc_ValueError, "counts must be >= 0"); return -1; }
        /* Pair counts, and the tokens a merge saves, are sums of count x occurrences: refused
         * here when the sum of all of them could pass int64 (signed overflow is undefined). */
        int64_t weight;
        if (n > 1 && (__builtin_mul_overflow((int64_t)c, (int64_t)(n - 1), &weight) ||
                      __builtin_add_overflow(total_weight, weight, &total_weight))) {
            PyErr_SetString(PyExc_OverflowError, "counts too large: pair counts would pass 2**63-1");
            return -1;
        }
        m->start[k] = at;
        m->len[k] = (int32_t)n;
        m->cnt[k] = c;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *vo = PyList_GET_ITEM(w, i);
            if (!PyLong_Check(vo)) { PyErr_SetString(PyExc_TypeError, "words must be lists of ids (ints)"); return -1; }
            long v = PyLong_AsLong(vo);
            if (v == -1 && PyErr_Occurred()) return -1;
            if (v < 0 || (uint64_t)v > m->mask) { PyErr_SetString(PyExc_ValueError, "symbol id out of range for shift"); return -1; }
            m->sym[at + i] = (int32_t)v;
        }
        at += n;
    }
    return 0;
}

/* Pair keys in order of first appearance, each with its word list (PyMem, freed by __init__). */
typedef struct {
    uint64_t *key;
    int32_t *list;
    size_t n, cap;
} PairOrder;

/* One more pair at the end of the order. */
static int order_add(PairOrder *o, uint64_t key, int32_t li) {
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 1024;
        uint64_t *k = PyMem_Realloc(o->key, o->cap * sizeof(uint64_t));
        int32_t *l = k ? PyMem_Realloc(o->list, o->cap * sizeof(int32_t)) : NULL;
        if (k) o->key = k;
        if (!k || !l) { PyErr_NoMemory(); return -1; }
        o->list = l;
    }
    o->key[o->n] = key;
    o->list[o->n] = li;
    o->n++;
    return 0;
}

/* count_pairs(): counts and, per pair, the words holding it (each word once, in order); pairs are
 * numbered in order of first appearance, as the Python dict keeps them. The first-appearance lists
 * are found through the gained-list table (reused as a scratch map). */
static int count_pairs(MergeState *m, PairOrder *order) {
    m->gn = 0;
    for (Py_ssize_t k = 0; k < m->nwords; k++) {
        int32_t n = m->len[k];
        if (n < 2) continue;
        int32_t *w = m->sym + m->start[k];
        for (int32_t i = 0; i + 1 < n; i++) {
            uint64_t key = ((uint64_t)w[i] << m->shift) | (uint64_t)w[i + 1];
            int64_t *pc = pair_slot(m, key);
            if (!pc) return -1;
            *pc += m->cnt[k];
            size_t before = m->gn;
            int32_t li = merges_gained_list(m, key);
            if (li < 0 || merges_list_add(m, li, (int32_t)k) < 0) return -1;
            if (m->gn > before && order_add(order, key, li) < 0) return -1;
        }
    }
    return 0;
}

/* The first queue: an entry for every pair counted above 0, in order of first appearance. */
static int queue_pairs(MergeState *m, const PairOrder *order) {
    for (size_t k = 0; k < order->n; k++) {
        int64_t cnt = pair_count(m, order->key[k]);
        if (cnt > 0) {
            QEntry e = {-cnt, order->key[k], m->seq++, order->list[k]};
            if (merges_qpush(m, e) < 0) return -1;
        }
    }
    return 0;
}

/* MergeState(words, counts, shift): words are lists of symbol ids (< 2**31), counts whole numbers. */
int MergeState_init(MergeState *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"words", "counts", "shift", NULL};
    PyObject *words, *counts;
    int shift;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!i", names, &PyList_Type, &words, &PyList_Type, &counts, &shift))
        return -1;
    if (m->ready) {
        PyErr_SetString(PyExc_RuntimeError, "MergeState is already initialised");
        return -1;
    }
    Py_ssize_t nw = PyList_GET_SIZE(words);
    if (PyList_GET_SIZE(counts) != nw || shift < 1 || shift > 31 || nw >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "one count per word, and 1 <= shift <= 31");
        return -1;
    }
    /* The sizes measured here stay true below: nothing there runs Python code (counts and ids
     * must be ints, read without __index__), so the lists cannot change while they are copied. */
    int64_t total;
    if (count_symbols(words, nw, &total) < 0) return -1;
    /* From here on any failure clears every member again (fail:). */
    m->shift = shift;
    m->mask = ((uint64_t)1 << shift) - 1;
    m->nwords = nw;
    m->chosen = -1;
    PairOrder order = {NULL, NULL, 0, 0};
    if (alloc_words(m, total, nw) < 0 || copy_words(m, words, counts) < 0 || count_pairs(m, &order) < 0 ||
        queue_pairs(m, &order) < 0 || merges_gained_clear(m) < 0)
        goto fail;
    PyMem_Free(order.key);
    PyMem_Free(order.list);
    m->ready = 1;
    return 0;
fail:
    PyMem_Free(order.key);
    PyMem_Free(order.list);
    merge_state_clear(m);
    return -1;
}
