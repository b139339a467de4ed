/* Templates (templates/NAME.tmpl, embedded in pipec): text with ${name} placeholders,
   where name is lower-case letters, digits and '_'. Any other `${...}`
   (CMake's ${VAR}, shell's ${HOME}) is copied as it is. */
#ifndef PIPEC_TEMPLATE_H
#define PIPEC_TEMPLATE_H

#include <stddef.h>

#include "util/strbuf.h"

typedef struct tmpl_var {
    const char *name;
    const char *value;
} tmpl_var;

/* Renders the embedded template `name` into out. A placeholder without a
   value is a bug in pipec: returns -1 with its name in missing. */
int tmpl_render(const char *name, const tmpl_var *vars, size_t nvars, strbuf *out, const char **missing);
/* Renders template text given directly (tests). */
int tmpl_render_text(const char *text, const tmpl_var *vars, size_t nvars, strbuf *out, const char **missing);

#endif
