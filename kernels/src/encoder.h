/* The Encoder type's state, and what the encoding code shares: one piece (bpe.c), a text (encode.c),
 * split programs (program.c), the piece cache's guard (cache_guard.c). The type itself is encoder.c,
 * encoder_init.c and encoder_batch.c, whose own internals are in encoder_type.h. */
#ifndef TOKENIZER_KERNEL_ENCODER_H
#define TOKENIZER_KERNEL_ENCODER_H

#include "kernel.h"

#include <stdatomic.h>

#define CACHE_SLOTS 64
typedef struct { _Atomic long n; char pad[64 - sizeof(long)]; } CacheSlot;

/* Programs one Encoder chains (mirror: _MAX_CHAIN in tokenizer_core/bpe/kernel.py and fast/split.py). */
#define MAX_CHAIN 4
#define CACHE_MAX_PIECE 256 /* longer pieces are encoded every time (they rarely repeat) */
#define CACHE_DEFAULT_BYTES ((Py_ssize_t)64 << 20) /* the piece cache's default budget per Encoder */

typedef struct {
    PyObject_HEAD
    /* Set last by a successful __init__: tp_new hands out zeroed objects that Python code can
     * call before (or without) __init__, and every method refuses those. */
    int ready;
    PyObject *classes_obj;      /* bytes, N_CODEPOINTS long */
    const unsigned char *cls;
    int pattern;
    /* PAT_PROGRAM: 1 to MAX_CHAIN programs (program.c) and their class tables (bits per code
     * point); with several, each splits the pieces of the one before (a Sequence of Splits). */
    int nprog;
    int32_t *prog[MAX_CHAIN];
    uint16_t *prog_table[MAX_CHAIN];
    int ignore_merges;
    int32_t byte_id[256];
    U64Map pairs;               /* (left << 32 | right) -> rank << 32 | merged id */
    BytesTable vocab;           /* token bytes -> id (for ignore_merges) */
    PyObject *token_strs;       /* list: id -> str */
    PyObject *id_objs;          /* list: id -> int */
    /* The piece cache: piece bytes -> (offset, count) into the pool of (id, byte end) pairs. */
    BytesTable cache;
    int32_t *pool_id;
    int32_t *pool_end;
    size_t pool_len, pool_cap;
    size_t cache_budget;        /* bytes the cache may hold (cache_bytes()); 0 = no caching */
    /* Guards the cache (table and pool), the only state of a built Encoder that calls change
     * (cache_guard.c): lookups never wait, stores only try, clear_cache() waits its turn. */
    CacheSlot *cache_readers;   /* CACHE_SLOTS counters of reads in flight, a cache line each */
    _Atomic int cache_writer;
} Encoder;

/* One call's working memory (encode, encode_batch, encode_ids, encode_piece): never part of the
 * Encoder, so concurrent calls on one Encoder share nothing they write but the locked cache. */
typedef struct {
    TokBuf piece;               /* the tokens of the current piece */
    int32_t *sym, *nxt, *prv;   /* long pieces' linked list */
    size_t cap;
    unsigned char *u8;          /* UTF-8 of the current piece (non-ASCII texts) */
    size_t u8_cap;
    struct BtFrame *bt;         /* PAT_PROGRAM: the matcher's backtracking stack */
    size_t bt_n, bt_cap;
    Py_ssize_t chain_end[MAX_CHAIN]; /* PAT_PROGRAM chains: where each level's current piece ends */
    unsigned char chain_gap[MAX_CHAIN]; /* and whether that piece is a gap between matches */
} Scratch;

typedef struct BtFrame { int32_t pc; Py_ssize_t pos; } BtFrame;

void scratch_free(Scratch *s);

/* cache_guard.c: the piece cache's readers and writer. */
int cache_guard_init(Encoder *e);
void cache_guard_free(Encoder *e);
int cache_read_begin(Encoder *e);   /* 1: read the cache, then cache_read_end; 0: go without it */
void cache_read_end(Encoder *e);
int cache_write_try(Encoder *e);    /* 1: write, then cache_write_end; 0: the cache is busy */
void cache_write_wait(Encoder *e);  /* waits to write (call without the GIL); then cache_write_end */
void cache_write_end(Encoder *e);

