/*
 * tokenizer_kernel: the compiled fast path of tokenizer_core's byte-level BPE and BPE training.
 *
 * The pure-Python code in tokenizer_core is the reference; this module computes the same things
 * in bulk, and tests/kernel/test_kernel.py checks the two against each other (pieces, tokens, offsets,
 * word ids, counts, whole training runs) on corpora and random text.
 *
 *   scan.c     pre-tokenization: the GPT-2 and cl100k_base split patterns written out as the
 *              regex engine walks them, and the word splitters of training
 *   program.c  any other split pattern, compiled by Python: a backtracking matcher
 *   tables.c   hash tables (64-bit keys; byte-string keys) and growable token buffers
 *   bpe.c      BPE over one piece's bytes (scan or heap), and the piece cache
 *   cache_guard.c the piece cache's readers and its one writer
 *   encode.c   a whole text: pieces, tokens, character offsets, and the encoding's lists
 *   encoder*.c the Encoder type (encoder.h holds its state): encoder.c its methods, encoder_init.c
 *              building it, encoder_batch.c encode_batch on threads (encoder_type.h what they share)
 *   ranked.c   the pair table of merges ranked by token (tiktoken's rule), linear in token length
 *   merge_ids.c loading a BPE model's tables (merge list, vocabulary) for the Encoder
 *   counter.c  PieceCounter: pieces of a corpus counted in one pass, for training
 *   byte_symbols.c GPT-2's byte symbols of a piece's UTF-8 (PieceCounter's byte-symbol counts)
 *   merges*.c  MergeState: the BPE training loop's pair counts, queue and words (merges.h its state;
 *              merges_init.c building it, merges.c the loop)
 *   wordset.c  WordSet: the distinct words of a corpus, counted by hash (training's up-front limit)
 *   unigram*.c UnigramCorpus: Unigram training's seeds, E-step, Viterbi and splits, a word at a time
 *   batch.c    what the two batch calls share (texts held, threads, packed rows)
 *   chunks*.c  ChunkTable: the chunked fast paths' remembered chunks, texts assembled from them
 *   columns.c  packed rows read in bulk (a batch's ids as lists in one call)
 *   pair_ranks.c PairRanks: a checked merge list's (left, right) -> (rank, merged) lookup
 *   module.c   the module, and the integer codes of codes.h as its constants
 *
 * kernels/README.md lists every file, with the Python module each one mirrors.
 *
 * Character classes (\p{L}, \p{N}, \s, \w, case-insensitive letters) come from a table the Python
 * side builds with the `regex` module itself (tokenizer_core/kernel/native.py), so the kernel and
 * the Python path use the same Unicode data.
 *
 * Threads. The long loops run without the GIL (kernels/README.md, "Threads"):
 * an Encoder's working memory belongs to the call (Scratch, encoder.h), and the one thing calls
 * share and change, the piece cache, sits behind a lock that lookups and stores only try (a call
 * that finds it taken goes without the cache, never waits), so any number of threads may encode
 * with one Encoder at once. A PieceCounter or MergeState is one training run's state: one call at
 * a time (a second concurrent call raises RuntimeError, see enter_call). The tables' hash seed is
 * set once at import, before any thread can use them.
 */
#ifndef TOKENIZER_KERNEL_H
#define TOKENIZER_KERNEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"

#define N_CODEPOINTS 0x110000

/* Bytes per token of a packed row: an int32 id and three int64 positions (columns.c; mirror:
 * ROW_BYTES in tokenizer_core/fast/columns.py). */
#define PACKED_ROW_BYTES 28

/* ------------------------------------------------------------------ text */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len;
} Text;

#define AT(t, i) PyUnicode_READ((t)->kind, (t)->data, (i))

static inline Text text_of(PyObject *s) {
    Text t = {PyUnicode_KIND(s), PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s)};
    return t;
}

/* scan.c: the end of the piece starting at i (the text's pieces lie end to end). */
Py_ssize_t next_gpt2(const unsigned char *cls, const Text *t, Py_ssize_t i);
Py_ssize_t next_cl100k(const unsigned char *cls, const Text *t, Py_ssize_t i);
/* scan.c: the next match [*s, *e) of a word splitter at or after i; 0 when there is none. */
int next_word(const unsigned char *cls, int how, const Text *t, Py_ssize_t i, Py_ssize_t *s, Py_ssize_t *e);

/* byte_symbols.c: GPT-2's byte symbols of the 256 bytes (bytes_to_unicode), and a piece's code points as
 * the byte symbols of their UTF-8 into out (room for 4 per code point; a lone surrogate reads as
 * U+FFFD); returns how many. */
void byte_symbol_table(Py_UCS2 table[256]);
Py_ssize_t to_byte_symbols(const Py_UCS4 *cp, size_t len, const Py_UCS2 table[256], Py_UCS2 *out);

