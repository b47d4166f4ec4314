/*
 * record_text.c - the textual record format (docs/RECORDS.md): one record
 * is "{x=42, s:string="hi", <t>=3, <#k>=1}". Networks read their input and
 * write their output in it so that they can run from the command line.
 *
 * A parsed record owns its label names (one blob, see record.c): the text
 * is gone once the record travels, and names get interned by the run.
 */
#include "snet_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *label_open(snet_label_kind k)
{
    return k == SNET_FIELD ? "" : k == SNET_TAG ? "<" : "<#";
}

int snet_record_format(const snet_record *r, FILE *out)
{
    if (fputc('{', out) == EOF)
        return SNET_ESYSTEM;
    for (size_t i = 0; i < r->count; i++) {
        const snet_entry *e = &r->entries[i];
        if (fprintf(out, "%s%s%s%s", i ? ", " : "", label_open(e->kind), e->name,
                    e->kind == SNET_FIELD ? "" : ">") < 0)
            return SNET_ESYSTEM;
        if (e->kind != SNET_FIELD) {
            if (fprintf(out, "=%ld", e->u.tag) < 0)
                return SNET_ESYSTEM;
            continue;
        }
        if (e->type != &snet_field_int && fprintf(out, ":%s", e->type->name) < 0)
            return SNET_ESYSTEM;
        if (fputc('=', out) == EOF)
            return SNET_ESYSTEM;
        if (!e->type->serialise) {
            if (fputs("?", out) == EOF)
                return SNET_ESYSTEM;
        } else if (e->type->serialise(out, e->u.value) != 0) {
            return SNET_ESYSTEM;
        }
    }
    return fputc('}', out) == EOF ? SNET_ESYSTEM : SNET_OK;
}

/* ---- parsing ------------------------------------------------------------------ */

typedef struct parse_state {
    const char *p;
    snet_record *rec;
    char *blob;
    size_t blob_len, blob_cap;
    const snet_field_type *const *types;
    size_t ntypes;
    char *err;
    size_t errlen;
} parse_state;

/* Skip blanks and '#' comments to the end of their line. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        p = snet_skip_space(p);
        if (*p != '#')
            return p;
        while (*p && *p != '\n')
            p++;
    }
}

static const snet_field_type *find_type(const parse_state *ps, const char *name, size_t len)
{
    static const snet_field_type *const builtin[] = {&snet_field_int, &snet_field_double,
                                                     &snet_field_string};
    for (size_t i = 0; i < 3; i++)
        if (strlen(builtin[i]->name) == len && !strncmp(builtin[i]->name, name, len))
            return builtin[i];
    for (size_t i = 0; i < ps->ntypes; i++)
        if (strlen(ps->types[i]->name) == len && !strncmp(ps->types[i]->name, name, len))
            return ps->types[i];
    return NULL;
}

/* Store a name in the blob; returns its offset or -1. */
static long blob_add(parse_state *ps, const char *name, size_t len)
{
    if (ps->blob_len + len + 1 > ps->blob_cap) {
        size_t cap = (ps->blob_cap + len + 1) * 2;
        char *grown = realloc(ps->blob, cap);
        if (!grown)
            return -1;
        ps->blob = grown;
        ps->blob_cap = cap;
    }
    long off = (long)ps->blob_len;
    memcpy(ps->blob + ps->blob_len, name, len);
    ps->blob[ps->blob_len + len] = '\0';
    ps->blob_len += len + 1;
    return off;
}

static bool is_duplicate(const parse_state *ps, snet_label_kind kind, const char *name, size_t len)
{
    for (size_t i = 0; i < ps->rec->count; i++) {
        const char *n = ps->blob + (uintptr_t)ps->rec->entries[i].name;
        if (ps->rec->entries[i].kind == kind && strlen(n) == len && !strncmp(n, name, len))
            return true;
    }
    return false;
}

