#include "escape.h"

#include <stdio.h>
#include <string.h>

void esc_c_string(strbuf *sb, const char *s)
{
    sb_putc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        case '?': sb_puts(sb, "\\?"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                sb_printf(sb, "\\%03o", *p); /* three digits: never merges with what follows */
            else
                sb_putc(sb, (char)*p);
        }
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

bool esc_is_c_keyword(const char *name)
{
    static const char *const keywords[] = {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
        "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
        "const", "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default", "delete",
        "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
        "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not",
        "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
        "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
        "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
        "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
        "wchar_t", "while", "xor", "xor_eq", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
        "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local"};
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(keywords[i], name) == 0)
            return true;
    return false;
}

const char *esc_c_member(const char *name, strbuf *scratch)
{
    if (!esc_is_c_keyword(name))
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
