/* What an invocation's cache key covers besides its code, parameters and
   inputs (docs/runtime.md, "Caching"): its parts, name -> canonical text,
   which step.yaml records, and why two invocations' keys differ in words.
   Private to the runtime.

   The parts, in this order:
     every option the settings table (pipe/settings.def) marks PIPE_KEYED
       whose field is set, under its name ("mixed_precision"), or its
       decorator's and its own where two options share a name
       ("resources.cpu", "run_with_accelerate.cpu"): a row marked keyed
       later enters the key with no other change;
     "env.NAME" for each variable of the step's environment;
     "device": where the ranks run, "cpu" or the GPUs they are given
       ("gpu: 2 x NVIDIA H100 80GB HBM3"). */
#ifndef PIPE_CACHE_KEY_H
#define PIPE_CACHE_KEY_H

#include <stddef.h>

#include "pipe/manifest.h"
#include "pipe/settings.h"
#include "stepfile.h"

/* The most differences one explanation lists; the rest are counted. */
#define PIPE_CACHE_DIFF_LISTED 3

/* Sets rec's code digest and appends inv's parts to its key_parts (device:
   the device text, as the supervisor decided it). 0 or PIPE_ENOMEM. */
int pipe_cache_key_parts(const pipe_mstep *ms, const pipe_minvocation *inv, const char *device,
                         pipe_step_record *rec);
/* The name option o's part has (above). */
void pipe_cache_part_name(const pipe_option *o, char *buf, size_t size);
/* The canonical text of a set option (malloc'ed, NULL when memory runs
   out): a number, bool, size or duration as a .pipe file writes it, a
   string as it is, a list or a map as JSON. */
char *pipe_cache_option_text(const pipe_option *o, const pipe_minvocation *inv);

/* Why now's key differs from before's: "code changed", "parameter lr
   changed (0.1 -> 0.2)", "input data changed", "mixed_precision changed
   (bf16 -> no)", "device changed (gpu: 1 x A100 -> cpu)", separated by
   "; ", the first PIPE_CACHE_DIFF_LISTED of them then "(and N more)".
   Returns how many differ; 0 when the code, parameters, inputs and parts
   are the same (buf is then empty). */
size_t pipe_cache_key_diff(const pipe_step_record *now, const pipe_step_record *before, char *buf, size_t size);

#endif
