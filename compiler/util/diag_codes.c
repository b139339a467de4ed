#include "diag_codes.h"

static const diag_code_info codes[DIAG_CODE_COUNT] = {
#define DIAG_CODE(code, severity, title, position) {#code, DIAG_##severity, title, position},
#include "diag_codes.def"
#undef DIAG_CODE
};

const diag_code_info *diag_code_get(diag_code c) { return &codes[c]; }

const char *diag_code_name(diag_code c) { return codes[c].name; }

static int ascii_upper(int c) { return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c; }

bool diag_code_lookup(const char *name, diag_code *out)
{
    if (!name)
        return false;
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        const char *a = codes[i].name, *b = name;
        while (*a && ascii_upper((unsigned char)*b) == *a) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            *out = (diag_code)i;
            return true;
        }
    }
    return false;
}

bool diag_code_is_syntax(diag_code c)
{
    return c == DIAG_E0001 || c == DIAG_E0002 || c == DIAG_E0003 || c == DIAG_E0004 || c == DIAG_E0010;
}
