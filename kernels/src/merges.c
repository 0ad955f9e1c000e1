/* MergeState's training loop: best() and merge(), step for step as tokenizer_core/bpe/pair_stats.py
 * (merge_everywhere) and bpe/merge_engines.py (QueueEngine: its queue and stash of runner-ups) run
 * it under bpe/merge_loop.py, with ties by ids: the same pair counts, the same queue entries (-count,
 * key, sequence number, word list), the same lazy correction of stale entries, and the same in-place
 * edits of the words, so it picks the same pair at every step (tests/kernel/test_kernel.py compares whole
 * runs). merges_init.c builds it (pair_stats.py's pair_queue); merge_engines.py's KernelEngine drives it. */
#include "merges.h"

static inline int qless(const QEntry *a, const QEntry *b) {
    if (a->neg != b->neg) return a->neg < b->neg;
    if (a->key != b->key) return a->key < b->key;
    return a->seq < b->seq;
}

int merges_qpush(MergeState *m, QEntry x) {
    if (m->hn == m->hcap) {
        size_t cap = m->hcap ? m->hcap * 2 : 1024;
        QEntry *h = PyMem_Realloc(m->heap, cap * sizeof(QEntry));
        if (!h) { PyErr_NoMemory(); return -1; }
        m->heap = h;
        m->hcap = cap;
    }
    size_t i = m->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!qless(&x, &m->heap[p])) break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = x;
    return 0;
}

static QEntry qpop(MergeState *m) {
    QEntry top = m->heap[0];
    QEntry x = m->heap[--m->hn];
    size_t i = 0, n = m->hn;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n) break;
        size_t r = l + 1, c = (r < n && qless(&m->heap[r], &m->heap[l])) ? r : l;
        if (!qless(&m->heap[c], &x)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n) m->heap[i] = x;
    return top;
}

static int32_t new_list(MergeState *m) {
    if (m->ln == m->lcap) {
        size_t cap = m->lcap ? m->lcap * 2 : 1024;
        WordList *l = PyMem_Realloc(m->lists, cap * sizeof(WordList));
        if (!l) { PyErr_NoMemory(); return -1; }
        m->lists = l;
        m->lcap = cap;
    }
    m->lists[m->ln].w = NULL;
    m->lists[m->ln].n = m->lists[m->ln].cap = 0;
    return (int32_t)m->ln++;
}

/* Append word wi unless it is already the list's last word. */
int merges_list_add(MergeState *m, int32_t li, int32_t wi) {
    WordList *l = &m->lists[li];
    if (l->n && l->w[l->n - 1] == wi) return 0;
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 4;
        int32_t *w = PyMem_Realloc(l->w, (size_t)cap * sizeof(int32_t));
        if (!w) { PyErr_NoMemory(); return -1; }
        l->w = w;
        l->cap = cap;
    }
    l->w[l->n++] = wi;
    return 0;
}

static void list_free(MergeState *m, int32_t li) {
    PyMem_Free(m->lists[li].w);
    m->lists[li].w = NULL;
    m->lists[li].n = m->lists[li].cap = 0;
}

/* The list of words where `key` gained in this merge (created in first-gain order). */
int32_t merges_gained_list(MergeState *m, uint64_t key) {
    int created;
    int64_t *at = u64map_slot(&m->gmap, key, &created);
    if (!at) return -1;
    if (!created) return m->glist[*at];
    if (m->gn == m->gcap) {
        size_t cap = m->gcap ? m->gcap * 2 : 256;
        uint64_t *gk = PyMem_Realloc(m->gkey, cap * sizeof(uint64_t));
        if (!gk) { PyErr_NoMemory(); return -1; }
        m->gkey = gk;
        int32_t *gl = PyMem_Realloc(m->glist, cap * sizeof(int32_t));
        if (!gl) { PyErr_NoMemory(); return -1; }
        m->glist = gl;
        m->gcap = cap;
    }
    int32_t li = new_list(m);
    if (li < 0) return -1;
    *at = (int64_t)m->gn;
    m->gkey[m->gn] = key;
    m->glist[m->gn] = li;
    m->gn++;
    return li;
}

/* Forget the last merge's gained keys: a fresh small map (the last one may have grown large). */
int merges_gained_clear(MergeState *m) {
    u64map_free(&m->gmap);
    m->gn = 0;
    return u64map_init(&m->gmap, 64);
}

/* (prev, a) loses c and (prev, new) gains c in word wi; likewise on the right. */
static inline int neighbour(MergeState *m, uint64_t lose, uint64_t gain, int64_t c, int32_t wi) {
    int64_t *pc = pair_slot(m, lose);
    if (!pc) return -1;
    *pc -= c;
    pc = pair_slot(m, gain);
    if (!pc) return -1;
    *pc += c;
    int32_t li = merges_gained_list(m, gain);
    if (li < 0) return -1;
    return merges_list_add(m, li, wi);
}

