/* Inline SVG line charts (report_svg.h). Coordinates are in the SVG's own
   units (560 x 230); the page scales the chart to its column. */
#include "report_svg.h"
#include "pipe/human.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 560, H = 230, ML = 58, MR = 16, MB = 42 };

/* Ticks come from a count, never from stepping a double until it passes
   the end: at 2^53 adding a step of 1 changes nothing. */
enum { MAX_TICKS = 12 };

static double nice_step(double span, int target)
{
    if (!(span > 0) || !isfinite(span))
        return 1;
    double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Digits after the point that ticks step apart need. */
static int step_decimals(double step)
{
    if (step >= 1)
        return 0;
    int d = (int)ceil(-log10(step) - 1e-9);
    return d > 8 ? 8 : d;
}

typedef struct axis {
    double lo, hi, step; /* in display units; lo < hi, both finite */
    int nticks;          /* ticks at lo + i * step, i = 0 .. nticks - 1 */
    double scale;        /* data / scale = display */
    double label_scale;  /* a tick's label shows display * label_scale */
    const char *unit;    /* for labels: "%", " GiB", "" */
    int decimals, digits; /* after the point; significant digits in an exponent form */
} axis;

/* Where a value in display units falls between the axis's ends: 0 .. 1. */
static double frac(const axis *a, double v) { return (v - a->lo) / (a->hi - a->lo); }
static double to_px_x(const axis *a, double x, double pw) { return ML + frac(a, x / a->scale) * pw; }
static double to_px_y(const axis *a, double y, double top, double ph)
{
    return top + ph - frac(a, y / a->scale) * ph;
}

/* Values near the ends of the double range (1e308, 1e-320) are drawn in
   units of a power of ten, so that spans, padding and ticks stay finite
   and normal; the labels show the values themselves. */
static void normalize(axis *a, double *lo, double *hi)
{
    double m = fmax(fabs(*lo), fabs(*hi));
    a->label_scale = 1;
    if (!(m > 1e200 || (m > 0 && m < 1e-200)))
        return;
    double e = floor(log10(m));
    double p = pow(10, e < -323 ? -323 : e);
    a->scale *= p;
    a->label_scale = p;
    *lo /= p;
    *hi /= p;
}

/* lo <= hi, finite, in display units (normalized). */
static void make_ticks(axis *a, double lo, double hi, int target, bool integer)
{
    /* A span the doubles can resolve: at least a billionth of the values'
       size (and 1 on a step axis), so that lo + step != lo. */
    double m = fmax(fabs(lo), fabs(hi)), least = fmax(m * 1e-9, integer ? 1 : m > 0 ? 0 : 1);
    if (hi - lo < least) {
        double mid = lo / 2 + hi / 2;
        lo = mid - least / 2;
        hi = mid + least / 2;
    }
    a->step = nice_step(hi - lo, target);
    if (integer && a->step < 1)
        a->step = 1;
    a->lo = floor(lo / a->step + 1e-9) * a->step;
    a->hi = ceil(hi / a->step - 1e-9) * a->step;
    if (!(a->hi > a->lo))
        a->hi = a->lo + a->step;
    double n = floor((a->hi - a->lo) / a->step + 1e-6) + 1;
    a->nticks = n < 2 ? 2 : n > MAX_TICKS ? MAX_TICKS : (int)n;
    a->decimals = step_decimals(a->step * a->label_scale);
    /* Enough significant digits that neighbouring ticks differ. */
    double rel = fmax(fabs(a->lo), fabs(a->hi)) / a->step;
    a->digits = rel > 1 ? (int)ceil(log10(rel)) + 1 : 3;
    a->digits = a->digits < 3 ? 3 : a->digits > 17 ? 17 : a->digits;
}

static double tick_value(const axis *a, int i) { return a->lo + (double)i * a->step; }

static void tick_label(const axis *a, double v, char *buf, size_t size)
{
    if (fabs(v) < a->step * 1e-9)
        v = 0;
    v *= a->label_scale;
    if (v != 0 && (fabs(v) >= 1e7 || a->label_scale != 1 || a->step < 1e-8))
        snprintf(buf, size, "%.*g%s", a->digits, v, a->unit);
    else
        snprintf(buf, size, "%.*f%s", a->decimals, v, a->unit);
}

static bool data_range(const pipe_chart *c, double *xlo, double *xhi, double *ylo, double *yhi, size_t *points)
{
    *points = 0;
    for (size_t s = 0; s < c->nseries; s++) {
        const pipe_chart_series *se = &c->series[s];
        for (size_t i = 0; i < se->n; i++) {
            if (!isfinite(se->y[i]) || !isfinite(se->x[i]))
                continue;
            if (*points == 0) {
                *xlo = *xhi = se->x[i];
                *ylo = *yhi = se->y[i];
            }
            if (se->x[i] < *xlo)
                *xlo = se->x[i];
            if (se->x[i] > *xhi)
                *xhi = se->x[i];
            if (se->y[i] < *ylo)
                *ylo = se->y[i];
            if (se->y[i] > *yhi)
                *yhi = se->y[i];
            (*points)++;
        }
    }
    return *points > 0;
}

/* The indices to draw: all of them, or per pixel column the lowest and the
   highest value in the order they came. */
static size_t thin(const pipe_chart_series *se, const axis *ax, int columns, size_t *keep)
{
    size_t n = 0;
    if (se->n <= (size_t)columns * 2) {
        for (size_t i = 0; i < se->n; i++)
            keep[n++] = i;
        return n;
    }
    long col = -1;
    size_t lo = 0, hi = 0;
    bool have = false;
    for (size_t i = 0; i <= se->n; i++) {
        long c = -2;
        if (i < se->n) {
            if (!isfinite(se->y[i])) {
                c = -3; /* a gap ends the column, and stays a gap */
            } else {
                double f = frac(ax, se->x[i] / ax->scale);
                c = !(f > 0) ? 0 : f >= 1 ? columns - 1 : (long)(f * columns);
            }
        }
        if (c != col || c == -3) {
            if (have) {
                keep[n++] = lo < hi ? lo : hi;
                if (hi != lo)
                    keep[n++] = lo < hi ? hi : lo;
            }
            have = false;
            if (c == -3)
                keep[n++] = i;
            col = c;
        }
        if (i < se->n && c >= 0) {
            if (!have) {
                lo = hi = i;
                have = true;
            } else {
                if (se->y[i] < se->y[lo])
                    lo = i;
                if (se->y[i] > se->y[hi])
                    hi = i;
            }
        }
    }
    return n;
}

static void x_axis(const pipe_chart *c, double xlo, double xhi, axis *a, char *label, size_t size)
{
    a->unit = "";
    a->scale = 1;
    if (c->x_kind == PIPE_X_STEP) {
        if (xhi - xlo < 1) {
            xlo -= 1;
            xhi += 1;
            if (xlo < 0 && xhi - xlo >= 0) {
                xhi -= xlo;
                xlo = 0;
            }
        }
        normalize(a, &xlo, &xhi);
        make_ticks(a, xlo, xhi, 6, a->label_scale == 1);
        snprintf(label, size, "%s", c->x_label);
        return;
    }
    /* Time from the step's start: from 0 (or the earliest sample), in s,
       min or h. */
    const char *unit = "s";
    if (xhi > 7200) {
        a->scale = 3600;
        unit = "h";
    } else if (xhi > 180) {
        a->scale = 60;
        unit = "min";
    }
    /* At least a second: one early sample is not drawn on a scale of milliseconds. */
    double lo = fmin(xlo, 0) / a->scale, hi = xhi / a->scale;
    if (!(hi > 1.0 / a->scale))
        hi = 1.0 / a->scale;
    normalize(a, &lo, &hi);
    make_ticks(a, lo, hi, 6, false);
    snprintf(label, size, "%s (%s)", c->x_label, unit);
}

static void y_axis(const pipe_chart *c, double ylo, double yhi, axis *a)
{
    a->scale = 1;
    a->unit = c->y_kind == PIPE_Y_PERCENT ? "%" : "";
    if (c->y_from_zero && ylo > 0)
        ylo = 0;
    if (c->y_max_at_least > 0 && isfinite(c->y_max_at_least) && yhi < c->y_max_at_least)
        yhi = c->y_max_at_least;
    if (c->y_kind == PIPE_Y_MIB) {
        a->unit = " MiB";
        if (yhi >= 2048) {
            a->scale = 1024;
            a->unit = " GiB";
        }
    }
    ylo /= a->scale;
    yhi /= a->scale;
    normalize(a, &ylo, &yhi);
    if (yhi - ylo <= fabs(yhi) * 1e-9) { /* flat: a band around the value */
        double pad = yhi != 0 ? fabs(yhi) * 0.1 : 1;
        if (!(c->y_from_zero && ylo == 0))
            ylo -= pad;
        yhi += pad;
    } else if (!c->y_from_zero && c->y_max_at_least <= 0) {
        /* A little room above and below; values that are never negative
           keep an axis that does not go below 0. */
        double pad = (yhi - ylo) * 0.05;
        ylo = ylo >= 0 && ylo - pad < 0 ? 0 : ylo - pad;
        yhi += pad;
    }
    make_ticks(a, ylo, yhi, 5, false);
}

static void no_samples(pipe_textbuf *b, const pipe_chart *c)
{
    pipe_tb_printf(b, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", W, 80);
    pipe_tb_html(b, c->title);
    pipe_tb_printf(b, "\"><rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"79\"/>"
                      "<text class=\"empty\" x=\"%d\" y=\"45\" text-anchor=\"middle\">no samples</text></svg>\n",
                   W - 1, W / 2);
}

/* Where a chart's data goes: its axes and the plot area. */
typedef struct plot {
    axis ax, ay;
    double top, pw, ph;
} plot;

/* The grid with the y ticks, the x ticks, both axes and the x label. */
static void draw_axes(pipe_textbuf *b, const plot *p, const char *xlabel)
{
    const axis *ax = &p->ax, *ay = &p->ay;
    double top = p->top, pw = p->pw, ph = p->ph;
    char t[64];
    for (int i = 0; i < ay->nticks; i++) {
        double v = tick_value(ay, i), py = top + ph - frac(ay, v) * ph;
        tick_label(ay, v, t, sizeof t);
        pipe_tb_printf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ML, py, ML + pw, py);
        pipe_tb_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML - 6, py + 4,
                       t);
    }
    for (int i = 0; i < ax->nticks; i++) {
        double v = tick_value(ax, i), px = ML + frac(ax, v) * pw;
        tick_label(ax, v, t, sizeof t);
        pipe_tb_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, top + ph, px,
                       top + ph + 4);
        /* A label at the right end stays inside the chart. */
        double half = 3.1 * (double)strlen(t);
        bool end = px + half > W - 2;
        pipe_tb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                       end ? W - 2.0 : px, top + ph + 17, end ? "end" : "middle", t);
    }
    pipe_tb_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", ML, top, ML, top + ph);
    pipe_tb_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, top + ph,
                   ML + pw, top + ph);
    pipe_tb_printf(b, "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2, H - 6);
    pipe_tb_html(b, xlabel);
    pipe_tb_puts(b, "</text>\n");
}

