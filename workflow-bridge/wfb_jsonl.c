/*
 * wfb_jsonl.c - importer for the bridge's own JSON Lines workflow events
 * (schema in docs/EVENTS.md): activity events, dependencies, data states and
 * mutations, one object per line.
 *
 * The file is streamed line by line so its size is bounded only by the
 * graph, and every error names the line it was found on. Lines are parsed
 * into flat records (wfb_jsonl_record.c) rather than JSON trees.
 */
#include "wfb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct line_ctx {
    wfb_graph *g;
    const char *file;
    long line;
    wfb_error *err;
} line_ctx;

static int fail(line_ctx *c, const char *fmt, const char *arg)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, arg);
    wfb_set_error(c->err, c->file, c->line, "%s", msg);
    return -1;
}

static int oom(line_ctx *c) { return fail(c, "%s", "out of memory"); }

/* A required string member. */
static const char *need_string(line_ctx *c, const wfb_record *obj, const char *key)
{
    const wfb_jv *v = wfb_record_get(obj, key);
    if (!v || v->type != WFB_JV_STRING) {
        fail(c, "missing or non-string field \"%s\"", key);
        return NULL;
    }
    return v->str;
}

/* An optional string member: NULL when absent; *bad set on wrong type. */
static const char *opt_string(line_ctx *c, const wfb_record *obj, const char *key, bool *bad)
{
    const wfb_jv *v = wfb_record_get(obj, key);
    if (!v || v->type == WFB_JV_NULL)
        return NULL;
    if (v->type != WFB_JV_STRING) {
        fail(c, "field \"%s\" must be a string", key);
        *bad = true;
        return NULL;
    }
    return v->str;
}

/* An optional time: number of seconds or ISO-8601 string. 0 = absent,
 * 1 = present, -1 = malformed (error set). */
static int opt_time(line_ctx *c, const wfb_record *obj, const char *key, double *out)
{
    const wfb_jv *v = wfb_record_get(obj, key);
    if (!v || v->type == WFB_JV_NULL)
        return 0;
    if (v->type == WFB_JV_NUMBER) {
        *out = v->num;
        return 1;
    }
    if (v->type == WFB_JV_STRING && !wfb_parse_time(v->str, out))
        return 1;
    return fail(c, "field \"%s\" must be seconds or an ISO-8601 time", key);
}

static int opt_number(line_ctx *c, const wfb_record *obj, const char *key, double *out)
{
    const wfb_jv *v = wfb_record_get(obj, key);
    if (!v || v->type == WFB_JV_NULL)
        return 0;
    if (v->type != WFB_JV_NUMBER)
        return fail(c, "field \"%s\" must be a number", key);
    *out = v->num;
    return 1;
}

static uint32_t ref(line_ctx *c, const char *id)
{
    uint32_t v = wfb_vertex_ref(c->g, id, strlen(id), c->line);
    if (v == WFB_NONE)
        oom(c);
    return v;
}

/* Sets the string attributes present in obj. */
static int set_attrs(line_ctx *c, const wfb_record *obj, uint32_t v, const char *const keys[],
                     const wfb_attr attrs[], int n)
{
    for (int i = 0; i < n; i++) {
        bool bad = false;
        const char *s = opt_string(c, obj, keys[i], &bad);
        if (bad)
            return -1;
        if (s && wfb_vertex_set_attr(c->g, v, attrs[i], s))
            return oom(c);
    }
    return 0;
}

static int add_dependency(line_ctx *c, const char *parent, const char *child)
{
    uint32_t p = ref(c, parent), ch = ref(c, child);
    if (p == WFB_NONE || ch == WFB_NONE)
        return -1;
    if (wfb_edge_add(c->g, p, ch, WFB_EDGE_DEPEND, 0.0, c->line) == WFB_NONE)
        return oom(c);
    return 0;
}

/* An activity event at time t, in order with the activity's others. */
static int activity_event(line_ctx *c, uint32_t v, const char *event, double t)
{
    wfb_time_kind kind;
    if (!strcmp(event, "submitted"))
        kind = WFB_T_SUBMITTED;
    else if (!strcmp(event, "active"))
        kind = WFB_T_ACTIVE;
    else if (!strcmp(event, "completed") || !strcmp(event, "failed"))
        kind = WFB_T_END;
    else
        return fail(c, "unknown activity event \"%s\" (submitted, active, completed, failed)",
                    event);
    char why[300];
    int rc = wfb_activity_event(c->g, v, kind, t, why, sizeof why);
    if (rc == -2)
        return fail(c, "%s (times go backwards)", why);
    if (rc)
        return oom(c);
    if (kind == WFB_T_END)
        wfb_vertex_set_failed(c->g, v, event[0] == 'f');
    return 0;
}

