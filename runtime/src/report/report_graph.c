/* The run's graph as SVG (report_graph.h). */
#include "report_graph.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/human.h"

enum { NODE_W = 168, NODE_H = 46, PAD = 12, LR_GAP_X = 56, LR_GAP_Y = 14, TB_GAP_X = 18, TB_GAP_Y = 44 };
/* The band each routed edge's lane takes. */
enum { LANE = 16 };
#define LR_MAX_LAYERS 6
#define GROUP_TOTAL 40
#define GROUP_LAYER 10
#define LABEL_MAX 21

const char *pipe_report_status_class(const pipe_view_invocation *inv)
{
    if (!inv->rec)
        return inv->running ? "running" : "notrun";
    switch (inv->rec->status) {
    case PIPE_STEP_DONE: return "done";
    case PIPE_STEP_CACHED: return "cached";
    case PIPE_STEP_FAILED: return "failed";
    case PIPE_STEP_INTERRUPTED: return "failed"; /* drawn as a failure; its word says interrupted */
    }
    return "notrun";
}

enum { ST_DONE, ST_CACHED, ST_FAILED, ST_RUNNING, ST_NOTRUN, ST_COUNT };
static const char *const st_class[ST_COUNT] = {"done", "cached", "failed", "running", "notrun"};
static const char *const st_word[ST_COUNT] = {"done", "cached", "failed", "running", "not run"};

static int st_of(const pipe_view_invocation *inv)
{
    const char *c = pipe_report_status_class(inv);
    for (int k = 0; k < ST_COUNT; k++)
        if (strcmp(c, st_class[k]) == 0)
            return k;
    return ST_NOTRUN;
}

typedef struct node {
    size_t first;   /* its first invocation */
    size_t members;
    int layer;
    double order;   /* place in its layer */
    size_t count[ST_COUNT];
    double x, y;
} node;

typedef struct graph {
    node *nodes;
    size_t n;
    size_t *node_of; /* per invocation */
    int layers;
} graph;

static int layer_of(const pipe_run_view *v, int *layer, size_t i)
{
    if (layer[i] >= 0)
        return layer[i];
    int l = 0;
    for (size_t k = 0; k < v->inv[i].nneeds; k++) {
        size_t j = v->inv[i].needs[k];
        /* needs point to earlier invocations (a topological order); anything else is ignored */
        if (j < i) {
            int lj = layer_of(v, layer, j) + 1;
            if (lj > l)
                l = lj;
        }
    }
    return layer[i] = l;
}

static bool build(const pipe_run_view *v, graph *g)
{
    memset(g, 0, sizeof *g);
    int *layer = malloc((v->n + 1) * sizeof *layer);
    size_t *per_layer = calloc(v->n + 1, sizeof *per_layer);
    g->nodes = calloc(v->n + 1, sizeof *g->nodes);
    g->node_of = calloc(v->n + 1, sizeof *g->node_of);
    if (!layer || !per_layer || !g->nodes || !g->node_of) {
        free(layer);
        free(per_layer);
        return false;
    }
    for (size_t i = 0; i < v->n; i++)
        layer[i] = -1;
    size_t widest = 0;
    for (size_t i = 0; i < v->n; i++) {
        int l = layer_of(v, layer, i);
        if (l + 1 > g->layers)
            g->layers = l + 1;
        if (++per_layer[l] > widest)
            widest = per_layer[l];
    }
    bool grouped = v->n > GROUP_TOTAL || widest > GROUP_LAYER;
    for (size_t i = 0; i < v->n; i++) {
        size_t k = g->n;
        if (grouped && v->inv[i].step)
            for (k = 0; k < g->n; k++) {
                const pipe_view_invocation *f = &v->inv[g->nodes[k].first];
                if (g->nodes[k].layer == layer[i] && f->step && strcmp(f->step, v->inv[i].step) == 0)
                    break;
            }
        if (k == g->n) {
            g->nodes[k].first = i;
            g->nodes[k].layer = layer[i];
            g->nodes[k].order = (double)i;
            g->n++;
        }
        g->nodes[k].members++;
        g->nodes[k].count[st_of(&v->inv[i])]++;
        g->node_of[i] = k;
    }
    free(layer);
    free(per_layer);
    return true;
}

