/* The pages of docs/ (and README.md) that pipec writes from its tables: a
   unit test checks each generated block against what pipec writes now.
   Include it from a test's one .c file, after check.h. */
#ifndef PIPEC_TESTS_DOC_BLOCK_H
#define PIPEC_TESTS_DOC_BLOCK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"

/* The block of the page at path that starts with begin_mark is what
   generate writes now, or `what` is printed with how to regenerate it
   (`bash scripts/update-docs.sh`, after a row of a table changed). */
static inline void check_doc_block(const char *path, const char *begin_mark, void (*generate)(FILE *),
                                   const char *what)
{
    char *doc = NULL, *generated = NULL, err[256];
    size_t n = 0, gn = 0;
    CHECK_EQ_INT(pipe_read_file(path, &doc, &n, err, sizeof err), 0);
    FILE *f = open_memstream(&generated, &gn);
    CHECK(f != NULL);
    if (!doc || !f) {
        free(doc);
        return;
    }
    generate(f);
    fclose(f);
    const char *begin = strstr(doc, begin_mark);
    bool same = begin && strncmp(begin, generated, gn) == 0;
    if (!same)
        fprintf(stderr, "%s: run `bash scripts/update-docs.sh`\n", what);
    CHECK(same);
    free(doc);
    free(generated);
}

#endif
