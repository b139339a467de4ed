/* The bundle's CMakeLists.txt: builds the executable from the generated
   driver, the steps' sources and the runtime copy; CUDA optional. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bundle.h"
#include "hw/gpu_types.h"
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

/* A library name as the checker allows it: a plain word in CMake. */
static bool library_word(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.+-:", *p))
            return false;
    return *s != '\0';
}

/* Each step's `libraries` through pipe_link_library (runtime/cmake), which
   stops the configuration naming the step and the library when one is
   missing. A step whose only compiled sources are CUDA files links its
   libraries only when CUDA is compiled. */
static int libraries_block(bundle *b, strbuf *sb, char *err, size_t errsize)
{
    bool any = false;
    for (size_t i = 0; i < b->mf->nsteps; i++) {
        const pipe_mstep *st = &b->mf->steps[i];
        if (st->nlibraries == 0)
            continue;
        bool cuda_only = true;
        for (size_t k = 0; k < b->steps[i].ms->nsources; k++) {
            model_source_kind kind = b->steps[i].ms->sources[k].kind;
            cuda_only = cuda_only && (kind == MODEL_SRC_CUDA || !model_source_compiled(kind));
        }
        if (!any)
            sb_puts(sb, "# What the steps link (their `libraries`).\ninclude(runtime/cmake/PipeLinkLibrary.cmake)\n");
        any = true;
        if (cuda_only)
            sb_puts(sb, "if(PIPE_HAVE_CUDA)\n");
        for (size_t k = 0; k < st->nlibraries; k++) {
            if (!library_word(st->libraries[k])) {
                snprintf(err, errsize, "internal error: library \"%.60s\" of step `%s` is not a plain word",
                         st->libraries[k], st->name);
                return -1;
            }
            sb_printf(sb, "%spipe_link_library(%s %s \"%s\")\n", cuda_only ? "  " : "", b->mf->pipeline, st->name,
                      st->libraries[k]);
        }
        if (cuda_only)
            sb_puts(sb, "endif()\n");
    }
    return 0;
}

int gen_cmake(bundle *b, char *err, size_t errsize)
{
    strbuf c = STRBUF_INIT, cu = STRBUF_INIT, libs = STRBUF_INIT, install = STRBUF_INIT;
    bool cxx = false;
    for (size_t i = 0; i < b->sources.len; i++) {
        const bundle_source *s = b->sources.items[i];
        if (model_source_compiled(s->kind))
            cmake_path(s->kind == MODEL_SRC_CUDA ? &cu : &c, s->bundle_path);
        cxx = cxx || s->kind == MODEL_SRC_CXX;
    }
    if (libraries_block(b, &libs, err, errsize) != 0) {
        sb_free(&c);
        sb_free(&cu);
        sb_free(&libs);
        return -1;
    }
    if (b->has_commands)
        sb_printf(&install, "# The files command steps run with: the executable looks for them here\n"
                            "# (PREFIX/share/pipe/%s) when it is installed; python/ holds the `pipe`\n"
                            "# module, which every image has.\n",
                  b->mf->pipeline);
    else
        sb_printf(&install, "# The `pipe` Python module, which every image has, where an installed\n"
                            "# executable looks for the bundle's files (PREFIX/share/pipe/%s).\n",
                  b->mf->pipeline);
    if (b->has_commands)
        sb_printf(&install, "install(DIRECTORY src/user/ DESTINATION share/pipe/%s/src/user USE_SOURCE_PERMISSIONS)\n",
                  b->mf->pipeline);
    sb_printf(&install, "install(DIRECTORY python/ DESTINATION share/pipe/%s/python)\n", b->mf->pipeline);
    if (b->needs_cuda) {
        const char *glue = arena_printf(b->arena, "src/%s_cuda.cu", b->mf->pipeline);
        cmake_path(&cu, glue);
    }
    /* The CUDA runtime only for CUDA code: loading it costs every start of
       the executable (the runtime loads NCCL's itself when a rank needs it). */
    const char *cuda_link = cu.len ? arena_printf(b->arena, "  target_link_libraries(%s PRIVATE CUDA::cudart)\n",
                                                  b->mf->pipeline)
                                   : "";
    if (cu.len == 0)
        sb_puts(&cu, "  # (no CUDA sources)\n");
    tmpl_var vars[] = {{"source", b->source_name},
                       {"pipeline", b->mf->pipeline},
                       {"cuda_architectures", cuda_architectures(b)},
                       {"c_sources", sb_cstr(&c)},
                       {"cuda_sources", sb_cstr(&cu)},
                       {"cuda_link", cuda_link},
                       {"cxx_language", cxx ? " CXX" : ""},
                       {"cxx_standard", cxx ? arena_printf(b->arena,
                                                           "set_target_properties(%s PROPERTIES CXX_STANDARD 17 "
                                                           "CXX_STANDARD_REQUIRED ON)\n",
                                                           b->mf->pipeline)
                                            : ""},
                       {"libraries", sb_cstr(&libs)},
                       {"install_files", sb_cstr(&install)}};
    strbuf *out = bundle_add_file(b, "CMakeLists.txt", false);
    const char *missing = NULL;
    int rc = tmpl_render("CMakeLists.txt.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template CMakeLists.txt.tmpl needs `%.40s`", missing);
    sb_free(&c);
    sb_free(&cu);
    sb_free(&libs);
    sb_free(&install);
    return rc;
}
