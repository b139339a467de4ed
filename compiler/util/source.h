/* Source files and byte spans; line/column are computed only when printing. */
#ifndef PIPEC_SOURCE_H
#define PIPEC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct span {
    uint32_t file;  /* index into the source_set */
    uint32_t start; /* byte offsets, end exclusive */
    uint32_t end;
} span;

typedef struct source_file {
    char *path; /* as shown in diagnostics (relative as given) */
    char *text; /* NUL-terminated copy of the bytes, a lone CR read as LF */
    size_t len;
    bool lone_cr; /* the file breaks lines with a CR alone (old Mac style) somewhere */
    uint32_t *line_starts;
    size_t nlines;
} source_file;

typedef struct source_set {
    source_file **files;
    size_t len, cap;
} source_set;

/* Files larger than this are refused with a clear message. */
#define SOURCE_MAX_BYTES ((size_t)256 << 20)

void source_set_init(source_set *set);
void source_set_free(source_set *set);
/* Reads path into the set. Returns the file index, or -1 with a message
   ("No such file or directory", "is a directory", ...) in err. */
int source_load(source_set *set, const char *path, char *err, size_t errsize);
/* Adds in-memory text (tests, fuzzing). */
int source_add(source_set *set, const char *path, const char *text, size_t len);

/* 1-based line and column (column counted in code points). */
void source_position(const source_file *f, uint32_t offset, unsigned *line, unsigned *col);
/* Byte range [start, end) of 1-based line, without the newline. */
void source_line_range(const source_file *f, unsigned line, uint32_t *start, uint32_t *end);

#endif
