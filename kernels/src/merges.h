/* MergeState's state (BPE training's pair counts, queue and words), shared by merges.c (the training
 * loop: best() and merge()) and merges_init.c (building it from the words, and freeing it). */
#ifndef TOKENIZER_KERNEL_MERGES_H
#define TOKENIZER_KERNEL_MERGES_H

#include "kernel.h"

/* A queue entry, as pair_stats.py's QueueEntry: (-count, key, sequence number, word list). */
typedef struct { int64_t neg; uint64_t key; uint64_t seq; int32_t list; } QEntry;

typedef struct { int32_t *w; int32_t n, cap; } WordList;

typedef struct {
    PyObject_HEAD
    int ready;             /* set last by a successful __init__; methods refuse objects without it */
    int busy;              /* a call is running (enter_call) */
    int shift;
    uint64_t mask;
    /* Words: symbols of word k are sym[start[k] .. start[k] + len[k]). */
    int32_t *sym;
    int64_t *start;
    int32_t *len;
    int64_t *cnt;
    Py_ssize_t nwords;
    /* Pair counts. */
    U64Map pairs;
    /* The queue. */
    QEntry *heap;
    size_t hn, hcap;
    uint64_t seq;
    /* Word lists, referenced by queue entries. */
    WordList *lists;
    size_t ln, lcap;
    /* The chosen entry's list (set by best(), used by merge()). */
    int32_t chosen;
    /* Scratch for one merge: keys that gained, in first-gain order, and their lists. */
    uint64_t *gkey;
    int32_t *glist;
    size_t gn, gcap;
    U64Map gmap;           /* key -> its index in gkey */
    int32_t *out;          /* scratch for a word with several occurrences */
    size_t out_cap;
} MergeState;

static inline int64_t *pair_slot(MergeState *m, uint64_t key) { return u64map_slot(&m->pairs, key, NULL); }

static inline int64_t pair_count(MergeState *m, uint64_t key) {
    int64_t *c = u64map_find(&m->pairs, key);
    return c ? *c : 0;
}

/* merges.c: the queue and the word lists (each -1 with MemoryError when out of memory). */
int merges_qpush(MergeState *m, QEntry x);
/* Append word wi to list li unless it is already the list's last word. */
int merges_list_add(MergeState *m, int32_t li, int32_t wi);
/* The list of words where `key` gained in this merge (created in first-gain order). */
int32_t merges_gained_list(MergeState *m, uint64_t key);
/* Forget the last merge's gained keys: a fresh small map (the last one may have grown large). */
int merges_gained_clear(MergeState *m);

/* merges_init.c: __init__ and the deallocator. */
int MergeState_init(MergeState *m, PyObject *args, PyObject *kw);
void MergeState_dealloc(MergeState *m);

#endif