/* Series s, thinned to the plot's columns (keep: room for its indices): a
   line, over an area for the first series of a chart with fill and no
   gaps, or a dot and its value for a single point. False when memory ran
   out. */
static bool draw_series(pipe_textbuf *b, const pipe_chart *c, size_t s, const plot *p, size_t *keep)
{
    const pipe_chart_series *se = &c->series[s];
    const axis *ax = &p->ax, *ay = &p->ay;
    double top = p->top, pw = p->pw, ph = p->ph;
    size_t n = thin(se, ax, (int)pw, keep);
    size_t finite = 0, last = 0;
    for (size_t k = 0; k < n; k++)
        if (isfinite(se->y[keep[k]]) && isfinite(se->x[keep[k]])) {
            finite++;
            last = keep[k];
        }
    if (finite == 1) { /* one point: a dot and its value */
        double px = to_px_x(ax, se->x[last], pw), py = to_px_y(ay, se->y[last], top, ph);
        char v[64], num[48];
        pipe_format_short(se->y[last] / ay->scale * ay->label_scale, num, sizeof num);
        snprintf(v, sizeof v, "%s%s", num, ay->unit);
        pipe_tb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", px, py, se->color);
        pipe_tb_printf(b, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                       px + (px > ML + pw / 2 ? -8 : 8), py - 8, px > ML + pw / 2 ? "end" : "start", v);
        return true;
    }
    pipe_textbuf d = {0};
    bool pen = false, gaps = false;
    double first_x = 0, last_x = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = keep[k];
        if (!isfinite(se->y[i]) || !isfinite(se->x[i])) {
            gaps |= pen;
            pen = false;
            continue;
        }
        double px = to_px_x(ax, se->x[i], pw), py = to_px_y(ay, se->y[i], top, ph);
        if (!pen && d.len == 0)
            first_x = px;
        pipe_tb_printf(&d, "%s%.1f %.1f", pen ? " L" : (d.len ? " M" : "M"), px, py);
        last_x = px;
        pen = true;
    }
    if (d.oom) {
        b->oom = true;
        pipe_tb_free(&d);
        return false;
    }
    if (s == 0 && c->fill && !gaps && d.len > 0) {
        double base = top + ph - frac(ay, ay->lo > 0 ? ay->lo : ay->hi < 0 ? ay->hi : 0) * ph;
        pipe_tb_printf(b, "<path class=\"area\" fill=\"%s\" d=\"%s L%.1f %.1f L%.1f %.1f Z\"/>\n", se->color,
                       d.data, last_x, base, first_x, base);
    }
    if (d.len > 0)
        pipe_tb_printf(b, "<path class=\"line\" stroke=\"%s\" d=\"%s\"/>\n", se->color, d.data);
    pipe_tb_free(&d);
    return true;
}

