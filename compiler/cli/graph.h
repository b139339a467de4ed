/* `pipec graph`: a pipeline's invocations and data flow as text, dot or mermaid. */
#ifndef PIPEC_GRAPH_H
#define PIPEC_GRAPH_H

#include "check/program.h"
#include "util/strbuf.h"

typedef enum { GRAPH_TEXT, GRAPH_DOT, GRAPH_MERMAID } graph_format;

void graph_render(const pipeline_info *pl, graph_format fmt, strbuf *out);

#endif
