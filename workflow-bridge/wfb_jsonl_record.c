/*
 * wfb_jsonl_record.c - reading one JSON Lines event into a flat record.
 *
 * Building a jansson object for every line made JSONL import the slowest
 * step of the bridge, so the common case (a flat object of ASCII strings
 * without \u escapes, numbers, booleans, null and arrays of strings) is
 * parsed in place here. Everything else - and every malformed line - goes
 * through jansson, so validation and error messages stay jansson's.
 */
#include "wfb_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

/* A string at c->p (after the quote) unescaped in place; NULL to fall back. */
static const char *fast_string(cursor *c)
{
    char *out = c->p, *start = c->p;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p++;
        if (ch == '"') {
            *out = '\0';
            return start;
        }
        if (ch < 0x20 || ch >= 0x80)
            return NULL; /* control characters, UTF-8: let jansson check */
        if (ch == '\\') {
            if (c->p >= c->end)
                return NULL;
            switch (*c->p++) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            default: return NULL; /* \u and invalid escapes */
            }
        }
        *out++ = (char)ch;
    }
    return NULL;
}

/* JSON number grammar, then strtod. */
static bool fast_number(cursor *c, double *out)
{
    char *s = c->p;
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return false;
    if (*c->p == '0')
        c->p++;
    else
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
            c->p++;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return false;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
            c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return false;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
            c->p++;
    }
    char saved = *c->p; /* the line is NUL-terminated, so this is in bounds */
    *c->p = '\0';
    *out = strtod(s, NULL);
    *c->p = saved;
    /* Beyond a double (1e999): jansson then reports the overflow. */
    return isfinite(*out);
}

static bool literal(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
        return false;
    c->p += n;
    return true;
}

static bool push_item(wfb_record *rec, const char *s)
{
    if (KIT_GROW(rec->items, rec->cap_items, rec->n_items_used + 1))
        return false;
    rec->items[rec->n_items_used++] = s;
    return true;
}

/* An array of strings; item pointers are fixed up once parsing is done,
 * because the item storage may move while it grows. */
static bool fast_strings(cursor *c, wfb_record *rec, wfb_jv *v)
{
    v->type = WFB_JV_STRINGS;
    v->n_items = 0;
    v->num = (double)rec->n_items_used; /* first item's index, for fixing up */
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return true;
    }
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != '"')
            return false;
        const char *s = fast_string(c);
        if (!s || !push_item(rec, s))
            return false;
        v->n_items++;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == ']') {
            c->p++;
            return true;
        }
        return false;
    }
}

static bool fast_value(cursor *c, wfb_record *rec, wfb_jv *v)
{
    memset(v, 0, sizeof *v);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '"':
        c->p++;
        v->type = WFB_JV_STRING;
        return (v->str = fast_string(c)) != NULL;
    case '[':
        c->p++;
        return fast_strings(c, rec, v);
    case 't':
        v->type = WFB_JV_BOOL, v->num = 1;
        return literal(c, "true");
    case 'f':
        v->type = WFB_JV_BOOL;
        return literal(c, "false");
    case 'n':
        v->type = WFB_JV_NULL;
        return literal(c, "null");
    default:
        v->type = WFB_JV_NUMBER;
        return fast_number(c, &v->num);
    }
}

static bool duplicate_key(const wfb_record *rec, const char *key)
{
    for (int i = 0; i < rec->n; i++)
        if (!strcmp(rec->keys[i], key))
            return true;
    return false;
}