static int import_activity(line_ctx *c, const wfb_record *obj)
{
    const char *id = need_string(c, obj, "id");
    if (!id)
        return -1;
    uint32_t v = ref(c, id);
    if (v == WFB_NONE)
        return -1;
    if (wfb_vertex_defined(c->g, v) && wfb_vertex_kind_of(c->g, v) != WFB_VERTEX_ACTIVITY)
        return fail(c, "'%s' is a data state, not an activity", id);
    wfb_vertex_define(c->g, v, WFB_VERTEX_ACTIVITY, c->line);
    bool bad = false;
    const char *event = opt_string(c, obj, "event", &bad);
    if (bad)
        return -1;
    if (event) {
        double t = 0;
        int has = opt_time(c, obj, "time", &t);
        if (has < 0)
            return -1;
        if (!has)
            return fail(c, "activity event \"%s\" needs a \"time\"", event);
        if (activity_event(c, v, event, t))
            return -1;
    }
    double d = 0;
    int has_d = opt_number(c, obj, "duration", &d);
    if (has_d < 0)
        return -1;
    if (has_d && !(d >= 0))
        return fail(c, "%s", "field \"duration\" must not be negative");
    if (has_d && wfb_vertex_set_duration(c->g, v, d))
        return oom(c);
    static const char *const keys[] = {"name", "resources", "trace"};
    static const wfb_attr attrs[] = {WFB_ATTR_LABEL, WFB_ATTR_RESOURCES, WFB_ATTR_TRACE};
    if (set_attrs(c, obj, v, keys, attrs, 3))
        return -1;
    const wfb_jv *deps = wfb_record_get(obj, "depends");
    if (!deps)
        return 0;
    if (deps->type != WFB_JV_STRINGS)
        return fail(c, "%s", "field \"depends\" must be an array of ids");
    for (size_t i = 0; i < deps->n_items; i++)
        if (add_dependency(c, deps->items[i], id))
            return -1;
    return 0;
}

static int import_dependency(line_ctx *c, const wfb_record *obj)
{
    const char *parent = need_string(c, obj, "parent");
    const char *child = parent ? need_string(c, obj, "child") : NULL;
    return child ? add_dependency(c, parent, child) : -1;
}

static int import_data(line_ctx *c, const wfb_record *obj)
{
    const char *id = need_string(c, obj, "id");
    if (!id)
        return -1;
    uint32_t v = ref(c, id);
    if (v == WFB_NONE)
        return -1;
    if (wfb_vertex_defined(c->g, v) && wfb_vertex_kind_of(c->g, v) != WFB_VERTEX_DATA)
        return fail(c, "'%s' is an activity, not a data state", id);
    wfb_vertex_define(c->g, v, WFB_VERTEX_DATA, c->line);
    double t = 0, size = 0;
    int has_t = opt_time(c, obj, "time", &t);
    if (has_t < 0 || (has_t && wfb_vertex_set_time(c->g, v, WFB_T_END, t)))
        return has_t < 0 ? -1 : oom(c);
    int has_s = opt_number(c, obj, "size", &size);
    if (has_s < 0)
        return -1;
    /* 2^64: the first size a uint64_t cannot hold (converting it is undefined). */
    if (has_s && !(size >= 0 && size < 18446744073709551616.0))
        return fail(c, "%s", "field \"size\" must be a number of bytes from 0 to 2^64 - 1");
    if (has_s && wfb_vertex_set_size(c->g, v, (uint64_t)size))
        return oom(c);
    static const char *const keys[] = {"origin", "location", "label"};
    static const wfb_attr attrs[] = {WFB_ATTR_ORIGIN, WFB_ATTR_LOCATION, WFB_ATTR_LABEL};
    return set_attrs(c, obj, v, keys, attrs, 3);
}

