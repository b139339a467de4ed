/* Numbers for people: what the runner's progress lines, `show`, `runs`,
   `describe` and the report print (measured times, sizes, metric values).
   In the base because those live in several layers of the runtime; the
   exact forms the language writes are pipe_format_size and
   pipe_format_duration (pipe/base.h). */
#ifndef PIPE_HUMAN_H
#define PIPE_HUMAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A measured time: "0.42 s", "12.3 s", "2m 05s", "1h 02m". */
void pipe_format_seconds(double seconds, char *buf, size_t size);

/* Bytes: pipe_format_size's unit spaced out ("16 GB", "512 MiB") when one
   divides it exactly, else 3 significant digits ("25.3 GB"), "0 bytes". */
void pipe_format_size_human(uint64_t bytes, char *buf, size_t size);

/* A number: 3 or 4 significant digits, no exponent between 1e-4 and 1e7. */
void pipe_format_short(double v, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
