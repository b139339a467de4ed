/* Minimal assertions for the C unit tests in tests/unit.
 *
 *     int main(void) { CHECK(1 + 1 == 2); CHECK_STREQ(s, "x"); return check_summary(); }
 *
 * A failed check prints FILE:LINE and both values, then the test goes on,
 * so one run shows every failure. check_summary() prints "N passed, M failed"
 * and returns the exit status (0 only when nothing failed).
 * The counters live in one function-local static per translation unit:
 * include this header from the single .c file of a test program. */
#ifndef PIPEC_TESTS_CHECK_H
#define PIPEC_TESTS_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct check_counts {
    unsigned long passed;
    unsigned long failed;
} check_counts;

static inline check_counts *check_counts_get(void)
{
    static check_counts counts;
    return &counts;
}

static inline void check_record(int ok)
{
    if (ok)
        check_counts_get()->passed++;
    else
        check_counts_get()->failed++;
}

static inline int check_summary(void)
{
    const check_counts *c = check_counts_get();
    printf("%lu passed, %lu failed\n", c->passed, c->failed);
    return c->failed == 0 ? 0 : 1;
}

/* The do/while(0) wrappers make each macro one statement; the locals make
 * every argument evaluated exactly once. */
#define CHECK(cond)                                                            \
    do {                                                                       \
        int check_ok_ = (cond) ? 1 : 0;                                        \
        check_record(check_ok_);                                               \
        if (!check_ok_)                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
    } while (0)

#define CHECK_EQ_U64(actual, expected)                                         \
    do {                                                                       \
        uint64_t check_a_ = (uint64_t)(actual), check_e_ = (uint64_t)(expected); \
        check_record(check_a_ == check_e_);                                    \
        if (check_a_ != check_e_)                                              \
            fprintf(stderr, "%s:%d: %s == %s failed: got %" PRIu64             \
                            ", expected %" PRIu64 "\n",                        \
                    __FILE__, __LINE__, #actual, #expected, check_a_, check_e_); \
    } while (0)

#define CHECK_EQ_INT(actual, expected)                                         \
    do {                                                                       \
        long long check_a_ = (long long)(actual), check_e_ = (long long)(expected); \
        check_record(check_a_ == check_e_);                                    \
        if (check_a_ != check_e_)                                              \
            fprintf(stderr, "%s:%d: %s == %s failed: got %lld, expected %lld\n", \
                    __FILE__, __LINE__, #actual, #expected, check_a_, check_e_); \
    } while (0)

/* NULL equals only NULL. */
#define CHECK_STREQ(actual, expected)                                          \
    do {                                                                       \
        const char *check_a_ = (actual), *check_e_ = (expected);               \
        int check_ok_ = (check_a_ && check_e_) ? strcmp(check_a_, check_e_) == 0 \
                                               : check_a_ == check_e_;         \
        check_record(check_ok_);                                               \
        if (!check_ok_)                                                        \
            fprintf(stderr, "%s:%d: %s == %s failed: got %s%s%s, expected %s%s%s\n", \
                    __FILE__, __LINE__, #actual, #expected,                    \
                    check_a_ ? "\"" : "", check_a_ ? check_a_ : "NULL",        \
                    check_a_ ? "\"" : "", check_e_ ? "\"" : "",                \
                    check_e_ ? check_e_ : "NULL", check_e_ ? "\"" : "");       \
    } while (0)

#define CHECK_NULL(p) CHECK((p) == NULL)
#define CHECK_NOT_NULL(p) CHECK((p) != NULL)

#endif /* PIPEC_TESTS_CHECK_H */
