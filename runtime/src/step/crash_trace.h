/* A native step's rank that a fault kills (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
   SIGABRT) leaves its backtrace, innermost call first, in its error file:
   the account that the failure's cause quotes (supervisor_failure.c, which
   adds file:line where addr2line finds them), then dies of the same signal,
   so that its status says what killed it. Not in a sanitizer build, whose
   own report says more. Private to the runtime. */
#ifndef PIPE_CRASH_TRACE_H
#define PIPE_CRASH_TRACE_H

#include <stddef.h>

/* Loads what a backtrace needs (libgcc_s's unwinder) in this process, once:
   called before forking ranks, so that each of them inherits it instead of
   loading it again. */
void pipe_crash_trace_prepare(void);

/* Installs the handlers in this process (a rank, before the step's code
   runs); error_file is copied. Best effort: nothing is reported. */
void pipe_crash_trace_install(const char *error_file);

/* text with each frame "FILE(+0xOFFSET)[0xADDR]" that addr2line knows
   written "FUNCTION (SOURCE:LINE)", and the runtime's frames from
   pipe_worker_run down left out (malloc'ed); NULL when nothing was
   resolved. */
char *pipe_crash_trace_resolve(const char *text);

#endif
