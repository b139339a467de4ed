/* Numbers for people (pipe/human.h). */
#include "pipe/human.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipe/base.h"

void pipe_format_seconds(double s, char *buf, size_t size)
{
    if (!(s >= 0))
        s = 0;
    if (s < 10)
        snprintf(buf, size, "%.2f s", s);
    else if (s < 60)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm %02ds", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 3600.0 * 1e6) /* hours that fit an int (a record may say 1e308 s) */
        snprintf(buf, size, "%dh %02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else
        snprintf(buf, size, "%.3g h", s / 3600);
}

void pipe_format_size_human(uint64_t v, char *buf, size_t size)
{
    char exact[32];
    pipe_format_size(v, exact, sizeof exact);
    size_t digits = strspn(exact, "0123456789");
    if (v > 0 && strcmp(exact + digits, "B") != 0) { /* a unit divides it: "16GB" reads "16 GB" */
        snprintf(buf, size, "%.*s %s", (int)digits, exact, exact + digits);
        return;
    }
    static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
    double x = (double)v;
    size_t u = 0;
    while (x >= 1000 && u + 1 < sizeof units / sizeof units[0]) {
        x /= 1000;
        u++;
    }
    snprintf(buf, size, u == 0 ? "%.0f %s" : "%.3g %s", x, units[u]);
}

void pipe_format_short(double v, char *buf, size_t size)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    double a = fabs(v);
    if (a == 0)
        snprintf(buf, size, "0");
    else if (a >= 1e7 || a < 1e-4)
        snprintf(buf, size, "%.3g", v);
    else if (a >= 1000)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.4g", v);
}
