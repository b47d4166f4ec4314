/*
 * wfb_wfcommons.c - importer for WfCommons WfFormat instances (schema 1.5,
 * with a fallback for the older flat "workflow.tasks" layout).
 *
 * Each task becomes an activity whose weight is its runtimeInSeconds;
 * parents/children become dependencies; machines become its resources; the
 * sizes of its output files become its size. Files are not separate
 * vertices, so critical paths run through task ids only. An instance is one
 * JSON document, read whole (instances are small next to traces).
 */
#include "wfb_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct wfc_ctx {
    wfb_graph *g;
    const char *file;
    const char *text; /* whole document, for line numbers in errors */
    json_t *file_sizes; /* spec.files: id -> sizeInBytes */
    wfb_error *err;
} wfc_ctx;

/* Line of the first occurrence of "needle" (quoted) in the text. */
static long line_of(const char *text, const char *needle)
{
    size_t n = strlen(needle);
    char *quoted = malloc(n + 3);
    if (!quoted)
        return 0;
    quoted[0] = '"';
    memcpy(quoted + 1, needle, n);
    quoted[n + 1] = '"';
    quoted[n + 2] = '\0';
    const char *hit = strstr(text, quoted);
    free(quoted);
    if (!hit)
        return 0;
    long line = 1;
    for (const char *p = text; p < hit; p++)
        line += *p == '\n';
    return line;
}

static int fail(wfc_ctx *c, const char *near, const char *fmt, const char *arg)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, arg);
    wfb_set_error(c->err, c->file, near ? line_of(c->text, near) : 0, "%s", msg);
    return -1;
}

static const char *task_id(json_t *task)
{
    json_t *id = json_object_get(task, "id");
    if (!json_is_string(id))
        id = json_object_get(task, "name");
    return json_is_string(id) ? json_string_value(id) : NULL;
}

static uint32_t ref(wfc_ctx *c, const char *id)
{
    uint32_t v = wfb_vertex_ref(c->g, id, strlen(id), 0);
    if (v == WFB_NONE)
        fail(c, NULL, "%s", "out of memory");
    return v;
}

/* Adds parent -> child edges from an array of ids; `as_parent` tells the
 * direction relative to `self`. */
static int add_links(wfc_ctx *c, uint32_t self, json_t *ids, bool as_parent, const char *self_id)
{
    if (!ids)
        return 0;
    if (!json_is_array(ids))
        return fail(c, self_id, "task '%s': parents/children must be arrays", self_id);
    size_t i;
    json_t *id;
    json_array_foreach(ids, i, id) {
        if (!json_is_string(id))
            return fail(c, self_id, "task '%s': parents/children must be ids", self_id);
        uint32_t other = ref(c, json_string_value(id));
        if (other == WFB_NONE)
            return -1;
        uint32_t src = as_parent ? other : self, dst = as_parent ? self : other;
        if (wfb_edge_add(c->g, src, dst, WFB_EDGE_DEPEND, 0.0, 0) == WFB_NONE)
            return fail(c, NULL, "%s", "out of memory");
    }
    return 0;
}

/* Sum of the sizes of a task's output files (files listed in spec.files, or
 * inline file objects of the old layout). */
static uint64_t output_bytes(wfc_ctx *c, json_t *task)
{
    uint64_t total = 0;
    json_t *outs = json_object_get(task, "outputFiles");
    size_t i;
    json_t *f;
    json_array_foreach(outs, i, f) {
        json_t *size = NULL;
        if (json_is_string(f) && c->file_sizes)
            size = json_object_get(c->file_sizes, json_string_value(f));
        if (json_is_integer(size) && json_integer_value(size) > 0)
            total += (uint64_t)json_integer_value(size);
    }
    json_t *files = json_object_get(task, "files"); /* old layout */
    json_array_foreach(files, i, f) {
        json_t *link = json_object_get(f, "link");
        json_t *size = json_object_get(f, "sizeInBytes");
        if (!size)
            size = json_object_get(f, "size");
        if (json_is_string(link) && !strcmp(json_string_value(link), "output") &&
            json_is_integer(size) && json_integer_value(size) > 0)
            total += (uint64_t)json_integer_value(size);
    }
    return total;
}

static int import_spec_task(wfc_ctx *c, json_t *task)
{
    const char *id = task_id(task);
    if (!id)
        return fail(c, NULL, "%s", "a task has no \"id\"");
    uint32_t v = ref(c, id);
    if (v == WFB_NONE)
        return -1;
    if (wfb_vertex_defined(c->g, v))
        return fail(c, id, "task '%s' listed twice", id);
    /* Lines are looked up only for errors: searching here would make the
     * import quadratic in the document size. */
    wfb_vertex_define(c->g, v, WFB_VERTEX_ACTIVITY, 0);
    json_t *name = json_object_get(task, "name");
    if (json_is_string(name) && wfb_vertex_set_attr(c->g, v, WFB_ATTR_LABEL, json_string_value(name)))
        return fail(c, NULL, "%s", "out of memory");
    uint64_t bytes = output_bytes(c, task);
    if (bytes && wfb_vertex_set_size(c->g, v, bytes))
        return fail(c, NULL, "%s", "out of memory");
    if (add_links(c, v, json_object_get(task, "parents"), true, id) ||
        add_links(c, v, json_object_get(task, "children"), false, id))
        return -1;
    return 0;
}

