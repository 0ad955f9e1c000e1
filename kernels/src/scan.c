/* Pre-tokenization: the GPT-2 and cl100k_base split patterns, and the word splitters of training.
 *
 * Each pattern is written out as the regex engine walks it: alternatives in order, greedy and
 * possessive runs, look-aheads. tests/kernel/test_kernel.py compares the pieces with the `regex` module's.
 * Mirrors: GPT2_PATTERN and CL100K_PATTERN in tokenizer_core/text/byte_level.py; the word splitters
 * are Whitespace, WordSplit and WhitespaceSplit of tokenizer_core/text/word_splitters.py, and BERT's
 * chunks (PieceSplit in tokenizer_core/kernel/codes.py names each). */
#include "kernel.h"

static inline Py_ssize_t run_of(const unsigned char *cls, const Text *t, Py_ssize_t i, unsigned bit) {
    while (i < t->len && (cls[AT(t, i)] & bit)) i++;
    return i;
}

/* Characters that are none of \s, \p{L}, \p{N}. */
static inline int is_other(unsigned c) { return (c & (C_L | C_N | C_S)) == 0; }

static inline Py_ssize_t run_of_other(const unsigned char *cls, const Text *t, Py_ssize_t i) {
    while (i < t->len && is_other(cls[AT(t, i)])) i++;
    return i;
}

/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
Py_ssize_t next_gpt2(const unsigned char *cls, const Text *t, Py_ssize_t i) {
    Py_UCS4 c = AT(t, i);
    Py_ssize_t n = t->len;
    if (c == '\'' && i + 1 < n) {
        Py_UCS4 d = AT(t, i + 1);
        if (d == 's' || d == 't' || d == 'm' || d == 'd') return i + 2;
        if (i + 2 < n) {
            Py_UCS4 f = AT(t, i + 2);
            if ((d == 'r' && f == 'e') || (d == 'v' && f == 'e') || (d == 'l' && f == 'l')) return i + 3;
        }
    }
    unsigned k = cls[c];
    Py_ssize_t j = i;
    if (c == ' ' && i + 1 < n) {
        unsigned k2 = cls[AT(t, i + 1)];
        if (k2 & C_L) return run_of(cls, t, i + 1, C_L);
        if (k2 & C_N) return run_of(cls, t, i + 1, C_N);
        if (is_other(k2)) return run_of_other(cls, t, i + 1);
    }
    if (k & C_L) return run_of(cls, t, i, C_L);
    if (k & C_N) return run_of(cls, t, i, C_N);
    if (is_other(k)) return run_of_other(cls, t, i);
    /* Whitespace: \s+(?!\S) keeps the last space for the next piece, unless the run ends the text. */
    j = run_of(cls, t, i, C_S);
    if (j == n || j - i == 1) return j;
    return j - 1;
}

static inline int ci_letter(const unsigned char *cls, const Text *t, Py_ssize_t i, char want) {
    static const char letters[] = "sdmtlver";
    unsigned code = (cls[AT(t, i)] >> C_CASELESS_SHIFT) & 15;
    return code && code <= 8 && letters[code - 1] == want;
}

static inline int is_crlf(Py_UCS4 c) { return c == '\r' || c == '\n'; }

/* '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
 * |\s++$|\s*[\r\n]|\s+(?!\S)|\s */
Py_ssize_t next_cl100k(const unsigned char *cls, const Text *t, Py_ssize_t i) {
    Py_UCS4 c = AT(t, i);
    Py_ssize_t n = t->len;
    if (c == '\'' && i + 1 < n) {
        if (ci_letter(cls, t, i + 1, 's') || ci_letter(cls, t, i + 1, 'd') || ci_letter(cls, t, i + 1, 'm') ||
            ci_letter(cls, t, i + 1, 't'))
            return i + 2;
        if (i + 2 < n &&
            ((ci_letter(cls, t, i + 1, 'l') && ci_letter(cls, t, i + 2, 'l')) ||
             (ci_letter(cls, t, i + 1, 'v') && ci_letter(cls, t, i + 2, 'e')) ||
             (ci_letter(cls, t, i + 1, 'r') && ci_letter(cls, t, i + 2, 'e'))))
            return i + 3;
    }
    unsigned k = cls[c];
    if (k & C_L) return run_of(cls, t, i, C_L);
    if (!(k & C_N) && !is_crlf(c) && i + 1 < n && (cls[AT(t, i + 1)] & C_L))
        return run_of(cls, t, i + 1, C_L);
    if (k & C_N) {
        Py_ssize_t j = i + 1;
        while (j < n && j < i + 3 && (cls[AT(t, j)] & C_N)) j++;
        return j;
    }
    Py_ssize_t o = -1; /* start of the run of "other" characters, if the 4th alternative applies */
    if (c == ' ' && i + 1 < n && is_other(cls[AT(t, i + 1)])) o = i + 1;
    else if (is_other(k)) o = i;
    if (o >= 0) {
        Py_ssize_t j = run_of_other(cls, t, o);
        while (j < n && is_crlf(AT(t, j))) j++;
        return j;
    }
    /* c is whitespace. */
    Py_ssize_t j = run_of(cls, t, i, C_S);
    if (j == n) return j;                      /* \s++$ */
    for (Py_ssize_t m = j - 1; m >= i; m--)    /* \s*[\r\n]: up to the run's last line break */
        if (is_crlf(AT(t, m))) return m + 1;
    if (j - i >= 2) return j - 1;              /* \s+(?!\S) */
    return i + 1;                              /* \s */
}

/* The four characters BERT's training chunks break at (the others it treats later, in Python). */
static int is_space_break(Py_UCS4 c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The next match of a word splitter at or after i: [*s, *e); 0 when there is none. */
int next_word(const unsigned char *cls, int how, const Text *t, Py_ssize_t i, Py_ssize_t *s, Py_ssize_t *e) {
    Py_ssize_t n = t->len;
    if (how == SPLIT_SPACES) {                          /* [^ \t\n\r]+: BERT's chunks, ASCII breaks only */
        while (i < n && is_space_break(AT(t, i))) i++;
        if (i >= n) return 0;
        Py_ssize_t j = i + 1;
        while (j < n && !is_space_break(AT(t, j))) j++;
        *s = i;
        *e = j;
        return 1;
    }
    while (i < n && (cls[AT(t, i)] & C_S)) i++; /* every splitter drops whitespace between matches */
    if (i >= n) return 0;
    Py_ssize_t j = i + 1;
    unsigned k = cls[AT(t, i)];
    if (how == SPLIT_WHITESPACESPLIT) {                 /* \S+ */
        while (j < n && !(cls[AT(t, j)] & C_S)) j++;
    } else if (k & C_W) {                               /* \w+ */
        while (j < n && (cls[AT(t, j)] & C_W)) j++;
    } else if (how == SPLIT_WHITESPACE) {               /* [^\w\s]+ */
        while (j < n && !(cls[AT(t, j)] & (C_W | C_S))) j++;
    }                                                   /* WordSplit: [^\w\s], one character */
    *s = i;
    *e = j;
    return 1;
}
