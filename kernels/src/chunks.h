/* ChunkTable's state, shared by chunks.c (cutting, looking up, assembling) and chunks_type.c
 * (the type and its methods). */
#ifndef TOKENIZER_KERNEL_CHUNKS_H
#define TOKENIZER_KERNEL_CHUNKS_H

#include "encoder.h"

#include <pthread.h>

#define MAX_KEY_CHARS 1024      /* longer chunks are never stored: the caller encodes them */
#define MAX_SPACE_CHARS 64      /* characters a call may add to ' ' under RULE_SPACES */
#define RELEASE_CHARS 2048      /* texts at least this long are scanned without the GIL */
#define WINDOW_ROWS 4096        /* a batch's rows held at once */

typedef struct {
    int64_t tok;        /* first token in the pool */
    int32_t n;          /* tokens */
    int32_t pieces;     /* word ids count on by this much after the chunk */
    int64_t score;      /* first score in the score pool */
    int32_t nscore;
    int32_t norm_len;   /* normalized length (the near-tie bound) */
    double gap;         /* smallest gap between two candidates of the chunk (scored tables) */
    int64_t norm;       /* scored: its normalized text in the form pool (-1: none), for a Viterbi here */
} Entry;

typedef struct {
    PyObject_HEAD
    int ready;
    int rule, first_entries, scored;
    Py_ssize_t n_real;          /* ids from here on are the driver's stand-ins (a token not its id's string) */
    double max_score;
    size_t budget, used;
    PyObject *token_strs;
    PyObject *splitter;         /* RULE_PIECES: the Encoder whose split program cuts the chunks */
    BytesTable keys;            /* first flag + code points (uint32) -> entry index */
    Entry *entries;
    size_t n_entries, cap_entries;
    int32_t *tok_id, *tok_start, *tok_end, *tok_word;
    size_t n_tok, cap_tok;
    double *scores;
    size_t n_scores, cap_scores;
    /* Scored tables: entries' normalized texts (code points) and each character's span in its chunk,
     * and the Unigram model a near tie is segmented again with (chunks_viterbi.c). */
    uint32_t *form;
    int32_t *form_start, *form_end;
    size_t n_form, cap_form;
    int has_lattice, byte_fallback, max_piece;
    BytesTable lattice;         /* piece code points -> id << 32 | float32 bits of its score */
    int32_t unk_id, byte_ids[256];
    float unk_score;
    pthread_rwlock_t lock;
} ChunkTable;

/* The characters a call treats as spaces (RULE_SPACES): ' ' and up to MAX_SPACE_CHARS more. */
typedef struct {
    uint32_t cp[MAX_SPACE_CHARS];
    int n;
} Spaces;


typedef struct {
    int32_t *id;
    int64_t *start, *end, *word;
    Py_ssize_t n, cap;
    Py_ssize_t stop, stop_end;  /* where the call stopped: the chunk it could not serve (stop == len: done) */
    double total;               /* scored: the path's score at stop */
    int64_t words;              /* the next word id at stop */
    int no_memory;
    int stand_in;               /* holds an id >= n_real */
} Row;

/* chunks.c */
/* 1 and the chunk [*s, *e) at or after i, 0 at the text's end, or an ENC_ code (a split program's error). */
int chunks_next_chunk(const ChunkTable *c, const Spaces *sp, Scratch *sc, const Text *t, Py_ssize_t i, Py_ssize_t *s,
                      Py_ssize_t *e);
Py_ssize_t chunks_chunk_key(const Text *t, Py_ssize_t s, Py_ssize_t e, int first, uint32_t *buf);
const Entry *chunks_lookup(const ChunkTable *c, const ChunkTable *extra, const Text *t, Py_ssize_t s, Py_ssize_t e,
                           uint32_t *buf);
void chunks_row_free(Row *r);
int chunks_row_reserve(Row *r, Py_ssize_t more);
/* r->stop_end == -1: stopped where the text cannot be resumed (a split program's error, or a chunk it
 * cannot serve inside a chain of several programs): the caller takes the general path. */
void chunks_encode_from(const ChunkTable *c, const ChunkTable *extra, const Spaces *sp, Scratch *sc, const Text *t,
                        Py_ssize_t from, double total, int64_t words, uint32_t *buf, Row *r);
PyObject *chunks_row_columns(const Row *r);
void chunks_read_lock(ChunkTable *c);
void chunks_write_lock(ChunkTable *c);
void chunks_unlock(ChunkTable *c);
int chunks_check_ready(const ChunkTable *c);
int chunks_read_spaces(const ChunkTable *c, PyObject *spaces, Spaces *sp);
int chunks_read_extra(const ChunkTable *c, PyObject *extra);

/* chunks_viterbi.c: set_lattice(), and a near-tie entry's tokens from the score *f (updated), appended
 * to r at chunk start `base`: 1 done, 0 when Python must (no lattice or form, an unknown piece's
 * text), -1 out of memory. */
extern const char chunks_set_lattice_doc[];
PyObject *ChunkTable_set_lattice(ChunkTable *c, PyObject *args, PyObject *kw);
int chunks_resegment(const ChunkTable *c, const ChunkTable *owner, const Entry *en, float *f, Py_ssize_t base,
                     int64_t words, Row *r);

/* chunks_encode.c */
extern const char chunks_encode_doc[], chunks_encode_batch_doc[];
PyObject *ChunkTable_encode(ChunkTable *c, PyObject *args, PyObject *kw);
PyObject *ChunkTable_encode_batch(ChunkTable *c, PyObject *args, PyObject *kw);
/* chunks_joined.c */
extern const char chunks_encode_joined_doc[];
PyObject *ChunkTable_encode_joined(ChunkTable *c, PyObject *args, PyObject *kw);
/* encoder_batch.c: the byte offsets of a slotted class's slots. */
int slot_offsets(PyTypeObject *type, const char *const *names, int n, Py_ssize_t *offsets);

#endif
