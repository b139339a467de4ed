/* `describe`'s text: the pipeline as the embedded manifest has it,
   parameters with their defaults, and per invocation its step, needs,
   arguments, resources, accelerate options, image, timeout and retry in
   words, then every other option in force as a .pipe file writes it, from
   the settings table (pipe/settings.def). Private to the runtime. */
#ifndef PIPE_DESCRIBE_H
#define PIPE_DESCRIBE_H

#include "pipe/manifest.h"

/* The pipeline onto stdout. */
void pipe_describe_print(const pipe_manifest *m);

#endif
