/* Runs pipec's command line in the test's process (pipec_main), as the
   unit tests of the command line and of the targets' table do. */
#ifndef PIPEC_TESTS_RUN_PIPEC_H
#define PIPEC_TESTS_RUN_PIPEC_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

/* Runs pipec with its stdout and stderr in one string (freed by the caller). */
static inline char *run_pipec(int argc, char **argv, int *status)
{
    fflush(stdout);
    fflush(stderr);
    FILE *tmp = tmpfile();
    int out = dup(1), err = dup(2);
    dup2(fileno(tmp), 1);
    dup2(fileno(tmp), 2);
    *status = pipec_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    long len = ftell(tmp);
    char *text = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
    rewind(tmp);
    if (len > 0 && fread(text, 1, (size_t)len, tmp) != (size_t)len)
        text[0] = '\0';
    fclose(tmp);
    return text;
}

#endif
