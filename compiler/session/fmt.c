/* `pipec fmt`: the canonical layout printer (docs/fmt.md).

   The printer walks the tree once, writing lines into the output buffer.
   Comments are not in the tree: they sit in ast_file.comments in source
   order, and a cursor moves along them. Whenever the printer ends a line
   before the node that starts at source offset POS, every comment before POS
   that is still pending is written first: one that followed code on its
   source line goes at the end of the current line, any other on a line of
   its own. Comments therefore keep their order and their text.

   A bracketed list (arguments, parameters, outputs, targets, list and map
   literals) is printed on one line when it holds no comment and the whole
   line fits in FMT_MAX_WIDTH columns, otherwise one element per line with a
   trailing comma. Widths are measured with a budget, so measuring costs at
   most FMT_MAX_WIDTH steps whatever the size of the list; expressions are
   printed with an explicit stack, so deeply nested lists do not recurse. */
#include "fmt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "util/arena.h"
#include "front/parse.h"

/* Deeper nesting is printed, but not indented further. */
enum { FMT_MAX_LEVEL = 32 };

#define NO_POS UINT32_MAX

/* What newline_before() may do. */
enum {
    NL_BLANKS = 1,  /* keep one blank line where the source had one or more */
    NL_CLOSING = 2, /* the next line closes a block: never a blank line before it */
};

typedef enum { SEQ_ARGS, SEQ_LIST, SEQ_MAP, SEQ_PARAMS, SEQ_OUTPUTS, SEQ_TARGETS } seq_kind;

typedef enum { FR_EXPR, FR_CALL, FR_SEQ } frame_kind;

/* One pending piece of an expression on the printer's explicit stack. */
typedef struct frame {
    frame_kind kind;
    seq_kind seq;       /* FR_SEQ */
    bool flat;          /* inside a list printed on one line */
    bool broken;        /* FR_SEQ: one element per line */
    int level;          /* indentation level of the line the node starts on */
    size_t suffix;      /* columns that must follow the node on its line */
    const void *node;   /* ast_expr, ast_call or ptr_vec of elements */
    size_t next;        /* FR_SEQ: next element; FR_CALL: next argument group */
    uint32_t pos;       /* FR_SEQ: the closing delimiter; FR_CALL: where the next `(` is */
} frame;

typedef struct printer {
    const char *text; /* the source bytes */
    uint32_t len;
    strbuf *out;
    size_t out_start;

    ast_comment *const *com; /* all comments of the file, in source order */
    size_t ncom;
    bool *own_line; /* com[k] had no code before it on its source line */
    size_t ci;      /* next comment to write */
    size_t climit;  /* comments from here on belong to another item */

    int level;        /* indentation of the current line, once it starts */
    size_t col;       /* columns written on the current line */
    bool dirty;       /* the current line has text */
    bool has_comment; /* the current line ends with a comment */
    bool at_start;    /* right after `{` or a separator: no blank line next */
    uint32_t prev_end; /* source offset after the last thing written */

    frame *frames;
    size_t nframes, cap;
    bool failed; /* the tree and the source disagree: write nothing */
} printer;

/* ---- writing ---- */

static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static int indent_of(int level) { return (level < FMT_MAX_LEVEL ? level : FMT_MAX_LEVEL) * FMT_INDENT; }

static size_t cur_col(const printer *p) { return p->dirty ? p->col : (size_t)indent_of(p->level); }

static void put(printer *p, const char *s, size_t n)
{
    static const char spaces[] = "                                                                ";
    if (p->has_comment)
        p->failed = true; /* code after a comment would be commented out */
    if (!p->dirty) {
        size_t ind = (size_t)indent_of(p->level);
        for (size_t left = ind; left > 0;) {
            size_t k = left < sizeof spaces - 1 ? left : sizeof spaces - 1;
            sb_putn(p->out, spaces, k);
            left -= k;
        }
        p->col = ind;
        p->dirty = true;
    }
    sb_putn(p->out, s, n);
    p->col += columns(s, n);
}

static void puts_(printer *p, const char *s) { put(p, s, strlen(s)); }

