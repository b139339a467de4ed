/* Long explanations behind `pipec explain CODE` and docs/diagnostics.md:
 * an entry per code of compiler/util/diag_codes.def, with its text and examples
 * from compiler/explain/CODE.md (embedded into pipec at build time). */
#ifndef PIPEC_EXPLAIN_H
#define PIPEC_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include "util/diag_codes.h"

typedef struct explain_entry {
    diag_code id;
    const char *code;      /* "E0303" */
    const char *title;     /* one line, lower case, no final period (SARIF shortDescription) */
    const char *text;      /* paragraphs separated by "\n\n"; a paragraph is one long
                              line (or "- " items, one per line); wrapped when printed */
    const char *wrong;     /* a small complete .pipe file that triggers the code */
    const char *right;     /* the corrected file */
    const char *position;  /* the primary position, in words */
} explain_entry;

/* Case-insensitive ("e0303" works); NULL when the code is unknown. */
const explain_entry *explain_lookup(const char *code);

/* Entries in code order: E... by number, then W... by number. */
size_t explain_count(void);
const explain_entry *explain_at(size_t i); /* NULL when i >= explain_count() */

/* "error[E0303]: title" (or "warning[W0401]: ..."), the text wrapped at 78
 * columns, then "Wrong:" and "Right:" with the examples indented 4 spaces.
 * e must be non-NULL (an entry from explain_lookup or explain_at). */
void explain_print(const explain_entry *e, FILE *out);

/* The whole table as Markdown: docs/diagnostics.md is exactly this output.
 * tests/unit/test_suggest.c diffs the two when built with
 * -DPIPEC_SOURCE_DIR="<repo root>". */
void explain_write_markdown(FILE *out);

#endif /* PIPEC_EXPLAIN_H */