static int import_mutation(line_ctx *c, const wfb_record *obj)
{
    const char *kind_name = need_string(c, obj, "kind");
    if (!kind_name)
        return -1;
    wfb_edge_kind kind;
    if (wfb_edge_kind_parse(kind_name, &kind) || kind == WFB_EDGE_DEPEND)
        return fail(c,
                    "unknown mutation kind \"%s\" (TRANSFER, CONVERT, APPEND, SPLIT, MERGE, DELETE)",
                    kind_name);
    const char *from = need_string(c, obj, "from");
    const char *to = from ? need_string(c, obj, "to") : NULL;
    if (!to)
        return -1;
    double cost = 0.0;
    if (opt_number(c, obj, "cost", &cost) < 0)
        return -1;
    if (cost < 0 || isnan(cost))
        return fail(c, "%s", "mutation \"cost\" must be a non-negative number");
    uint32_t s = ref(c, from), d = ref(c, to);
    if (s == WFB_NONE || d == WFB_NONE)
        return -1;
    uint32_t e = wfb_edge_add(c->g, s, d, kind, cost, c->line);
    if (e == WFB_NONE)
        return oom(c);
    bool bad = false;
    const char *task = opt_string(c, obj, "task", &bad);
    if (bad)
        return -1;
    if (task && wfb_edge_set_label(c->g, e, task))
        return oom(c);
    double exec = 0;
    int has_x = opt_number(c, obj, "exec", &exec);
    if (has_x < 0)
        return -1;
    if (has_x && (exec < 0 || exec >= WFB_NONE))
        return fail(c, "%s", "field \"exec\" must be a small non-negative integer");
    if (has_x && wfb_edge_set_exec(c->g, e, (uint32_t)exec))
        return oom(c);
    return 0;
}

static int import_object(line_ctx *c, const wfb_record *obj)
{
    const char *type = need_string(c, obj, "type");
    if (!type)
        return -1;
    if (!strcmp(type, "activity"))
        return import_activity(c, obj);
    if (!strcmp(type, "dependency"))
        return import_dependency(c, obj);
    if (!strcmp(type, "data"))
        return import_data(c, obj);
    if (!strcmp(type, "mutation"))
        return import_mutation(c, obj);
    return fail(c, "unknown event type \"%s\" (activity, dependency, data, mutation)", type);
}

static bool blank_or_comment(const char *s)
{
    s += strspn(s, " \t");
    return *s == '\0' || *s == '#';
}

static uint64_t file_size(FILE *in)
{
    struct stat st;
    return fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

int wfb_import_jsonl(wfb_graph *g, FILE *in, const char *name, const wfb_import_options *opt,
                     wfb_error *err)
{
    if (name)
        wfb_graph_set_source(g, name);
    line_ctx c = {g, wfb_graph_source(g), 0, err};
    uint64_t total = file_size(in), done = 0, events = 0;
    char *buf = NULL;
    size_t cap = 0;
    long len;
    int rc = 0;
    wfb_record rec = {0};
    wfb_line_info li;
    while (rc == 0 && (len = wfb_read_line(in, &buf, &cap, &li)) >= 0) {
        c.line++;
        uint64_t at = done;
        done += li.bytes;
        if (opt && opt->progress && (c.line & 0xffff) == 0)
            opt->progress(opt->progress_ctx, done, total);
        if (blank_or_comment(buf))
            continue;
        char why[200];
        int parsed = wfb_record_parse(&rec, buf, (size_t)len, why, sizeof why);
        /* JSON Lines may end without a newline; a last line that is no
         * JSON then was cut short. */
        if (parsed == -1 && !li.terminated) {
            wfb_text_pos pos = {c.file, c.line, at, events};
            rc = wfb_text_cut_short(g, &pos, li.bytes, opt && opt->partial, err);
        } else if (parsed == -1) {
            rc = fail(&c, "bad JSON: %s", why);
        } else if (parsed == -2) {
            rc = fail(&c, "%s", "each line must be a JSON object");
        } else {
            rc = import_object(&c, &rec);
            events++;
        }
    }
    wfb_record_free(&rec);
    free(buf);
    if (rc == 0 && ferror(in))
        rc = fail(&c, "%s", "read error");
    if (opt && opt->progress)
        opt->progress(opt->progress_ctx, total ? total : done, total);
    return rc ? rc : wfb_graph_finish(g, err);
}