static void end_line(printer *p)
{
    if (!p->dirty)
        return;
    sb_putc(p->out, '\n');
    p->dirty = false;
    p->has_comment = false;
    p->col = 0;
}

/* One empty line, unless the output is empty or already ends with one. */
static void blank_line(printer *p)
{
    const char *d = p->out->data;
    size_t n = p->out->len - p->out_start;
    if (n == 0 || (n >= 2 && d[p->out->len - 2] == '\n'))
        return;
    sb_putc(p->out, '\n');
}

static bool is_escaped(char c) { return c == '"' || c == '\\' || c == '\n' || c == '\t'; }

/* A string literal with the canonical escapes \" \\ \n \t. */
static void put_string(printer *p, const char *s, size_t n)
{
    put(p, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_escaped(s[i]))
            continue;
        put(p, s + run, i - run);
        put(p, s[i] == '"' ? "\\\"" : s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n" : "\\t", 2);
        run = i + 1;
    }
    put(p, s + run, n - run);
    put(p, "\"", 1);
}

static void put_comment(printer *p, const ast_comment *c)
{
    uint32_t end = c->sp.end;
    while (end > c->sp.start && strchr(" \t\r\v\f", p->text[end - 1]) && p->text[end - 1] != '\0')
        end--;
    put(p, p->text + c->sp.start, end - c->sp.start);
    p->has_comment = true;
}

/* ---- the source between tokens ---- */

/* True when [a, b) holds a line with nothing but whitespace. */
static bool blank_between(const printer *p, uint32_t a, uint32_t b)
{
    bool newline = false;
    for (uint32_t i = a; i < b && i < p->len; i++) {
        char c = p->text[i];
        if (c == '\n') {
            if (newline)
                return true;
            newline = true;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            newline = false;
        }
    }
    return false;
}

/* The next offset at or after i that is not whitespace, a comment or (when
   commas) a comma. */
static uint32_t skip_space(const printer *p, uint32_t i, bool commas)
{
    while (i < p->len) {
        char c = p->text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || (commas && c == ',')) {
            i++;
        } else if (c == '#') {
            while (i < p->len && p->text[i] != '\n')
                i++;
        } else {
            break;
        }
    }
    return i;
}

/* Checks that punctuation the tree has no span for is where it should be. */
static uint32_t expect(printer *p, uint32_t i, char c)
{
    if (i >= p->len || p->text[i] != c)
        p->failed = true;
    return i;
}