/* The whole line as a flat object; false means "ask jansson". */
static bool fast_parse(wfb_record *rec, char *line, size_t len)
{
    cursor c = {line, line + len};
    skip_ws(&c);
    if (c.p >= c.end || *c.p++ != '{')
        return false;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}')
        c.p++;
    else
        for (;;) {
            skip_ws(&c);
            if (c.p >= c.end || *c.p++ != '"' || rec->n == WFB_RECORD_MAX_FIELDS)
                return false;
            const char *key = fast_string(&c);
            if (!key || duplicate_key(rec, key))
                return false;
            skip_ws(&c);
            if (c.p >= c.end || *c.p++ != ':')
                return false;
            skip_ws(&c);
            if (!fast_value(&c, rec, &rec->values[rec->n]))
                return false;
            rec->keys[rec->n++] = key;
            skip_ws(&c);
            if (c.p < c.end && *c.p == ',') {
                c.p++;
                continue;
            }
            if (c.p < c.end && *c.p == '}') {
                c.p++;
                break;
            }
            return false;
        }
    skip_ws(&c);
    if (c.p != c.end)
        return false;
    for (int i = 0; i < rec->n; i++)
        if (rec->values[i].type == WFB_JV_STRINGS)
            rec->values[i].items = rec->items ? rec->items + (size_t)rec->values[i].num : NULL;
    return true;
}

/* A jansson member as a record value. */
static bool convert_value(wfb_record *rec, json_t *j, wfb_jv *v)
{
    memset(v, 0, sizeof *v);
    if (json_is_string(j)) {
        v->type = WFB_JV_STRING;
        v->str = json_string_value(j);
    } else if (json_is_number(j)) {
        v->type = WFB_JV_NUMBER;
        v->num = json_number_value(j);
    } else if (json_is_boolean(j)) {
        v->type = WFB_JV_BOOL;
        v->num = json_is_true(j);
    } else if (json_is_null(j)) {
        v->type = WFB_JV_NULL;
    } else if (json_is_array(j)) {
        size_t i, first = rec->n_items_used;
        json_t *item;
        v->type = WFB_JV_STRINGS;
        json_array_foreach(j, i, item) {
            if (!json_is_string(item)) {
                v->type = WFB_JV_OTHER;
                return true;
            }
            if (!push_item(rec, json_string_value(item)))
                return false;
        }
        v->num = (double)first;
        v->n_items = json_array_size(j);
    } else {
        v->type = WFB_JV_OTHER;
    }
    return true;
}

static int slow_parse(wfb_record *rec, const char *line, size_t len, char *msg, size_t msglen)
{
    json_error_t jerr;
    json_t *obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!obj) {
        snprintf(msg, msglen, "%s", jerr.text);
        return -1;
    }
    rec->json = obj;
    if (!json_is_object(obj))
        return -2;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        if (rec->n == WFB_RECORD_MAX_FIELDS) {
            snprintf(msg, msglen, "more than %d members", WFB_RECORD_MAX_FIELDS);
            return -1;
        }
        if (!convert_value(rec, value, &rec->values[rec->n])) {
            snprintf(msg, msglen, "out of memory");
            return -1;
        }
        rec->keys[rec->n++] = key;
    }
    for (int i = 0; i < rec->n; i++)
        if (rec->values[i].type == WFB_JV_STRINGS)
            rec->values[i].items = rec->items ? rec->items + (size_t)rec->values[i].num : NULL;
    return 0;
}

int wfb_record_parse(wfb_record *rec, char *line, size_t len, char *msg, size_t msglen)
{
    wfb_record_clear(rec);
    /* The fast parser unescapes in place; keep the text for jansson. */
    char stack_copy[512];
    char *copy = len < sizeof stack_copy ? stack_copy : malloc(len + 1);
    if (!copy) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    memcpy(copy, line, len + 1);
    int rc = 0;
    if (!fast_parse(rec, line, len)) {
        wfb_record_clear(rec);
        rc = slow_parse(rec, copy, len, msg, msglen);
    }
    if (copy != stack_copy)
        free(copy);
    return rc;
}

const wfb_jv *wfb_record_get(const wfb_record *rec, const char *key)
{
    for (int i = 0; i < rec->n; i++)
        if (!strcmp(rec->keys[i], key))
            return &rec->values[i];
    return NULL;
}

void wfb_record_clear(wfb_record *rec)
{
    json_decref(rec->json);
    rec->json = NULL;
    rec->n = 0;
    rec->n_items_used = 0;
}

void wfb_record_free(wfb_record *rec)
{
    wfb_record_clear(rec);
    free(rec->items);
    rec->items = NULL;
    rec->cap_items = 0;
}
