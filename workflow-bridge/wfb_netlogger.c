/*
 * wfb_netlogger.c - importer for NetLogger "best practices" logs
 * (`ts=... event=... key=value ...`), driven by a mapping from event-name
 * patterns (pcre2) to activity events, with the Pegasus stampede mapping
 * built in.
 *
 * Logs are streamed line by line. Dependencies may name jobs before they
 * appear and tasks through aliases (Pegasus maps task ids to job ids), so
 * they are collected and resolved at the end of the file.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "wfb_internal.h"

#include <jansson.h>

#include <ctype.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct bp_rule {
    pcre2_code *re;
    wfb_bp_action action;
    char *id_field, *child_field, *status_field;
} bp_rule;

struct wfb_bp_mapping {
    bp_rule *rules;
    size_t n, cap;
};

wfb_bp_mapping *wfb_bp_mapping_new(void)
{
    return calloc(1, sizeof(wfb_bp_mapping));
}

void wfb_bp_mapping_free(wfb_bp_mapping *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        pcre2_code_free(m->rules[i].re);
        free(m->rules[i].id_field);
        free(m->rules[i].child_field);
        free(m->rules[i].status_field);
    }
    free(m->rules);
    free(m);
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

int wfb_bp_mapping_add(wfb_bp_mapping *m, const char *event_pattern, wfb_bp_action action,
                       const char *id_field, const char *child_field, const char *status_field,
                       wfb_error *err)
{
    if (!id_field || ((action == WFB_BP_DEPENDENCY || action == WFB_BP_ALIAS) && !child_field)) {
        wfb_set_error(err, NULL, 0, "mapping rule '%s' lacks its id fields", event_pattern);
        return -1;
    }
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)event_pattern, PCRE2_ZERO_TERMINATED, 0, &code,
                                   &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[200];
        pcre2_get_error_message(code, msg, sizeof msg);
        wfb_set_error(err, NULL, 0, "bad pattern '%s' at %zu: %s", event_pattern, (size_t)offset,
                      (const char *)msg);
        return -1;
    }
    bool oom = false;
    bp_rule r = {re, action, dup_or_null(id_field, &oom), dup_or_null(child_field, &oom),
                 dup_or_null(status_field, &oom)};
    if (oom || KIT_GROW(m->rules, m->cap, m->n + 1)) {
        pcre2_code_free(re);
        free(r.id_field), free(r.child_field), free(r.status_field);
        wfb_set_error(err, NULL, 0, "out of memory");
        return -1;
    }
    m->rules[m->n++] = r;
    return 0;
}

wfb_bp_mapping *wfb_bp_mapping_pegasus(wfb_error *err)
{
    static const struct {
        const char *pattern;
        wfb_bp_action action;
        const char *id, *child, *status;
    } rules[] = {
        {"^stampede\\.job\\.info$", WFB_BP_DECLARED, "job.id", NULL, NULL},
        {"^stampede\\.job_inst\\.submit\\.start$", WFB_BP_SUBMITTED, "job.id", NULL, NULL},
        {"^stampede\\.job_inst\\.main\\.start$", WFB_BP_ACTIVE, "job.id", NULL, NULL},
        {"^stampede\\.job_inst\\.main\\.end$", WFB_BP_COMPLETED, "job.id", NULL, "status"},
        {"^stampede\\.job\\.edge$", WFB_BP_DEPENDENCY, "parent.job.id", "child.job.id", NULL},
        {"^stampede\\.task\\.edge$", WFB_BP_DEPENDENCY, "parent.task.id", "child.task.id", NULL},
        {"^stampede\\.wf\\.map\\.task_job$", WFB_BP_ALIAS, "task.id", "job.id", NULL},
    };
    wfb_bp_mapping *m = wfb_bp_mapping_new();
    if (!m) {
        wfb_set_error(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (wfb_bp_mapping_add(m, rules[i].pattern, rules[i].action, rules[i].id, rules[i].child,
                               rules[i].status, err)) {
            wfb_bp_mapping_free(m);
            return NULL;
        }
    return m;
}

static int parse_action(const char *s, wfb_bp_action *out)
{
    static const char *const names[] = {"submitted", "active",    "completed", "failed",
                                        "dependency", "alias",    "declared"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(s, names[i])) {
            *out = (wfb_bp_action)i;
            return 0;
        }
    return -1;
}

/* One mapping line: PATTERN ACTION ID_FIELD [CHILD_FIELD] [status=FIELD] */
static int mapping_line(wfb_bp_mapping *m, char *line, const char *path, long lineno,
                        wfb_error *err)
{
    char *words[6];
    int n = 0;
    for (char *tok = strtok(line, " \t"); tok && n < 6; tok = strtok(NULL, " \t"))
        words[n++] = tok;
    if (n == 0 || words[0][0] == '#')
        return 0;
    wfb_bp_action action;
    if (n < 3 || parse_action(words[1], &action)) {
        wfb_set_error(err, path, lineno,
                      "expected 'PATTERN submitted|active|completed|failed|dependency|alias|"
                      "declared ID_FIELD [CHILD_FIELD] [status=FIELD]'");
        return -1;
    }
    const char *child = NULL, *status = NULL;
    for (int i = 3; i < n; i++) {
        if (!strncmp(words[i], "status=", 7))
            status = words[i] + 7;
        else
            child = words[i];
    }
    if (wfb_bp_mapping_add(m, words[0], action, words[2], child, status, err)) {
        snprintf(err->file, sizeof err->file, "%s", path);
        err->line = lineno;
        return -1;
    }
    return 0;
}