/* Index of the first comment that starts at or after pos. */
static size_t comment_at(const printer *p, uint32_t pos)
{
    size_t lo = 0, hi = p->ncom;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->com[mid]->sp.start < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A comment strictly between two delimiters forces one element per line. */
static bool has_comment_in(const printer *p, uint32_t open, uint32_t close)
{
    size_t k = comment_at(p, open + 1);
    return k < p->ncom && p->com[k]->sp.start < close;
}

/* ---- comments and line breaks ---- */

/* Writes the pending comments that start before pos: after code on the
   current line when they followed code in the source, else on lines of
   their own at clevel. */
static void emit_pending(printer *p, uint32_t pos, int clevel, bool blanks)
{
    while (p->ci < p->climit && p->com[p->ci]->sp.start < pos) {
        size_t k = p->ci++;
        const ast_comment *c = p->com[k];
        if (!p->own_line[k] && p->dirty && !p->has_comment) {
            put(p, " ", 1);
        } else {
            end_line(p);
            if (blanks && !p->at_start && blank_between(p, p->prev_end, c->sp.start))
                blank_line(p);
            p->level = clevel;
            p->at_start = false;
        }
        put_comment(p, c);
        p->prev_end = c->sp.end;
    }
}

/* Ends the current line before the node at source offset pos, which will
   start the next line at nlevel; pending comments come first, at clevel. */
static void newline_before(printer *p, uint32_t pos, int clevel, int nlevel, unsigned flags)
{
    emit_pending(p, pos, clevel, flags & NL_BLANKS);
    end_line(p);
    if ((flags & NL_BLANKS) && !(flags & NL_CLOSING) && !p->at_start && p->prev_end < pos &&
        blank_between(p, p->prev_end, pos))
        blank_line(p);
    p->at_start = false;
    p->level = nlevel;
}

/* ---- widths on one line, measured against a budget ---- */

/* Each returns the width, or some value above budget as soon as it is
   clear that the node does not fit. Nesting costs at least one column per
   level, so the recursion is at most FMT_MAX_WIDTH deep. */
static size_t expr_width(const printer *p, const ast_expr *e, size_t budget);

static size_t string_width(const char *s, size_t n, size_t budget)
{
    size_t w = 2;
    for (size_t i = 0; i < n && w <= budget; i++) {
        unsigned char c = (unsigned char)s[i];
        w += is_escaped((char)c) ? 2 : (c & 0xC0) != 0x80;
    }
    return w;
}

static size_t elem_width(const printer *p, seq_kind kind, const void *item, size_t budget)
{
    size_t w = 0;
    const ast_expr *value = NULL;
    switch (kind) {
    case SEQ_ARGS: {
        const ast_arg *a = item;
        if (a->name.text)
            w = strlen(a->name.text) + 3;
        value = a->value;
        break;
    }
    case SEQ_LIST:
        value = item;
        break;
    case SEQ_MAP: {
        const ast_map_entry *m = item;
        w = string_width(m->key.text, strlen(m->key.text), budget) + 2;
        value = m->value;
        break;
    }
    case SEQ_PARAMS: {
        const ast_param *pa = item;
        w = strlen(pa->name.text) + 2 + strlen(pa->type.text);
        if (pa->default_value) {
            w += 3;
            value = pa->default_value;
        }
        break;
    }
    case SEQ_OUTPUTS: {
        const ast_output *o = item;
        w = strlen(o->name.text) + 2 + strlen(o->type.text);
        break;
    }
    case SEQ_TARGETS:
        w = strlen(((const ast_name *)item)->text);
        break;
    }
    if (w > budget)
        return budget + 1;
    if (value)
        w += expr_width(p, value, budget - w);
    return w;
}

/* Delimiters included. */
static size_t seq_width(const printer *p, seq_kind kind, const ptr_vec *items, size_t budget)
{
    size_t w = 2;
    for (size_t i = 0; i < items->len; i++) {
        if (i > 0)
            w += 2;
        if (w > budget)
            return budget + 1;
        w += elem_width(p, kind, items->items[i], budget - w);
    }
    return w > budget ? budget + 1 : w;
}

static size_t call_width(const printer *p, const ast_call *c, size_t budget)
{
    size_t w = strlen(c->callee.text);
    for (size_t g = 0; g < c->groups.len && w <= budget; g++)
        w += seq_width(p, SEQ_ARGS, c->groups.items[g], budget - w);
    return w > budget ? budget + 1 : w;
}

static size_t expr_width(const printer *p, const ast_expr *e, size_t budget)
{
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
        return e->sp.end - e->sp.start;
    case EXPR_STRING:
        return string_width(e->u.s.text, e->u.s.len, budget);
    case EXPR_BOOL:
        return e->u.b ? 4 : 5;
    case EXPR_IDENT:
        return strlen(e->u.ident.text);
    case EXPR_LIST:
        return seq_width(p, SEQ_LIST, &e->u.items, budget);
    case EXPR_MAP:
        return seq_width(p, SEQ_MAP, &e->u.items, budget);
    case EXPR_CALL:
        return call_width(p, e->u.call, budget);
    }
    return 0;
}

/* Columns after argument group `from` up to the next place a line may
   break (just after a `(` that has arguments), or to the end of the node. */
static size_t call_suffix(const ast_call *c, size_t from, size_t tail)
{
    size_t w = 0;
    for (size_t g = from; g < c->groups.len; g++) {
        const ptr_vec *args = c->groups.items[g];
        if (args->len > 0)
            return w + 1;
        w += 2;
    }
    return w + tail;
}

/* ---- expressions and bracketed lists ---- */

static void push(printer *p, frame fr)
{
    if (p->nframes == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->frames = xrealloc(p->frames, p->cap * sizeof *p->frames);
    }
    p->frames[p->nframes++] = fr;
}

