/* Fuzz target for the runtime's bundle.yaml reader (pipe_manifest_parse):
   what every bundle executable parses first. A manifest that parses is
   compared with itself (every field is walked). Built for libFuzzer with
   PIPEC_FUZZ=ON, and replayed over tests/fuzz/runtime-corpus/manifest and
   the golden bundles by fuzz.replay_runtime. */
#include <stddef.h>
#include <stdint.h>

#include "pipe/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pipe_manifest *m = NULL;
    char err[512], diff[512];
    if (pipe_manifest_parse((const char *)data, size, &m, err, sizeof err) == 0) {
        if (pipe_manifest_compare(m, m, diff, sizeof diff) != 0)
            __builtin_trap(); /* a manifest differs from itself */
        pipe_manifest_free(m);
    }
    return 0;
}
