/* The numbers pipec and the runtime must agree on. Generated drivers and
   bundle.yaml carry the versions and the runtime refuses others; pipec
   writes them from here, so the two sides cannot drift apart. */
#ifndef PIPE_VERSION_H
#define PIPE_VERSION_H

/* Bumped whenever the driver tables (pipe/driver.h) change shape; generated
   code checks it. */
#define PIPE_ABI_VERSION 3

/* The bundle.yaml format (docs/bundle-manifest.md) pipec writes and the
   runtime reads. */
#define PIPE_MANIFEST_VERSION 2

/* When @timeout expires the runtime sends SIGTERM, then SIGKILL this much
   later; pipec counts it into Slurm time limits. */
#define PIPE_KILL_GRACE_MS 5000

/* A number above as text, for code generators: PIPE_VERSION_TEXT(PIPE_ABI_VERSION) is "3". */
#define PIPE_VERSION_TEXT(v) PIPE_VERSION_TEXT_(v)
#define PIPE_VERSION_TEXT_(v) #v

#endif