/* ------------------------------------------------------------------ memory */

/* The tables, token buffers and an Encoder's scratch and cache use raw allocations (PyMem_Raw*),
 * which need no GIL, so that encoding can run on threads without it. Out of memory there sets
 * MemoryError only when the calling thread holds the GIL; code running without it returns an
 * error code, and its caller raises once the GIL is back. */
static inline void kernel_no_memory(void) {
    if (PyGILState_Check()) PyErr_NoMemory();
}

/* ------------------------------------------------------------------ hashing and tables */

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t nonzero(uint64_t h) { return h ? h : 1; }

/* A random 64-bit value read once per process at module import (tables.c), mixed into every hash
 * of the tables (byte strings, 64-bit keys, the piece counter's spans): keys crafted to collide
 * under one process's hash do not collide under another's, so linear probing stays short. No
 * result depends on it: every table's contents come out in insertion order, never slot order. */
extern uint64_t kernel_seed;
void kernel_seed_init(void);

/* The home slot of a 64-bit key. */
static inline uint64_t hash_u64(uint64_t key) { return mix64(key ^ kernel_seed); }

uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n);

/* 64-bit keys (below 2**64 - 1) to 64-bit values, open addressing; grows as it fills. */
typedef struct {
    uint64_t *keys; /* key + 1; 0 = empty */
    int64_t *vals;
    size_t mask, count;
} U64Map;

int u64map_init(U64Map *m, size_t expected);
void u64map_free(U64Map *m);
int64_t *u64map_find(const U64Map *m, uint64_t key);
/* The value of key, inserted as 0 (and *created set) when absent; NULL when out of memory. */
int64_t *u64map_slot(U64Map *m, uint64_t key, int *created);

/* Byte strings to 64-bit values; the keys live in an arena. */
typedef struct {
    uint64_t *hash; /* 0 = empty */
    int64_t *off;   /* key offset in the arena */
    int32_t *len;
    int64_t *value;
    size_t mask, count;
    unsigned char *arena;
    size_t arena_len, arena_cap;
} BytesTable;

int btab_init(BytesTable *t, size_t expected);
void btab_free(BytesTable *t);
void btab_clear(BytesTable *t);
int btab_find(const BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t *value);
int btab_put(BytesTable *t, const unsigned char *p, Py_ssize_t n, int64_t value); /* a key known to be absent */

/* Tokens of one piece or one text: ids with start and end offsets. */
typedef struct {
    int32_t *id;
    int64_t *start;
    int64_t *end;
    Py_ssize_t n, cap;
} TokBuf;

int tokbuf_reserve(TokBuf *b, Py_ssize_t more);
void tokbuf_free(TokBuf *b);

/* ------------------------------------------------------------------ batches (batch.c) */

/* The texts of a sequence, each held (new references), once every one is checked to be a str; NULL
 * with the exception set. */
PyObject **batch_start(PyObject *texts, Py_ssize_t threads, Py_ssize_t *n);
void batch_release_texts(PyObject **items, Py_ssize_t n);
/* worker(job) on `threads` threads, this one included (call without the GIL). */
void batch_run_threads(void *(*worker)(void *), void *job, int threads);
/* An object of `type` with cols (stolen), seq_obj and strs in its three packed slots, every other
 * slot unset, left out of the cyclic GC; NULL when cols is NULL or allocation fails. */
PyObject *batch_packed_object(PyTypeObject *type, const Py_ssize_t slots[3], PyObject *cols, PyObject *seq_obj,
                              PyObject *strs);

/* ------------------------------------------------------------------ one call at a time */

/* PieceCounter and MergeState are one training run's state: a call changes them throughout, so
 * two calls on one object at once (possible once the kernel releases the GIL in its loops) would
 * corrupt it. `busy` is tested and set while the GIL is held, so a second call raises instead. */
static inline int enter_call(int *busy, const char *type_name) {
    if (*busy) {
        PyErr_Format(PyExc_RuntimeError, "this %s is in use by another call (one thread at a time)", type_name);
        return -1;
    }
    *busy = 1;
    return 0;
}

static inline void leave_call(int *busy) { *busy = 0; }

/* ------------------------------------------------------------------ the types */

extern PyTypeObject EncoderType;
extern PyTypeObject PieceCounterType;
extern PyTypeObject MergeStateType;
extern PyTypeObject WordSetType;
extern PyTypeObject UnigramCorpusType;
extern PyTypeObject ChunkTableType;
extern PyTypeObject PairRanksType;
/* merge_ids.c: the module's functions loading a BPE model's tables. */
extern PyMethodDef merge_ids_methods[];
/* The id of token in vocab (a dict of str to int): 1 found, 0 absent or not a plain int32, -1 error. */
int vocab_token_id(PyObject *vocab, PyObject *token, int32_t *out);
extern PyMethodDef columns_methods[];

#endif
