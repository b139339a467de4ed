/* Sizes ("16GB", "512MiB") and durations ("500ms", "2h"), spec section 5. */
#ifndef PIPEC_UNITS_H
#define PIPEC_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef enum { UNIT_OK = 0, UNIT_MALFORMED, UNIT_OVERFLOW } unit_status;

/*
 * Sizes: one or more decimal digits (no sign, spaces, fraction or exponent;
 * leading zeros are allowed) followed at once by exactly one of
 * KB MB GB TB PB (powers of 1000) or KiB MiB GiB TiB PiB (powers of 1024).
 * Units are case-sensitive: "16gb", "16G" and "16Gb" are malformed.
 * s need not be NUL-terminated; only len bytes are read (s may be NULL when
 * len is 0). On UNIT_OK *bytes holds the value; otherwise *bytes is left
 * untouched. UNIT_OVERFLOW when the digits or the product exceed UINT64_MAX;
 * UNIT_MALFORMED for everything else that is not a size (checked first, so
 * "99999999999999999999XB" is malformed, not an overflow).
 */
unit_status parse_size(const char *s, size_t len, uint64_t *bytes);

/*
 * Durations: digits as for sizes, followed at once by one of ms s m h d
 * (case-sensitive). The result is in milliseconds; same error rules as
 * parse_size. Compound forms such as "1h30m" are malformed.
 */
unit_status parse_duration(const char *s, size_t len, uint64_t *ms);

/*
 * Canonical text, as used by the generators and `pipec fmt`. The output
 * always parses back to the same value with parse_size, except for a byte
 * count that no .pipe unit divides (which parse_size never produces).
 *
 * Rule: take the largest decimal unit that divides exactly (KB..PB) and the
 * largest binary unit that divides exactly (KiB..PiB). If only one kind
 * divides, use it; if both do, use the bigger step (K=1 .. P=5), and the
 * decimal unit when the steps are equal.
 *   16000000000 -> "16GB"     536870912 -> "512MiB"   1024000 -> "1024KB"
 *   1000 * 2^40 -> "1000TiB"  0 -> "0KB"
 * A value neither 1000 nor 1024 divides is written as "<n>B" (e.g. "1500B"),
 * which parse_size rejects: callers only format values that came from it.
 * Returns what snprintf returns: the length the full text needs; the buffer
 * is NUL-terminated whenever n > 0.
 */
int format_size(uint64_t bytes, char *buf, size_t n);

/*
 * Largest of d h m s ms that divides exactly: 7200000 -> "2h", 90000 -> "90s",
 * 500 -> "500ms", 0 -> "0s". Always parses back with parse_duration.
 * Returns as snprintf does.
 */
int format_duration(uint64_t ms, char *buf, size_t n);

#endif /* PIPEC_UNITS_H */
