#include "template.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/embedded.h"

static bool is_placeholder_char(char c) { return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '_'; }

int tmpl_render_text(const char *text, const tmpl_var *vars, size_t nvars, strbuf *out, const char **missing)
{
    const char *p = text;
    while (*p) {
        const char *start = strstr(p, "${");
        if (!start) {
            sb_puts(out, p);
            break;
        }
        sb_putn(out, p, (size_t)(start - p));
        const char *name = start + 2, *end = name;
        while (is_placeholder_char(*end))
            end++;
        if (end == name || *end != '}') {
            /* Not ours: copy "${" and go on. */
            sb_putn(out, start, 2);
            p = start + 2;
            continue;
        }
        size_t len = (size_t)(end - name);
        const tmpl_var *v = NULL;
        for (size_t i = 0; i < nvars && !v; i++)
            if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0)
                v = &vars[i];
        if (!v) {
            if (missing)
                *missing = name;
            return -1;
        }
        sb_puts(out, v->value);
        p = end + 1;
    }
    return 0;
}

int tmpl_render(const char *name, const tmpl_var *vars, size_t nvars, strbuf *out, const char **missing)
{
    const embedded_file *f = embedded_find(embedded_templates, name);
    if (!f) {
        if (missing)
            *missing = name;
        return -1;
    }
    return tmpl_render_text(f->data, vars, nvars, out, missing);
}