wfb_bp_mapping *wfb_bp_mapping_load(const char *path, wfb_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        wfb_set_error(err, path, 0, "cannot open mapping");
        return NULL;
    }
    wfb_bp_mapping *m = wfb_bp_mapping_new();
    char *buf = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = m ? 0 : -1;
    while (rc == 0 && wfb_read_line(in, &buf, &cap, NULL) >= 0)
        rc = mapping_line(m, buf, path, ++lineno, err);
    free(buf);
    fclose(in);
    if (rc || !m || m->n == 0) {
        if (rc == 0)
            wfb_set_error(err, path, 0, "mapping has no rules");
        wfb_bp_mapping_free(m);
        return NULL;
    }
    return m;
}

/* ---- line parsing ---- */

/* Reads a quoted value starting after the opening quote; unescapes \" and
 * \\ in place. Returns the position after the closing quote or NULL. */
static char *unquote(char *p, char **value)
{
    char *out = p;
    *value = p;
    while (*p && *p != '"') {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        *out++ = *p++;
    }
    if (*p != '"')
        return NULL;
    *out = '\0';
    return p + 1;
}

int wfb_bp_parse_line(char *line, wfb_bp_pair *pairs, int max_pairs)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            return n;
        char *key = p;
        while (*p && *p != '=' && !isspace((unsigned char)*p))
            p++;
        if (*p != '=' || p == key)
            return -1;
        *p++ = '\0';
        char *value;
        if (*p == '"') {
            p = unquote(p + 1, &value);
            if (!p || (*p && !isspace((unsigned char)*p)))
                return -1;
        } else {
            value = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
        }
        char *next = *p ? p + 1 : p;
        *p = '\0';
        p = next;
        if (n < max_pairs)
            pairs[n++] = (wfb_bp_pair){key, value};
    }
}

static const char *field(const wfb_bp_pair *pairs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pairs[i].key, key))
            return pairs[i].value;
    return NULL;
}

/* ---- import ---- */

typedef struct pending_dep {
    uint32_t parent, child; /* strings in the graph's table */
    long line;
} pending_dep;

typedef struct bp_ctx {
    wfb_graph *g;
    const wfb_bp_mapping *map;
    pcre2_match_data *md;
    const char *file;
    long line;
    wfb_error *err;
    pending_dep *deps;
    size_t n_deps, cap_deps;
    wfb_strtab alias_keys; /* alias i maps to alias_to[i] */
    uint32_t *alias_to;
    size_t cap_alias;
} bp_ctx;

static int fail(bp_ctx *c, const char *fmt, const char *arg)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, arg);
    wfb_set_error(c->err, c->file, c->line, "%s", msg);
    return -1;
}

