/* Files compiled into pipec (cmake/embed.cmake): the templates and the
   runtime sources that every bundle carries, and the explanations behind
   `pipec explain`. */
#ifndef PIPEC_EMBEDDED_H
#define PIPEC_EMBEDDED_H

#include <stddef.h>

typedef struct embedded_file {
    const char *path; /* relative: "main.c.tmpl", "src/api.c" */
    const char *data; /* NUL-terminated */
    size_t len;
} embedded_file;

/* The tables end with an entry whose path is NULL. */
extern const embedded_file embedded_templates[];
extern const embedded_file embedded_runtime[];
extern const embedded_file embedded_python[]; /* "pipe/__init__.py": the bundle's python/ */
extern const embedded_file embedded_explain[]; /* "E0303.md" */

const embedded_file *embedded_find(const embedded_file *table, const char *path);

#endif
