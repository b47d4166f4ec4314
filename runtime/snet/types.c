/*
 * types.c - record types and patterns: made from the S-Net grammar's
 * trees ("{a, <t>, <#b>} | {c}", patterns with guards "{<t>} if <t > 0>"),
 * matching records against variants, and printing types for messages.
 *
 * Matching is by label sets: a record matches a variant when it carries
 * every label the variant names; extra labels are allowed (they are
 * flow-inherited) except binding tags, which a variant must name to match,
 * and a guard, if any, must hold for the record's tags. The score of a
 * match is the number of labels in the variant, so routing can prefer the
 * most specific type.
 */
#include "snet_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void snet_set_error(char *err, size_t len, const char *fmt, ...)
{
    if (!err || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

const char *snet_skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

size_t snet_name_length(const char *p)
{
    size_t n = 0;
    if (!(isalpha((unsigned char)p[0]) || p[0] == '_'))
        return 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
        n++;
    return n;
}

void snet_variant_free(snet_variant *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->labels[i].name);
    free(v->labels);
    snet_expr_free(v->guard);
    *v = (snet_variant){NULL, 0, NULL};
}

void snet_type_free(snet_type *t)
{
    for (size_t i = 0; i < t->count; i++)
        snet_variant_free(&t->variants[i]);
    free(t->variants);
    t->variants = NULL;
    t->count = 0;
}

bool snet_variant_has(const snet_variant *v, snet_label_kind kind, const char *name)
{
    for (size_t i = 0; i < v->count; i++)
        if (v->labels[i].kind == kind && snet_same_name(v->labels[i].name, name))
            return true;
    return false;
}

static int variant_add(snet_variant *v, snet_label_kind kind, const char *name, size_t len)
{
    snet_label *grown = realloc(v->labels, (v->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    v->labels = grown;
    char *copy = strndup(name, len);
    if (!copy)
        return -1;
    v->labels[v->count++] = (snet_label){copy, kind};
    return 0;
}

int snet_parse_fragment(snet_fragment_kind kind, const char *text, const char *what,
                        snet_fragment *out, char *err, size_t errlen)
{
    snet_diag d;
    const char *t = text ? text : "";
    int rc = snet_syntax_parse_fragment(kind, t, strlen(t), out, &d);
    if (rc == SNET_SYNTAX_OK)
        return 0;
    if (rc == SNET_SYNTAX_NOMEM)
        snet_set_error(err, errlen, "out of memory");
    else if (strchr(t, '\n'))
        snet_set_error(err, errlen, "%s: line %d, column %d: %s", what, d.at.line, d.at.column,
                       d.message);
    else
        snet_set_error(err, errlen, "%s '%.200s': column %d: %s", what, t, d.at.column,
                       d.message);
    return -1;
}

int snet_variant_from_ast(const snet_ast_variant *v, snet_variant *out, char *err, size_t errlen)
{
    *out = (snet_variant){NULL, 0, NULL};
    if (v->type_name) {
        snet_set_error(err, errlen, "type name '%s': builder strings spell types out "
                       "({a, <t>}); type names belong to .snet programs", v->type_name);
        return -1;
    }
    for (size_t i = 0; i < v->count; i++) {
        const snet_ast_label *l = &v->labels[i];
        if (snet_variant_has(out, (snet_label_kind)l->kind, l->name)) {
            snet_set_error(err, errlen, "label '%s' appears twice in a variant", l->name);
            goto fail;
        }
        if (variant_add(out, (snet_label_kind)l->kind, l->name, strlen(l->name)) != 0) {
            snet_set_error(err, errlen, "out of memory");
            goto fail;
        }
    }
    if (v->guard && !(out->guard = snet_expr_from_ast(v->guard, out, err, errlen)))
        goto fail;
    return 0;
fail:
    snet_variant_free(out);
    return -1;
}

int snet_type_from_ast(const snet_ast_type *t, bool guards, snet_type *out, char *err,
                       size_t errlen)
{
    *out = (snet_type){NULL, 0};
    out->variants = calloc(t->count ? t->count : 1, sizeof *out->variants);
    if (!out->variants) {
        snet_set_error(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->count; i++) {
        if (t->variants[i].guard && !guards) {
            snet_set_error(err, errlen, "a guard is not allowed here");
            snet_type_free(out);
            return -1;
        }
        if (snet_variant_from_ast(&t->variants[i], &out->variants[i], err, errlen) != 0) {
            snet_type_free(out);
            return -1;
        }
        out->count = i + 1;
    }
    return 0;
}

int snet_type_append(snet_type *dst, const snet_type *src)
{
    for (size_t i = 0; i < src->count; i++) {
        snet_variant copy = {NULL, 0, NULL};
        for (size_t j = 0; j < src->variants[i].count; j++) {
            const snet_label *l = &src->variants[i].labels[j];
            if (variant_add(&copy, l->kind, l->name, strlen(l->name)) != 0) {
                snet_variant_free(&copy);
                return SNET_ENOMEM;
            }
        }
        if (src->variants[i].guard && !(copy.guard = snet_expr_copy(src->variants[i].guard))) {
            snet_variant_free(&copy);
            return SNET_ENOMEM;
        }
        snet_variant *grown = realloc(dst->variants, (dst->count + 1) * sizeof *grown);
        if (!grown) {
            snet_variant_free(&copy);
            return SNET_ENOMEM;
        }
        dst->variants = grown;
        dst->variants[dst->count++] = copy;
    }
    return SNET_OK;
}

void snet_type_visit_names(snet_type *t, void (*fn)(char **slot, void *ctx), void *ctx)
{
    for (size_t v = 0; v < t->count; v++) {
        for (size_t i = 0; i < t->variants[v].count; i++)
            fn(&t->variants[v].labels[i].name, ctx);
        snet_expr_visit_names(t->variants[v].guard, fn, ctx);
    }
}

long snet_variant_match(const snet_variant *v, const snet_record *r)
{
    for (size_t i = 0; i < v->count; i++)
        if (snet_record_find(r, v->labels[i].kind, v->labels[i].name) < 0)
            return -1;
    for (size_t i = 0; i < r->count; i++)
        if (r->entries[i].kind == SNET_BTAG && !snet_variant_has(v, SNET_BTAG, r->entries[i].name))
            return -1;
    if (v->guard) {
        bool ok = true; /* a guard that divides by zero does not hold */
        if (!snet_expr_eval(v->guard, r, &ok) || !ok)
            return -1;
    }
    return (long)v->count;
}

long snet_type_best(const snet_type *t, const snet_record *r, long *score)
{
    long best = -1, best_score = -1;
    for (size_t i = 0; i < t->count; i++) {
        long s = snet_variant_match(&t->variants[i], r);
        if (s > best_score) {
            best = (long)i;
            best_score = s;
        }
    }
    if (score)
        *score = best_score;
    return best;
}

void snet_variant_text(const snet_variant *v, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "{");
    for (size_t i = 0; i < v->count && used < len; i++) {
        const snet_label *l = &v->labels[i];
        const char *open = l->kind == SNET_FIELD ? "" : l->kind == SNET_TAG ? "<" : "<#";
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", i ? ", " : "", open, l->name,
                                 l->kind == SNET_FIELD ? "" : ">");
    }
    if (used < len)
        snprintf(buf + used, len - used, "}");
}

void snet_type_text(const snet_type *t, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < t->count && used < len; i++) {
        if (i)
            used += (size_t)snprintf(buf + used, len - used, " | ");
        if (used < len)
            snet_variant_text(&t->variants[i], buf + used, len - used);
        used += strlen(buf + used);
    }
}

/* ---- the match cache (snet_internal.h) ------------------------------------------------ */

void snet_match_cache_init(snet_match_cache *c, const snet_type *t)
{
    c->type = t;
    c->usable = true;
    for (size_t v = 0; v < t->count; v++)
        if (t->variants[v].guard)
            c->usable = false;
    c->count = SIZE_MAX;
    c->variant = c->score = -1;
}

long snet_match_cache_fill(snet_match_cache *c, const snet_record *r, long *score)
{
    long best_score;
    long best = snet_type_best(c->type, r, &best_score);
    if (c->usable && r->count <= SNET_INLINE_ENTRIES) {
        c->count = r->count;
        for (size_t i = 0; i < r->count; i++) {
            c->kinds[i] = r->entries[i].kind;
            c->names[i] = r->entries[i].name;
        }
        c->variant = best;
        c->score = best_score;
    }
    if (score)
        *score = best_score;
    return best;
}
