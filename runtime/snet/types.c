/*
 * types.c - record types and patterns: parsing "{a, <t>, <#b>} | {c}",
 * matching records against variants, and printing types for messages.
 *
 * Matching is by label sets: a record matches a variant when it carries
 * every label the variant names; extra labels are allowed (they are
 * flow-inherited) except binding tags, which a variant must name to match.
 * The score of a match is the number of labels in the variant, so routing
 * can prefer the most specific type.
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
    v->labels = NULL;
    v->count = 0;
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
        if (v->labels[i].kind == kind && strcmp(v->labels[i].name, name) == 0)
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

/* One label: a, <t> or <#t>. */
static int label_parse(const char **p, snet_variant *v, char *err, size_t errlen)
{
    const char *s = snet_skip_space(*p);
    snet_label_kind kind = SNET_FIELD;
    if (*s == '<') {
        s++;
        kind = SNET_TAG;
        if (*s == '#') {
            s++;
            kind = SNET_BTAG;
        }
        s = snet_skip_space(s);
    }
    size_t n = snet_name_length(s);
    if (n == 0) {
        snet_set_error(err, errlen, "expected a label name at '%.20s'", s);
        return -1;
    }
    const char *name = s;
    s = snet_skip_space(s + n);
    if (kind != SNET_FIELD) {
        if (*s != '>') {
            snet_set_error(err, errlen, "expected '>' after tag '%.*s'", (int)n, name);
            return -1;
        }
        s++;
    }
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)n, name);
    if (snet_variant_has(v, kind, tmp)) {
        snet_set_error(err, errlen, "label '%s' appears twice in a variant", tmp);
        return -1;
    }
    if (variant_add(v, kind, name, n) != 0) {
        snet_set_error(err, errlen, "out of memory");
        return -1;
    }
    *p = s;
    return 0;
}

int snet_variant_parse(const char **p, snet_variant *out, char *err, size_t errlen)
{
    const char *s = snet_skip_space(*p);
    *out = (snet_variant){NULL, 0};
    if (*s != '{') {
        snet_set_error(err, errlen, "expected '{' at '%.20s'", s);
        return -1;
    }
    s = snet_skip_space(s + 1);
    if (*s != '}') {
        for (;;) {
            if (label_parse(&s, out, err, errlen) != 0)
                goto fail;
            s = snet_skip_space(s);
            if (*s == '}')
                break;
            if (*s != ',') {
                snet_set_error(err, errlen, "expected ',' or '}' at '%.20s'", s);
                goto fail;
            }
            s++;
        }
    }
    *p = s + 1;
    return 0;
fail:
    snet_variant_free(out);
    return -1;
}

int snet_type_parse(const char **p, char sep, snet_type *out, char *err, size_t errlen)
{
    const char *s = *p;
    *out = (snet_type){NULL, 0};
    for (;;) {
        snet_variant v;
        if (snet_variant_parse(&s, &v, err, errlen) != 0)
            goto fail;
        snet_variant *grown = realloc(out->variants, (out->count + 1) * sizeof *grown);
        if (!grown) {
            snet_variant_free(&v);
            snet_set_error(err, errlen, "out of memory");
            goto fail;
        }
        out->variants = grown;
        out->variants[out->count++] = v;
        s = snet_skip_space(s);
        if (*s != sep)
            break;
        s++;
    }
    *p = s;
    return 0;
fail:
    snet_type_free(out);
    return -1;
}

int snet_type_append(snet_type *dst, const snet_type *src)
{
    for (size_t i = 0; i < src->count; i++) {
        snet_variant copy = {NULL, 0};
        for (size_t j = 0; j < src->variants[i].count; j++) {
            const snet_label *l = &src->variants[i].labels[j];
            if (variant_add(&copy, l->kind, l->name, strlen(l->name)) != 0) {
                snet_variant_free(&copy);
                return SNET_ENOMEM;
            }
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

long snet_variant_match(const snet_variant *v, const snet_record *r)
{
    for (size_t i = 0; i < v->count; i++)
        if (snet_record_find(r, v->labels[i].kind, v->labels[i].name) < 0)
            return -1;
    for (size_t i = 0; i < r->count; i++)
        if (r->entries[i].kind == SNET_BTAG && !snet_variant_has(v, SNET_BTAG, r->entries[i].name))
            return -1;
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
