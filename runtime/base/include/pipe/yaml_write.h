/* The YAML writer over libyaml's emitter: pipec's generated YAML (the
   Kubernetes and SkyPilot files, through compiler/gen/yaml_emit.h; not
   bundle.yaml, which compiler/gen/yaml_direct.c writes without an
   emitter for speed) and the runtime's records (run.yaml, step.yaml). Block style unless flow is asked for, indent 2, no line
   folding, UTF-8 written as it is; libyaml quotes what needs it, so that no
   value is quoted by hand. Calls after a failure do nothing; pipe_yw_close
   (pipe_yw_finish) reports it. */
#ifndef PIPE_YAML_WRITE_H
#define PIPE_YAML_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the text goes: appends n bytes; false when it cannot (libyaml then
   fails with "write error"). */
typedef bool pipe_yw_sink(void *arg, const char *data, size_t n);

typedef struct pipe_yw {
    yaml_emitter_t emitter;
    pipe_yw_sink *sink;
    void *arg;
    char *buf; /* pipe_yw_begin's text */
    size_t len, cap;
    const char *problem; /* libyaml's words for a failure (static text), after close */
    bool failed;
    bool started;
} pipe_yw;

/* A stream into sink(arg), documents to come. PIPE_ENOMEM when libyaml
   cannot start (nothing to close then). */
int pipe_yw_open(pipe_yw *w, pipe_yw_sink *sink, void *arg);
/* explicit_start writes `---` (needed between documents). */
void pipe_yw_doc_begin(pipe_yw *w, bool explicit_start);
void pipe_yw_doc_end(pipe_yw *w);
/* Ends the stream and frees the emitter: 0, PIPE_EINVAL when libyaml
   refused an event or the sink failed (w->problem says which), PIPE_ENOMEM
   when an event could not be made (out of memory, or text that is not
   UTF-8). */
int pipe_yw_close(pipe_yw *w);

void pipe_yw_map_begin(pipe_yw *w, bool flow);
void pipe_yw_map_end(pipe_yw *w);
void pipe_yw_seq_begin(pipe_yw *w, bool flow);
void pipe_yw_seq_end(pipe_yw *w);
/* A scalar in this style (libyaml falls back to a quoted one where the
   style cannot hold the text); NULL is written as "". */
void pipe_yw_scalar(pipe_yw *w, const char *s, yaml_scalar_style_t style);
/* Plain style where YAML allows it (libyaml quotes otherwise). */
void pipe_yw_plain(pipe_yw *w, const char *s);
/* Always double-quoted: strings that a reader must not take for a number or a bool. */
void pipe_yw_quoted(pipe_yw *w, const char *s);
/* Whether a string that came from a user may be written unquoted: a letter,
   then letters, digits and -_./ only, and not a word YAML 1.1 readers take
   for a bool or null (y, n, yes, no, on, off, true, false, null, in any
   case). */
bool pipe_yaml_plain_ok(const char *s);
/* Such a string: plain when pipe_yaml_plain_ok, else double-quoted, so that
   YAML 1.1 and 1.2 readers see the same string. */
void pipe_yw_string(pipe_yw *w, const char *s);
/* A key (plain) and its value. */
void pipe_yw_key_plain(pipe_yw *w, const char *key, const char *value);
void pipe_yw_key_quoted(pipe_yw *w, const char *key, const char *value);
void pipe_yw_key_string(pipe_yw *w, const char *key, const char *value);
/* Decimal, without printf (a large bundle.yaml has hundreds of thousands). */
void pipe_yw_key_int(pipe_yw *w, const char *key, long long value);
void pipe_yw_key_uint(pipe_yw *w, const char *key, unsigned long long value);

/* One document into a malloc'ed buffer (the runtime's records): open and
   begin the document. */
int pipe_yw_begin(pipe_yw *w);
/* Ends the document; *text is malloc'ed and NUL-terminated. Frees w's state
   in every case; "cannot render YAML: ..." in err on failure. */
int pipe_yw_finish(pipe_yw *w, char **text, size_t *len, char *err, size_t errsize);
/* Frees w's state after an early exit. */
void pipe_yw_abandon(pipe_yw *w);

#ifdef __cplusplus
}
#endif

#endif
