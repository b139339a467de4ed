/* `pipec build`: runs the generators over a checked pipeline and writes the
   bundle, touching only files whose bytes changed. */
#ifndef PIPEC_BUNDLE_H
#define PIPEC_BUNDLE_H

#include <stdbool.h>

#include "program.h"
#include "symtab.h"
#include "strbuf.h"

enum {
    TARGET_LOCAL = 1 << 0, /* driver sources, bundle CMakeLists.txt, runtime copy: always emitted */
    TARGET_DOCKER = 1 << 1,
    TARGET_SLURM = 1 << 2,
    TARGET_KUBERNETES = 1 << 3,
    TARGET_SKYPILOT = 1 << 4,
    TARGET_ALL = (1 << 5) - 1,
};

/* Parses "local,docker" or "all"; false with the bad word in *bad. */
bool parse_targets(const char *list, unsigned *mask, const char **bad);

typedef struct build_options {
    const char *out_dir;
    const char *pipeline; /* NULL: the only one */
    unsigned targets;
    const char *depfile;    /* -MD -MF: Make-format dependencies */
    const char *dep_target; /* -MT: the rule's target (default OUT/bundle.yaml) */
} build_options;

/* A user file copied into the bundle. */
typedef struct bundle_source {
    const char *disk_path;   /* where pipec read it (as the checker resolved it) */
    const char *bundle_path; /* relative to the bundle root: src/user/... */
    bool is_cuda;            /* .cu */
    bool is_header;          /* found through #include "..." */
} bundle_source;

/* What the generators know about an invoked step. */
typedef struct bundle_step {
    step_info *step;
    ptr_vec files; /* bundle_source*: its sources, then the headers they include */
    char digest[65];
    bool needs_gpu;   /* in some invocation */
    bool has_cuda_sources;
} bundle_step;

typedef struct bundle_file {
    const char *path; /* relative to the bundle root */
    strbuf text;
    bool executable;
} bundle_file;

typedef struct bundle {
    program *pg;
    pipeline_info *pl;
    const build_options *opts;
    arena *arena;
    const char *source_name; /* the .pipe file's name, for banners */
    ptr_vec steps;           /* bundle_step*, in first-use order */
    ptr_vec sources;         /* bundle_source*, every user file once */
    ptr_vec inputs;          /* const char*: every file read (for the depfile) */
    ptr_vec files;           /* bundle_file* to write */
    bool needs_cuda;         /* some invocation needs a GPU: emit <pipeline>_cuda.cu */
    ptr_vec images;          /* bundle_image*, distinct, in first-use order */
    symtab step_index;       /* step name -> bundle_step* */
} bundle;

/* The container image an invocation runs in (bundle_images.c). Steps
   without @docker get a default: a CUDA image matching the local toolkit
   when they need a GPU, Debian otherwise (is_default says so). */
typedef struct bundle_image {
    const char *id;     /* folder under docker/: "<base-name>-<8 hex>", unique per distinct image */
    const char *ref;    /* what deploy targets run: "pipec/<pipeline>-<id>:latest" */
    const char *parent; /* runtime stage base */
    const char *build;  /* build stage base */
    const ast_expr *apt_packages, *requirements, *environment; /* NULL when not given */
    bool is_default;
    bool cuda;          /* some step using it needs a GPU or has .cu sources */
} bundle_image;

/* The image of inv; the same pointer for invocations that share an image. */
const bundle_image *bundle_image_of(bundle *b, const invocation *inv);

/* Adds an output file; returns its text buffer. */
strbuf *bundle_add_file(bundle *b, const char *path, bool executable);
bundle_step *bundle_find_step(const bundle *b, const step_info *st);
/* The banner every generated text file starts with, in a comment of `prefix`
   (e.g. "#" or "//"); C uses the block form. */
void bundle_banner(const bundle *b, strbuf *sb, const char *prefix);

/* Whether an invocation needs a GPU (effective gpu > 0, or multi_gpu). */
bool invocation_needs_gpu(const invocation *inv);

/* Canonical text of a literal (what the manifest and the runtime use). */
void canonical_value(strbuf *sb, const ast_expr *v);

/* Generators, one file each (gen_*.c), run in this order from bundle.c. */
int gen_user_sources(bundle *b, char *err, size_t errsize);
int gen_manifest(bundle *b, char *err, size_t errsize);
int gen_c(bundle *b, char *err, size_t errsize);
int gen_cuda(bundle *b, char *err, size_t errsize);
int gen_cmake(bundle *b, char *err, size_t errsize);
int gen_runtime(bundle *b, char *err, size_t errsize);
int gen_docker(bundle *b, char *err, size_t errsize);
int gen_slurm(bundle *b, char *err, size_t errsize);
int gen_kubernetes(bundle *b, char *err, size_t errsize);
int gen_skypilot(bundle *b, char *err, size_t errsize);

/* Writes the bundle of pl. Returns 0, or -1 with a message in err (I/O). */
int bundle_build(program *pg, pipeline_info *pl, const build_options *opts, char *err, size_t errsize);

#endif