/* The reference line (a mean) with its label. */
static void draw_ref(pipe_textbuf *b, const pipe_chart *c, const plot *p)
{
    double py = to_px_y(&p->ay, c->ref_value, p->top, p->ph);
    pipe_tb_printf(b, "<line class=\"ref\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ML, py, ML + p->pw, py);
    if (c->ref_label) {
        double ly = py - 5 < p->top + 10 ? py + 14 : py - 5;
        pipe_tb_printf(b, "<text class=\"reflabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", ML + p->pw - 4, ly);
        pipe_tb_html(b, c->ref_label);
        pipe_tb_puts(b, "</text>\n");
    }
}

/* Each labelled series' colour and name, along the top. */
static void draw_legend(pipe_textbuf *b, const pipe_chart *c)
{
    double lx = ML;
    for (size_t s = 0; s < c->nseries; s++) {
        if (!c->series[s].label)
            continue;
        pipe_tb_printf(b, "<line x1=\"%.1f\" y1=\"12\" x2=\"%.1f\" y2=\"12\" stroke=\"%s\" stroke-width=\"3\"/>",
                       lx, lx + 16, c->series[s].color);
        pipe_tb_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"16\">", lx + 21);
        pipe_tb_html(b, c->series[s].label);
        pipe_tb_puts(b, "</text>");
        lx += 30 + 7.0 * (double)strlen(c->series[s].label);
    }
    pipe_tb_puts(b, "\n");
}

