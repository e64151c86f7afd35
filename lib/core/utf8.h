/*
 * utf8.h: validating one UTF-8 sequence, for every writer that must emit
 * valid UTF-8 (JSON strings, HTML/XML text). Allocates nothing.
 */
#ifndef DL_UTF8_H
#define DL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (1-4) of the well-formed UTF-8 sequence at s, of at most n bytes,
 * storing its code point in *cp; 0 when the bytes there are not one
 * (overlong forms, surrogates, code points above U+10FFFF, truncation).
 */
size_t dl_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
