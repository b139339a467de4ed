/* `local`: the bundle itself, which every other target builds on: the
   user's sources, bundle.yaml, the C driver and its CUDA glue, the bundle's
   CMakeLists.txt and the runtime's sources (the generators in gen/). It is
   always built; pipec-rebuild.cmake, which lists every file, comes after
   all targets (build/bundle_build.c). */
#include "targets/targets.h"

#include "gen/bundle.h"

static int generate(bundle *b, char *err, size_t errsize)
{
    typedef int (*generator_fn)(bundle *b, char *err, size_t errsize);
    /* In this order: the manifest needs the code digests of the sources. */
    static const generator_fn parts[] = {gen_user_sources, gen_manifest, gen_c, gen_cuda, gen_cmake, gen_runtime};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i](b, err, errsize) != 0)
            return -1;
    return 0;
}

const deploy_target target_local = {
    .name = "local",
    .summary = "the bundle: driver sources, bundle.yaml, CMakeLists.txt, the runtime (always built)",
    .generate = generate,
    .templates = (const char *const[]){"pipeline.h.tmpl", "main.c.tmpl", "cuda.cu.tmpl", "CMakeLists.txt.tmpl",
                                       "pipec-rebuild.cmake.tmpl", NULL},
};