void pipe_svg_line_chart(pipe_textbuf *b, const pipe_chart *c)
{
    double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
    size_t points;
    if (!data_range(c, &xlo, &xhi, &ylo, &yhi, &points)) {
        no_samples(b, c);
        return;
    }
    bool legend = false;
    for (size_t s = 0; s < c->nseries; s++)
        legend |= c->series[s].label != NULL;
    plot p = {.top = legend ? 28 : 14, .pw = W - ML - MR};
    p.ph = H - p.top - MB;
    char xlabel[160];
    x_axis(c, xlo, xhi, &p.ax, xlabel, sizeof xlabel);
    y_axis(c, ylo, yhi, &p.ay);

    pipe_tb_printf(b, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", W, H);
    pipe_tb_html(b, c->title);
    pipe_tb_puts(b, "\"><title>");
    pipe_tb_html(b, c->title);
    pipe_tb_puts(b, "</title>\n");
    draw_axes(b, &p, xlabel);

    size_t maxn = 0;
    for (size_t s = 0; s < c->nseries; s++)
        if (c->series[s].n > maxn)
            maxn = c->series[s].n;
    size_t *keep = malloc((maxn + 1) * 2 * sizeof *keep);
    if (!keep) {
        b->oom = true;
        return;
    }
    for (size_t s = 0; s < c->nseries && draw_series(b, c, s, &p, keep); s++)
        ;
    free(keep);
    if (isfinite(c->ref_value) && points > 1) /* one point is its own mean */
        draw_ref(b, c, &p);
    if (legend)
        draw_legend(b, c);
    pipe_tb_puts(b, "</svg>\n");
}
