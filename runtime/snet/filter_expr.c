/*
 * filter_expr.c - integer tag expressions in filters, e.g. the t+1 of
 * <t=t+1>: a small recursive-descent parser into a tree, and its
 * evaluation over the tags of a record. Names refer to tags (or binding
 * tags) of the filter's pattern, checked when the filter is built.
 *
 * A '>' ends the tag (<t=a>) unless it is clearly an operator: inside
 * parentheses, or followed by '=' or by something other than , ; } ] or
 * the end. Write comparisons in parentheses to be safe: <c=(a>b)>.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

typedef enum expr_op {
    OP_CONST, OP_TAG, OP_NEG, OP_NOT,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_COND
} expr_op;

struct snet_expr {
    expr_op op;
    long value;
    char *name;
    snet_label_kind kind;
    snet_expr *a, *b, *c;
};

typedef struct expr_parser {
    const char *p;
    const snet_variant *pattern;
    int depth; /* parentheses open */
    char *err;
    size_t errlen;
    bool failed;
} expr_parser;

void snet_expr_free(snet_expr *e)
{
    if (!e)
        return;
    snet_expr_free(e->a);
    snet_expr_free(e->b);
    snet_expr_free(e->c);
    free(e->name);
    free(e);
}

void snet_expr_visit_names(snet_expr *e, void (*fn)(char **slot, void *ctx), void *ctx)
{
    if (!e)
        return;
    if (e->name)
        fn(&e->name, ctx);
    snet_expr_visit_names(e->a, fn, ctx);
    snet_expr_visit_names(e->b, fn, ctx);
    snet_expr_visit_names(e->c, fn, ctx);
}

static snet_expr *node(expr_parser *ps, expr_op op, snet_expr *a, snet_expr *b)
{
    snet_expr *e = calloc(1, sizeof *e);
    if (!e) {
        snet_set_error(ps->err, ps->errlen, "out of memory");
        ps->failed = true;
        snet_expr_free(a);
        snet_expr_free(b);
        return NULL;
    }
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

static void fail(expr_parser *ps, const char *what)
{
    if (!ps->failed)
        snet_set_error(ps->err, ps->errlen, "tag expression: %s at '%.20s'", what, ps->p);
    ps->failed = true;
}

/* Consume the operator tok if it comes next. */
static bool accept(expr_parser *ps, const char *tok)
{
    ps->p = snet_skip_space(ps->p);
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n) != 0)
        return false;
    /* '<' and '>' alone must not eat the first character of <= >= etc. */
    if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '=' || tok[0] == '!') &&
        ps->p[1] == '=')
        return false;
    if (n == 1 && (tok[0] == '&' || tok[0] == '|') && ps->p[1] == tok[0])
        return false;
    if (!strcmp(tok, ">") && ps->depth == 0) {
        const char *after = snet_skip_space(ps->p + 1);
        if (!*after || strchr(",;}]", *after))
            return false; /* the closing '>' of the tag */
    }
    ps->p += n;
    return true;
}

static snet_expr *parse_cond(expr_parser *ps);

static snet_expr *parse_primary(expr_parser *ps)
{
    ps->p = snet_skip_space(ps->p);
    if (*ps->p == '(') {
        ps->p++;
        ps->depth++;
        snet_expr *e = parse_cond(ps);
        ps->depth--;
        if (!accept(ps, ")")) {
            fail(ps, "expected ')'");
            snet_expr_free(e);
            return NULL;
        }
        return e;
    }
    if (*ps->p >= '0' && *ps->p <= '9') {
        char *end;
        snet_expr *e = node(ps, OP_CONST, NULL, NULL);
        if (e)
            e->value = strtol(ps->p, &end, 10), ps->p = end;
        return e;
    }
    size_t n = snet_name_length(ps->p);
    if (n == 0) {
        fail(ps, "expected a number, a tag name or '('");
        return NULL;
    }
    char *name = strndup(ps->p, n);
    snet_label_kind kind = SNET_TAG;
    if (name && !snet_variant_has(ps->pattern, SNET_TAG, name)) {
        kind = SNET_BTAG;
        if (!snet_variant_has(ps->pattern, SNET_BTAG, name)) {
            fail(ps, "the tag is not in the filter's pattern");
            free(name);
            return NULL;
        }
    }
    ps->p += n;
    snet_expr *e = name ? node(ps, OP_TAG, NULL, NULL) : NULL;
    if (!e) {
        free(name);
        return NULL;
    }
    e->name = name;
    e->kind = kind;
    return e;
}

