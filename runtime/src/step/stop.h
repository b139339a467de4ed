/* How long a stopped invocation's processes get (private; docs/runtime.md,
   "Process model"): between SIGTERM and SIGKILL its ranks get @checkpoint's
   grace when it has one (time to save a checkpoint), else
   PIPE_KILL_GRACE_MS of pipe/version.h (the environment variable of that
   name overrides this default, for tests). The runner gives an
   invocation's supervisor that and PIPE_KILL_GRACE_MS more, so that the
   supervisor can stop its ranks within theirs and still write its
   step.yaml before it is killed itself; and it waits that long for the
   ranks of a supervisor that died before it kills them. */
#ifndef PIPE_STOP_H
#define PIPE_STOP_H

#include <stdint.h>

#include "pipe/manifest.h"

uint64_t pipe_stop_grace_ms(const pipe_minvocation *inv);
uint64_t pipe_stop_supervisor_grace_ms(const pipe_minvocation *inv);

#endif
