/* src/<pipeline>_cuda.cu, only when a step needs a GPU: the device glue the
   runtime calls through pipe_cuda_hooks. */
#include <stdio.h>

#include "bundle.h"
#include "template.h"

int gen_cuda(bundle *b, char *err, size_t errsize)
{
    if (!b->needs_cuda)
        return 0;
    const char *hooks = arena_printf(b->arena, "%s_cuda_hooks", b->mf->pipeline);
    tmpl_var vars[] = {{"source", b->source_name}, {"pipeline", b->mf->pipeline}, {"hooks", hooks}};
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "src/%s_cuda.cu", b->mf->pipeline), false);
    const char *missing = NULL;
    if (tmpl_render("cuda.cu.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing) != 0) {
        snprintf(err, errsize, "internal error: template cuda.cu.tmpl needs `%.40s`", missing);
        return -1;
    }
    return 0;
}
