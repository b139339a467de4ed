/* Line charts as inline SVG for the report (report.c): axes with ticks and
   units, several series, long series thinned for drawing (each pixel column
   keeps its lowest and highest value, so a peak is never lost; the data
   and the statistics the report prints are the full series). Private to
   the runtime. */
#ifndef PIPE_REPORT_SVG_H
#define PIPE_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/textbuf.h"

typedef enum {
    PIPE_X_STEP,   /* integer steps */
    PIPE_X_SECONDS /* seconds; the axis picks s, min or h */
} pipe_x_kind;

typedef enum {
    PIPE_Y_PLAIN,   /* numbers as they are (metrics) */
    PIPE_Y_PERCENT, /* "40%" */
    PIPE_Y_MIB      /* memory in MiB, labelled MiB or GiB */
} pipe_y_kind;

typedef struct pipe_chart_series {
    const double *x, *y;
    size_t n;
    const char *color; /* a CSS colour from the report's palette */
    const char *label; /* for the legend; NULL: none */
} pipe_chart_series;

typedef struct pipe_chart {
    const char *title; /* the chart's accessible name */
    const char *x_label; /* "step", "time since the step started" (the unit is added) */
    pipe_x_kind x_kind;
    pipe_y_kind y_kind;
    bool y_from_zero;    /* the y axis starts at 0 */
    double y_max_at_least; /* the y axis reaches at least this (100 for utilization); 0: none */
    bool fill;           /* shade the area under the first series */
    double ref_value;    /* a dashed line at this value (a mean), NaN: none */
    const char *ref_label;
    const pipe_chart_series *series;
    size_t nseries;
} pipe_chart;

/* Appends <svg>...</svg>. A series without a finite value draws nothing; a
   chart without any says "no samples"; a single point is drawn as a dot
   with its value. */
void pipe_svg_line_chart(pipe_textbuf *b, const pipe_chart *c);

#endif