static int by_layer_order(const void *a, const void *b)
{
    const node *x = *(const node *const *)a, *y = *(const node *const *)b;
    if (x->layer != y->layer)
        return x->layer - y->layer;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Places the nodes: within a layer by the mean place of what they need
   (one pass, fewer crossings), then on the grid. */
static void place(const pipe_run_view *v, graph *g, bool lr, double *width, double *height)
{
    node **sorted = malloc((g->n + 1) * sizeof *sorted);
    size_t *slot = calloc(g->layers + 1, sizeof *slot), widest = 1;
    if (!sorted || !slot) {
        free(sorted);
        free(slot);
        *width = *height = 0;
        return;
    }
    for (size_t k = 0; k < g->n; k++)
        sorted[k] = &g->nodes[k];
    qsort(sorted, g->n, sizeof *sorted, by_layer_order);
    for (size_t k = 0; k < g->n; k++)
        sorted[k]->order = (double)(slot[sorted[k]->layer]++);
    for (size_t k = 0; k < g->n; k++) {
        node *nd = &g->nodes[k];
        double sum = 0;
        size_t cnt = 0;
        const pipe_view_invocation *inv = &v->inv[nd->first];
        for (size_t e = 0; e < inv->nneeds; e++) {
            sum += g->nodes[g->node_of[inv->needs[e]]].order;
            cnt++;
        }
        if (cnt)
            nd->order = sum / (double)cnt + nd->order * 1e-3;
    }
    qsort(sorted, g->n, sizeof *sorted, by_layer_order);
    memset(slot, 0, (g->layers + 1) * sizeof *slot);
    for (size_t k = 0; k < g->n; k++) {
        sorted[k]->order = (double)(slot[sorted[k]->layer]++);
        if (slot[sorted[k]->layer] > widest)
            widest = slot[sorted[k]->layer];
    }
    for (size_t k = 0; k < g->n; k++) {
        node *nd = &g->nodes[k];
        double off = ((double)widest - (double)slot[nd->layer]) / 2.0;
        if (lr) {
            nd->x = PAD + nd->layer * (NODE_W + LR_GAP_X);
            nd->y = PAD + (nd->order + off) * (NODE_H + LR_GAP_Y);
        } else {
            nd->x = PAD + (nd->order + off) * (NODE_W + TB_GAP_X);
            nd->y = PAD + nd->layer * (NODE_H + TB_GAP_Y);
        }
    }
    if (lr) {
        *width = 2 * PAD + g->layers * NODE_W + (g->layers - 1) * LR_GAP_X;
        *height = 2 * PAD + (double)widest * NODE_H + ((double)widest - 1) * LR_GAP_Y;
    } else {
        *width = 2 * PAD + (double)widest * NODE_W + ((double)widest - 1) * TB_GAP_X;
        *height = 2 * PAD + g->layers * NODE_H + (g->layers - 1) * TB_GAP_Y;
    }
    free(sorted);
    free(slot);
}

/* A label cut to fit its box, with an ellipsis (UTF-8 aware). */
static void label(pipe_textbuf *b, const char *s)
{
    size_t chars = 0, i = 0;
    for (; s[i] && chars < LABEL_MAX; chars++) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
    }
    pipe_tb_html_n(b, s, i);
    if (s[i])
        pipe_tb_puts(b, "\xe2\x80\xa6");
}

