/* GPT-2's byte symbols: a piece's UTF-8 bytes written as the printable characters of bytes_to_unicode,
 * as tokenizer_core/text/byte_level.py's bytes_to_unicode and bytes_to_symbols write them (a lone
 * surrogate read as U+FFFD first, as tokenizer_core/text/surrogates.py does). PieceCounter's
 * counts(byte_symbols=True) (counter.c) makes its keys with them. */
#include "kernel.h"

/* GPT-2's byte symbols (bytes_to_unicode): printable bytes read as themselves, the others as 256, 257, ... */
void byte_symbol_table(Py_UCS2 table[256]) {
    int n = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        table[b] = (Py_UCS2)(printable ? b : 256 + n++);
    }
}

/* A piece's UTF-8 bytes as byte symbols into out (room for 4 per code point); a lone surrogate reads
 * as U+FFFD, as encoding does. Returns the length. */
Py_ssize_t to_byte_symbols(const Py_UCS4 *cp, size_t len, const Py_UCS2 table[256], Py_UCS2 *out) {
    Py_ssize_t m = 0;
    for (size_t i = 0; i < len; i++) {
        Py_UCS4 u = cp[i];
        if (u >= 0xD800 && u <= 0xDFFF) u = 0xFFFD;
        if (u < 0x80) {
            out[m++] = table[u];
        } else if (u < 0x800) {
            out[m++] = table[0xC0 | (u >> 6)];
            out[m++] = table[0x80 | (u & 0x3F)];
        } else if (u < 0x10000) {
            out[m++] = table[0xE0 | (u >> 12)];
            out[m++] = table[0x80 | ((u >> 6) & 0x3F)];
            out[m++] = table[0x80 | (u & 0x3F)];
        } else {
            out[m++] = table[0xF0 | (u >> 18)];
            out[m++] = table[0x80 | ((u >> 12) & 0x3F)];
            out[m++] = table[0x80 | ((u >> 6) & 0x3F)];
            out[m++] = table[0x80 | (u & 0x3F)];
        }
    }
    return m;
}
