/* Names for the deploy targets: Kubernetes object names, label values and
   Argo task names, SkyPilot task names. Each is derived from .pipe
   identifiers deterministically, restricted to what the target accepts, and
   unique within one bundle (docs/deploy-kubernetes.md, "Names"). */
#ifndef PIPEC_K8S_NAMES_H
#define PIPEC_K8S_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/strbuf.h"
#include "util/symtab.h"

/* Label values, Service names, Argo task and template names. */
#define K8S_LABEL_MAX 63
/* Job names. An Indexed Job's pods are named `<job>-<index>` and that name
   must stay a 63-character DNS label: 11 characters stay free for "-" and
   the index, and 6 more for the "-xxxxx" Argo's generateName adds. */
#define K8S_JOB_NAME_MAX 46
/* The shortest max k8s_name accepts: room for a hash suffix. */
#define K8S_NAME_MIN 16

/* The names handed out so far, so that two texts never share a name. */
typedef struct k8s_names {
    arena *arena;
    symtab by_text; /* what a name was made from -> the name */
    symtab taken;   /* name -> itself */
} k8s_names;

void k8s_names_init(k8s_names *t, arena *a);
/* Frees the tables; the names stay (they are in the arena). */
void k8s_names_free(k8s_names *t);

/* Appends the plain sanitized form of text to out: lower-case letters,
   digits and single '-' (every other byte, '_' and non-ASCII included,
   becomes '-'), starting with a letter and ending with a letter or digit
   (a DNS-1035 label, which is also a DNS-1123 label and a valid label
   value); "x" when nothing is left. Longer than max (>= K8S_NAME_MIN): cut
   to max - 7 and ended with "-" and 6 hex digits of SHA-256(text). */
void k8s_sanitize(strbuf *out, const char *text, size_t max);

/* The name of text in t: k8s_sanitize's form, unless another text already
   has it; then the form cut to max - 7 with "-" and the first hex digits of
   SHA-256(text) (more digits, then a counter, if that is taken too). The same
   text always gets the same name. Allocated in t's arena. */
const char *k8s_name(k8s_names *t, const char *text, size_t max);


#endif