static void draw_node(pipe_textbuf *b, const pipe_run_view *v, const node *nd)
{
    const pipe_view_invocation *inv = &v->inv[nd->first];
    int main_st = ST_DONE;
    for (int k = 0; k < ST_COUNT; k++) /* the worst status colours a group */
        if (nd->count[k] && (k == ST_FAILED || (main_st != ST_FAILED && nd->count[k] >= nd->count[main_st])))
            main_st = k;
    if (nd->members == 1)
        main_st = st_of(inv);
    pipe_tb_printf(b, "<g class=\"node %s\"><title>", st_class[main_st]);
    if (nd->members == 1) {
        pipe_tb_html(b, inv->id);
        pipe_tb_puts(b, " (");
        pipe_tb_html(b, inv->step ? inv->step : "?");
        pipe_tb_printf(b, "): %s", st_word[main_st]);
    } else {
        pipe_tb_printf(b, "%zu invocations of ", nd->members);
        pipe_tb_html(b, inv->step);
        pipe_tb_puts(b, ", from ");
        pipe_tb_html(b, inv->id);
    }
    pipe_tb_printf(b, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"6\"/>", nd->x, nd->y, NODE_W,
                   NODE_H);
    pipe_tb_printf(b, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\">", nd->x + 9, nd->y + 19);
    if (nd->members == 1) {
        label(b, inv->id);
    } else {
        char what[160];
        snprintf(what, sizeof what, "%s \xc3\x97%zu", inv->step, nd->members);
        label(b, what);
    }
    pipe_tb_printf(b, "</text><text class=\"sub\" x=\"%.1f\" y=\"%.1f\">", nd->x + 9, nd->y + 36);
    if (nd->members == 1) {
        pipe_tb_puts(b, st_word[main_st]);
        if (inv->rec) {
            char d[32];
            pipe_format_seconds(inv->rec->duration_s, d, sizeof d);
            pipe_tb_printf(b, " \xc2\xb7 %s", d);
        }
    } else {
        const char *sep = "";
        for (int k = 0; k < ST_COUNT; k++)
            if (nd->count[k]) {
                pipe_tb_printf(b, "%s%zu %s", sep, nd->count[k], st_word[k]);
                sep = " \xc2\xb7 ";
            }
    }
    pipe_tb_puts(b, "</text>");
    if (nd->members > 1) { /* the statuses as a bar along the bottom */
        double x = nd->x + 1, w = NODE_W - 2;
        for (int k = 0; k < ST_COUNT; k++) {
            if (!nd->count[k])
                continue;
            double part = w * (double)nd->count[k] / (double)nd->members;
            pipe_tb_printf(b, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"4\"/>",
                           st_class[k], x, nd->y + NODE_H - 5, part);
            x += part;
        }
    }
    pipe_tb_puts(b, "</g>\n");
}

typedef struct edge {
    size_t from, to;
    long lane; /* -1: a direct curve */
} edge;

/* The direct curve of an edge: a cubic Bezier from (p[0], p[1]) to
   (p[6], p[7]). */
static void curve(const graph *g, bool lr, const edge *e, double p[8])
{
    const node *a = &g->nodes[e->from], *z = &g->nodes[e->to];
    if (lr) {
        double x1 = a->x + NODE_W, y1 = a->y + NODE_H / 2.0, x2 = z->x - 2, y2 = z->y + NODE_H / 2.0;
        double m = (x1 + x2) / 2;
        double q[8] = {x1, y1, m, y1, m, y2, x2, y2};
        memcpy(p, q, sizeof q);
    } else {
        double x1 = a->x + NODE_W / 2.0, y1 = a->y + NODE_H, x2 = z->x + NODE_W / 2.0, y2 = z->y - 2;
        double m = (y1 + y2) / 2;
        double q[8] = {x1, y1, x1, m, x2, m, x2, y2};
        memcpy(p, q, sizeof q);
    }
}

/* Whether the direct curve of an edge passes through a box other than
   its two ends (sampled finely: boxes are far larger than a step). */
static bool blocked(const graph *g, bool lr, size_t from, size_t to)
{
    edge e = {from, to, -1};
    double p[8];
    curve(g, lr, &e, p);
    for (int s = 0; s <= 64; s++) {
        double t = s / 64.0, u = 1 - t;
        double x = u * u * u * p[0] + 3 * u * u * t * p[2] + 3 * u * t * t * p[4] + t * t * t * p[6];
        double y = u * u * u * p[1] + 3 * u * u * t * p[3] + 3 * u * t * t * p[5] + t * t * t * p[7];
        for (size_t k = 0; k < g->n; k++) {
            const node *nd = &g->nodes[k];
            if (k != from && k != to && x > nd->x - 3 && x < nd->x + NODE_W + 3 && y > nd->y - 3 &&
                y < nd->y + NODE_H + 3)
                return true;
        }
    }
    return false;
}