static inline uint64_t pair_key(int32_t l, int32_t r) { return ((uint64_t)(uint32_t)l << 32) | (uint32_t)r; }

static inline int pairs_get(const U64Map *t, int32_t l, int32_t r, uint32_t *rank, int32_t *merged) {
    const int64_t *v = u64map_find(t, pair_key(l, r));
    if (!v) return 0;
    *rank = (uint32_t)((uint64_t)*v >> 32);
    *merged = (int32_t)(uint32_t)*v;
    return 1;
}


/* Why encoding failed: encode_text and encode_piece never touch Python objects or exceptions
 * (they run without the GIL); their callers raise with raise_encode_error once the GIL is back. */
enum { ENC_OK = 0, ENC_NO_MEMORY = -1, ENC_SURROGATE = -2, ENC_TOO_LONG = -3, ENC_TOO_COMPLEX = -4 };

/* program.c: the words checked (a ValueError when not); the end of the piece at i (or an ENC_ code). */
int program_check(const int32_t *code, Py_ssize_t n);
Py_ssize_t program_next(const Encoder *e, Scratch *s, const Text *t, Py_ssize_t i);

/* The end of the piece that starts at i, under the Encoder's split pattern (negative: an ENC_ code). */
static inline Py_ssize_t next_piece(const Encoder *e, Scratch *s, const Text *t, Py_ssize_t i) {
    if (e->pattern == PAT_PROGRAM) return program_next(e, s, t, i);
    return e->pattern == PAT_GPT2 ? next_gpt2(e->cls, t, i) : next_cl100k(e->cls, t, i);
}

/* encoder.c: the exception of an encoding error code (the GIL held); returns -1. */
int raise_encode_error(int code, PyObject *text);

/* bpe.c */
/* The bytes the piece cache holds now: its slot table, its key arena and its token pool. */
size_t cache_bytes(const Encoder *e);
int pairs_put(U64Map *t, int32_t l, int32_t r, uint32_t rank, int32_t merged);
/* The tokens of one piece's bytes into s->piece: ids and byte ends relative to the piece; the
 * cache is read and filled when use_cache is set. Returns ENC_OK or an error code; no GIL needed. */
int encode_piece(Encoder *e, Scratch *s, const unsigned char *p, Py_ssize_t n, int use_cache);

/* ranked.c: every split of a token into two tokens as a pair ranked by the token's id (tiktoken's
 * rule), for the tokens_rank Encoder; token_bytes holds bytes or None (checked by the caller). */
int ranked_pairs(Encoder *e, PyObject *token_bytes, Py_ssize_t nv);

/* encode.c: a whole text's tokens, with character offsets and piece numbers. */
typedef struct {
    TokBuf out;          /* ids, character starts and ends */
    int64_t *word;       /* piece index of each token */
    Py_ssize_t word_cap;
    Py_ssize_t pieces;
} Result;

void result_free(Result *r);
/* ENC_OK or an error code; reads the str without the GIL (the caller keeps it alive). */
/* cuts: NULL to split with the Encoder's pattern, or the end of every piece (checked by the caller:
 * increasing, the last one the text's length). */
int encode_text(Encoder *e, Scratch *s, PyObject *text, Py_ssize_t base, int64_t first_word, const int64_t *cuts,
                Result *r);
/* encode_text's pieces from `from` (a piece start) on, stopping at the first piece end at or past `to`
 * (or the text's end), written to *reached; word ids from first_word. */
int encode_span(Encoder *e, Scratch *s, PyObject *text, Py_ssize_t from, Py_ssize_t to, Py_ssize_t base,
                int64_t first_word, const int64_t *cuts, Result *r, Py_ssize_t *reached);
int result_reserve(Result *r, Py_ssize_t more);
/* encode_shards.c: encode_text on up to `threads` threads for a long text (call without the GIL). */
int encode_text_threads(Encoder *e, PyObject *text, Py_ssize_t base, int64_t first_word, int threads, Result *r);
/* program.c: whether a split started afresh at j goes on as this one does (after program_next returned
 * j): every level of the chain ends its piece at j, or is inside a gap. */
int program_ends_all_at(const Encoder *e, const Scratch *s, Py_ssize_t j);
PyObject *ids_list(Encoder *e, const Result *r);
PyObject *result_lists(Encoder *e, const Result *r);
PyObject *result_packed(const Result *r);

#endif
