/* The checks of @docker's values beyond their kinds (option_docker.h). */
#include "option_docker.h"

#include <string.h>

#include "option_map.h"
#include "util/images.h"

/* The @docker option that does what a pip option among the requirements
   meant to: "-r FILE" is requirements_file, "--index-url=URL" index_url. */
static void pip_option_help(diag_engine *d, diagnostic *dg, const char *entry, const char *next)
{
    static const struct {
        const char *flag, *option;
        bool list;
    } flags[] = {
        {"-r", "requirements_file", false},  {"--requirement", "requirements_file", false},
        {"-i", "index_url", false},          {"--index-url", "index_url", false},
        {"--extra-index-url", "extra_index_urls", true},
    };
    const char *option = NULL, *value = NULL;
    bool list = false;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !option; i++) {
        const char *flag = flags[i].flag;
        size_t n = strlen(flag);
        bool is_short = flag[1] != '-';
        if (strncmp(entry, flag, n) != 0)
            continue;
        if (entry[n] == '\0')
            value = next; /* ["-r", "requirements.txt"] */
        else if (entry[n] == '=' || (is_short && entry[n] == ' '))
            value = entry + n + 1; /* "--index-url=URL", "-r reqs.txt" */
        else if (is_short)
            value = entry + n; /* "-rreqs.txt" */
        else
            continue; /* "--index-urls": another word */
        option = flags[i].option;
        list = flags[i].list;
    }
    const char *general = "each entry goes to pip as one requirement; pip's options are options of @docker: "
                          "`requirements_file` (-r), `index_url` (--index-url), `extra_index_urls` (--extra-index-url)";
    if (option && value && *value && !option_has_control_chars(value) && !strpbrk(value, "\"\\"))
        diag_help(d, dg, "write `%s = %s\"%s\"%s` instead; %s", option, list ? "[" : "", value, list ? "]" : "",
                  general);
    else if (option)
        diag_help(d, dg, "use `%s` instead; %s", option, general);
    else
        diag_help(d, dg, "%s", general);
}

/* @docker(registry): what goes before "/NAME:TAG" in every image reference. */
bool option_check_registry(diag_engine *d, const opt_value *v)
{
    if (image_registry_valid(v->s))
        return true;
    diagnostic *dg = diag_report(d, v->expr->sp, DIAG_E0201, "\"%s\" is not a registry", v->s);
    diag_label(d, dg, "images could not be named under it");
    diag_help(d, dg, "write the registry's host and path, as image names start: \"ghcr.io/team\", "
                        "\"localhost:5000\" or \"123456789012.dkr.ecr.us-east-1.amazonaws.com\" (no tag, no "
                        "final `/`, lower case after the host)");
    return false;
}

/* @docker(requirements): pipec passes each entry to pip after `--`, so one
   that starts with `-` would be read as a package named like an option. */
bool option_check_requirements(diag_engine *d, const opt_value *v)
{
    bool ok = true;
    const ptr_vec *items = &v->expr->u.items;
    for (size_t i = 0; i < items->len; i++) {
        const ast_expr *item = items->items[i];
        const char *text = item->u.s.text;
        if (text[0] != '-')
            continue;
        const ast_expr *next = i + 1 < items->len ? items->items[i + 1] : NULL;
        diagnostic *dg = diag_report(d, item->sp, DIAG_E0209, "\"%s\" in `requirements` is a pip option, not a "
                                     "requirement", text);
        diag_label(d, dg, "starts with `-`");
        pip_option_help(d, dg, text, next ? next->u.s.text : NULL);
        ok = false;
    }
    return ok;
}