/* An edge: the direct curve, or around the boxes through its lane (the
   gaps between layers hold no box, nor does the band of lanes). */
static void draw_edge(pipe_textbuf *b, const graph *g, bool lr, const edge *e)
{
    double p[8];
    curve(g, lr, e, p);
    if (e->lane < 0) {
        pipe_tb_printf(b, "<path class=\"edge\" d=\"M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f\"/>\n", p[0], p[1], p[2],
                       p[3], p[4], p[5], p[6], p[7]);
        return;
    }
    /* It leaves and enters its boxes off their middles (where the direct
       curves meet), and each lane turns at its own offset in the gaps, so
       that no two edges share a segment or an arrowhead. */
    double lane = PAD + (e->lane + 0.5) * LANE, off = 14 + (double)(e->lane % 5) * 6, side = 11;
    if (lr) {
        double y1 = p[1] - side, y2 = p[7] - side, gx1 = p[0] + off, gx2 = p[6] + 2 - off;
        pipe_tb_printf(b, "<path class=\"edge routed\" d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f "
                          "L%.1f %.1f\"/>\n",
                       p[0], y1, gx1, y1, gx1, lane, gx2, lane, gx2, y2, p[6], y2);
    } else {
        double x1 = p[0] - 3 * side, x2 = p[6] - 3 * side, gy1 = p[1] + off, gy2 = p[7] + 2 - off;
        pipe_tb_printf(b, "<path class=\"edge routed\" d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f "
                          "L%.1f %.1f\"/>\n",
                       x1, p[1], x1, gy1, lane, gy1, lane, gy2, x2, gy2, x2, p[7]);
    }
}

void pipe_report_graph(pipe_textbuf *b, const pipe_run_view *v)
{
    graph g;
    if (v->n == 0) {
        pipe_tb_puts(b, "<p class=\"muted\">no invocations</p>\n");
        return;
    }
    if (!build(v, &g)) {
        b->oom = true;
        free(g.nodes);
        free(g.node_of);
        return;
    }
    bool lr = g.layers <= LR_MAX_LAYERS;
    double width, height;
    place(v, &g, lr, &width, &height);
    /* The edges, once per pair of boxes; one that a direct curve would
       draw through a box between its ends goes around them in a lane of
       its own (above the boxes left to right, left of them top to bottom). */
    edge *edges = calloc(g.n * g.n + 1, sizeof *edges);
    bool *seen = calloc(g.n * g.n + 1, sizeof *seen);
    size_t nedges = 0, lanes = 0;
    for (size_t i = 0; i < v->n && edges && seen; i++)
        for (size_t e = 0; e < v->inv[i].nneeds; e++) {
            size_t from = g.node_of[v->inv[i].needs[e]], to = g.node_of[i];
            if (from == to || seen[from * g.n + to])
                continue;
            seen[from * g.n + to] = true;
            edge *ed = &edges[nedges++];
            ed->from = from;
            ed->to = to;
            ed->lane = blocked(&g, lr, from, to) ? (long)lanes++ : -1;
        }
    if (!edges || !seen)
        b->oom = true;
    free(seen);
    if (lanes) { /* room for the lanes: the boxes move aside */
        double room = (double)lanes * LANE;
        for (size_t k = 0; k < g.n; k++)
            *(lr ? &g.nodes[k].y : &g.nodes[k].x) += room;
        *(lr ? &height : &width) += room;
    }
    pipe_tb_printf(b,
                   "<svg class=\"graph\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                   "aria-label=\"the run's graph\">\n"
                   "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
                   "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0 L10 5 L0 10 z\" "
                   "class=\"arrowhead\"/></marker></defs>\n",
                   width, height, width, height);
    for (size_t k = 0; k < nedges; k++)
        draw_edge(b, &g, lr, &edges[k]);
    free(edges);
    for (size_t k = 0; k < g.n; k++)
        draw_node(b, v, &g.nodes[k]);
    pipe_tb_puts(b, "</svg>\n");
    free(g.nodes);
    free(g.node_of);
}
