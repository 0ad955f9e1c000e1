/* Unigram training over per-word lattices built on the fly (unigram_core.c), for the UnigramCorpus
 * type (unigram.c). No Python objects here: everything below runs without the GIL.
 *
 * Pieces are found as tokenizer_core/unigram/words.py finds them: by (length, polynomial hash of the
 * code points, base 0x100000001B3, modulo 2**64), the first piece of a (length, hash) winning, so
 * the kernel and the numpy path treat even colliding substrings alike. */
#ifndef TOKENIZER_KERNEL_UNIGRAM_H
#define TOKENIZER_KERNEL_UNIGRAM_H

#include <stddef.h>
#include <stdint.h>

#define UG_BASE 0x100000001B3ULL

/* The corpus: distinct words end to end. */
typedef struct {
    uint32_t *cps;   /* n code points */
    uint8_t *brk;    /* n: nonzero where a run starts (no piece crosses into it) */
    int64_t *off;    /* num_words + 1 word offsets */
    double *count;   /* num_words */
    int64_t n, num_words, max_word;
} UgCorpus;

/* (length, hash) -> piece id, open addressing. */
typedef struct {
    uint64_t *hash;
    int32_t *len; /* 0 = empty slot */
    int32_t *id;
    size_t mask;
    int32_t max_len;
} UgPieces;

int ug_pieces_init(UgPieces *t, size_t count);
void ug_pieces_free(UgPieces *t);
/* Adds a piece unless one of the same (length, hash) is there (the first one wins). */
void ug_pieces_add(UgPieces *t, int32_t len, uint64_t hash, int32_t id);

/* E-step over every word: expected count of each piece into out (zeroed here), the corpus
 * log-likelihood into *loglik. Returns 0, or -1 out of memory. */
int ug_expected(const UgCorpus *c, const UgPieces *t, const double *lp, double *out, int64_t num_pieces,
                double *loglik);
/* Viterbi frequency of each piece (count-weighted tokens of the best segmentations) into out. */
int ug_viterbi(const UgCorpus *c, const UgPieces *t, const double *lp, double *out, int64_t num_pieces);

/* Best splits of pieces (Viterbi over each one's own characters, the whole-piece edge left out, no
 * runs): piece p spans cps[off[p]:off[p + 1]]; its score into score[p], its tokens from the last to
 * the first appended to *pairs as (owner[p], token). Returns 0, or -1 out of memory. */
typedef struct {
    int64_t *owner, *alt;
    size_t n, cap;
} UgPairs;

int ug_splits(const UgPieces *t, const double *lp, const uint32_t *cps, const int64_t *off, const int64_t *owner,
              int64_t count, double *score, UgPairs *pairs);
void ug_pairs_free(UgPairs *p);

/* Seeds of one length: every distinct substring of `len` code points inside one run, by hash
 * (ascending), with its first position and count-weighted frequency; for len >= 2 only those
 * that occur twice or more and branch (see seed.py). */
typedef struct {
    int64_t *pos;
    double *score; /* the frequency for len 1, frequency * len for longer ones */
    size_t n, cap;
} UgSeeds;

/* flags[w]: 1 = some occurrence of word w is followed by another word of its line, 2 = some ends
 * its line; last_word: the word that ends the corpus, or -1. Returns the number of substrings of
 * that length considered (0: none, longer ones need not be tried), or -1 out of memory. */
int64_t ug_seed_length(const UgCorpus *c, const uint8_t *flags, int64_t last_word, int32_t len, UgSeeds *out);
void ug_seeds_free(UgSeeds *s);

#endif
