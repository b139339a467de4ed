/* Fuzz target for step.yaml (pipe_step_record_parse): the record that the
   runner, `show`, the cache and every consumer read from the store. A
   record that parses is written back and must parse again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "store/stepfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pipe_step_record *r = NULL, *again = NULL;
    char err[512], *text = NULL;
    size_t len = 0;
    if (pipe_step_record_parse((const char *)data, size, &r, err, sizeof err) != 0)
        return 0;
    if (pipe_step_record_format(r, &text, &len, err, sizeof err) == 0) {
        if (pipe_step_record_parse(text, len, &again, err, sizeof err) != 0)
            __builtin_trap(); /* what the runtime writes, it must read */
        pipe_step_record_free(again);
        free(text);
    }
    pipe_step_record_free(r);
    return 0;
}
