/* Follow-up commands as the user types them (followup.h). */
#include "followup.h"

#include <stdarg.h>
#include <string.h>

#include "util/textbuf.h"

static const char *invoked_as = NULL;

void pipe_followup_init(const char *argv0)
{
    invoked_as = argv0 && *argv0 ? argv0 : NULL;
}

/* One word for sh: as it is when every byte is harmless, else in single
   quotes ('\'' for a quote inside). */
static void shell_word(pipe_textbuf *b, const char *w)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
    if (*w && strspn(w, safe) == strlen(w)) {
        pipe_tb_puts(b, w);
        return;
    }
    pipe_tb_puts(b, "'");
    for (const char *p = w; *p; p++)
        if (*p == '\'')
            pipe_tb_puts(b, "'\\''");
        else
            pipe_tb_append(b, p, 1);
    pipe_tb_puts(b, "'");
}

static void add_store(pipe_textbuf *b, const char *store)
{
    if (store && strcmp(store, ".pipe") != 0) {
        pipe_tb_puts(b, " --store ");
        shell_word(b, store);
    }
}

char *pipe_followup(const char *store, const char *cmd, ...)
{
    pipe_textbuf b = {0};
    shell_word(&b, invoked_as ? invoked_as : "pipeline");
    pipe_tb_puts(&b, " ");
    shell_word(&b, cmd);
    va_list ap;
    va_start(ap, cmd);
    for (const char *w; (w = va_arg(ap, const char *));) {
        pipe_tb_puts(&b, " ");
        shell_word(&b, w);
    }
    va_end(ap);
    add_store(&b, store);
    return pipe_tb_take(&b, NULL);
}

char *pipe_followup_words(const char *store, const char *const *words, size_t n)
{
    pipe_textbuf b = {0};
    shell_word(&b, invoked_as ? invoked_as : "pipeline");
    for (size_t i = 0; i < n; i++) {
        pipe_tb_puts(&b, " ");
        shell_word(&b, words[i]);
    }
    add_store(&b, store);
    return pipe_tb_take(&b, NULL);
}
