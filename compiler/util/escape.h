/* Escaping per target language: nothing from a .pipe file reaches an
   output unescaped. YAML goes through libyaml's emitter instead. */
#ifndef PIPEC_ESCAPE_H
#define PIPEC_ESCAPE_H

#include <stdbool.h>

#include "strbuf.h"

/* A C string literal, quotes included: \" \\ \n \t, octal for other bytes
   below 0x20 and 0x7f, and `?` escaped so no trigraph can form. */
void esc_c_string(strbuf *sb, const char *s);
/* The body of a C comment: `*` followed by `/` is broken up, newlines become spaces. */
void esc_c_comment(strbuf *sb, const char *s);
/* One POSIX shell word: single-quoted unless it is plainly safe. */
void esc_shell_word(strbuf *sb, const char *s);
/* A JSON string (Dockerfile exec-form arrays are JSON). */
void esc_json_string(strbuf *sb, const char *s);
/* C and C++ keywords get a trailing `_` so a parameter named `int` or `new`
   can be a struct member (the generated header is also C++). */
const char *esc_c_member(const char *name, strbuf *scratch);
/* C11's keywords, which no C identifier (a step's entry function) may be. */
bool esc_is_c_keyword(const char *name);

/* An environment variable name every target accepts: [A-Za-z_][A-Za-z0-9_]*. */
bool esc_env_name_ok(const char *name);

#endif