static const bp_rule *match_rule(bp_ctx *c, const char *event)
{
    for (size_t i = 0; i < c->map->n; i++)
        if (pcre2_match(c->map->rules[i].re, (PCRE2_SPTR)event, strlen(event), 0, 0, c->md,
                        NULL) >= 0)
            return &c->map->rules[i];
    return NULL;
}

static int record_dependency(bp_ctx *c, const char *parent, const char *child)
{
    uint32_t p = wfb_graph_string(c->g, parent), ch = wfb_graph_string(c->g, child);
    if (p == WFB_NONE || ch == WFB_NONE ||
        KIT_GROW(c->deps, c->cap_deps, c->n_deps + 1))
        return fail(c, "%s", "out of memory");
    c->deps[c->n_deps++] = (pending_dep){p, ch, c->line};
    return 0;
}

static int record_alias(bp_ctx *c, const char *from, const char *to)
{
    uint32_t k = wfb_strtab_intern(&c->alias_keys, from, strlen(from), NULL);
    uint32_t t = wfb_graph_string(c->g, to);
    if (k == WFB_NONE || t == WFB_NONE ||
        KIT_GROW(c->alias_to, c->cap_alias, (size_t)k + 1))
        return fail(c, "%s", "out of memory");
    c->alias_to[k] = t;
    return 0;
}

/* Submitted keeps the first attempt; active and end keep the last. A
 * declared job exists from its declaration on, without any time. */
static int activity_event(bp_ctx *c, const bp_rule *r, const char *id, double ts,
                          const wfb_bp_pair *pairs, int n)
{
    wfb_graph *g = c->g;
    uint32_t v = wfb_vertex_ref(g, id, strlen(id), c->line);
    if (v == WFB_NONE)
        return fail(c, "%s", "out of memory");
    wfb_vertex_define(g, v, WFB_VERTEX_ACTIVITY, c->line);
    char why[300];
    int rc = 0;
    switch (r->action) {
    case WFB_BP_DECLARED:
        break;
    case WFB_BP_SUBMITTED:
        if (isnan(wfb_vertex_time(g, v, WFB_T_SUBMITTED)))
            rc = wfb_activity_event(g, v, WFB_T_SUBMITTED, ts, why, sizeof why);
        break;
    case WFB_BP_ACTIVE:
        rc = wfb_activity_event(g, v, WFB_T_ACTIVE, ts, why, sizeof why);
        break;
    default: {
        const char *status = r->status_field ? field(pairs, n, r->status_field) : NULL;
        bool failed = r->action == WFB_BP_FAILED || (status && strtol(status, NULL, 10) != 0);
        rc = wfb_activity_event(g, v, WFB_T_END, ts, why, sizeof why);
        if (rc == 0)
            wfb_vertex_set_failed(g, v, failed);
    }
    }
    if (rc == -2) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s (times go backwards)", why);
        return fail(c, "%s", msg);
    }
    return rc ? fail(c, "%s", "out of memory") : 0;
}

/* Ids and names end up in JSON reports and JSON Lines, so they must be
 * UTF-8: jansson's check (json_string fails on anything else). */
static bool is_utf8(const char *line)
{
    json_t *s = json_string(line);
    json_decref(s);
    return s != NULL;
}

static int import_line(bp_ctx *c, char *line)
{
    if (!is_utf8(line))
        return fail(c, "%s", "not valid UTF-8");
    wfb_bp_pair pairs[64];
    int n = wfb_bp_parse_line(line, pairs, 64);
    if (n < 0)
        return fail(c, "%s", "malformed key=value pair (unterminated quote?)");
    if (n == 0)
        return 0;
    const char *event = field(pairs, n, "event");
    const char *ts_text = field(pairs, n, "ts");
    if (!event || !ts_text)
        return fail(c, "%s", "line lacks ts= or event=");
    double ts;
    if (wfb_parse_time(ts_text, &ts))
        return fail(c, "bad timestamp '%s'", ts_text);
    const bp_rule *r = match_rule(c, event);
    if (!r)
        return 0;
    const char *id = field(pairs, n, r->id_field);
    const char *child = r->child_field ? field(pairs, n, r->child_field) : NULL;
    if (!id || (r->child_field && !child))
        return fail(c, "event '%s' lacks its id field", event);
    if (r->action == WFB_BP_DEPENDENCY)
        return record_dependency(c, id, child);
    if (r->action == WFB_BP_ALIAS)
        return record_alias(c, id, child);
    return activity_event(c, r, id, ts, pairs, n);
}