/* Objects come from tp_new zeroed and usable before __init__ (MergeState.__new__(MergeState)). */
static int check_ready(const MergeState *m) {
    if (m->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "MergeState is not initialised: build it with MergeState(words, counts, shift)");
    return -1;
}

PyDoc_STRVAR(ms_best_doc,
"best() -> (key, count) of the next pair to merge, or None when the queue is empty.\n"
"best(top_k) -> (key, count, runner_ups): also up to top_k runner-up pairs (key, count), best first,\n"
"as the Python engine's stash gives them. Stale entries met on the way go back with their current\n"
"count, as the Python loop does.");

/* best(): the valid entry with the lowest (-count, key, sequence number), stale entries met on
 * the way put back with their current count. best(top_k): also the next valid entries up to top_k
 * + 1 in all, as the Python engine's stash holds them; they go back into the queue, and the
 * runner-ups are their pairs, each once, not the chosen one, with a count above 0. */
static PyObject *run_best(MergeState *m, PyObject *args) {
    Py_ssize_t top_k = 0;
    if (!PyArg_ParseTuple(args, "|n", &top_k)) return NULL;
    if (top_k < 0 || top_k > 1000) {
        PyErr_SetString(PyExc_ValueError, "top_k must be between 0 and 1000");
        return NULL;
    }
    QEntry found[1001];
    Py_ssize_t nf = 0;
    while (m->hn && nf < top_k + 1) {
        QEntry e = qpop(m);
        int64_t cur = pair_count(m, e.key);
        if (cur != -e.neg) {
            e.neg = -cur;
            if (merges_qpush(m, e) < 0) goto fail;
            continue;
        }
        found[nf++] = e;
    }
    if (!nf) Py_RETURN_NONE;
    /* Back into the queue: it held them a moment ago, so it never grows here. */
    for (Py_ssize_t k = 1; k < nf; k++)
        if (merges_qpush(m, found[k]) < 0) return NULL;
    if (m->chosen >= 0) list_free(m, m->chosen);
    m->chosen = found[0].list;
    if (PyTuple_GET_SIZE(args) == 0)
        return Py_BuildValue("(KL)", (unsigned long long)found[0].key, (long long)-found[0].neg);
    PyObject *runner_ups = PyList_New(0);
    if (!runner_ups) return NULL;
    for (Py_ssize_t k = 1; k < nf; k++) {
        int seen = found[k].key == found[0].key || found[k].neg >= 0;
        for (Py_ssize_t j = 1; j < k && !seen; j++) seen = found[j].key == found[k].key;
        if (seen) continue;
        PyObject *item = Py_BuildValue("(KL)", (unsigned long long)found[k].key, (long long)-found[k].neg);
        if (!item || PyList_Append(runner_ups, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(runner_ups);
            return NULL;
        }
        Py_DECREF(item);
    }
    return Py_BuildValue("(KLN)", (unsigned long long)found[0].key, (long long)-found[0].neg, runner_ups);
fail:
    /* out of memory: the entries taken out go back where they can (the queue stays usable) */
    for (Py_ssize_t k = 0; k < nf; k++) merges_qpush(m, found[k]);
    return NULL;
}

PyDoc_STRVAR(ms_merge_doc,
"merge(a, b, new_id) -> tokens saved: merge (a, b) in the words of the entry best() chose.");

static PyObject *run_merge(MergeState *m, PyObject *args) {
    long long a_, b_, n_;
    if (!PyArg_ParseTuple(args, "LLL", &a_, &b_, &n_)) return NULL;
    if (m->chosen < 0) {
        PyErr_SetString(PyExc_RuntimeError, "merge() needs a pair from best() first");
        return NULL;
    }
    /* Ids are int32 in the words and `shift` bits wide in the pair keys: a wider id would be
     * truncated or spill into its neighbour's bits, and merge the wrong pairs silently. */
    if (a_ < 0 || b_ < 0 || n_ < 0 || (uint64_t)a_ > m->mask || (uint64_t)b_ > m->mask || (uint64_t)n_ > m->mask) {
        PyErr_Format(PyExc_ValueError, "ids must be between 0 and 2**%d-1 (the shift)", m->shift);
        return NULL;
    }
    int32_t a = (int32_t)a_, b = (int32_t)b_, nid = (int32_t)n_;
    uint64_t sh = (uint64_t)m->shift;
    int64_t saved = 0;
    if (merges_gained_clear(m) < 0) return NULL;
    WordList pos = m->lists[m->chosen];
    for (int32_t t = 0; t < pos.n; t++) {
        int32_t wi = pos.w[t];
        int32_t *w = m->sym + m->start[wi];
        int32_t n = m->len[wi];
        int64_t c = m->cnt[wi];
        int32_t na = 0, first = -1;
        for (int32_t i = 0; i < n; i++)
            if (w[i] == a) { if (!na) first = i; na++; }
        if (!na) continue;
        if (na == 1) {
            int32_t i = first;
            if (i + 1 == n || w[i + 1] != b) continue;
            if (i && neighbour(m, ((uint64_t)w[i - 1] << sh) | (uint64_t)a, ((uint64_t)w[i - 1] << sh) | (uint64_t)nid, c, wi) < 0)
                return NULL;
            if (i + 2 < n && neighbour(m, ((uint64_t)b << sh) | (uint64_t)w[i + 2], ((uint64_t)nid << sh) | (uint64_t)w[i + 2], c, wi) < 0)
                return NULL;
            w[i] = nid;
            memmove(w + i + 1, w + i + 2, (size_t)(n - i - 2) * sizeof(int32_t));
            m->len[wi] = n - 1;
            saved += c;
            continue;
        }
        if ((size_t)n > m->out_cap) {
            int32_t *o = PyMem_Realloc(m->out, (size_t)n * sizeof(int32_t));
            if (!o) { PyErr_NoMemory(); return NULL; }
            m->out = o;
            m->out_cap = (size_t)n;
        }
        int32_t *out = m->out, on = 0, i = 0, j = 0;
        while (i < n - 1) {
            if (w[i] == a && w[i + 1] == b) {
                while (j < i) out[on++] = w[j++];
                if (on && neighbour(m, ((uint64_t)out[on - 1] << sh) | (uint64_t)a, ((uint64_t)out[on - 1] << sh) | (uint64_t)nid, c, wi) < 0)
                    return NULL;
                if (i + 2 < n && neighbour(m, ((uint64_t)b << sh) | (uint64_t)w[i + 2], ((uint64_t)nid << sh) | (uint64_t)w[i + 2], c, wi) < 0)
                    return NULL;
                out[on++] = nid;
                saved += c;
                i += 2;
                j = i;
            } else {
                i++;
            }
        }
        if (j) {
            while (j < n) out[on++] = w[j++];
            memcpy(w, out, (size_t)on * sizeof(int32_t));
            m->len[wi] = on;
        }
    }
    for (size_t g = 0; g < m->gn; g++) {
        int64_t cnt = pair_count(m, m->gkey[g]);
        if (cnt > 0) {
            QEntry e = {-cnt, m->gkey[g], m->seq++, m->glist[g]};
            if (merges_qpush(m, e) < 0) return NULL;
        } else {
            list_free(m, m->glist[g]);
        }
    }
    return PyLong_FromLongLong(saved);
}

PyDoc_STRVAR(ms_words_doc, "words() -> list[list[int]]: the words' symbols now.");

static PyObject *run_words(MergeState *m, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyList_New(m->nwords);
    if (!out) return NULL;
    for (Py_ssize_t k = 0; k < m->nwords; k++) {
        PyObject *w = PyList_New(m->len[k]);
        if (!w) { Py_DECREF(out); return NULL; }
        for (int32_t i = 0; i < m->len[k]; i++) {
            PyObject *v = PyLong_FromLong(m->sym[m->start[k] + i]);
            if (!v) { Py_DECREF(w); Py_DECREF(out); return NULL; }
            PyList_SET_ITEM(w, i, v);
        }
        PyList_SET_ITEM(out, k, w);
    }
    return out;
}

static PyObject *MergeState_best(MergeState *m, PyObject *args) {
    if (check_ready(m) < 0 || enter_call(&m->busy, "MergeState") < 0) return NULL;
    PyObject *out = run_best(m, args);
    leave_call(&m->busy);
    return out;
}

static PyObject *MergeState_merge(MergeState *m, PyObject *args) {
    if (check_ready(m) < 0 || enter_call(&m->busy, "MergeState") < 0) return NULL;
    PyObject *out = run_merge(m, args);
    leave_call(&m->busy);
    return out;
}

static PyObject *MergeState_words(MergeState *m, PyObject *ignored) {
    if (check_ready(m) < 0 || enter_call(&m->busy, "MergeState") < 0) return NULL;
    PyObject *out = run_words(m, ignored);
    leave_call(&m->busy);
    return out;
}

static PyMethodDef MergeState_methods[] = {
    {"best", (PyCFunction)MergeState_best, METH_VARARGS, ms_best_doc},
    {"merge", (PyCFunction)MergeState_merge, METH_VARARGS, ms_merge_doc},
    {"words", (PyCFunction)MergeState_words, METH_NOARGS, ms_words_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject MergeStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokenizer_kernel.MergeState",
    .tp_doc = PyDoc_STR("The BPE training loop's pair counts, queue and words (see tokenizer_core/bpe/merge_loop.py)."),
    .tp_basicsize = sizeof(MergeState),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)MergeState_init,
    .tp_dealloc = (destructor)MergeState_dealloc,
    .tp_methods = MergeState_methods,
};
