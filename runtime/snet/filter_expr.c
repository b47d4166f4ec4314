/*
 * filter_expr.c - integer tag expressions: the guards of patterns and
 * filter branches and the values a filter gives tags, e.g. the t+1 of
 * <t=t+1>. The S-Net grammar (runtime/snet/lang) parses them; here each
 * name is bound to a tag or binding tag of the pattern it belongs to,
 * checked when the network is built rather than when a record arrives,
 * and expressions are evaluated over the tags of a record.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

struct snet_expr {
    snet_ast_op op;
    long value;
    char *name;
    snet_label_kind kind;
    snet_expr *a, *b, *c;
};

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

snet_expr *snet_expr_const(long n)
{
    snet_expr *e = calloc(1, sizeof *e);
    if (e) {
        e->op = SNET_X_NUM;
        e->value = n;
    }
    return e;
}

snet_expr *snet_expr_copy(const snet_expr *e)
{
    if (!e)
        return NULL;
    snet_expr *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *e;
    c->name = e->name ? strdup(e->name) : NULL;
    c->a = snet_expr_copy(e->a);
    c->b = snet_expr_copy(e->b);
    c->c = snet_expr_copy(e->c);
    if ((e->name && !c->name) || (e->a && !c->a) || (e->b && !c->b) || (e->c && !c->c)) {
        snet_expr_free(c);
        return NULL;
    }
    return c;
}

snet_expr *snet_expr_from_ast(const snet_ast_expr *a, const snet_variant *pattern, char *err,
                              size_t errlen)
{
    snet_expr *e = calloc(1, sizeof *e);
    if (!e) {
        snet_set_error(err, errlen, "out of memory");
        return NULL;
    }
    e->op = a->op;
    e->value = a->value;
    if (a->op == SNET_X_TAG) {
        if (snet_variant_has(pattern, SNET_TAG, a->name)) {
            e->kind = SNET_TAG;
        } else if (snet_variant_has(pattern, SNET_BTAG, a->name)) {
            e->kind = SNET_BTAG;
        } else {
            snet_set_error(err, errlen, "tag '%s' is not in the pattern", a->name);
            free(e);
            return NULL;
        }
        if (!(e->name = strdup(a->name))) {
            snet_set_error(err, errlen, "out of memory");
            free(e);
            return NULL;
        }
    }
    const snet_ast_expr *kids[3] = {a->a, a->b, a->c};
    snet_expr **slots[3] = {&e->a, &e->b, &e->c};
    for (int i = 0; i < 3; i++) {
        if (kids[i] && !(*slots[i] = snet_expr_from_ast(kids[i], pattern, err, errlen))) {
            snet_expr_free(e);
            return NULL;
        }
    }
    return e;
}

static long wrap_add(long a, long b) { return (long)((unsigned long)a + (unsigned long)b); }
static long wrap_sub(long a, long b) { return (long)((unsigned long)a - (unsigned long)b); }
static long wrap_mul(long a, long b) { return (long)((unsigned long)a * (unsigned long)b); }

long snet_expr_eval(const snet_expr *e, const snet_record *r, bool *ok)
{
    long a, b;
    switch (e->op) {
    case SNET_X_NUM: return e->value;
    case SNET_X_TAG: {
        long i = snet_record_find(r, e->kind, e->name);
        return i < 0 ? 0 : r->entries[i].u.tag;
    }
    case SNET_X_NEG: return wrap_sub(0, snet_expr_eval(e->a, r, ok));
    case SNET_X_NOT: return !snet_expr_eval(e->a, r, ok);
    case SNET_X_ABS: a = snet_expr_eval(e->a, r, ok); return a < 0 ? wrap_sub(0, a) : a;
    case SNET_X_COND:
        return snet_expr_eval(e->a, r, ok) ? snet_expr_eval(e->b, r, ok)
                                           : snet_expr_eval(e->c, r, ok);
    case SNET_X_AND: return snet_expr_eval(e->a, r, ok) && snet_expr_eval(e->b, r, ok);
    case SNET_X_OR: return snet_expr_eval(e->a, r, ok) || snet_expr_eval(e->b, r, ok);
    default: break;
    }
    a = snet_expr_eval(e->a, r, ok);
    b = snet_expr_eval(e->b, r, ok);
    switch (e->op) {
    case SNET_X_ADD: return wrap_add(a, b);
    case SNET_X_SUB: return wrap_sub(a, b);
    case SNET_X_MUL: return wrap_mul(a, b);
    case SNET_X_DIV:
    case SNET_X_MOD:
        if (b == 0 || (a == -__LONG_MAX__ - 1 && b == -1)) {
            *ok = false;
            return 0;
        }
        return e->op == SNET_X_DIV ? a / b : a % b;
    case SNET_X_EQ: return a == b;
    case SNET_X_NE: return a != b;
    case SNET_X_LT: return a < b;
    case SNET_X_LE: return a <= b;
    case SNET_X_GT: return a > b;
    case SNET_X_GE: return a >= b;
    case SNET_X_MIN: return a < b ? a : b;
    case SNET_X_MAX: return a > b ? a : b;
    default: return 0;
    }
}
