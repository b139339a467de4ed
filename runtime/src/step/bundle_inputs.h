/* pipec-inputs.txt, which pipec writes into a bundle it builds from a .pipe
   file on this machine (compiler/gen/gen_inputs.c): the files the build
   read, each with its stat at the time, its SHA-256 and the bundle's copy.
   `run` compares them (run_rebuild.c) and the supervisor maps the copies
   back to the user's files in a program's output (docs/bundle-manifest.md). */
#ifndef PIPE_BUNDLE_INPUTS_H
#define PIPE_BUNDLE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pipe_bundle_input {
    long long size, mtime_ns;
    const char *sha256; /* 64 hex digits */
    const char *path;   /* the user's file, absolute */
    const char *copy;   /* the bundle's copy, relative to the bundle; NULL: none */
} pipe_bundle_input;

typedef struct pipe_bundle_inputs {
    char *text; /* the file, its tabs and newlines made NULs */
    const char *pipe, *pipec, *out, *command; /* NULL when not given */
    pipe_bundle_input *files;
    size_t nfiles;
} pipe_bundle_inputs;

/* Reads BUNDLE/pipec-inputs.txt into *in: 0, or 1 when the bundle has none
   (built by hand, by an older pipec, or without a .pipe file to follow). */
int pipe_bundle_inputs_load(const char *bundle, pipe_bundle_inputs *in);
void pipe_bundle_inputs_free(pipe_bundle_inputs *in);

/* The first file that changed since the build, or NULL: one whose stat
   differs from the recorded one and whose content differs too (a file
   touched, or saved unchanged, is not a change). A file missing here is
   never compared: a bundle in an image or on a cluster has no originals. */
const pipe_bundle_input *pipe_bundle_inputs_changed(const pipe_bundle_inputs *in);

/* line (n bytes) with each path of a copy in the bundle at `bundle` (as
   given, or its real path) replaced by the user's file, malloc'ed; NULL
   when it names none, which costs one substring search for the bundle's
   src/user/ folder. The table is read at the first line that names it. */
char *pipe_bundle_map_line(const char *bundle, const char *line, size_t n);

#endif