static char open_char(seq_kind k) { return k == SEQ_LIST ? '[' : k == SEQ_MAP ? '{' : '('; }
static char close_char(seq_kind k) { return k == SEQ_LIST ? ']' : k == SEQ_MAP ? '}' : ')'; }

static uint32_t elem_start(seq_kind kind, const void *item)
{
    switch (kind) {
    case SEQ_ARGS: return ((const ast_arg *)item)->sp.start;
    case SEQ_LIST: return ((const ast_expr *)item)->sp.start;
    case SEQ_MAP: return ((const ast_map_entry *)item)->key.sp.start;
    case SEQ_PARAMS: return ((const ast_param *)item)->sp.start;
    case SEQ_OUTPUTS: return ((const ast_output *)item)->name.sp.start;
    case SEQ_TARGETS: return ((const ast_name *)item)->sp.start;
    }
    return 0;
}

/* Writes what comes before an element's value; returns the value, if any. */
static const ast_expr *elem_prefix(printer *p, seq_kind kind, const void *item)
{
    switch (kind) {
    case SEQ_ARGS: {
        const ast_arg *a = item;
        if (a->name.text) {
            puts_(p, a->name.text);
            puts_(p, " = ");
        }
        return a->value;
    }
    case SEQ_LIST:
        return item;
    case SEQ_MAP: {
        const ast_map_entry *m = item;
        put_string(p, m->key.text, strlen(m->key.text));
        puts_(p, ": ");
        return m->value;
    }
    case SEQ_PARAMS: {
        const ast_param *pa = item;
        puts_(p, pa->name.text);
        puts_(p, ": ");
        puts_(p, pa->type.text);
        if (pa->default_value)
            puts_(p, " = ");
        return pa->default_value;
    }
    case SEQ_OUTPUTS: {
        const ast_output *o = item;
        puts_(p, o->name.text);
        puts_(p, ": ");
        puts_(p, o->type.text);
        return NULL;
    }
    case SEQ_TARGETS:
        puts_(p, ((const ast_name *)item)->text);
        return NULL;
    }
    return NULL;
}

/* Decides flat or broken, writes the opening delimiter and pushes the list.
   open and close are the source offsets of the delimiters. */
static void begin_seq(printer *p, seq_kind kind, const ptr_vec *items, uint32_t open, uint32_t close, int level,
                      size_t suffix, bool flat)
{
    bool broken = false;
    if (!flat) {
        if (has_comment_in(p, open, close)) {
            broken = true;
        } else if (items->len > 0) {
            size_t col = cur_col(p), budget = 0;
            if (col + suffix < FMT_MAX_WIDTH)
                budget = FMT_MAX_WIDTH - col - suffix;
            broken = seq_width(p, kind, items, budget) > budget;
        }
    }
    char c = open_char(kind);
    put(p, &c, 1);
    frame fr = {FR_SEQ, kind, !broken, broken, level, suffix, items, 0, close};
    push(p, fr);
}

static void step_expr(printer *p, frame fr)
{
    const ast_expr *e = fr.node;
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
        put(p, p->text + e->sp.start, e->sp.end - e->sp.start); /* as written: 1e-3 stays 1e-3 */
        break;
    case EXPR_STRING:
        put_string(p, e->u.s.text, e->u.s.len);
        break;
    case EXPR_BOOL:
        puts_(p, e->u.b ? "true" : "false");
        break;
    case EXPR_IDENT:
        puts_(p, e->u.ident.text);
        break;
    case EXPR_LIST:
    case EXPR_MAP:
        begin_seq(p, e->kind == EXPR_LIST ? SEQ_LIST : SEQ_MAP, &e->u.items, e->sp.start, e->sp.end - 1, fr.level,
                  fr.suffix, fr.flat);
        break;
    case EXPR_CALL: {
        frame call = {FR_CALL, SEQ_ARGS, fr.flat, false, fr.level, fr.suffix, e->u.call, 0, NO_POS};
        push(p, call);
        break;
    }
    }
}

