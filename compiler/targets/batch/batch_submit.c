/* batch/submit.sh (templates/batch-submit.sh.tmpl; docs/deploy-batch.md,
   "Submitting"): the pipeline's parameters, images, job definitions and
   jobs in DAG order, as shell words. */
#include <stdio.h>
#include <string.h>

#include "batch_target.h"
#include "util/escape.h"
#include "gen/template.h"
#include "targets/submit_params.h"

/* The .pipe file's name in a comment line. */
static void comment_text(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        sb_putc(sb, (*p < 0x20 || *p == 0x7f) ? ' ' : (char)*p);
}

static void word(strbuf *sb, const char *s)
{
    if (s && *s)
        esc_shell_word(sb, s);
    else
        sb_puts(sb, "''");
}

int batch_gen_submit(bundle *b, const batch_job *jobs, char *err, size_t errsize)
{
    const pipe_manifest *m = b->mf;
    strbuf source = STRBUF_INIT, names = STRBUF_INIT, required = STRBUF_INIT, defaults = STRBUF_INIT,
           help = STRBUF_INIT, images = STRBUF_INIT, defs = STRBUF_INIT, lines = STRBUF_INIT,
           placeholder = STRBUF_INIT, role = STRBUF_INIT;
    comment_text(&source, b->source_name);
    submit_params(m, &names, &required, &defaults, &help);
    for (size_t i = 0; i < m->ninvocations; i++) {
        const bundle_image *img = bundle_image_of(b, jobs[i].inv);
        bool seen_image = false, seen_def = false;
        for (size_t k = 0; k < i; k++) {
            seen_image = seen_image || bundle_image_of(b, jobs[k].inv) == img;
            seen_def = seen_def || strcmp(jobs[k].definition, jobs[i].definition) == 0;
        }
        if (!seen_image) {
            sb_puts(&images, "    ");
            word(&images, arena_printf(b->arena, "docker/%s/Dockerfile", img->id));
            sb_putc(&images, ' ');
            word(&images, img->ref);
            sb_putc(&images, '\n');
        }
        if (!seen_def) {
            sb_puts(&defs, "    ");
            word(&defs, jobs[i].definition);
            sb_putc(&defs, ' ');
            word(&defs, img->ref);
            sb_putc(&defs, '\n');
        }
        const pipe_minvocation *inv = jobs[i].inv;
        sb_puts(&lines, "    ");
        word(&lines, inv->id);
        sb_putc(&lines, ' ');
        word(&lines, jobs[i].job_name);
        sb_putc(&lines, ' ');
        word(&lines, jobs[i].definition);
        sb_putc(&lines, ' ');
        word(&lines, inv->batch.queue);
        sb_putc(&lines, ' ');
        strbuf needs = STRBUF_INIT;
        for (size_t k = 0; k < inv->nneeds; k++)
            sb_printf(&needs, "%s%d", k ? "," : "", inv->needs[k]);
        sb_printf(&lines, "'%s'", inv->nneeds ? sb_cstr(&needs) : "-"); /* digits and commas */
        sb_putc(&lines, '\n');
        sb_free(&needs);
    }
    word(&placeholder, BUNDLE_REGISTRY_PLACEHOLDER);
    word(&role, BATCH_EXECUTION_ROLE_PLACEHOLDER);
    tmpl_var vars[] = {
        {"source", sb_cstr(&source)},
        {"pipeline", m->pipeline},
        {"param_names", sb_cstr(&names)},
        {"required_params", sb_cstr(&required)},
        {"param_defaults", sb_cstr(&defaults)},
        {"param_help", sb_cstr(&help)},
        {"images", sb_cstr(&images)},
        {"definitions", sb_cstr(&defs)},
        {"jobs", sb_cstr(&lines)},
        {"placeholder", sb_cstr(&placeholder)},
        {"execution_role_placeholder", sb_cstr(&role)},
        {"ref_run_id", BATCH_REF_RUN_ID},
        {"ref_invocation", BATCH_REF_INVOCATION},
        {"param_prefix", BATCH_PARAM_PREFIX},
    };
    strbuf *out = bundle_add_file(b, "batch/submit.sh", true);
    const char *missing = NULL;
    int rc = tmpl_render("batch-submit.sh.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template batch-submit.sh.tmpl needs `%.40s`", missing ? missing : "?");
    strbuf *all[] = {&source, &names, &required, &defaults, &help, &images, &defs, &lines, &placeholder, &role};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sb_free(all[i]);
    return rc;
}