static snet_expr *parse_unary(expr_parser *ps)
{
    if (accept(ps, "-"))
        return node(ps, OP_NEG, parse_unary(ps), NULL);
    if (accept(ps, "!"))
        return node(ps, OP_NOT, parse_unary(ps), NULL);
    return parse_primary(ps);
}

/* One precedence level of left-associative binary operators. */
typedef struct level {
    const char *tok[4];
    expr_op op[4];
} level;

static const level levels[] = {
    {{"||"}, {OP_OR}},
    {{"&&"}, {OP_AND}},
    {{"==", "!="}, {OP_EQ, OP_NE}},
    {{"<=", ">=", "<", ">"}, {OP_LE, OP_GE, OP_LT, OP_GT}},
    {{"+", "-"}, {OP_ADD, OP_SUB}},
    {{"*", "/", "%"}, {OP_MUL, OP_DIV, OP_MOD}},
};
#define NLEVELS (sizeof levels / sizeof levels[0])

static snet_expr *parse_level(expr_parser *ps, size_t lv)
{
    if (lv == NLEVELS)
        return parse_unary(ps);
    snet_expr *left = parse_level(ps, lv + 1);
    for (;;) {
        if (ps->failed || !left) {
            snet_expr_free(left);
            return NULL;
        }
        size_t k;
        for (k = 0; k < 4 && levels[lv].tok[k]; k++)
            if (accept(ps, levels[lv].tok[k]))
                break;
        if (k == 4 || !levels[lv].tok[k])
            return left;
        left = node(ps, levels[lv].op[k], left, parse_level(ps, lv + 1));
        if (left && !left->b) {
            snet_expr_free(left);
            return NULL;
        }
    }
}

static snet_expr *parse_cond(expr_parser *ps)
{
    snet_expr *c = parse_level(ps, 0);
    if (!c || !accept(ps, "?"))
        return c;
    snet_expr *e = node(ps, OP_COND, c, NULL);
    if (!e)
        return NULL;
    e->b = parse_cond(ps);
    if (!accept(ps, ":")) {
        fail(ps, "expected ':'");
        snet_expr_free(e);
        return NULL;
    }
    e->c = parse_cond(ps);
    if (ps->failed || !e->b || !e->c) {
        snet_expr_free(e);
        return NULL;
    }
    return e;
}

snet_expr *snet_expr_parse(const char **p, const snet_variant *pattern, char *err, size_t errlen)
{
    expr_parser ps = {*p, pattern, 0, err, errlen, false};
    snet_expr *e = parse_cond(&ps);
    if (ps.failed || !e) {
        snet_expr_free(e);
        if (!ps.failed)
            snet_set_error(err, errlen, "bad tag expression at '%.20s'", ps.p);
        return NULL;
    }
    *p = ps.p;
    return e;
}

long snet_expr_eval(const snet_expr *e, const snet_record *r, bool *ok)
{
    long a, b;
    switch (e->op) {
    case OP_CONST: return e->value;
    case OP_TAG: {
        long i = snet_record_find(r, e->kind, e->name);
        return i < 0 ? 0 : r->entries[i].u.tag;
    }
    case OP_NEG: return (long)(0UL - (unsigned long)snet_expr_eval(e->a, r, ok));
    case OP_NOT: return !snet_expr_eval(e->a, r, ok);
    case OP_COND:
        return snet_expr_eval(e->a, r, ok) ? snet_expr_eval(e->b, r, ok)
                                           : snet_expr_eval(e->c, r, ok);
    case OP_AND: return snet_expr_eval(e->a, r, ok) && snet_expr_eval(e->b, r, ok);
    case OP_OR: return snet_expr_eval(e->a, r, ok) || snet_expr_eval(e->b, r, ok);
    default: break;
    }
    a = snet_expr_eval(e->a, r, ok);
    b = snet_expr_eval(e->b, r, ok);
    switch (e->op) {
    case OP_ADD: return (long)((unsigned long)a + (unsigned long)b);
    case OP_SUB: return (long)((unsigned long)a - (unsigned long)b);
    case OP_MUL: return (long)((unsigned long)a * (unsigned long)b);
    case OP_DIV:
    case OP_MOD:
        if (b == 0 || (a == -__LONG_MAX__ - 1 && b == -1)) {
            *ok = false;
            return 0;
        }
        return e->op == OP_DIV ? a / b : a % b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    default: return 0;
    }
}
