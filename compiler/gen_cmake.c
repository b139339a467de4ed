/* The bundle's CMakeLists.txt: builds the executable from the generated
   driver, the steps' sources and the runtime copy; CUDA optional. */
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "gpu_types.h"
#include "template.h"

/* nvcc -gencode targets: those of the GPU types the invocations ask for
   when every GPU invocation names a known one, else the data-center
   generations every current toolkit supports (Turing, Ampere, Hopper). */
static const char *cuda_architectures(bundle *b)
{
    strbuf sb = STRBUF_INIT;
    const char *out = "\"75;80;90\"";
    ptr_vec invs = {0};
    for (size_t i = 0; i < b->mf->ninvocations; i++)
        vec_push(b->arena, &invs, (void *)&b->mf->invocations[i]);
    if (gpu_architectures(&invs, &sb))
        out = arena_printf(b->arena, "\"%s\"", sb_cstr(&sb));
    sb_free(&sb);
    return out;
}

/* CMake list entries are quoted: bundle paths come from user file names. */
static void cmake_path(strbuf *sb, const char *path)
{
    sb_puts(sb, "  \"");
    for (const char *p = path; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '$' || *p == ';')
            sb_putc(sb, '\\');
        sb_putc(sb, *p);
    }
    sb_puts(sb, "\"\n");
}

int gen_cmake(bundle *b, char *err, size_t errsize)
{
    strbuf c = STRBUF_INIT, cu = STRBUF_INIT;
    for (size_t i = 0; i < b->sources.len; i++) {
        const bundle_source *s = b->sources.items[i];
        if (!s->is_header)
            cmake_path(s->is_cuda ? &cu : &c, s->bundle_path);
    }
    if (b->needs_cuda) {
        const char *glue = arena_printf(b->arena, "src/%s_cuda.cu", b->mf->pipeline);
        cmake_path(&cu, glue);
    }
    if (cu.len == 0)
        sb_puts(&cu, "  # (no CUDA sources)\n");
    tmpl_var vars[] = {{"source", b->source_name},
                       {"pipeline", b->mf->pipeline},
                       {"cuda_architectures", cuda_architectures(b)},
                       {"c_sources", sb_cstr(&c)},
                       {"cuda_sources", sb_cstr(&cu)}};
    strbuf *out = bundle_add_file(b, "CMakeLists.txt", false);
    const char *missing = NULL;
    int rc = tmpl_render("CMakeLists.txt.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template CMakeLists.txt.tmpl needs `%.40s`", missing);
    sb_free(&c);
    sb_free(&cu);
    return rc;
}