/* callee(args)(args)...: one argument group per turn. */
static void step_call(printer *p)
{
    frame *fr = &p->frames[p->nframes - 1];
    const ast_call *c = fr->node;
    if (fr->pos == NO_POS) {
        puts_(p, c->callee.text);
        fr->pos = c->callee.sp.end;
    }
    if (fr->next >= c->groups.len) {
        p->nframes--;
        return;
    }
    size_t g = fr->next++;
    const ptr_vec *args = c->groups.items[g];
    uint32_t open = expect(p, skip_space(p, fr->pos, false), '(');
    uint32_t from = args->len ? ((const ast_arg *)args->items[args->len - 1])->sp.end : open + 1;
    uint32_t close = expect(p, skip_space(p, from, true), ')');
    fr->pos = close + 1;
    frame f = *fr; /* begin_seq may move the stack */
    begin_seq(p, SEQ_ARGS, args, open, close, f.level, call_suffix(c, g + 1, f.suffix), f.flat);
}

static void step_seq(printer *p)
{
    frame *fr = &p->frames[p->nframes - 1];
    const ptr_vec *items = fr->node;
    frame f = *fr;
    if (f.next < items->len) {
        const void *item = items->items[fr->next++];
        if (f.broken) {
            if (f.next > 0)
                put(p, ",", 1);
            newline_before(p, elem_start(f.seq, item), f.level + 1, f.level + 1, 0);
        } else if (f.next > 0) {
            put(p, ", ", 2);
        }
        const ast_expr *value = elem_prefix(p, f.seq, item);
        if (value) {
            frame v = {FR_EXPR, SEQ_ARGS, f.flat, false, f.broken ? f.level + 1 : f.level, f.broken ? 1 : f.suffix,
                       value, 0, 0};
            push(p, v);
        }
        return;
    }
    if (f.broken) {
        if (items->len > 0)
            put(p, ",", 1);
        newline_before(p, f.pos, f.level + 1, f.level, 0);
    }
    char c = close_char(f.seq);
    put(p, &c, 1);
    p->nframes--;
}

static void run(printer *p)
{
    while (p->nframes > 0) {
        frame *fr = &p->frames[p->nframes - 1];
        switch (fr->kind) {
        case FR_EXPR: {
            frame f = *fr;
            p->nframes--;
            step_expr(p, f);
            break;
        }
        case FR_CALL:
            step_call(p);
            break;
        case FR_SEQ:
            step_seq(p);
            break;
        }
    }
}

static void print_expr(printer *p, const ast_expr *e, int level, size_t suffix)
{
    frame fr = {FR_EXPR, SEQ_ARGS, false, false, level, suffix, e, 0, 0};
    push(p, fr);
    run(p);
}

static void print_call(printer *p, const ast_call *c, int level, size_t suffix)
{
    frame fr = {FR_CALL, SEQ_ARGS, false, false, level, suffix, c, 0, NO_POS};
    push(p, fr);
    run(p);
}

static void print_seq(printer *p, seq_kind kind, const ptr_vec *items, uint32_t open, uint32_t close, int level,
                      size_t suffix)
{
    begin_seq(p, kind, items, open, close, level, suffix, false);
    run(p);
}

/* ---- declarations ---- */

static void print_decorators(printer *p, const ptr_vec *decs, unsigned first_flags)
{
    for (size_t i = 0; i < decs->len; i++) {
        const ast_decorator *d = decs->items[i];
        newline_before(p, d->sp.start, 0, 0, i == 0 ? first_flags : 0);
        puts_(p, "@");
        puts_(p, d->name.text);
        if (d->has_parens) {
            uint32_t open = expect(p, skip_space(p, d->name.sp.end, false), '(');
            uint32_t close = expect(p, d->sp.end - 1, ')');
            print_seq(p, SEQ_ARGS, &d->args, open, close, 0, 0);
        }
    }
}

/* Source offsets of a declaration's parameter list and body. */
typedef struct header_pos {
    uint32_t open, close;   /* parameters */
    uint32_t oopen, oclose; /* parenthesized outputs; oopen == NO_POS when none */
    uint32_t lbrace, rbrace;
} header_pos;

