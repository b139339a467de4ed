/* Columns are counted in code points (pipe_utf8_valid_prefix, pipe/base.h,
   tells a well-formed sequence). */
#ifndef PIPEC_UTF8_H
#define PIPEC_UTF8_H

#include <stddef.h>

/* Number of code points in s[0..n); each invalid byte counts as one. */
size_t utf8_count(const char *s, size_t n);

#endif
