/*
 * filter_parse.c - parsing filter specifications in S-Net syntax,
 *     [{a, <t>} -> {b=a, <t=t+1>}; {a}]
 * into a pattern and a list of outputs, each a list of operations. Every
 * name an output uses must come from the pattern, so a filter is checked
 * completely when the network is built, not when a record arrives.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct filter_parser {
    const char *p;
    const snet_variant *pattern;
    char *err;
    size_t errlen;
} filter_parser;

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

void snet_filter_spec_free(snet_filter_spec *f)
{
    snet_variant_free(&f->pattern);
    for (size_t i = 0; i < f->count; i++)
        output_free(&f->outputs[i]);
    free(f->outputs);
    f->outputs = NULL;
    f->count = 0;
}

static bool op_duplicate(const snet_filter_output *o, snet_label_kind kind, const char *name)
{
    for (size_t i = 0; i < o->count; i++)
        if (o->ops[i].label_kind == kind && !strcmp(o->ops[i].name, name))
            return true;
    return false;
}

static int op_add(filter_parser *fp, snet_filter_output *o, snet_filter_op *op)
{
    if (op_duplicate(o, op->label_kind, op->name)) {
        snet_set_error(fp->err, fp->errlen, "filter: label '%s' set twice in one output",
                       op->name);
        return -1;
    }
    snet_filter_op *grown = realloc(o->ops, (o->count + 1) * sizeof *grown);
    if (!grown) {
        snet_set_error(fp->err, fp->errlen, "out of memory");
        return -1;
    }
    o->ops = grown;
    o->ops[o->count++] = *op;
    return 0;
}

/* <t>, <t=expr>, <#t>, <#t=expr> */
static int parse_tag_op(filter_parser *fp, snet_filter_op *op)
{
    const char *s = fp->p + 1;
    op->kind = SNET_FOP_TAG;
    op->label_kind = SNET_TAG;
    if (*s == '#') {
        op->label_kind = SNET_BTAG;
        s++;
    }
    s = snet_skip_space(s);
    size_t n = snet_name_length(s);
    if (n == 0) {
        snet_set_error(fp->err, fp->errlen, "filter: expected a tag name at '%.20s'", s);
        return -1;
    }
    op->name = strndup(s, n);
    s = snet_skip_space(s + n);
    if (*s == '=') {
        s++;
        op->expr = snet_expr_parse(&s, fp->pattern, fp->err, fp->errlen);
        if (!op->expr)
            return -1;
        s = snet_skip_space(s);
    } else {
        /* <t> alone keeps the tag: the expression is the tag itself. */
        const char *self = op->name;
        op->expr = snet_expr_parse(&self, fp->pattern, fp->err, fp->errlen);
        if (!op->expr)
            return -1;
    }
    if (*s != '>') {
        snet_set_error(fp->err, fp->errlen, "filter: expected '>' at '%.20s'", s);
        return -1;
    }
    fp->p = s + 1;
    return 0;
}

/* a (keep) or b=a (copy a as b) */
static int parse_field_op(filter_parser *fp, snet_filter_op *op)
{
    const char *s = fp->p;
    size_t n = snet_name_length(s);
    if (n == 0) {
        snet_set_error(fp->err, fp->errlen, "filter: expected a label at '%.20s'", s);
        return -1;
    }
    op->kind = SNET_FOP_FIELD;
    op->label_kind = SNET_FIELD;
    op->name = strndup(s, n);
    s = snet_skip_space(s + n);
    const char *src = s, *src_end = s;
    if (*s == '=') {
        src = snet_skip_space(s + 1);
        size_t m = snet_name_length(src);
        if (m == 0) {
            snet_set_error(fp->err, fp->errlen, "filter: expected a field name at '%.20s'", src);
            return -1;
        }
        op->source = strndup(src, m);
        src_end = src + m;
    } else {
        op->source = strdup(op->name);
        src_end = s;
    }
    if (!op->name || !op->source) {
        snet_set_error(fp->err, fp->errlen, "out of memory");
        return -1;
    }
    if (!snet_variant_has(fp->pattern, SNET_FIELD, op->source)) {
        snet_set_error(fp->err, fp->errlen, "filter: field '%s' is not in the pattern",
                       op->source);
        return -1;
    }
    fp->p = src_end;
    return 0;
}

static int parse_output(filter_parser *fp, snet_filter_output *o)
{
    const char *s = snet_skip_space(fp->p);
    *o = (snet_filter_output){NULL, 0};
    if (*s != '{') {
        snet_set_error(fp->err, fp->errlen, "filter: expected '{' at '%.20s'", s);
        return -1;
    }
    fp->p = snet_skip_space(s + 1);
    if (*fp->p == '}') {
        fp->p++;
        return 0;
    }
    for (;;) {
        snet_filter_op op = {0};
        int rc = *fp->p == '<' ? parse_tag_op(fp, &op) : parse_field_op(fp, &op);
        if (rc != 0 || op_add(fp, o, &op) != 0) {
            free(op.name);
            free(op.source);
            snet_expr_free(op.expr);
            output_free(o);
            return -1;
        }
        s = snet_skip_space(fp->p);
        if (*s == '}') {
            fp->p = s + 1;
            return 0;
        }
        if (*s != ',') {
            snet_set_error(fp->err, fp->errlen, "filter: expected ',' or '}' at '%.20s'", s);
            output_free(o);
            return -1;
        }
        fp->p = snet_skip_space(s + 1);
    }
}

static int parse_outputs(filter_parser *fp, snet_filter_spec *f)
{
    fp->p = snet_skip_space(fp->p);
    if (*fp->p == ']')
        return 0; /* [{a} -> ]: no output, the record is dropped */
    for (;;) {
        snet_filter_output o;
        if (parse_output(fp, &o) != 0)
            return -1;
        snet_filter_output *grown = realloc(f->outputs, (f->count + 1) * sizeof *grown);
        if (!grown) {
            output_free(&o);
            snet_set_error(fp->err, fp->errlen, "out of memory");
            return -1;
        }
        f->outputs = grown;
        f->outputs[f->count++] = o;
        fp->p = snet_skip_space(fp->p);
        if (*fp->p != ';')
            return 0;
        fp->p++;
    }
}

int snet_filter_spec_parse(const char *text, snet_filter_spec *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    const char *s = snet_skip_space(text ? text : "");
    if (*s != '[') {
        snet_set_error(err, errlen, "filter: expected '[' at '%.20s'", s);
        return -1;
    }
    s = snet_skip_space(s + 1);
    if (*s == ']') {
        f->identity = true;
        s++;
    } else {
        if (snet_variant_parse(&s, &f->pattern, err, errlen) != 0)
            return -1;
        s = snet_skip_space(s);
        if (strncmp(s, "->", 2) != 0) {
            snet_set_error(err, errlen, "filter: expected '->' at '%.20s'", s);
            snet_filter_spec_free(f);
            return -1;
        }
        filter_parser fp = {s + 2, &f->pattern, err, errlen};
        if (parse_outputs(&fp, f) != 0) {
            snet_filter_spec_free(f);
            return -1;
        }
        s = snet_skip_space(fp.p);
        if (*s != ']') {
            snet_set_error(err, errlen, "filter: expected ']' at '%.20s'", s);
            snet_filter_spec_free(f);
            return -1;
        }
        s++;
    }
    s = snet_skip_space(s);
    if (*s) {
        snet_set_error(err, errlen, "filter: unexpected text after ']': '%.20s'", s);
        snet_filter_spec_free(f);
        return -1;
    }
    return 0;
}
