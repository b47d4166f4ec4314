/*
 * filter_parse.c - filter specifications in S-Net syntax,
 *     [{a, <t>} -> {b=a, <t=t+1>}; {a}]
 *     [{<t>} -> if <t == 1> then {<one>} else {<t>}]
 *     [{<t>} if <t > 0> -> {<t=t-1>} else -> {<done>}]
 * parsed with the S-Net grammar (runtime/snet/lang) and turned into a
 * pattern and branches of outputs, each a list of operations. Every name
 * an output or guard uses must come from the pattern, so a filter is
 * checked completely when the network is built. "<t>" keeps tag t if the
 * pattern has it and makes a new tag t = 0 if not.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

static void output_free(snet_filter_output *o)
{
    for (size_t i = 0; i < o->count; i++) {
        free(o->ops[i].name);
        free(o->ops[i].source);
        snet_expr_free(o->ops[i].expr);
    }
    free(o->ops);
    o->ops = NULL;
    o->count = 0;
}

static void branch_free(snet_filter_branch *b)
{
    for (size_t i = 0; i < b->count; i++)
        output_free(&b->outputs[i]);
    free(b->outputs);
    snet_expr_free(b->guard);
    *b = (snet_filter_branch){NULL, NULL, 0};
}

void snet_filter_spec_free(snet_filter_spec *f)
{
    snet_variant_free(&f->pattern);
    for (size_t i = 0; i < f->count; i++)
        branch_free(&f->branches[i]);
    free(f->branches);
    f->branches = NULL;
    f->count = 0;
}

static int make_op(const snet_ast_item *it, const snet_variant *pattern, snet_filter_op *op,
                   char *err, size_t errlen)
{
    *op = (snet_filter_op){0};
    op->label_kind = (snet_label_kind)it->kind;
    op->name = strdup(it->name);
    if (!op->name)
        goto oom;
    if (it->kind == SNET_AST_FIELD) {
        op->kind = SNET_FOP_FIELD;
        if (!snet_variant_has(pattern, SNET_FIELD, it->source)) {
            snet_set_error(err, errlen, "filter: field '%s' is not in the pattern", it->source);
            return -1;
        }
        if (!(op->source = strdup(it->source)))
            goto oom;
        return 0;
    }
    op->kind = SNET_FOP_TAG;
    if (it->expr) {
        op->expr = snet_expr_from_ast(it->expr, pattern, err, errlen);
        return op->expr ? 0 : -1;
    }
    /* <t> keeps the tag (or binding tag) t of the pattern, or makes t = 0 */
    snet_ast_expr self = {.op = SNET_X_TAG, .name = it->name};
    bool known = snet_variant_has(pattern, SNET_TAG, it->name) ||
                 snet_variant_has(pattern, SNET_BTAG, it->name);
    op->expr = known ? snet_expr_from_ast(&self, pattern, err, errlen) : snet_expr_const(0);
    if (op->expr)
        return 0;
oom:
    snet_set_error(err, errlen, "out of memory");
    return -1;
}

static int make_output(const snet_ast_output *o, const snet_variant *pattern,
                       snet_filter_output *out, char *err, size_t errlen)
{
    *out = (snet_filter_output){calloc(o->count ? o->count : 1, sizeof *out->ops), 0};
    if (!out->ops) {
        snet_set_error(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < o->count; i++) {
        for (size_t j = 0; j < i; j++)
            if (o->items[j].kind == o->items[i].kind && !strcmp(o->items[j].name, o->items[i].name)) {
                snet_set_error(err, errlen, "filter: label '%s' set twice in one output",
                               o->items[i].name);
                output_free(out);
                return -1;
            }
        int rc = make_op(&o->items[i], pattern, &out->ops[i], err, errlen);
        out->count = i + 1; /* so that output_free frees this op too */
        if (rc != 0) {
            output_free(out);
            return -1;
        }
    }
    return 0;
}

static int make_branch(const snet_ast_branch *b, const snet_variant *pattern,
                       snet_filter_branch *out, char *err, size_t errlen)
{
    *out = (snet_filter_branch){NULL, calloc(b->count ? b->count : 1, sizeof *out->outputs), 0};
    if (!out->outputs) {
        snet_set_error(err, errlen, "out of memory");
        return -1;
    }
    if (b->guard && !(out->guard = snet_expr_from_ast(b->guard, pattern, err, errlen))) {
        branch_free(out);
        return -1;
    }
    for (size_t i = 0; i < b->count; i++) {
        if (make_output(&b->outputs[i], pattern, &out->outputs[i], err, errlen) != 0) {
            branch_free(out);
            return -1;
        }
        out->count = i + 1;
    }
    return 0;
}

int snet_filter_spec_parse(const char *text, snet_filter_spec *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    snet_fragment frag;
    if (snet_parse_fragment(SNET_FRAG_FILTER, text, "filter", &frag, err, errlen) != 0)
        return -1;
    const snet_ast_filter *a = &frag.filter;
    int rc = -1;
    f->identity = a->identity;
    if (a->identity) {
        rc = 0;
    } else if (snet_variant_from_ast(&a->pattern, &f->pattern, err, errlen) == 0) {
        f->branches = calloc(a->count ? a->count : 1, sizeof *f->branches);
        rc = f->branches ? 0 : -1;
        if (!f->branches)
            snet_set_error(err, errlen, "out of memory");
        for (size_t i = 0; i < a->count && rc == 0; i++) {
            rc = make_branch(&a->branches[i], &f->pattern, &f->branches[i], err, errlen);
            if (rc == 0)
                f->count = i + 1;
        }
    }
    snet_fragment_free(&frag);
    if (rc != 0)
        snet_filter_spec_free(f);
    return rc;
}
