/* Fuzz target for `run --config FILE` (pipe_run_config_parse) against a
   pipeline with a parameter of each type. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/params.h"
#include "pipe/manifest.h"
#include "cmd/run_config.h"

static const char manifest[] = "manifest_version: 2\n"
                               "pipeline: fuzz\n"
                               "params:\n"
                               "  - {name: n, type: int, default: \"10\"}\n"
                               "  - {name: lr, type: float, default: \"0.5\"}\n"
                               "  - {name: flag, type: bool, default: \"false\"}\n"
                               "  - {name: tag, type: string}\n"
                               "steps:\n"
                               "  - name: s\n"
                               "    entry: s_main\n"
                               "    code_digest: "
                               "0000000000000000000000000000000000000000000000000000000000000000\n"
                               "    params: []\n"
                               "    outputs: []\n"
                               "invocations:\n"
                               "  - {id: s, step: s, needs: [], args: []}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pipe_manifest *m;
    char err[1024];
    if (!m && pipe_manifest_parse(manifest, sizeof manifest - 1, &m, err, sizeof err) != 0)
        abort(); /* the harness's own manifest */
    pipe_param_values v;
    pipe_run_config cfg = {0};
    if (pipe_params_init(m, &v) != 0)
        return 0;
    pipe_run_config_parse((const char *)data, size, "fuzz.yaml", m, &v, &cfg, err, sizeof err);
    pipe_run_config_free(&cfg);
    pipe_params_free(&v);
    return 0;
}
