#include "escape.h"

#include <stdio.h>
#include <string.h>

void esc_c_string(strbuf *sb, const char *s)
{
    sb_putc(sb, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        /* Characters that stand for themselves go in runs: the driver embeds
           megabytes of manifest this way. */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\' && *p != '?')
            p++;
        sb_putn(sb, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        switch (*p) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        case '?': sb_puts(sb, "\\?"); break;
        default: sb_printf(sb, "\\%03o", *p); /* three digits: never merges with what follows */
        }
        p++;
    }
    sb_putc(sb, '"');
}

void esc_c_comment(strbuf *sb, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '*' && p[1] == '/')
            sb_puts(sb, "* ");
        else if (*p == '\n' || *p == '\r')
            sb_putc(sb, ' ');
        else if ((unsigned char)*p < 0x20)
            sb_putc(sb, ' ');
        else
            sb_putc(sb, *p);
    }
}

static bool shell_safe(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_-./:=,+@%", *p)))
            return false;
    return true;
}

void esc_shell_word(strbuf *sb, const char *s)
{
    if (shell_safe(s)) {
        sb_puts(sb, s);
        return;
    }
    sb_putc(sb, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sb_puts(sb, "'\\''");
        else
            sb_putc(sb, *p);
    }
    sb_putc(sb, '\'');
}

void esc_json_string(strbuf *sb, const char *s) { sb_json_string(sb, s); }

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i][0] == name[0] && strcmp(list[i], name) == 0) /* the first byte rules out most */
            return true;
    return false;
}

bool esc_is_c_keyword(const char *name)
{
    static const char *const c11[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
        "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
        "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic",
        "_Noreturn", "_Static_assert", "_Thread_local"};
    return in_list(name, c11, sizeof c11 / sizeof c11[0]);
}

/* C++'s keywords (and C23's) that C11 lacks. */
static bool is_cxx_only_keyword(const char *name)
{
    static const char *const cxx[] = {
        "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t", "char32_t",
        "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const_cast", "consteval",
        "constexpr", "constinit", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
        "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
        "private", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
        "template", "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual",
        "wchar_t", "xor", "xor_eq"};
    return in_list(name, cxx, sizeof cxx / sizeof cxx[0]);
}

const char *esc_c_member(const char *name, strbuf *scratch)
{
    if (!esc_is_c_keyword(name) && !is_cxx_only_keyword(name))
        return name;
    sb_reset(scratch);
    sb_printf(scratch, "%s_", name);
    return sb_cstr(scratch);
}

bool esc_env_name_ok(const char *name)
{
    if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_'))
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}
