/* The two artifact formats of the example, both text:
 *   points: one "x y" pair per line
 *   line:   "slope intercept" on one line
 */
#ifndef LINE_H
#define LINE_H

#include <stdio.h>
#include <stdlib.h>

typedef struct points {
    size_t n;
    double *x, *y;
} points;

/* Reads a points file; 0, or -1 when it cannot be read or is empty. */
static inline int points_read(const char *path, points *p)
{
    FILE *f = fopen(path, "r");
    size_t cap = 0;
    double x, y;

    p->n = 0;
    p->x = p->y = NULL;
    if (!f)
        return -1;
    while (fscanf(f, "%lf %lf", &x, &y) == 2) {
        if (p->n == cap) {
            cap = cap ? 2 * cap : 256;
            double *nx = realloc(p->x, cap * sizeof *nx);
            if (nx)
                p->x = nx;
            double *ny = nx ? realloc(p->y, cap * sizeof *ny) : NULL;
            if (!ny) {
                fclose(f);
                return -1;
            }
            p->y = ny;
        }
        p->x[p->n] = x;
        p->y[p->n] = y;
        p->n++;
    }
    fclose(f);
    return p->n ? 0 : -1;
}

static inline void points_free(points *p)
{
    free(p->x);
    free(p->y);
}

#endif