static header_pos find_header(printer *p, const ast_name *name, const ptr_vec *params, const ptr_vec *outputs,
                              span whole)
{
    header_pos h;
    h.open = expect(p, skip_space(p, name->sp.end, false), '(');
    uint32_t from = params->len ? ((const ast_param *)params->items[params->len - 1])->sp.end : h.open + 1;
    h.close = expect(p, skip_space(p, from, true), ')');
    h.oopen = h.oclose = NO_POS;
    uint32_t q = skip_space(p, h.close + 1, false);
    if (outputs && outputs->len > 0) {
        expect(p, q, '-');
        expect(p, q + 1, '>');
        uint32_t r = skip_space(p, q + 2, false);
        const ast_output *last = outputs->items[outputs->len - 1];
        if (r < p->len && p->text[r] == '(') {
            h.oopen = r;
            h.oclose = expect(p, skip_space(p, last->type.sp.end, true), ')');
            q = skip_space(p, h.oclose + 1, false);
        } else {
            q = skip_space(p, last->type.sp.end, false);
        }
    }
    h.lbrace = expect(p, q, '{');
    h.rbrace = expect(p, whole.end - 1, '}');
    return h;
}

/* `{}` on the header line: no fields or statements, no comment in the body
   and none still pending from the header (it goes into the body). */
static bool body_empty(const printer *p, const ptr_vec *items, const header_pos *h)
{
    if (items->len > 0 || has_comment_in(p, h->lbrace, h->rbrace))
        return false;
    return !(p->ci < p->climit && p->com[p->ci]->sp.start < h->lbrace);
}

static void close_body(printer *p, const header_pos *h)
{
    newline_before(p, h->rbrace, 1, 0, NL_BLANKS | NL_CLOSING);
    puts_(p, "}");
    p->prev_end = h->rbrace + 1;
}

static void print_step(printer *p, const ast_step *s, unsigned flags)
{
    print_decorators(p, &s->decorators, flags);
    newline_before(p, s->keyword.start, 0, 0, s->decorators.len ? 0 : flags);
    puts_(p, "step ");
    puts_(p, s->name.text);
    header_pos h = find_header(p, &s->name, &s->params, &s->outputs, s->sp);
    size_t tail = s->fields.len ? 2 : 3; /* " {" or " {}" */
    size_t suffix = tail;
    const ast_output *one = s->outputs.len == 1 ? s->outputs.items[0] : NULL;
    if (one)
        suffix += 4 + strlen(one->name.text) + 2 + strlen(one->type.text);
    else if (s->outputs.len > 1)
        suffix = 5; /* " -> (" */
    print_seq(p, SEQ_PARAMS, &s->params, h.open, h.close, 0, suffix);
    if (one) {
        puts_(p, " -> ");
        puts_(p, one->name.text);
        puts_(p, ": ");
        puts_(p, one->type.text);
    } else if (s->outputs.len > 1) {
        puts_(p, " -> ");
        if (h.oopen == NO_POS)
            p->failed = true;
        else
            print_seq(p, SEQ_OUTPUTS, &s->outputs, h.oopen, h.oclose, 0, tail);
    }
    puts_(p, " {");
    if (body_empty(p, &s->fields, &h)) {
        puts_(p, "}");
        p->prev_end = h.rbrace + 1;
        return;
    }
    p->at_start = true;
    for (size_t i = 0; i < s->fields.len; i++) {
        const ast_field *fd = s->fields.items[i];
        newline_before(p, fd->name.sp.start, 1, 1, NL_BLANKS);
        puts_(p, fd->name.text);
        puts_(p, " = ");
        print_expr(p, fd->value, 1, 0);
        p->prev_end = fd->value->sp.end;
    }
    close_body(p, &h);
}

static void print_statement(printer *p, const ast_statement *st)
{
    newline_before(p, st->sp.start, 1, 1, NL_BLANKS);
    if (st->targets.len == 1) {
        puts_(p, ((const ast_name *)st->targets.items[0])->text);
        puts_(p, " = ");
    } else if (st->targets.len > 1) {
        uint32_t open = expect(p, st->targets_sp.start, '(');
        uint32_t close = expect(p, st->targets_sp.end - 1, ')');
        size_t suffix = 3 + strlen(st->call->callee.text) + call_suffix(st->call, 0, 0);
        print_seq(p, SEQ_TARGETS, &st->targets, open, close, 1, suffix);
        puts_(p, " = ");
    }
    print_call(p, st->call, 1, 0);
    p->prev_end = st->sp.end;
}

