/* `pipec build`: runs the generators over the typed model of a checked
   pipeline (model.h) and writes the bundle, touching only files whose bytes
   changed. Generators see the model, never the syntax tree. This header
   is what they share: the bundle being built and the helpers that add to it
   (bundle.c); the build driver (build/bundle_build.c) runs them. */
#ifndef PIPEC_BUNDLE_H
#define PIPEC_BUNDLE_H

#include <stdbool.h>

#include "pipe/base.h"
#include "util/arena.h"
#include "model/model.h"
#include "util/strbuf.h"

typedef struct build_options {
    const char *out_dir;
    const char *pipeline; /* NULL: the only one */
    unsigned targets; /* a set of targets: bit i is row i of the table (targets/targets.h) */
    const char *depfile;    /* -MD -MF: Make-format dependencies */
    const char *dep_target; /* -MT: the rule's target (default OUT/bundle.yaml) */
    bool verbose;           /* -v: name each file written */
    /* For pipec-rebuild.cmake (gen_rebuild.c), absolute; NULL: not written. */
    const char *pipec_path;
    const char *pipe_path;
    const char *pipeline_name; /* the pipeline built (as --pipeline) */
    /* --registry: where every image is pushed and pulled from, over
       @docker(registry) (a deploy-time choice); NULL: none given. */
    const char *registry;
    /* --force: write over files that are not on the bundle's list of its
       own (bundle_list.h), e.g. the user's CMakeLists.txt in `-o .`. */
    bool force;
} build_options;

/* A user file copied into the bundle. */
typedef struct bundle_source {
    const char *disk_path;   /* where pipec read it (as the checker resolved it) */
    const char *bundle_path; /* relative to the bundle root: src/user/... */
    model_source_kind kind;  /* C, C++, CUDA, a header (listed or found through #include "..."),
                                or a file a command step ships (MODEL_SRC_FILE) */
    /* The file as pipec read it, for pipec-inputs.txt (gen_inputs.c), so
       that it is not read and hashed again: its size, modification time
       and the digest of the bytes copied. */
    long long size, mtime_ns;
    unsigned char digest[PIPE_SHA256_SIZE];
} bundle_source;

/* What the generators know about an invoked step beyond its settings. */
typedef struct bundle_step {
    const pipe_mstep *m;  /* its settings (code_digest and sources filled by gen_user_sources) */
    const model_step *ms; /* its source files as the checker resolved them */
    ptr_vec files;        /* bundle_source*: its sources, then the headers they include */
    bool needs_gpu;       /* in some invocation */
    const char *workdir;  /* a command step's folder in the bundle (gen_user_sources) */
} bundle_step;

typedef struct bundle_file {
    const char *path; /* relative to the bundle root */
    strbuf text;
    bool executable;
    const char *target; /* the target that wrote it (deploy_target.name) */
} bundle_file;

typedef struct bundle_image bundle_image;

typedef struct bundle {
    model *model;
    const pipe_manifest *mf; /* &model->manifest */
    const build_options *opts;
    arena *arena;
    const char *source_name; /* the .pipe file's name, for banners (mf->source) */
    bundle_step *steps;      /* one per mf->steps, in first-use order */
    ptr_vec sources;         /* bundle_source*, every user file once */
    ptr_vec inputs;          /* const char*: every file read (for the depfile) */
    ptr_vec files;           /* bundle_file* to write */
    bool needs_cuda;         /* some invocation of a native step needs a GPU: emit <pipeline>_cuda.cu */
    bool has_commands;       /* some step runs a program: the bundle installs src/user */
    ptr_vec images;          /* bundle_image*, distinct, in first-use order (bundle_resolve_images) */
    bundle_image **image_of; /* per invocation of mf; NULL until bundle_resolve_images ran */
    const char *target;      /* the target whose files are being added */
    /* The targets built, as --target takes them ("all", "local,slurm"):
       what pipec-rebuild.cmake and pipec-inputs.txt build again with. */
    const char *targets_text;
} bundle;

/* The registry part of an image's reference when no registry was given
   (@docker(registry), `pipec build --registry`): the scripts that push or
   submit replace it with $PIPE_REGISTRY and refuse to run without it. */
#define BUNDLE_REGISTRY_PLACEHOLDER "PIPE_REGISTRY"

/* The container image an invocation runs in (bundle_images.c). Steps
   without @docker get a default: a pinned CUDA image when they need a GPU,
   Debian otherwise (is_default says so). */
struct bundle_image {
    const char *id;       /* folder under docker/: "<base-name>-<8 hex>", unique per distinct image */
    const char *name;     /* its repository: "<pipeline>-<id>", lower case */
    const char *tag;      /* 16 hex digits: a digest of the Dockerfile, the files it copies and the settings */
    const char *registry; /* --registry, else @docker(registry), else BUNDLE_REGISTRY_PLACEHOLDER */
    bool registry_given;  /* false: registry is the placeholder */
    /* What every deploy target runs: "REGISTRY/NAME:TAG". Any change to
       the code or the image's settings gives another tag; never `latest`. */
    const char *ref;
    const char *parent;   /* runtime stage base */
    const char *build;    /* build stage base */
    const pipe_mimage *given; /* the @docker options of its first invocation (lists, environment) */
    bool is_default;
    bool cuda;            /* some step using it needs a GPU or has .cu sources */
    ptr_vec invs;         /* const pipe_minvocation*: those that run in it, in pipeline order */
    const char *dockerfile;             /* the text of docker/<id>/Dockerfile */
    const model_file *requirements;     /* @docker(requirements_file), or NULL */
};

