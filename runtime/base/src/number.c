/* Numbers as text: doubles that read back as the same value, digits. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"

void pipe_format_number(double v, int max_precision, char *buf, size_t size)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    int prec;
    for (prec = 1; prec < max_precision; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    snprintf(buf, size, "%.*g", prec, v);
    /* %g switches to an exponent once it reaches the precision: 1000 at
       precision 1 is "1e+03". Integers below 1e16 read better in full. */
    const char *e = strchr(buf, 'e');
    if (e) {
        int exp10 = atoi(e + 1);
        if (exp10 >= 0 && exp10 < 16 && exp10 + 1 > prec)
            snprintf(buf, size, "%.*g", exp10 + 1, v);
    }
}

void pipe_format_double(double v, char *buf, size_t size) { pipe_format_number(v, 17, buf, size); }

bool pipe_all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}
