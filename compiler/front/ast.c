/* AST constructors; the grammar actions call only these. */
#include "ast.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

const char *expr_kind_name(expr_kind k)
{
    switch (k) {
    case EXPR_INT: return "an integer";
    case EXPR_FLOAT: return "a float";
    case EXPR_STRING: return "a string";
    case EXPR_BOOL: return "a bool";
    case EXPR_LIST: return "a list";
    case EXPR_MAP: return "a map";
    case EXPR_IDENT: return "a name";
    case EXPR_CALL: return "a call";
    }
    return "a value";
}

static ast_expr *new_expr(parse_ctx *p, expr_kind kind, span sp)
{
    ast_expr *e = arena_alloc(p->arena, sizeof *e);
    e->kind = kind;
    e->sp = sp;
    return e;
}

static void bad_number(parse_ctx *p, span sp, const char *what)
{
    diagnostic *dg = diag_report(p->diag, sp, DIAG_E0004, "%s", what);
    diag_label(p->diag, dg, "this literal");
}

ast_expr *ast_new_int(parse_ctx *p, span sp, const char *text, size_t len)
{
    ast_expr *e = new_expr(p, EXPR_INT, sp);
    char *s = arena_strndup(p->arena, text, len);
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0') {
        bad_number(p, sp, "integer literal out of range (integers are 64-bit)");
        v = 0;
    }
    e->u.i = v;
    return e;
}

ast_expr *ast_new_float(parse_ctx *p, span sp, const char *text, size_t len)
{
    ast_expr *e = new_expr(p, EXPR_FLOAT, sp);
    char *s = arena_strndup(p->arena, text, len);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    /* Out of range: too large for a double, or so small that it reads as 0
       (a subnormal value is kept: it is the nearest double). */
    if (*end != '\0' || isinf(v) || (errno == ERANGE && v == 0)) {
        bad_number(p, sp, "float literal out of range");
        v = 0;
    }
    e->u.f = v;
    return e;
}

ast_expr *ast_new_bool(parse_ctx *p, span sp, bool value)
{
    ast_expr *e = new_expr(p, EXPR_BOOL, sp);
    e->u.b = value;
    return e;
}

ast_expr *ast_new_string(parse_ctx *p, span sp, const char *text, size_t len)
{
    ast_expr *e = new_expr(p, EXPR_STRING, sp);
    e->u.s.text = text;
    e->u.s.len = len;
    return e;
}

ast_expr *ast_new_list(parse_ctx *p, span sp, ptr_vec *items)
{
    ast_expr *e = new_expr(p, EXPR_LIST, sp);
    if (items)
        e->u.items = *items;
    return e;
}

ast_expr *ast_new_map(parse_ctx *p, span sp, ptr_vec *entries)
{
    ast_expr *e = new_expr(p, EXPR_MAP, sp);
    if (entries)
        e->u.items = *entries;
    return e;
}

ast_expr *ast_new_ident(parse_ctx *p, ast_name name)
{
    ast_expr *e = new_expr(p, EXPR_IDENT, name.sp);
    e->u.ident = name;
    return e;
}

ast_expr *ast_new_call_expr(parse_ctx *p, ast_call *call)
{
    ast_expr *e = new_expr(p, EXPR_CALL, call->sp);
    e->u.call = call;
    return e;
}

ast_map_entry *ast_new_map_entry(parse_ctx *p, ast_expr *key, ast_expr *value)
{
    ast_map_entry *m = arena_alloc(p->arena, sizeof *m);
    m->key.text = key->u.s.text;
    m->key.sp = key->sp;
    m->value = value;
    return m;
}

ast_arg *ast_new_arg(parse_ctx *p, const ast_name *name, ast_expr *value)
{
    ast_arg *a = arena_alloc(p->arena, sizeof *a);
    if (name) {
        a->name = *name;
        a->sp = span_join(name->sp, value->sp);
    } else {
        a->sp = value->sp;
    }
    a->value = value;
    return a;
}

ast_call *ast_new_call(parse_ctx *p, ast_name callee, ptr_vec *first_group, span sp)
{
    ast_call *c = arena_alloc(p->arena, sizeof *c);
    c->callee = callee;
    c->sp = span_join(callee.sp, sp);
    vec_push(p->arena, &c->groups, first_group ? first_group : ast_new_vec(p));
    return c;
}

void ast_call_add_group(parse_ctx *p, ast_call *call, ptr_vec *group, span close)
{
    vec_push(p->arena, &call->groups, group ? group : ast_new_vec(p));
    call->sp = span_join(call->sp, close);
}

