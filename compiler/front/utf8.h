/* Minimal UTF-8 helpers: columns are counted in code points. */
#ifndef PIPEC_UTF8_H
#define PIPEC_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 if s[0..n) does
   not start with one. */
size_t utf8_valid_prefix(const char *s, size_t n);
/* Number of code points in s[0..n); each invalid byte counts as one. */
size_t utf8_count(const char *s, size_t n);

#endif
