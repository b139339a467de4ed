/* The diagnostic codes (compiler/util/diag_codes.def) as an enum, with their
   severity, title and primary position. */
#ifndef PIPEC_DIAG_CODES_H
#define PIPEC_DIAG_CODES_H

#include <stdbool.h>

typedef enum { DIAG_ERROR, DIAG_WARNING } diag_severity;

/* DIAG_E0201, ..., DIAG_W0405: the prefix keeps the names clear of the
   E<digit> macros that <errno.h> may define. */
typedef enum {
#define DIAG_CODE(code, severity, title, position) DIAG_##code,
#include "diag_codes.def"
#undef DIAG_CODE
    DIAG_CODE_COUNT
} diag_code;

typedef struct diag_code_info {
    const char *name;     /* "E0303" */
    diag_severity severity;
    const char *title;    /* one line, lower case, no final period */
    const char *position; /* the primary position, in words */
} diag_code_info;

/* c must be a diag_code below DIAG_CODE_COUNT. */
const diag_code_info *diag_code_get(diag_code c);
const char *diag_code_name(diag_code c);

/* Case-insensitive ("e0303" works); false when name is no code. */
bool diag_code_lookup(const char *name, diag_code *out);

/* A lexical or syntax error (E0001-E0004, E0010): what follows it in the
   file may have been lost to error recovery. */
bool diag_code_is_syntax(diag_code c);

#endif
