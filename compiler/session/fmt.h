/* `pipec fmt`: prints a parsed file in the canonical layout, keeping every
   comment. The rules are in docs/fmt.md. */
#ifndef PIPEC_FMT_H
#define PIPEC_FMT_H

#include <stdbool.h>

#include "front/ast.h"
#include "util/source.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* A bracketed list stays on one line when the whole line fits in this many
   columns (code points, comments not counted). */
#define FMT_MAX_WIDTH 100
/* Spaces per indentation level. */
#define FMT_INDENT 4

/* Writes the canonical layout of f (parsed from src) into out. Returns false
   (writing nothing) if f had syntax errors (f->syntax_errors > 0): fmt never
   rewrites a file it could not parse fully. It also refuses a file with a
   lexical error the parser recovers from silently (a stray character, an
   unterminated string, a bad escape, a control character or invalid UTF-8
   inside a string), since printing the tree would drop those bytes. */
bool format_file(const ast_file *f, const source_file *src, strbuf *out);

/* `pipec fmt` on file `file` of sources (read from disk or held in memory:
   the language server's formatting): parses it alone and formats it into
   out. False, with the reasons in d, when it has errors. */
bool format_source(arena *a, diag_engine *d, source_set *sources, uint32_t file, strbuf *out);

#endif
