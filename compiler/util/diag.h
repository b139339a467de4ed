/* Every diagnostic goes through here: collected, then printed sorted as
   text (with source line and caret underline), JSON lines or SARIF 2.1.0. */
#ifndef PIPEC_DIAG_H
#define PIPEC_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "diag_codes.h"
#include "source.h"

typedef enum { DIAG_FORMAT_TEXT, DIAG_FORMAT_JSON, DIAG_FORMAT_SARIF } diag_format;

typedef struct note_entry {
    span sp;
    bool has_span;
    char *message;
} note_entry;

typedef struct diagnostic {
    diag_code code; /* its severity comes with it (diag_codes.def) */
    span sp;
    bool has_pos; /* false: reported at FILE:1:1 with no source excerpt */
    bool byte_columns; /* its columns count bytes of the line, not characters */
    char *message;
    char *label; /* printed after the underline */
    char *help;
    /* What replaces sp to make it go away (the help line's suggestion), or
       NULL: the language server's quick fix. */
    char *fix;
    span fix_sp; /* what fix replaces: sp unless diag_fix_at said otherwise */
    bool has_fix_sp;
    ptr_vec notes; /* note_entry* */
    size_t seq;
} diagnostic;

typedef void (*diag_writer)(void *user, const char *text, size_t len);

typedef struct diag_engine {
    arena *arena;
    source_set *sources;
    ptr_vec diags;
    size_t errors, warnings;
    bool werror;
    size_t max_errors; /* stop collecting past this many errors */
    bool overflowed;
    diagnostic sink; /* returned once the limit is reached */
} diag_engine;

#define DIAG_MAX_ERRORS_DEFAULT 100

void diag_init(diag_engine *d, arena *a, source_set *sources);

/* Reports code at sp, as an error or a warning as diag_codes.def says. */
diagnostic *diag_report(diag_engine *d, span sp, diag_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A diagnostic with no position (printed at FILE:1:1). */
diagnostic *diag_report_file(diag_engine *d, uint32_t file, diag_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* E0105 at second: "second occurrence", a note at first ("first given
   here") and help (NULL: "remove one of them"). */
diagnostic *diag_given_twice(diag_engine *d, span second, span first, const char *help, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void diag_label(diag_engine *d, diagnostic *dg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_help(diag_engine *d, diagnostic *dg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_fix(diag_engine *d, diagnostic *dg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fix that replaces at, not the diagnostic's own span (an empty at
   inserts): a call's arguments rewritten, a missing one added. */
void diag_fix_at(diag_engine *d, diagnostic *dg, span at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_note(diag_engine *d, diagnostic *dg, span sp, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_note_plain(diag_engine *d, diagnostic *dg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Its LINE:COL (text, JSON, SARIF) counts bytes of the line: for positions
   inside a string whose value the message quotes byte by byte (E0119). */
void diag_byte_columns(diagnostic *dg);

/* Errors after -Werror promotion. */
size_t diag_error_count(const diag_engine *d);
bool diag_has_errors_in_file(const diag_engine *d, uint32_t file);

/* Sorts by file and position, drops exact duplicates, and writes everything. */
void diag_flush(diag_engine *d, diag_format fmt, diag_writer out, void *user);

/* Text for a command whose output is not the diagnostics (`graph`): the
   errors in full, the warnings as one line that names check_hint, the
   command that prints them. */
void diag_flush_errors_only(diag_engine *d, const char *check_hint, diag_writer out, void *user);

/* The diagnostics as every format prints them: sorted by file and
   position, exact duplicates dropped (the language server publishes these).
   The caller frees the array. */
diagnostic **diag_sorted(const diag_engine *d, size_t *count);
/* Error or warning, after -Werror promotion. */
bool diag_is_error(const diag_engine *d, const diagnostic *dg);
/* Where a code's explanation is published (SARIF's helpUri, the language
   server's codeDescription): docs/diagnostics.md, which is `pipec explain
   --markdown`, at the code's heading. */
void diag_code_help_uri(diag_code code, char *buf, size_t size);

/* "FILE:LINE:COL" for a span (static buffer-free: written into buf). */
void diag_format_position(const diag_engine *d, span sp, char *buf, size_t size);

#endif