static void print_pipeline(printer *p, const ast_pipeline *pl, unsigned flags)
{
    print_decorators(p, &pl->decorators, flags);
    newline_before(p, pl->keyword.start, 0, 0, pl->decorators.len ? 0 : flags);
    puts_(p, "pipeline ");
    puts_(p, pl->name.text);
    header_pos h = find_header(p, &pl->name, &pl->params, NULL, pl->sp);
    print_seq(p, SEQ_PARAMS, &pl->params, h.open, h.close, 0, pl->statements.len ? 2 : 3);
    puts_(p, " {");
    if (body_empty(p, &pl->statements, &h)) {
        puts_(p, "}");
        p->prev_end = h.rbrace + 1;
        return;
    }
    p->at_start = true;
    for (size_t i = 0; i < pl->statements.len; i++)
        print_statement(p, pl->statements.items[i]);
    close_body(p, &h);
}

static void print_import(printer *p, const ast_import *im)
{
    /* A comment between `import` and the path goes above the line, so that
       only the comment that ends the line follows it. */
    newline_before(p, im->path.sp.end, 0, 0, 0);
    puts_(p, "import ");
    put_string(p, im->path.text, strlen(im->path.text));
}

/* ---- the file ---- */

static uint32_t item_start(const ast_item *it)
{
    switch (it->kind) {
    case ITEM_IMPORT:
        return it->u.import->keyword.start;
    case ITEM_STEP:
        return it->u.step->decorators.len ? ((const ast_decorator *)it->u.step->decorators.items[0])->sp.start
                                          : it->u.step->keyword.start;
    case ITEM_PIPELINE:
        return it->u.pipeline->decorators.len
                   ? ((const ast_decorator *)it->u.pipeline->decorators.items[0])->sp.start
                   : it->u.pipeline->keyword.start;
    }
    return 0;
}

/* Everything the lexer reports but the parser recovers from without a
   syntax error: a stray character, a lone `-`, an unterminated string, a
   bad escape, a control character or invalid UTF-8 in a string. The tree
   does not hold those bytes, so printing it would lose them. */
static bool source_is_clean(const char *t, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
        } else if (c == '#') {
            while (i < n && t[i] != '\n')
                i++;
        } else if (c == '"') {
            for (i++;; i++) {
                if (i >= n || t[i] == '\n')
                    return false;
                c = (unsigned char)t[i];
                if (c == '"')
                    break;
                if (c == '\\') {
                    if (i + 1 >= n || !(t[i + 1] == '"' || t[i + 1] == '\\' || t[i + 1] == 'n' || t[i + 1] == 't'))
                        return false;
                    i++;
                } else if (c < 0x20 || c == 0x7f) {
                    return false;
                } else if (c >= 0x80) {
                    size_t k = pipe_utf8_valid_prefix(t + i, n - i);
                    if (k == 0)
                        return false;
                    i += k - 1;
                }
            }
            i++;
        } else if (c == '-' && i + 1 < n && t[i + 1] == '>') {
            i += 2;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            /* The lexer's longest number-like token, -?DIGITS([0-9A-Za-z_.]|[eE][+-])*;
               a malformed one is kept verbatim, like any number. */
            if (c == '-')
                i++;
            if (i >= n || t[i] < '0' || t[i] > '9')
                return false; /* a lone `-` (or `-.5`, reported as malformed) */
            while (i < n) {
                char d = t[i];
                if ((d == 'e' || d == 'E') && i + 1 < n && (t[i + 1] == '+' || t[i + 1] == '-'))
                    i += 2;
                else if ((d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || d == '_' ||
                         d == '.')
                    i++;
                else
                    break;
            }
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   (c != '\0' && strchr("@(){}[],=:.", c))) {
            i++;
        } else {
            return false;
        }
    }
    return true;
}

