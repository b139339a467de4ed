/* kubernetes/submit.sh (templates/kubernetes-submit.sh.tmpl;
   docs/deploy-kubernetes.md, "Submitting"): the pipeline's parameters,
   images, invocations and the places of their documents in
   kubernetes/<pipeline>.yaml, as shell words. */
#include <stdio.h>

#include "util/escape.h"
#include "gen/template.h"
#include "k8s_target.h"
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

int k8s_gen_submit(const k8s_plan *p, char *err, size_t errsize)
{
    bundle *b = p->b;
    const pipe_manifest *m = b->mf;
    strbuf source = STRBUF_INIT, names = STRBUF_INIT, required = STRBUF_INIT, defaults = STRBUF_INIT,
           help = STRBUF_INIT, images = STRBUF_INIT, invs = STRBUF_INIT, ns = STRBUF_INIT, cm = STRBUF_INIT,
           placeholder = STRBUF_INIT, label = STRBUF_INIT;
    comment_text(&source, b->source_name);
    submit_params(m, &names, &required, &defaults, &help);
    for (size_t i = 0; i < b->images.len; i++) {
        const bundle_image *img = b->images.items[i];
        sb_puts(&images, i ? " " : "");
        word(&images, img->id);
        sb_putc(&images, ' ');
        word(&images, img->ref);
    }
    /* Documents: the banner, then the Services, the Jobs, the Workflow
       (kubernetes.c writes them in that order). */
    size_t service_doc = 0;
    for (size_t i = 0; i < p->ninvs; i++) {
        const k8s_inv *ki = &p->invs[i];
        sb_puts(&invs, "    ");
        word(&invs, ki->inv->id);
        sb_putc(&invs, ' ');
        word(&invs, ki->job);
        sb_putc(&invs, ' ');
        word(&invs, ki->inv->kubernetes.namespace_);
        sb_printf(&invs, " %zu %zu\n", p->nservices + i + 1, ki->service_task ? ++service_doc : (size_t)0);
    }
    word(&ns, p->store_ns);
    word(&cm, p->configmap);
    word(&label, p->pl_label);
    word(&placeholder, BUNDLE_REGISTRY_PLACEHOLDER);
    char workflow_doc[32];
    snprintf(workflow_doc, sizeof workflow_doc, "%zu", p->nservices + p->ninvs + 1);
    tmpl_var vars[] = {
        {"source", sb_cstr(&source)},
        {"pipeline", m->pipeline},
        {"param_names", sb_cstr(&names)},
        {"required_params", sb_cstr(&required)},
        {"param_defaults", sb_cstr(&defaults)},
        {"param_help", sb_cstr(&help)},
        {"placeholder", sb_cstr(&placeholder)},
        {"configmap", sb_cstr(&cm)},
        {"pipeline_label", sb_cstr(&label)},
        {"namespace", sb_cstr(&ns)},
        {"images", sb_cstr(&images)},
        {"invocations", sb_cstr(&invs)},
        {"workflow_document", workflow_doc},
    };
    strbuf *out = bundle_add_file(b, "kubernetes/submit.sh", true);
    const char *missing = NULL;
    int rc = tmpl_render("kubernetes-submit.sh.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template kubernetes-submit.sh.tmpl needs `%.40s`",
                 missing ? missing : "?");
    strbuf *all[] = {&source, &names, &required, &defaults, &help, &images, &invs, &ns, &cm, &placeholder, &label};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sb_free(all[i]);
    return rc;
}
