/* Sizes and durations (runtime/base/src/units.c), spec section 5: what
   .pipe files accept, the plain byte counts PIPE_LOCAL_MEMORY adds, and the
   canonical text. */
#include "check.h"
#include "pipe/base.h"

#include <stdio.h>
#include <string.h>

typedef struct unit_case {
    const char *name;
    uint64_t factor;
} unit_case;

static const unit_case size_cases[] = {
    {"KB", 1000ULL},
    {"MB", 1000000ULL},
    {"GB", 1000000000ULL},
    {"TB", 1000000000000ULL},
    {"PB", 1000000000000000ULL},
    {"KiB", 1ULL << 10},
    {"MiB", 1ULL << 20},
    {"GiB", 1ULL << 30},
    {"TiB", 1ULL << 40},
    {"PiB", 1ULL << 50},
};

static const unit_case duration_cases[] = {
    {"ms", 1ULL}, {"s", 1000ULL}, {"m", 60000ULL}, {"h", 3600000ULL}, {"d", 86400000ULL},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static pipe_unit_status size_of(const char *s, uint64_t *out)
{
    return pipe_parse_size(s, strlen(s), 0, out);
}

static pipe_unit_status duration_of(const char *s, uint64_t *out)
{
    return pipe_parse_duration(s, strlen(s), out);
}

/* Checks that s is malformed and that the output was left alone. */
static void check_size_malformed(const char *s)
{
    uint64_t v = 12345;
    pipe_unit_status st = size_of(s, &v);
    if (st != PIPE_UNIT_MALFORMED)
        fprintf(stderr, "size \"%s\" should be malformed\n", s);
    CHECK_EQ_INT(st, PIPE_UNIT_MALFORMED);
    CHECK_EQ_U64(v, 12345);
}

static void check_duration_malformed(const char *s)
{
    uint64_t v = 12345;
    pipe_unit_status st = duration_of(s, &v);
    if (st != PIPE_UNIT_MALFORMED)
        fprintf(stderr, "duration \"%s\" should be malformed\n", s);
    CHECK_EQ_INT(st, PIPE_UNIT_MALFORMED);
    CHECK_EQ_U64(v, 12345);
}

static void test_every_size_unit(void)
{
    char text[64];
    for (size_t i = 0; i < COUNT(size_cases); i++) {
        uint64_t v = 0;
        snprintf(text, sizeof text, "1%s", size_cases[i].name);
        CHECK_EQ_INT(size_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, size_cases[i].factor);

        snprintf(text, sizeof text, "7%s", size_cases[i].name);
        CHECK_EQ_INT(size_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, 7 * size_cases[i].factor);

        snprintf(text, sizeof text, "0%s", size_cases[i].name);
        CHECK_EQ_INT(size_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, 0);
    }
}

static void test_spec_sizes(void)
{
    uint64_t v = 0;
    CHECK_EQ_INT(size_of("16GB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 16000000000ULL);
    CHECK_EQ_INT(size_of("512MiB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 536870912ULL);
    CHECK_EQ_INT(size_of("4GB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 4000000000ULL);
    CHECK_EQ_INT(size_of("007GB", &v), PIPE_UNIT_OK); /* leading zeros are digits */
    CHECK_EQ_U64(v, 7000000000ULL);
}

/* For every unit, the largest count that fits, then one more. */
static void test_size_boundaries(void)
{
    char text[64];
    for (size_t i = 0; i < COUNT(size_cases); i++) {
        uint64_t f = size_cases[i].factor, q = UINT64_MAX / f, v = 0;
        snprintf(text, sizeof text, "%" PRIu64 "%s", q, size_cases[i].name);
        CHECK_EQ_INT(size_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, q * f);

        v = 99;
        snprintf(text, sizeof text, "%" PRIu64 "%s", q + 1, size_cases[i].name);
        CHECK_EQ_INT(size_of(text, &v), PIPE_UNIT_OVERFLOW);
        CHECK_EQ_U64(v, 99);
    }
}

static void test_size_overflow(void)
{
    uint64_t v = 0;
    CHECK_EQ_INT(size_of("99999999999999999999PB", &v), PIPE_UNIT_OVERFLOW);
    /* UINT64_MAX + 1 in the digits themselves */
    CHECK_EQ_INT(size_of("18446744073709551616KB", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_INT(size_of("18446744073709551615KB", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_INT(size_of("000000000000000000000000000001KB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 1000);
    /* the unit is checked first: a bad unit is malformed, whatever the digits */
    CHECK_EQ_INT(size_of("99999999999999999999XB", &v), PIPE_UNIT_MALFORMED);
}

static void test_size_malformed(void)
{
    static const char *const bad[] = {
        "",      "16",    "GB",     "16G",    "16gb",    "16Gb",   "16gB",
        "16kb",  "16Kb",  "16KIB",  "16kib",  "16Kib",   "16kiB",  "1.5GB",
        " 16GB", "16GB ", "16 GB",  "-1GB",   "+1GB",    "16GBB",  "16B",
        "16b",   "1e3GB", "0x10GB", "16GiBs", "16 KiB",  "16\tGB", "GB16",
        "16GB16", "1,000GB", "1_000GB", "16iB", "16Gi", "16KB\n", "16EB",
        "\xef\xbc\x91\xef\xbc\x96GB", /* fullwidth digits are not digits */
    };
    for (size_t i = 0; i < COUNT(bad); i++)
        check_size_malformed(bad[i]);

    uint64_t v = 5;
    CHECK_EQ_INT(pipe_parse_size(NULL, 0, 0, &v), PIPE_UNIT_MALFORMED);
    CHECK_EQ_U64(v, 5);
}

/* PIPE_SIZE_BYTES (PIPE_LOCAL_MEMORY, cgroup memory.max): a plain byte
 * count too, with or without "B"; everything else as in .pipe files. */
static pipe_unit_status bytes_of(const char *s, uint64_t *out)
{
    return pipe_parse_size(s, strlen(s), PIPE_SIZE_BYTES, out);
}

static void test_size_bytes_flag(void)
{
    uint64_t v = 1;
    CHECK_EQ_INT(bytes_of("0", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 0);
    CHECK_EQ_INT(bytes_of("16000000000", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 16000000000ull);
    CHECK_EQ_INT(bytes_of("1500B", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 1500);
    CHECK_EQ_INT(bytes_of("16GB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 16000000000ull);
    CHECK_EQ_INT(bytes_of("512MiB", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 512ull << 20);
    CHECK_EQ_INT(bytes_of("18446744073709551615", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, UINT64_MAX);

    v = 7;
    static const char *const bad[] = {"16 GB", "16gb", "16G", "16b", "-1", "", "B", "max", " 16", "16 ", "0x10"};
    for (size_t i = 0; i < COUNT(bad); i++) {
        if (bytes_of(bad[i], &v) != PIPE_UNIT_MALFORMED)
            fprintf(stderr, "\"%s\" should be malformed with PIPE_SIZE_BYTES\n", bad[i]);
        CHECK_EQ_INT(bytes_of(bad[i], &v), PIPE_UNIT_MALFORMED);
    }
    CHECK_EQ_U64(v, 7);
    CHECK_EQ_INT(bytes_of("99999999999PB", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_INT(bytes_of("18446744073709551616", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_U64(v, 7);

    /* without the flag the same plain counts are malformed (E0205) */
    CHECK_EQ_INT(pipe_parse_size("16000000000", 11, 0, &v), PIPE_UNIT_MALFORMED);
    CHECK_EQ_INT(pipe_parse_size("1500B", 5, 0, &v), PIPE_UNIT_MALFORMED);
}

/* s is a length-delimited slice: bytes after len are not looked at. */
static void test_not_nul_terminated(void)
{
    const char buf[] = {'1', '6', 'G', 'B', 'x', 'y', 'z'};
    uint64_t v = 0;
    CHECK_EQ_INT(pipe_parse_size(buf, 4, 0, &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 16000000000ULL);
    CHECK_EQ_INT(pipe_parse_size(buf, 3, 0, &v), PIPE_UNIT_MALFORMED);   /* "16G" */
    CHECK_EQ_INT(pipe_parse_size(buf, 7, 0, &v), PIPE_UNIT_MALFORMED);   /* "16GBxyz" */
    CHECK_EQ_INT(pipe_parse_size(buf, 2, 0, &v), PIPE_UNIT_MALFORMED);   /* "16" */

    const char d[] = {'5', '0', '0', 'm', 's', 's'};
    CHECK_EQ_INT(pipe_parse_duration(d, 5, &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 500);
    CHECK_EQ_INT(pipe_parse_duration(d, 4, &v), PIPE_UNIT_OK);        /* "500m" */
    CHECK_EQ_U64(v, 500 * 60000ULL);
    CHECK_EQ_INT(pipe_parse_duration(d, 6, &v), PIPE_UNIT_MALFORMED); /* "500mss" */
}

static void test_every_duration_unit(void)
{
    char text[64];
    for (size_t i = 0; i < COUNT(duration_cases); i++) {
        uint64_t v = 0;
        snprintf(text, sizeof text, "1%s", duration_cases[i].name);
        CHECK_EQ_INT(duration_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, duration_cases[i].factor);

        snprintf(text, sizeof text, "0%s", duration_cases[i].name);
        CHECK_EQ_INT(duration_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, 0);
    }

    uint64_t v = 0;
    CHECK_EQ_INT(duration_of("500ms", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 500);
    CHECK_EQ_INT(duration_of("2h", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 7200000);
    CHECK_EQ_INT(duration_of("300s", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 300000);
    CHECK_EQ_INT(duration_of("90m", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 5400000);
    CHECK_EQ_INT(duration_of("7d", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, 604800000);
}

static void test_duration_boundaries(void)
{
    char text[64];
    for (size_t i = 0; i < COUNT(duration_cases); i++) {
        uint64_t f = duration_cases[i].factor, q = UINT64_MAX / f, v = 0;
        snprintf(text, sizeof text, "%" PRIu64 "%s", q, duration_cases[i].name);
        CHECK_EQ_INT(duration_of(text, &v), PIPE_UNIT_OK);
        CHECK_EQ_U64(v, q * f);

        snprintf(text, sizeof text, "%" PRIu64 "0%s", q, duration_cases[i].name);
        CHECK_EQ_INT(duration_of(text, &v), PIPE_UNIT_OVERFLOW);
    }
    uint64_t v = 0;
    CHECK_EQ_INT(duration_of("18446744073709551615ms", &v), PIPE_UNIT_OK);
    CHECK_EQ_U64(v, UINT64_MAX);
    CHECK_EQ_INT(duration_of("18446744073709551616ms", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_INT(duration_of("213503982334d", &v), PIPE_UNIT_OK);
    CHECK_EQ_INT(duration_of("213503982335d", &v), PIPE_UNIT_OVERFLOW);
    CHECK_EQ_INT(duration_of("99999999999999999999d", &v), PIPE_UNIT_OVERFLOW);
}

static void test_duration_malformed(void)
{
    static const char *const bad[] = {
        "",    "5",     "ms",    "s",     "1h30m", "1.5h", "2 hours", "2hours",
        "30sec", "2H",  "5MS",   "5Ms",   "5S",    "5D",   "-5s",     "+5s",
        " 5s", "5s ",   "5 s",   "5y",    "5w",    "5us",  "5ns",     "5min",
        "5hr", "1e3ms", "5mss",  "5sm",   "0x5s",  "5\n",  "s5",
    };
    for (size_t i = 0; i < COUNT(bad); i++)
        check_duration_malformed(bad[i]);

    uint64_t v = 5;
    CHECK_EQ_INT(pipe_parse_duration(NULL, 0, &v), PIPE_UNIT_MALFORMED);
    CHECK_EQ_U64(v, 5);
}

static void check_format_size(uint64_t bytes, const char *expected)
{
    char buf[64];
    int n = pipe_format_size(bytes, buf, sizeof buf);
    CHECK_STREQ(buf, expected);
    CHECK_EQ_INT(n, (int)strlen(expected));
}

static void check_format_duration(uint64_t ms, const char *expected)
{
    char buf[64];
    int n = pipe_format_duration(ms, buf, sizeof buf);
    CHECK_STREQ(buf, expected);
    CHECK_EQ_INT(n, (int)strlen(expected));
}

static void test_format_size(void)
{
    check_format_size(16000000000ULL, "16GB");
    check_format_size(536870912ULL, "512MiB");
    check_format_size(0, "0KB");
    check_format_size(1000, "1KB");
    check_format_size(1024, "1KiB");
    check_format_size(2000, "2KB");
    check_format_size(1000000, "1MB");
    check_format_size(1048576, "1MiB");
    check_format_size(1500000, "1500KB");
    check_format_size(1000000000000000ULL, "1PB");
    check_format_size(1ULL << 50, "1PiB");
    check_format_size(5ULL << 50, "5PiB");
    check_format_size(2000000000000000000ULL, "2000PB");
    check_format_size(3ULL << 40, "3TiB");
    /* both KB and KiB divide: same step, decimal wins */
    check_format_size(1024000, "1024KB");
    check_format_size(1536000, "1536KB");
    /* KB divides, but TiB is the bigger step */
    check_format_size(1000ULL << 40, "1000TiB");
    /* GB beats KiB */
    check_format_size(4000000000ULL, "4GB");
    /* no unit divides */
    check_format_size(1500, "1500B");
    check_format_size(1, "1B");
    check_format_size(UINT64_MAX, "18446744073709551615B");
}

static void test_format_duration(void)
{
    check_format_duration(7200000, "2h");
    check_format_duration(500, "500ms");
    check_format_duration(0, "0s");
    check_format_duration(1000, "1s");
    check_format_duration(1500, "1500ms");
    check_format_duration(60000, "1m");
    check_format_duration(90000, "90s");
    check_format_duration(5400000, "90m");
    check_format_duration(86400000, "1d");
    check_format_duration(90000000, "25h");
    check_format_duration(300000, "5m");
    check_format_duration(UINT64_MAX, "18446744073709551615ms");
}

/* format -> parse gives the value back for everything parse can produce. */
static void test_round_trip(void)
{
    static const uint64_t counts[] = {0, 1, 2, 3, 7, 10, 16, 100, 512, 999, 1000,
                                      1023, 1024, 1536, 4096, 1000000, 123456789};
    char buf[64];
    int bad = 0;
    for (size_t i = 0; i < COUNT(size_cases); i++) {
        for (size_t j = 0; j < COUNT(counts); j++) {
            if (counts[j] > UINT64_MAX / size_cases[i].factor)
                continue;
            uint64_t v = counts[j] * size_cases[i].factor, back = 0;
            pipe_format_size(v, buf, sizeof buf);
            if (pipe_parse_size(buf, strlen(buf), 0, &back) != PIPE_UNIT_OK || back != v) {
                fprintf(stderr, "size %" PRIu64 " -> \"%s\" does not round-trip\n", v, buf);
                bad++;
            }
        }
    }
    for (size_t i = 0; i < COUNT(duration_cases); i++) {
        for (size_t j = 0; j < COUNT(counts); j++) {
            if (counts[j] > UINT64_MAX / duration_cases[i].factor)
                continue;
            uint64_t v = counts[j] * duration_cases[i].factor, back = 0;
            pipe_format_duration(v, buf, sizeof buf);
            if (pipe_parse_duration(buf, strlen(buf), &back) != PIPE_UNIT_OK || back != v) {
                fprintf(stderr, "duration %" PRIu64 " -> \"%s\" does not round-trip\n", v, buf);
                bad++;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* snprintf semantics: the full length is returned, the buffer is cut short
 * and always terminated. */
static void test_format_truncation(void)
{
    char buf[8];
    memset(buf, 'x', sizeof buf);
    CHECK_EQ_INT(pipe_format_size(536870912ULL, buf, 4), 6);
    CHECK_STREQ(buf, "512");
    CHECK(buf[4] == 'x');

    CHECK_EQ_INT(pipe_format_size(16000000000ULL, NULL, 0), 4);
    CHECK_EQ_INT(pipe_format_duration(7200000, NULL, 0), 2);

    memset(buf, 'x', sizeof buf);
    CHECK_EQ_INT(pipe_format_duration(500, buf, 1), 5);
    CHECK_STREQ(buf, "");
    CHECK_EQ_INT(pipe_format_duration(500, buf, 6), 5);
    CHECK_STREQ(buf, "500ms");
}

int main(void)
{
    test_every_size_unit();
    test_spec_sizes();
    test_size_boundaries();
    test_size_overflow();
    test_size_malformed();
    test_size_bytes_flag();
    test_not_nul_terminated();
    test_every_duration_unit();
    test_duration_boundaries();
    test_duration_malformed();
    test_format_size();
    test_format_duration();
    test_round_trip();
    test_format_truncation();
    return check_summary();
}