bool format_file(const ast_file *f, const source_file *src, strbuf *out)
{
    if (f->syntax_errors > 0 || src->len >= NO_POS || !source_is_clean(src->text, src->len))
        return false;
    printer p;
    memset(&p, 0, sizeof p);
    p.text = src->text;
    p.len = (uint32_t)src->len;
    p.out = out;
    p.out_start = out->len;
    p.com = (ast_comment *const *)f->comments.items;
    p.ncom = f->comments.len;
    p.own_line = xcalloc(p.ncom ? p.ncom : 1, sizeof *p.own_line);
    for (size_t k = 0; k < p.ncom; k++) {
        uint32_t i = p.com[k]->sp.start;
        while (i > 0 && (p.text[i - 1] == ' ' || p.text[i - 1] == '\t' || p.text[i - 1] == '\r'))
            i--;
        p.own_line[k] = i == 0 || p.text[i - 1] == '\n';
    }

    size_t n = f->items.len;
    const ast_item *const *items = (const ast_item *const *)f->items.items;
    /* Item i owns the comments lo[i]..hi[i]: those after the previous item,
       its own, and one that ends its last line. */
    size_t *lo = xmalloc((n + 1) * sizeof *lo), *hi = xmalloc((n + 1) * sizeof *hi);
    size_t header = 0;
    if (n == 0) {
        header = p.ncom;
    } else {
        /* Comments before the first item, down to the last blank line
           between them and it, head the file and stay on top when imports
           move up. */
        uint32_t first = item_start(items[0]);
        size_t before = comment_at(&p, first);
        for (size_t k = 1; k <= before; k++)
            if (blank_between(&p, p.com[k - 1]->sp.end, k < before ? p.com[k]->sp.start : first))
                header = k;
    }
    for (size_t i = 0; i < n; i++) {
        lo[i] = i == 0 ? header : hi[i - 1];
        uint32_t end = ast_item_end(items[i]);
        size_t k = comment_at(&p, end);
        if (k < p.ncom) {
            uint32_t j = end;
            while (j < p.com[k]->sp.start && p.text[j] != '\n')
                j++;
            if (j == p.com[k]->sp.start)
                k++;
        }
        hi[i] = k;
    }

    p.at_start = true;
    p.climit = header;
    emit_pending(&p, NO_POS, 0, true);
    end_line(&p);

    /* Imports first, then the rest, each in source order. */
    bool wrote = header > 0, prev_import = false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const ast_item *it = items[i];
            bool is_import = it->kind == ITEM_IMPORT;
            if (is_import != (pass == 0))
                continue;
            end_line(&p);
            if (wrote && !(prev_import && is_import))
                blank_line(&p);
            p.at_start = true;
            p.ci = lo[i];
            p.climit = hi[i];
            switch (it->kind) {
            case ITEM_IMPORT: print_import(&p, it->u.import); break;
            case ITEM_STEP: print_step(&p, it->u.step, NL_BLANKS); break;
            case ITEM_PIPELINE: print_pipeline(&p, it->u.pipeline, NL_BLANKS); break;
            }
            emit_pending(&p, NO_POS, 0, false);
            end_line(&p);
            wrote = true;
            prev_import = is_import;
        }
    }

    /* Comments after the last item. */
    if (n > 0) {
        p.ci = hi[n - 1];
        p.climit = p.ncom;
        p.at_start = false;
        uint32_t end = ast_item_end(items[n - 1]);
        p.prev_end = hi[n - 1] > lo[n - 1] && p.com[hi[n - 1] - 1]->sp.start >= end ? p.com[hi[n - 1] - 1]->sp.end
                                                                                   : end;
        emit_pending(&p, NO_POS, 0, true);
        end_line(&p);
    }

    if (p.ci != p.ncom)
        p.failed = true; /* a comment would be lost */
    free(lo);
    free(hi);
    free(p.own_line);
    free(p.frames);
    if (p.failed) {
        out->len = p.out_start;
        if (out->data)
            out->data[out->len] = '\0';
        return false;
    }
    return true;
}

bool format_source(arena *a, diag_engine *d, source_set *sources, uint32_t file, strbuf *out)
{
    ast_file *ast = parse_file(a, d, sources, file);
    return !diag_error_count(d) && format_file(ast, sources->files[file], out);
}