ast_decorator *ast_new_decorator(parse_ctx *p, span at, ast_name name, ptr_vec *args, bool has_parens, span end)
{
    ast_decorator *d = arena_alloc(p->arena, sizeof *d);
    d->name = name;
    d->sp = span_join(at, end);
    d->has_parens = has_parens;
    if (args)
        d->args = *args;
    return d;
}

ast_param *ast_new_param(parse_ctx *p, ast_name name, ast_name type, ast_expr *default_value)
{
    ast_param *pa = arena_alloc(p->arena, sizeof *pa);
    pa->name = name;
    pa->type = type;
    pa->default_value = default_value;
    pa->sp = span_join(name.sp, default_value ? default_value->sp : type.sp);
    return pa;
}

ast_output *ast_new_output(parse_ctx *p, ast_name name, ast_name type)
{
    ast_output *o = arena_alloc(p->arena, sizeof *o);
    o->name = name;
    o->type = type;
    return o;
}

ast_field *ast_new_field(parse_ctx *p, ast_name name, ast_expr *value)
{
    ast_field *f = arena_alloc(p->arena, sizeof *f);
    f->name = name;
    f->value = value;
    return f;
}

ast_step *ast_new_step(parse_ctx *p, ptr_vec *decorators, span keyword, ast_name name, ptr_vec *params,
                       ptr_vec *outputs, bool parenthesized, ptr_vec *fields, span end)
{
    ast_step *s = arena_alloc(p->arena, sizeof *s);
    if (decorators)
        s->decorators = *decorators;
    s->keyword = keyword;
    s->name = name;
    if (params)
        s->params = *params;
    if (outputs)
        s->outputs = *outputs;
    s->outputs_parenthesized = parenthesized;
    if (fields)
        s->fields = *fields;
    s->sp = span_join(keyword, end);
    s->file = p->file;
    return s;
}

ast_statement *ast_new_statement(parse_ctx *p, ptr_vec *targets, bool parenthesized, span targets_sp,
                                 ast_call *call)
{
    ast_statement *st = arena_alloc(p->arena, sizeof *st);
    if (targets)
        st->targets = *targets;
    st->targets_parenthesized = parenthesized;
    st->targets_sp = targets_sp;
    st->call = call;
    st->sp = targets ? span_join(targets_sp, call->sp) : call->sp;
    return st;
}

ast_pipeline *ast_new_pipeline(parse_ctx *p, ptr_vec *decorators, span keyword, ast_name name, ptr_vec *params,
                               ptr_vec *statements, span end)
{
    ast_pipeline *pl = arena_alloc(p->arena, sizeof *pl);
    if (decorators)
        pl->decorators = *decorators;
    pl->keyword = keyword;
    pl->name = name;
    if (params)
        pl->params = *params;
    if (statements)
        pl->statements = *statements;
    pl->sp = span_join(keyword, end);
    pl->file = p->file;
    return pl;
}

static void add_item(parse_ctx *p, item_kind kind, void *node)
{
    ast_item *it = arena_alloc(p->arena, sizeof *it);
    it->kind = kind;
    switch (kind) {
    case ITEM_IMPORT: it->u.import = node; break;
    case ITEM_STEP: it->u.step = node; break;
    case ITEM_PIPELINE: it->u.pipeline = node; break;
    }
    vec_push(p->arena, &p->result->items, it);
}

void ast_add_import(parse_ctx *p, span keyword, ast_expr *path)
{
    ast_import *im = arena_alloc(p->arena, sizeof *im);
    im->keyword = keyword;
    im->path.text = path->u.s.text;
    im->path.sp = path->sp;
    add_item(p, ITEM_IMPORT, im);
}

void ast_add_step(parse_ctx *p, ast_step *s) { add_item(p, ITEM_STEP, s); }

void ast_add_pipeline(parse_ctx *p, ast_pipeline *pl) { add_item(p, ITEM_PIPELINE, pl); }

void ast_add_comment(parse_ctx *p, span sp)
{
    ast_comment *c = arena_alloc(p->arena, sizeof *c);
    c->sp = sp;
    vec_push(p->arena, &p->result->comments, c);
}

ptr_vec *ast_new_vec(parse_ctx *p) { return arena_alloc(p->arena, sizeof(ptr_vec)); }

ptr_vec *ast_vec_push(parse_ctx *p, ptr_vec *v, void *item)
{
    vec_push(p->arena, v, item);
    return v;
}

ast_name *ast_new_name(parse_ctx *p, ast_name name)
{
    ast_name *n = arena_alloc(p->arena, sizeof *n);
    *n = name;
    return n;
}

uint32_t ast_item_end(const ast_item *it)
{
    switch (it->kind) {
    case ITEM_IMPORT: return it->u.import->path.sp.end;
    case ITEM_STEP: return it->u.step->sp.end;
    case ITEM_PIPELINE: return it->u.pipeline->sp.end;
    }
    return 0;
}
