/* The commands the bundle prints for the user to type next ("report:
   `./build/glyphs report ID --store runs`"): the executable as the user
   started it and the options of this run that the command needs, each word
   quoted for the shell where it must be, so that the line works when it is
   copied into the same shell. Private to the runtime. */
#ifndef PIPE_FOLLOWUP_H
#define PIPE_FOLLOWUP_H

#include <stddef.h>

/* Remembers how the executable was started (pipe_main's argv[0]): a path
   as given, a bare name (found on PATH) as it is. */
void pipe_followup_init(const char *argv0);

/* "EXE CMD WORD... [--store STORE]" (malloc'ed; NULL without memory): the
   words end with NULL; STORE is named unless it is the default `.pipe`, or
   NULL. */
char *pipe_followup(const char *store, const char *cmd, ...) __attribute__((sentinel));
/* The same with the words in an array (n of them, the command first). */
char *pipe_followup_words(const char *store, const char *const *words, size_t n);

#endif
