/* One spelling per meaning (docs/language.md, "Neuron devices"): a step's
   Neuron devices written as @batch(trainium/inferentia) reach the model as
   @resources(trainium/inferentia), which every target and the runtime read;
   @resources' own count stays when both are given (E0211 holds them equal),
   and a pipeline's @batch default reaches its steps the same way. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "checked.h"
#include "model/model_build.h"

static char tmpdir[] = "/tmp/pipec-neuron-XXXXXX";

static const char *const steps =
    "@batch(trainium = 16)\n"
    "step a() {\n    command = [\"true\"]\n}\n"
    "@resources(inferentia = 4)\n@batch(inferentia = 4)\n"
    "step b() {\n    command = [\"true\"]\n}\n"
    "step c() {\n    command = [\"true\"]\n}\n"
    "@resources(trainium = 2)\n"
    "step d() {\n    command = [\"true\"]\n}\n";

/* The model of steps + pipeline (no error expected); NULL when it fails. */
static const pipe_minvocation *built(checked *c, model *m, const char *pipeline)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", steps, pipeline);
    check_text(c, text);
    CHECK_EQ_U64(diag_error_count(&c->d), 0);
    if (diag_error_count(&c->d) != 0 || c->pg.pipelines.len != 1)
        return NULL;
    model_build(m, &c->a, &c->pg, c->pg.pipelines.items[0]);
    return m->manifest.invocations;
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    checked_dir = tmpdir;
    checked c;
    model m;
    const pipe_minvocation *inv = built(&c, &m, "pipeline p() {\n    a()\n    b()\n    c()\n    d()\n}\n");
    if (inv) {
        /* a: @batch(trainium) only; its @batch field keeps what was written. */
        CHECK_EQ_U64(inv[0].resources.trainium, 16);
        CHECK_EQ_U64(inv[0].batch.trainium, 16);
        CHECK_EQ_U64(inv[0].resources.inferentia, 0);
        /* b: both, equal. */
        CHECK_EQ_U64(inv[1].resources.inferentia, 4);
        CHECK_EQ_U64(inv[1].resources.trainium, 0);
        /* c: none; d: @resources alone. */
        CHECK_EQ_U64(inv[2].resources.trainium + inv[2].resources.inferentia, 0);
        CHECK_EQ_U64(inv[3].resources.trainium, 2);
    }
    done(&c);
    /* A pipeline's @batch(inferentia) reaches its steps as @resources'. */
    inv = built(&c, &m, "@batch(inferentia = 1)\npipeline p() {\n    c()\n}\n");
    if (inv)
        CHECK_EQ_U64(inv[0].resources.inferentia, 1);
    done(&c);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_summary();
}