/* Groups the invocations into images, writes each Dockerfile (in memory)
   and gives each image its reference. The build driver runs it after the
   `local` target (the tag digests its files) and before the others.
   0, or -1 with a message in err (a value a Dockerfile cannot hold). */
int bundle_resolve_images(bundle *b, char *err, size_t errsize);
/* The image of inv (after bundle_resolve_images); the same pointer for
   invocations that share an image. */
const bundle_image *bundle_image_of(const bundle *b, const pipe_minvocation *inv);

/* The registry, for the scripts that push or pull the images
   (bundle_registry.c). Whether some image has none: its reference starts
   with BUNDLE_REGISTRY_PLACEHOLDER. */
bool bundle_images_need_registry(const bundle *b);
/* For a POSIX shell script: when some image has no registry, lines that
   stop it (exit 1, a message naming `script` and saying that PIPE_REGISTRY
   names the registry "to <action>", e.g. "push the images to") unless
   PIPE_REGISTRY is set, then drop a final `/` from it and stop unless it
   holds only [A-Za-z0-9._:/-] (so it can replace the placeholder in YAML
   or a sed expression as it is); nothing otherwise. */
void bundle_registry_guard(const bundle *b, strbuf *sb, const char *script, const char *action);
/* An image's reference as one word of such a script: `"$PIPE_REGISTRY/NAME:TAG"`
   without a registry, else the reference quoted. */
void bundle_image_ref_shell(const bundle_image *img, strbuf *sb);

/* Adds an output file; returns its text buffer. */
strbuf *bundle_add_file(bundle *b, const char *path, bool executable);
/* The step an invocation runs. */
const pipe_mstep *bundle_step_of(const bundle *b, const pipe_minvocation *inv);
/* The banner every generated text file starts with, in a comment of `prefix`
   (e.g. "#" or "//"); C uses the block form. */
void bundle_banner(const bundle *b, strbuf *sb, const char *prefix);

/* The invocations that run on more than one machine. */
static inline int64_t invocation_machines(const pipe_minvocation *inv)
{
    return inv->accelerate.enabled && inv->accelerate.num_machines > 1 ? inv->accelerate.num_machines : 1;
}

/* @checkpoint's grace in whole seconds, rounded up, as schedulers take it
   (the checker keeps it within 1 to 65535 s); 0 without @checkpoint. */
static inline uint64_t invocation_grace_s(const pipe_minvocation *inv)
{
    return inv->checkpoint.enabled ? (inv->checkpoint.grace_ms + 999) / 1000 : 0;
}

/* The generators of the bundle itself, one file each (gen_*.c), which the
   `local` target (targets/local/local.c) runs in this order; each deploy target's
   own is in its descriptor (targets/targets.h). */
int gen_user_sources(bundle *b, char *err, size_t errsize);
int gen_manifest(bundle *b, char *err, size_t errsize);
int gen_c(bundle *b, char *err, size_t errsize);
int gen_cuda(bundle *b, char *err, size_t errsize);
int gen_cmake(bundle *b, char *err, size_t errsize);
int gen_runtime(bundle *b, char *err, size_t errsize);
/* bundle.yaml's text into out; image_fields false leaves out each
   invocation's `image` (@docker) section. */
int gen_manifest_text(bundle *b, bool image_fields, strbuf *out, char *err, size_t errsize);
/* One invocation's entry of bundle.yaml (its settings after the pipeline's
   defaults, image included), as gen_manifest_text writes it: the language
   server's hover. */
int gen_invocation_text(const pipe_manifest *m, size_t index, strbuf *out, char *err, size_t errsize);
/* The same manifest as JSON, each value typed as the model holds it (the
   hidden `pipec build --manifest-json`, for tests/golden/manifest_data.py). */
int gen_manifest_json(const pipe_manifest *m, strbuf *out, char *err, size_t errsize);
/* The driver, src/<pipeline>_main.c (gen_driver_path), embedding
   manifest_yaml as its bundle.yaml. */
int gen_driver(bundle *b, const char *manifest_yaml, strbuf *out, char *err, size_t errsize);
const char *gen_driver_path(bundle *b);
/* pipec-rebuild.cmake: the build driver runs it last, since it lists every file. */
int gen_rebuild(bundle *b, char *err, size_t errsize);
/* pipec-inputs.txt: every file the build read, with its stat and digest
   and the bundle's copy of it, for `run` to notice edits (gen_inputs.c). */
int gen_inputs(bundle *b, char *err, size_t errsize);
/* An absolute form of path (relative to the working directory cwd, asked
   once for thousands of sources), or NULL (gen_rebuild.c). */
const char *bundle_absolute(bundle *b, const char *cwd, const char *path);

#endif
