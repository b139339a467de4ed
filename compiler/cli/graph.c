#include "graph.h"

#include <string.h>

/* The artifact names an invocation receives from dep, joined by ", ". */
static void edge_label(const invocation *inv, const invocation *dep, strbuf *sb)
{
    size_t n = 0;
    for (size_t k = 0; k < inv->step->nparams; k++) {
        const arg_binding *a = &inv->args[k];
        if (a->kind == ARG_ARTIFACT && a->producer == dep) {
            sb_printf(sb, "%s%s", n ? ", " : "", a->ref);
            n++;
        }
    }
}

static void resource_summary(const invocation *inv, strbuf *sb)
{
    opt_value gpu = effective_opt(&inv->options, DEC_RESOURCES, RES_GPU);
    opt_value cpu = effective_opt(&inv->options, DEC_RESOURCES, RES_CPU);
    const decorator_inst *acc = inv->options.step->by_id[DEC_ACCELERATE];
    size_t start = sb->len;
    if (cpu.set)
        sb_printf(sb, "cpu %g", cpu.num);
    if (gpu.i > 0)
        sb_printf(sb, "%sgpu %lld", sb->len > start ? ", " : "", (long long)gpu.i);
    if (acc) {
        opt_value np = effective_opt(&inv->options, DEC_ACCELERATE, ACC_NUM_PROCESSES);
        opt_value nm = effective_opt(&inv->options, DEC_ACCELERATE, ACC_NUM_MACHINES);
        sb_printf(sb, "%s%lld process%s on %lld machine%s", sb->len > start ? ", " : "", (long long)np.i,
                  np.i == 1 ? "" : "es", (long long)nm.i, nm.i == 1 ? "" : "s");
    }
}

static void render_text(const pipeline_info *pl, strbuf *out)
{
    sb_printf(out, "pipeline %s: %zu invocation%s\n", pl->name, pl->invocations.len,
              pl->invocations.len == 1 ? "" : "s");
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        sb_printf(out, "  %s", inv->id);
        if (strcmp(inv->id, inv->step->name) != 0)
            sb_printf(out, " (step %s)", inv->step->name);
        strbuf res = STRBUF_INIT;
        resource_summary(inv, &res);
        if (res.len)
            sb_printf(out, " [%s]", res.data);
        sb_free(&res);
        sb_putc(out, '\n');
        for (size_t k = 0; k < inv->deps.len; k++) {
            const invocation *dep = inv->deps.items[k];
            sb_printf(out, "    <- %s (", dep->id);
            edge_label(inv, dep, out);
            sb_puts(out, ")\n");
        }
    }
}

static void render_dot(const pipeline_info *pl, strbuf *out)
{
    sb_printf(out, "digraph \"%s\" {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n", pl->name);
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        strbuf res = STRBUF_INIT;
        resource_summary(inv, &res);
        sb_printf(out, "  \"%s\" [label=\"%s%s%s\"];\n", inv->id, inv->id, res.len ? "\\n" : "",
                  res.len ? res.data : "");
        sb_free(&res);
    }
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        for (size_t k = 0; k < inv->deps.len; k++) {
            const invocation *dep = inv->deps.items[k];
            sb_printf(out, "  \"%s\" -> \"%s\" [label=\"", dep->id, inv->id);
            edge_label(inv, dep, out);
            sb_puts(out, "\"];\n");
        }
    }
    sb_puts(out, "}\n");
}

static void render_mermaid(const pipeline_info *pl, strbuf *out)
{
    sb_puts(out, "flowchart LR\n");
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        strbuf res = STRBUF_INIT;
        resource_summary(inv, &res);
        sb_printf(out, "    %s[\"%s%s%s\"]\n", inv->id, inv->id, res.len ? "<br/>" : "", res.len ? res.data : "");
        sb_free(&res);
    }
    for (size_t i = 0; i < pl->invocations.len; i++) {
        const invocation *inv = pl->invocations.items[i];
        for (size_t k = 0; k < inv->deps.len; k++) {
            const invocation *dep = inv->deps.items[k];
            sb_printf(out, "    %s -->|", dep->id);
            edge_label(inv, dep, out);
            sb_printf(out, "| %s\n", inv->id);
        }
    }
}

void graph_render(const pipeline_info *pl, graph_format fmt, strbuf *out)
{
    switch (fmt) {
    case GRAPH_TEXT: render_text(pl, out); break;
    case GRAPH_DOT: render_dot(pl, out); break;
    case GRAPH_MERMAID: render_mermaid(pl, out); break;
    }
}