static const char *resolve(bp_ctx *c, uint32_t s)
{
    const char *name = wfb_strtab_get(&c->g->strs, s);
    uint32_t k = wfb_strtab_find(&c->alias_keys, name, strlen(name));
    return k == WFB_NONE ? name : wfb_strtab_get(&c->g->strs, c->alias_to[k]);
}

static int add_dependencies(bp_ctx *c)
{
    for (size_t i = 0; i < c->n_deps; i++) {
        /* resolve() may return text in the string table; copy before the
         * table can grow under a later intern. */
        char parent[512], child[512];
        snprintf(parent, sizeof parent, "%s", resolve(c, c->deps[i].parent));
        snprintf(child, sizeof child, "%s", resolve(c, c->deps[i].child));
        c->line = c->deps[i].line;
        uint32_t p = wfb_vertex_ref(c->g, parent, strlen(parent), c->line);
        uint32_t ch = wfb_vertex_ref(c->g, child, strlen(child), c->line);
        if (p == WFB_NONE || ch == WFB_NONE ||
            wfb_edge_add(c->g, p, ch, WFB_EDGE_DEPEND, 0.0, c->line) == WFB_NONE)
            return fail(c, "%s", "out of memory");
    }
    return 0;
}

int wfb_import_bp(wfb_graph *g, FILE *in, const char *name, const wfb_import_options *opt,
                  wfb_error *err)
{
    if (name)
        wfb_graph_set_source(g, name);
    wfb_bp_mapping *own = NULL;
    const wfb_bp_mapping *map = opt ? opt->bp_mapping : NULL;
    if (!map && !(map = own = wfb_bp_mapping_pegasus(err)))
        return -1;
    bp_ctx c = {.g = g, .map = map, .file = wfb_graph_source(g), .err = err};
    c.md = pcre2_match_data_create(4, NULL);
    struct stat st;
    uint64_t total = fstat(fileno(in), &st) == 0 ? (uint64_t)st.st_size : 0, done = 0;
    char *buf = NULL;
    size_t cap = 0;
    long len;
    int rc = c.md ? 0 : fail(&c, "%s", "out of memory");
    wfb_line_info li;
    uint64_t events = 0;
    while (rc == 0 && (len = wfb_read_line(in, &buf, &cap, &li)) >= 0) {
        c.line++;
        if (opt && opt->progress && (c.line & 0x3fff) == 0)
            opt->progress(opt->progress_ctx, done, total);
        const char *text = buf + strspn(buf, " \t");
        /* A NetLogger line is a record only with its newline: cut short, it
         * may still parse, with a wrong value (a time, an id) in it. */
        if (!li.terminated && *text && *text != '#') {
            wfb_text_pos at = {c.file, c.line, done, events};
            rc = wfb_text_cut_short(g, &at, li.bytes, opt && opt->partial, err);
        } else if (*text && *text != '#') {
            rc = import_line(&c, buf);
            events++;
        }
        done += li.bytes;
    }
    if (rc == 0)
        rc = add_dependencies(&c);
    free(buf);
    free(c.deps);
    free(c.alias_to);
    wfb_strtab_free(&c.alias_keys);
    pcre2_match_data_free(c.md);
    /* With declarations (Pegasus' job.info) every job is known: a
     * dependency on an unknown one is an error, not a silent new job. */
    bool declares = false;
    for (size_t i = 0; i < map->n && !declares; i++)
        declares = map->rules[i].action == WFB_BP_DECLARED;
    wfb_bp_mapping_free(own);
    if (rc)
        return rc;
    return declares ? wfb_graph_finish(g, err) : wfb_graph_finish_lenient(g, err);
}
