/* The parameters of the generated submit scripts (submit_params.h). */
#include "submit_params.h"

#include "util/escape.h"

void submit_params(const pipe_manifest *m, strbuf *names, strbuf *required, strbuf *defaults, strbuf *help)
{
    strbuf line = STRBUF_INIT;
    for (size_t i = 0; i < m->nparams; i++) {
        const pipe_mparam *p = &m->params[i];
        if (names->len)
            sb_putc(names, ' ');
        esc_shell_word(names, p->name);
        if (defaults) {
            if (i)
                sb_putc(defaults, ' ');
            if (p->default_value && *p->default_value)
                esc_shell_word(defaults, p->default_value);
            else
                sb_puts(defaults, "''");
        }
        if (!p->default_value) {
            if (required->len)
                sb_putc(required, ' ');
            esc_shell_word(required, p->name);
        }
        sb_reset(&line);
        sb_printf(&line, "%s: %s", p->name, p->type_name);
        if (p->default_value)
            sb_printf(&line, " = %s", p->default_value);
        else
            sb_puts(&line, " (required)");
        sb_puts(help, "    ");
        esc_shell_word(help, sb_cstr(&line));
        sb_putc(help, '\n');
    }
    sb_free(&line);
}
