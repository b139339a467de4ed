/* A command step's program (private; docs/command-steps.md): its `{NAME}`
   placeholders, where the program is, and the bundle folder it runs in. The
   placeholders are read by the scanner pipec checks them with (E0119,
   pipe/placeholder.h). */
#ifndef PIPE_COMMAND_H
#define PIPE_COMMAND_H

#include <stddef.h>

#include "pipe/driver.h"

/* The value of the placeholder {name} (len bytes), NULL when it names
   nothing. */
typedef const char *pipe_placeholder_fn(void *arg, const char *name, size_t len);

/* tmpl with each {NAME} replaced by lookup's value and {{ }} by { }, into a
   malloc'ed *out. PIPE_EINVAL for an unknown name, `{}` or a lone brace
   (pipec rejects them: only a hand-edited manifest has them), naming it. */
int pipe_command_expand(const char *tmpl, pipe_placeholder_fn *lookup, void *arg, char **out, char *err,
                        size_t errsize);

/* The file a program name runs, as execvp would find it: a name with a '/'
   relative to cwd, else the first executable file of that name in the
   folders of path_env (the current folder for an empty entry). malloc'ed;
   PIPE_ENOENT with a message naming what was searched. */
int pipe_command_find(const char *program, const char *path_env, const char *cwd, char **out, char *err,
                      size_t errsize);

/* The bundle's folder, malloc'ed: $PIPE_BUNDLE_DIR; else, for an installed
   executable (PREFIX/bin/EXE), PREFIX/share/pipe/PIPELINE when it exists;
   else the folder the bundle was built in (prog->bundle_dir) when it
   exists. NULL with the places tried in err. */
char *pipe_bundle_dir(const pipe_program *prog, const char *pipeline, char *err, size_t errsize);

#endif
