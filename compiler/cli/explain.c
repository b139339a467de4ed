#include "explain.h"

#include <string.h>

#include "util/arena.h"
#include "util/embedded.h"

#define WRAP_WIDTH 78

/* compiler/explain/CODE.md holds the text, then the examples the way
 * docs/diagnostics.md shows them; these marks separate the three parts. */
static const char wrong_mark[] = "\n\nWrong:\n\n```\n";
static const char right_mark[] = "```\n\nRight:\n\n```\n";
static const char end_mark[] = "```\n";

/* Filled on first use from the table and the embedded text; the parts point
   into a copy of the file that lives as long as the process. */
static explain_entry entries[DIAG_CODE_COUNT];

/* Cuts s at the first occurrence of mark; returns what follows the mark,
   or "" (and leaves s whole) when there is none. */
static char *split_at(char *s, const char *mark)
{
    char *at = strstr(s, mark);
    if (!at)
        return s + strlen(s);
    *at = '\0';
    return at + strlen(mark);
}

static const explain_entry *entry(diag_code c)
{
    explain_entry *e = &entries[c];
    if (e->code)
        return e;
    const diag_code_info *info = diag_code_get(c);
    char path[16];
    snprintf(path, sizeof path, "%s.md", info->name);
    const embedded_file *f = embedded_find(embedded_explain, path);
    char *text = xmalloc(f ? f->len + 1 : 1);
    if (f)
        memcpy(text, f->data, f->len);
    text[f ? f->len : 0] = '\0';
    char *wrong = split_at(text, wrong_mark);
    char *right = split_at(wrong, right_mark);
    size_t n = strlen(right), end = strlen(end_mark);
    if (n >= end && strcmp(right + n - end, end_mark) == 0)
        right[n - end] = '\0';
    e->id = c;
    e->title = info->title;
    e->position = info->position;
    e->text = text;
    e->wrong = wrong;
    e->right = right;
    e->code = info->name;
    return e;
}

const explain_entry *explain_lookup(const char *code)
{
    diag_code c;
    return diag_code_lookup(code, &c) ? entry(c) : NULL;
}

size_t explain_count(void)
{
    return DIAG_CODE_COUNT;
}

const explain_entry *explain_at(size_t i)
{
    return i < DIAG_CODE_COUNT ? entry((diag_code)i) : NULL;
}

static const char *severity(const explain_entry *e)
{
    return diag_code_get(e->id)->severity == DIAG_WARNING ? "warning" : "error";
}

/* Word-wraps one paragraph line; "- " items get a hanging indent so the
 * list stays readable in a terminal. Words longer than the width are
 * printed whole rather than split. */
static void print_wrapped_line(const char *line, size_t len, FILE *out)
{
    int hang = (len >= 2 && line[0] == '-' && line[1] == ' ') ? 2 : 0;
    size_t col = 0;
    int line_start = 1;
    size_t i = 0;
    for (;;) {
        while (i < len && line[i] == ' ')
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && line[i] != ' ')
            i++;
        size_t wlen = i - start;
        if (!line_start && col + 1 + wlen > WRAP_WIDTH) {
            fprintf(out, "\n%*s", hang, "");
            col = (size_t)hang;
            line_start = 1;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(line + start, 1, wlen, out);
        col += wlen;
        line_start = 0;
    }
    fputc('\n', out);
}

static void print_wrapped(const char *text, FILE *out)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        print_wrapped_line(text, len, out);
        text += len;
        if (*text == '\n')
            text++;
    }
}

static void print_indented(const char *snippet, const char *indent, FILE *out)
{
    while (*snippet) {
        const char *nl = strchr(snippet, '\n');
        size_t len = nl ? (size_t)(nl - snippet) : strlen(snippet);
        if (len > 0)
            fputs(indent, out);
        fwrite(snippet, 1, len, out);
        fputc('\n', out);
        snippet += len;
        if (*snippet == '\n')
            snippet++;
    }
}

void explain_print(const explain_entry *e, FILE *out)
{
    fprintf(out, "%s[%s]: %s\n\n", severity(e), e->code, e->title);
    print_wrapped(e->text, out);
    fputs("\nWrong:\n\n", out);
    print_indented(e->wrong, "    ", out);
    fputs("\nRight:\n\n", out);
    print_indented(e->right, "    ", out);
}

void explain_write_markdown(FILE *out)
{
    fputs("# Diagnostics reference\n\n"
          "<!-- Generated from compiler/util/diag_codes.def and compiler/explain/ by `pipec explain --markdown`. "
          "Do not edit by hand. -->\n\n"
          "Every diagnostic `pipec` reports has a code. `pipec explain CODE` "
          "prints the same text as this page. The primary position is where "
          "`FILE:LINE:COL` points (language reference, section 6).\n\n"
          "| code | severity | title | primary position |\n"
          "|---|---|---|---|\n",
          out);
    for (size_t i = 0; i < DIAG_CODE_COUNT; i++) {
        const explain_entry *e = entry((diag_code)i);
        fprintf(out, "| %s | %s | %s | %s |\n", e->code, severity(e), e->title, e->position);
    }
    for (size_t i = 0; i < DIAG_CODE_COUNT; i++) {
        const explain_entry *e = entry((diag_code)i);
        fprintf(out, "\n## %s\n\n%s[%s]: %s\n\nPrimary position: %s.\n\n", e->code, severity(e), e->code, e->title,
                e->position);
        fprintf(out, "%s%s%s%s%s%s", e->text, wrong_mark, e->wrong, right_mark, e->right, end_mark);
    }
}