/* The value text runs to the next ',' or '}' outside quotes and brackets. */
static size_t value_length(const char *p)
{
    size_t n = 0;
    int depth = 0;
    bool quoted = false;
    for (; p[n]; n++) {
        char c = p[n];
        if (quoted) {
            if (c == '\\' && p[n + 1])
                n++;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if ((c == ',' || c == '}') && depth == 0) {
            break;
        }
    }
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    return n;
}

static int parse_tag_value(parse_state *ps, long *value)
{
    char *end;
    const char *s = snet_skip_space(ps->p);
    errno = 0;
    long v = strtol(s, &end, 0);
    if (end == s || errno == ERANGE) {
        snet_set_error(ps->err, ps->errlen, "expected an integer tag value (a long) at '%.20s'",
                       s);
        return -1;
    }
    *value = v;
    ps->p = end;
    return 0;
}

static int parse_item(parse_state *ps)
{
    const char *s = skip_blank(ps->p);
    snet_label_kind kind = SNET_FIELD;
    if (*s == '<') {
        kind = s[1] == '#' ? SNET_BTAG : SNET_TAG;
        s = snet_skip_space(s + (kind == SNET_BTAG ? 2 : 1));
    }
    size_t n = snet_name_length(s);
    if (n == 0) {
        snet_set_error(ps->err, ps->errlen, "expected a label at '%.20s'", s);
        return -1;
    }
    const char *name = s;
    s = snet_skip_space(s + n);
    if (kind != SNET_FIELD && *s++ != '>') {
        snet_set_error(ps->err, ps->errlen, "expected '>' after tag '%.*s'", (int)n, name);
        return -1;
    }
    if (is_duplicate(ps, kind, name, n)) {
        snet_set_error(ps->err, ps->errlen, "label '%.*s' appears twice", (int)n, name);
        return -1;
    }
    const snet_field_type *type = &snet_field_int;
    s = snet_skip_space(s);
    if (kind == SNET_FIELD && *s == ':') {
        s = snet_skip_space(s + 1);
        size_t tn = snet_name_length(s);
        type = tn ? find_type(ps, s, tn) : NULL;
        if (!type) {
            snet_set_error(ps->err, ps->errlen, "unknown field type '%.*s' for field '%.*s'",
                           (int)(tn ? tn : 1), s, (int)n, name);
            return -1;
        }
        s = snet_skip_space(s + tn);
    }
    if (*s++ != '=') {
        snet_set_error(ps->err, ps->errlen, "expected '=' after label '%.*s'", (int)n, name);
        return -1;
    }
    snet_entry e = {.name = NULL, .kind = kind, .type = NULL, .u.tag = 0};
    ps->p = s;
    if (kind != SNET_FIELD) {
        if (parse_tag_value(ps, &e.u.tag) != 0)
            return -1;
    } else {
        s = snet_skip_space(s);
        size_t vn = value_length(s);
        if (!type->deserialise || type->deserialise(s, vn, &e.u.value) != 0) {
            snet_set_error(ps->err, ps->errlen, "bad %s value '%.*s' for field '%.*s'",
                           type->name, (int)vn, s, (int)n, name);
            return -1;
        }
        e.type = type;
        ps->p = s + vn;
    }
    long off = blob_add(ps, name, n);
    if (off < 0 || snet_record_append(ps->rec, &e) != SNET_OK) {
        snet_field_free(e.type, e.u.value);
        snet_set_error(ps->err, ps->errlen, "out of memory");
        return -1;
    }
    /* The blob may still move: keep the offset for now (rebased at the end). */
    ps->rec->entries[ps->rec->count - 1].name = (const char *)(uintptr_t)off;
    return 0;
}

static int parse_items(parse_state *ps)
{
    const char *s = skip_blank(ps->p);
    if (*s != '{') {
        snet_set_error(ps->err, ps->errlen, "expected '{' at '%.20s'", s);
        return -1;
    }
    ps->p = skip_blank(s + 1);
    if (*ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (parse_item(ps) != 0)
            return -1;
        s = skip_blank(ps->p);
        if (*s == '}') {
            ps->p = s + 1;
            return 0;
        }
        if (*s != ',') {
            snet_set_error(ps->err, ps->errlen, "expected ',' or '}' at '%.20s'", s);
            return -1;
        }
        ps->p = s + 1;
    }
}

int snet_record_parse(const char *text, const char **end, snet_record **out,
                      const snet_field_type *const *types, size_t ntypes, char *err,
                      size_t errlen)
{
    *out = NULL;
    parse_state ps = {.p = text, .types = types, .ntypes = ntypes, .err = err, .errlen = errlen};
    ps.rec = snet_record_new();
    if (!ps.rec) {
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    int rc = parse_items(&ps);
    /* Rebase the names (offsets until now) onto the final blob. */
    for (size_t i = 0; i < ps.rec->count; i++)
        ps.rec->entries[i].name = ps.blob + (uintptr_t)ps.rec->entries[i].name;
    ps.rec->name_blob = ps.blob;
    ps.rec->blob_len = ps.blob_len;
    if (end)
        *end = ps.p;
    if (rc != 0) {
        snet_record_free(ps.rec);
        return SNET_EINVAL;
    }
    *out = ps.rec;
    return SNET_OK;
}
