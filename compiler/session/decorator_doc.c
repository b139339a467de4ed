#include "decorator_doc.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/settings.h"

/* A bound as the language writes it: 4096, "1s", "16GB". */
static void bound(const pipe_option *o, uint64_t b, char *buf, size_t size)
{
    char t[48];
    pipe_value v = {.i = (int64_t)b, .u = b};
    pipe_option_text(o, v, t, sizeof t);
    snprintf(buf, size, pipe_option_text_quoted(o) ? "\"%s\"" : "%s", t);
}

/* "integer from 1 to 4096", "duration of at least \"1s\"", "\"no\", \"fp16\", ...". */
static void value_words(const pipe_option *o, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", pipe_kind_get(o->kind)->doc);
    char lo[64], hi[64];
    bound(o, o->min, lo, sizeof lo);
    bound(o, o->max, hi, sizeof hi);
    bool ranged = pipe_option_ranged(o);
    if (o->values) {
        for (size_t i = 0; o->values[i] && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s`\"%s\"`", i ? ", " : " ", o->values[i]);
    } else if (ranged && pipe_option_has_max(o)) {
        snprintf(buf + n, size - n, " from %s to %s", lo, hi);
    } else if (ranged && o->min > 0) {
        snprintf(buf + n, size - n, " of at least %s", lo);
    } else if (ranged && !pipe_option_text_quoted(o)) {
        snprintf(buf + n, size - n, " >= %s", lo);
    }
}

static void default_words(const pipe_option *o, char *buf, size_t size)
{
    if (!o->default_text)
        snprintf(buf, size, "none");
    else if (pipe_option_text_quoted(o))
        snprintf(buf, size, "`\"%s\"`", o->default_text);
    else
        snprintf(buf, size, "`%s`", o->default_text);
}

static const char *where_words(const pipe_decorator_info *d)
{
    return d->on_step && d->on_pipeline ? "step or pipeline" : d->on_step ? "step only" : "pipeline only";
}

static const pipe_decorator_info *find(const char *name)
{
    return pipe_decorator_named(name[0] == '@' ? name + 1 : name);
}

/* Text for a terminal: the Markdown's code quotes left out. */
static void put_plain(const char *s, FILE *out)
{
    for (; *s; s++)
        if (*s != '`')
            fputc(*s, out);
}

bool decorator_doc_print(const char *name, FILE *out)
{
    const pipe_decorator_info *d = find(name);
    if (!d)
        return false;
    fprintf(out, "@%s (%s): %s\n", d->name, where_words(d), d->doc);
    if (d->noptions == 0)
        fprintf(out, "\nno options: write `@%s`\n", d->name);
    for (int i = 0; i < d->noptions; i++) {
        const pipe_option *o = &d->options[i];
        char value[256], dflt[128];
        value_words(o, value, sizeof value);
        default_words(o, dflt, sizeof dflt);
        fprintf(out, "\n  %s%s\n      %s\n      ", o->name, i == 0 && d->positional ? " (may be given without its name)" : "",
                o->doc);
        put_plain(value, out);
        fputs("; default ", out);
        put_plain(dflt, out);
        fputs(o->keyed ? "; in the cache key\n" : "; not in the cache key\n", out);
        if (o->help)
            fprintf(out, "      (%s)\n", o->help);
    }
    return true;
}

bool decorator_doc_hover(const char *decorator, const char *option, FILE *out)
{
    const pipe_decorator_info *d = find(decorator);
    if (!d)
        return false;
    if (!option) {
        fprintf(out, "**@%s** (%s)\n\n%s", d->name, where_words(d), d->doc);
        for (int i = 0; i < d->noptions; i++)
            fprintf(out, "%s`%s`", i ? ", " : "\n\noptions: ", d->options[i].name);
        fputc('\n', out);
        return true;
    }
    for (int i = 0; i < d->noptions; i++) {
        const pipe_option *o = &d->options[i];
        if (strcmp(o->name, option) != 0)
            continue;
        char value[256], dflt[128];
        value_words(o, value, sizeof value);
        default_words(o, dflt, sizeof dflt);
        fprintf(out, "**@%s(%s)**: %s\n\n%s; default %s; %s\n", d->name, o->name, o->doc, value, dflt,
                o->keyed ? "in the cache key" : "not in the cache key");
        if (o->help)
            fprintf(out, "\n%s\n", o->help);
        return true;
    }
    return false;
}

void decorator_doc_markdown(FILE *out)
{
    fputs(DECORATOR_DOC_BEGIN, out);
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        fprintf(out, "\n#### `@%s` (%s)\n\n%c%s.%s\n", d->name, where_words(d), toupper((unsigned char)d->doc[0]),
                d->doc + 1, d->positional ? " Its first option may be given without its name." : "");
        if (d->noptions == 0) {
            fprintf(out, "\nNo options.\n");
            continue;
        }
        fprintf(out, "\n| option | value | default | cache key | what it does |\n|---|---|---|---|---|\n");
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            char value[256], dflt[128];
            value_words(o, value, sizeof value);
            default_words(o, dflt, sizeof dflt);
            fprintf(out, "| `%s` | %s | %s | %s | %s%s%s%s |\n", o->name, value, dflt, o->keyed ? "yes" : "no",
                    o->doc, o->help ? " (" : "", o->help ? o->help : "", o->help ? ")" : "");
        }
    }
    fputs("\n" DECORATOR_DOC_END, out);
}

/* The options of d that are (keyed) or are not in the cache key, as a
   Markdown list of names; "" when none. */
static void option_names(const pipe_decorator_info *d, bool keyed, FILE *out)
{
    const char *sep = "";
    for (int i = 0; i < d->noptions; i++)
        if (d->options[i].keyed == keyed) {
            fprintf(out, "%s`%s`", sep, d->options[i].name);
            sep = ", ";
        }
}

void decorator_doc_cache_markdown(FILE *out)
{
    fputs(DECORATOR_CACHE_BEGIN, out);
    fputs("\n| decorator | in the cache key | not in it |\n|---|---|---|\n", out);
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        fprintf(out, "| `@%s` | ", d->name);
        option_names(d, true, out);
        fputs(" | ", out);
        if (d->noptions == 0)
            fputs("the decorator itself", out);
        option_names(d, false, out);
        fputs(" |\n", out);
    }
    fputs("\n" DECORATOR_CACHE_END, out);
}
