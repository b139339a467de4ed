/* The pipeline's parameters as the generated submit scripts take them
   (templates/submit.sh.tmpl, templates/skypilot-submit.sh.tmpl,
   templates/kubernetes-submit.sh.tmpl): which
   names --param accepts, which must be given, and a help line for each. */
#ifndef PIPEC_SUBMIT_PARAMS_H
#define PIPEC_SUBMIT_PARAMS_H

#include "pipe/manifest.h"
#include "util/strbuf.h"

/* Appends the names (shell words, space-separated), the names without a
   default (the same), the defaults in the names' order ('' for none; only
   when defaults is not NULL), and one line per parameter, the shell word
   "NAME: TYPE = DEFAULT" (or "NAME: TYPE (required)") indented by four. */
void submit_params(const pipe_manifest *m, strbuf *names, strbuf *required, strbuf *defaults, strbuf *help);

#endif
