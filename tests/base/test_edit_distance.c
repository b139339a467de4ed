/* "Did you mean" (runtime/base/src/edit_distance.c): the edit distance and
 * the closest name within a distance, which pipec's diagnostics and the
 * runtime's unknown-invocation error both use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pipe/base.h"

static void check_distance(const char *a, const char *b, size_t expected)
{
    size_t ab = pipe_edit_distance(a, b), ba = pipe_edit_distance(b, a);
    if (ab != expected)
        fprintf(stderr, "pipe_edit_distance(\"%s\", \"%s\")\n", a, b);
    CHECK_EQ_U64(ab, expected);
    CHECK_EQ_U64(ba, expected); /* symmetric */
}

static void test_edit_distance(void)
{
    check_distance("", "", 0);
    check_distance("abc", "", 3);
    check_distance("same", "same", 0);
    check_distance("kitten", "sitting", 3);
    check_distance("flaw", "lawn", 2);
    check_distance("resources", "resource", 1);   /* deletion */
    check_distance("resource", "resourcxe", 1);   /* insertion */
    check_distance("gpu", "cpu", 1);              /* substitution */
    check_distance("epochs", "epcohs", 1);        /* transposition */
    check_distance("ab", "ba", 1);
    check_distance("trian", "train", 1);
    check_distance("abcdef", "badcfe", 3);        /* three swaps */
    /* optimal string alignment: no edits inside a transposed pair, so
     * "ca" -> "abc" is 3, not the unrestricted Damerau distance 2 */
    check_distance("ca", "abc", 3);
    check_distance("GPU", "gpu", 3);              /* case-sensitive */
    check_distance("run_with_accelerate", "run_with_acclerate", 1);
}

static void test_edit_distance_long(void)
{
    char a[PIPE_EDIT_DISTANCE_MAX_LEN + 2], b[PIPE_EDIT_DISTANCE_MAX_LEN + 2];

    /* exactly at the limit: computed exactly */
    memset(a, 'a', PIPE_EDIT_DISTANCE_MAX_LEN);
    a[PIPE_EDIT_DISTANCE_MAX_LEN] = '\0';
    memcpy(b, a, sizeof a);
    b[PIPE_EDIT_DISTANCE_MAX_LEN - 1] = 'b';
    CHECK_EQ_U64(pipe_edit_distance(a, b), 1);
    CHECK_EQ_U64(pipe_edit_distance(a, a), 0);

    /* past the limit: equal strings are 0, others get the max length */
    memset(a, 'a', PIPE_EDIT_DISTANCE_MAX_LEN + 1);
    a[PIPE_EDIT_DISTANCE_MAX_LEN + 1] = '\0';
    memcpy(b, a, sizeof a);
    CHECK_EQ_U64(pipe_edit_distance(a, b), 0);
    b[PIPE_EDIT_DISTANCE_MAX_LEN] = 'b';
    CHECK_EQ_U64(pipe_edit_distance(a, b), PIPE_EDIT_DISTANCE_MAX_LEN + 1);
    CHECK_EQ_U64(pipe_edit_distance(a, "a"), PIPE_EDIT_DISTANCE_MAX_LEN + 1);
    CHECK_EQ_U64(pipe_edit_distance("a", a), PIPE_EDIT_DISTANCE_MAX_LEN + 1);

    /* a long input never produces a suggestion for a short name */
    const char *const cands[] = {a};
    CHECK_NULL(pipe_closest_name("aaaa", cands, 1, 3));

    /* a very long input returns at once (no quadratic time, no big stack) */
    size_t n = 1000000;
    char *big = malloc(n + 1), *big2 = malloc(n + 1);
    CHECK_NOT_NULL(big);
    CHECK_NOT_NULL(big2);
    if (big && big2) {
        memset(big, 'x', n);
        big[n] = '\0';
        memcpy(big2, big, n + 1);
        big2[0] = 'y';
        CHECK_EQ_U64(pipe_edit_distance(big, big2), n);
        CHECK_EQ_U64(pipe_edit_distance(big, big), 0);
    }
    free(big);
    free(big2);
}

/* The caller picks the distance; case-insensitive equality needs none. */
static void test_closest_name(void)
{
    const char *const ids[] = {"produce", "left", "right", "join"};
    CHECK_STREQ(pipe_closest_name("produc", ids, 4, 2), "produce");
    CHECK_STREQ(pipe_closest_name("jion", ids, 4, 1), "join");  /* a swap is 1 */
    CHECK_NULL(pipe_closest_name("jion", ids, 4, 0));
    CHECK_STREQ(pipe_closest_name("PRODUCE", ids, 4, 0), "produce");
    CHECK_NULL(pipe_closest_name("consume", ids, 4, 2));
    CHECK_NULL(pipe_closest_name("", ids, 4, 10));              /* an empty name suggests nothing */

    /* smaller distance wins, ties go to the first, NULL entries are skipped */
    const char *const c[] = {NULL, "abcx", "abxy", "abcy"};
    CHECK_STREQ(pipe_closest_name("abcd", c, 4, 2), "abcx");
    CHECK_STREQ(pipe_closest_name("abxd", c, 4, 2), "abxy");
    CHECK_NULL(pipe_closest_name("abcd", c, 0, 2));
}

int main(void)
{
    test_edit_distance();
    test_edit_distance_long();
    test_closest_name();
    return check_summary();
}
