/* Sizes ("16GB", "512MiB") and durations ("500ms", "2h") as the language
   writes them (docs/language.md). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pipe/base.h"

typedef struct unit {
    const char *name;
    uint64_t factor;
} unit;

/* Each table is searched for an exact match of the whole suffix, so the
 * order only matters for formatting (largest first). */
static const unit size_units[] = {
    {"PB", 1000000000000000ULL},      {"TB", 1000000000000ULL},
    {"GB", 1000000000ULL},            {"MB", 1000000ULL},
    {"KB", 1000ULL},                  {"PiB", 1125899906842624ULL},
    {"TiB", 1099511627776ULL},        {"GiB", 1073741824ULL},
    {"MiB", 1048576ULL},              {"KiB", 1024ULL},
    {"B", 1ULL}, /* only with PIPE_SIZE_BYTES: the last entry */
};
enum { SIZE_DECIMAL_FIRST = 0, SIZE_BINARY_FIRST = 5, SIZE_STEPS = 5, SIZE_LANGUAGE_UNITS = 10 };

static const unit duration_units[] = {
    {"d", 86400000ULL}, {"h", 3600000ULL}, {"m", 60000ULL},
    {"s", 1000ULL},     {"ms", 1ULL},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const unit no_unit = {"", 1ULL};

/* Splits s into digits and suffix, finds the suffix in the table (an empty
 * one only when bare_ok), and only then does arithmetic, so a bad unit is
 * reported as malformed even when the number is also too large. */
static pipe_unit_status parse_with_units(const char *s, size_t len, const unit *units, size_t nunits, bool bare_ok,
                                         uint64_t *out)
{
    size_t ndigits = 0;
    while (ndigits < len && s[ndigits] >= '0' && s[ndigits] <= '9')
        ndigits++;
    if (ndigits == 0 || (ndigits == len && !bare_ok))
        return PIPE_UNIT_MALFORMED;

    const char *suffix = s + ndigits;
    size_t suffix_len = len - ndigits;
    const unit *u = suffix_len == 0 ? &no_unit : NULL;
    for (size_t i = 0; i < nunits && !u; i++) {
        if (strlen(units[i].name) == suffix_len && memcmp(units[i].name, suffix, suffix_len) == 0)
            u = &units[i];
    }
    if (!u)
        return PIPE_UNIT_MALFORMED;

    uint64_t value = 0;
    for (size_t i = 0; i < ndigits; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (value > (UINT64_MAX - d) / 10)
            return PIPE_UNIT_OVERFLOW;
        value = value * 10 + d;
    }
    if (value != 0 && value > UINT64_MAX / u->factor)
        return PIPE_UNIT_OVERFLOW;
    *out = value * u->factor;
    return PIPE_UNIT_OK;
}

pipe_unit_status pipe_parse_size(const char *s, size_t len, unsigned flags, uint64_t *bytes)
{
    bool bytes_ok = (flags & PIPE_SIZE_BYTES) != 0;
    return parse_with_units(s, len, size_units, bytes_ok ? COUNT(size_units) : SIZE_LANGUAGE_UNITS, bytes_ok,
                            bytes);
}

pipe_unit_status pipe_parse_duration(const char *s, size_t len, uint64_t *ms)
{
    return parse_with_units(s, len, duration_units, COUNT(duration_units), false, ms);
}

/* Index of the largest unit among units[first .. first+count) dividing v,
 * or -1. The slice is ordered largest first. */
static int largest_divisor(uint64_t v, const unit *units, int first, int count)
{
    for (int i = first; i < first + count; i++)
        if (v % units[i].factor == 0)
            return i;
    return -1;
}

int pipe_format_size(uint64_t bytes, char *buf, size_t n)
{
    if (bytes == 0)
        return snprintf(buf, n, "0KB");

    int dec = largest_divisor(bytes, size_units, SIZE_DECIMAL_FIRST, SIZE_STEPS);
    int bin = largest_divisor(bytes, size_units, SIZE_BINARY_FIRST, SIZE_STEPS);
    int pick;
    if (dec < 0 && bin < 0)
        return snprintf(buf, n, "%" PRIu64 "B", bytes);
    if (bin < 0)
        pick = dec;
    else if (dec < 0)
        pick = bin;
    else /* lower offset in its half = bigger step; ties go to decimal */
        pick = (bin - SIZE_BINARY_FIRST < dec - SIZE_DECIMAL_FIRST) ? bin : dec;

    return snprintf(buf, n, "%" PRIu64 "%s", bytes / size_units[pick].factor,
                    size_units[pick].name);
}

int pipe_format_duration(uint64_t ms, char *buf, size_t n)
{
    if (ms == 0)
        return snprintf(buf, n, "0s");
    /* "ms" divides everything, so this always finds a unit. */
    int i = largest_divisor(ms, duration_units, 0, (int)COUNT(duration_units));
    return snprintf(buf, n, "%" PRIu64 "%s", ms / duration_units[i].factor,
                    duration_units[i].name);
}