/* machines: ["host", ...] (1.5) or "machine": "host" (old). */
static int set_machines(wfc_ctx *c, uint32_t v, json_t *task)
{
    json_t *machines = json_object_get(task, "machines");
    json_t *one = json_object_get(task, "machine");
    char buf[512] = "";
    size_t used = 0, i;
    json_t *m;
    json_array_foreach(machines, i, m) {
        if (json_is_string(m) && used < sizeof buf)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", used ? "," : "",
                                     json_string_value(m));
    }
    if (!used && json_is_string(one))
        snprintf(buf, sizeof buf, "%s", json_string_value(one));
    if (buf[0] && wfb_vertex_set_attr(c->g, v, WFB_ATTR_RESOURCES, buf))
        return fail(c, NULL, "%s", "out of memory");
    return 0;
}

/* Runtime, machines and, when the instance has them, start times. */
static int import_exec_task(wfc_ctx *c, json_t *task)
{
    const char *id = task_id(task);
    if (!id)
        return fail(c, NULL, "%s", "an execution task has no \"id\"");
    uint32_t v = wfb_vertex_find(c->g, id, strlen(id));
    if (v == WFB_NONE)
        return fail(c, id, "execution task '%s' is not in the specification", id);
    json_t *rt = json_object_get(task, "runtimeInSeconds");
    if (!rt)
        rt = json_object_get(task, "runtime");
    if (rt && !json_is_number(rt))
        return fail(c, id, "task '%s': runtimeInSeconds must be a number", id);
    double runtime = rt ? json_number_value(rt) : 0.0;
    if (runtime < 0)
        return fail(c, id, "task '%s': negative runtimeInSeconds", id);
    if (rt && wfb_vertex_set_duration(c->g, v, runtime))
        return fail(c, NULL, "%s", "out of memory");
    json_t *at = json_object_get(task, "executedAt");
    if (!at)
        at = json_object_get(task, "startedAt");
    double start;
    if (json_is_string(at) && !wfb_parse_time(json_string_value(at), &start)) {
        if (wfb_vertex_set_time(c->g, v, WFB_T_ACTIVE, start) ||
            wfb_vertex_set_time(c->g, v, WFB_T_END, start + runtime))
            return fail(c, NULL, "%s", "out of memory");
    }
    return set_machines(c, v, task);
}

/* Builds id -> size from spec.files. */
static int index_files(wfc_ctx *c, json_t *files)
{
    c->file_sizes = json_object();
    if (!c->file_sizes)
        return fail(c, NULL, "%s", "out of memory");
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        json_t *id = json_object_get(f, "id");
        json_t *size = json_object_get(f, "sizeInBytes");
        if (json_is_string(id) && json_is_integer(size))
            json_object_set(c->file_sizes, json_string_value(id), size);
    }
    return 0;
}

/* The makespan the instance states: execution.makespanInSeconds (1.5), or
 * makespanInSeconds / makespan of the older flat layout. */
static int import_makespan(wfc_ctx *c, json_t *wf, json_t *exec)
{
    json_t *m = exec ? json_object_get(exec, "makespanInSeconds") : NULL;
    if (!m)
        m = json_object_get(wf, "makespanInSeconds");
    if (!m)
        m = json_object_get(wf, "makespan");
    if (!m)
        return 0;
    if (!json_is_number(m) || json_number_value(m) < 0)
        return fail(c, "makespanInSeconds", "%s",
                    "makespanInSeconds must be a non-negative number of seconds");
    wfb_graph_set_makespan(c->g, json_number_value(m));
    return 0;
}

static int import_document(wfc_ctx *c, json_t *root)
{
    json_t *wf = json_object_get(root, "workflow");
    if (!json_is_object(wf))
        return fail(c, NULL, "%s", "not a WfFormat instance: no \"workflow\" object");
    json_t *spec = json_object_get(wf, "specification");
    json_t *exec = json_object_get(wf, "execution");
    json_t *spec_tasks = json_object_get(spec ? spec : wf, "tasks");
    json_t *exec_tasks = exec ? json_object_get(exec, "tasks") : spec_tasks;
    if (!json_is_array(spec_tasks))
        return fail(c, NULL, "%s", "not a WfFormat instance: no task array");
    if (index_files(c, json_object_get(spec, "files")) || import_makespan(c, wf, exec))
        return -1;
    size_t i;
    json_t *t;
    json_array_foreach(spec_tasks, i, t) {
        if (!json_is_object(t) || import_spec_task(c, t))
            return json_is_object(t) ? -1 : fail(c, NULL, "%s", "a task is not an object");
    }
    json_array_foreach(exec_tasks, i, t) {
        if (!json_is_object(t) || import_exec_task(c, t))
            return json_is_object(t) ? -1 : fail(c, NULL, "%s", "a task is not an object");
    }
    return 0;
}

/* Reads the whole stream into a NUL-terminated buffer. */
static char *slurp(FILE *in, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, in);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

int wfb_import_wfcommons(wfb_graph *g, FILE *in, const char *name, wfb_error *err)
{
    if (name)
        wfb_graph_set_source(g, name);
    size_t len;
    char *text = slurp(in, &len);
    wfc_ctx c = {g, wfb_graph_source(g), text, NULL, err};
    if (!text)
        return fail(&c, NULL, "%s", "out of memory reading the instance");
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    int rc;
    if (!root) {
        wfb_set_error(err, c.file, jerr.line, "bad JSON: %s", jerr.text);
        rc = -1;
    } else {
        rc = import_document(&c, root);
    }
    if (rc == 0 && wfb_graph_finish(g, err)) {
        /* The graph names the vertex; find the line where it appears. */
        const char *q = strchr(err->msg, '\'');
        if (q) {
            char id[256];
            size_t n = strcspn(q + 1, "'");
            snprintf(id, sizeof id, "%.*s", (int)(n < 255 ? n : 255), q + 1);
            err->line = line_of(text, id);
        }
        rc = -1;
    }
    json_decref(c.file_sizes);
    json_decref(root);
    free(text);
    return rc;
}
