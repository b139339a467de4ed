#include "gpu_type_values.h"

#include <ctype.h>

#include "hw/gpu_models.h"
#include "util/strbuf.h"
#include "util/suggest.h"

/* The model's name as written in the table, for "did you mean". */
static const char *closest_model(const char *text)
{
    const char *names[64];
    size_t n = gpu_models_known_count < 64 ? gpu_models_known_count : 64;
    for (size_t i = 0; i < n; i++)
        names[i] = gpu_models_known[i]->name;
    return suggest_closest(text, names, n);
}

/* W0408: every target spells a model its own way (gpu_models.h); a name
   that finds none still reaches them as written, which schedulers may not
   match (a Kubernetes pod that stays Pending, a SkyPilot task that finds no
   offer). */
bool option_check_gpu_model(diag_engine *d, const opt_value *v)
{
    if (gpu_model_find(v->s))
        return true;
    diagnostic *dg = diag_report(d, v->expr->sp, DIAG_W0408, "unknown GPU model \"%s\"", v->s);
    diag_label(d, dg, "not a model pipec knows");
    const char *close = closest_model(v->s);
    strbuf names = STRBUF_INIT;
    gpu_model_names(&names);
    if (close)
        diag_help(d, dg, "did you mean \"%s\"? pipec knows %s", close, sb_cstr(&names));
    else
        diag_help(d, dg, "pipec knows %s", sb_cstr(&names));
    diag_note_plain(d, dg, "every target gets \"%s\" as written, which its scheduler may not match", v->s);
    sb_free(&names);
    return true;
}

/* A GRES type ends at `:` and a GRES list at `,`: the type is one word of
   the characters gres.conf types are made of. */
static bool gres_type(const char *s)
{
    if (!*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(isalnum(*p) && *p < 0x80) && *p != '_' && *p != '-' && *p != '.')
            return false;
    return true;
}

bool option_check_gres_type(diag_engine *d, const opt_value *v)
{
    if (gres_type(v->s))
        return true;
    diagnostic *dg =
        diag_report(d, v->expr->sp, DIAG_E0201, "option `gpu_type` of @slurm must be a GRES type, not \"%s\"", v->s);
    diag_label(d, dg, "not a GRES type");
    diag_help(d, dg, "write the type as the cluster's gres.conf does (`Type=`), with letters, digits, `_`, `-` and "
                     "`.`, e.g. `gpu_type = \"h100\"`");
    return false;
}
