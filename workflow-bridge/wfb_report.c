/*
 * wfb_report.c - the bridge's critical-path reports as readable text or
 * stable JSON (documented in docs/EVENTS.md), the graph with its critical
 * paths in Graphviz dot, and the JSON/CSV helpers every report uses (the
 * metrics reports are in wfb_report_metrics.c).
 *
 * JSON is built with jansson and dumped with preserved key order so that the
 * output is byte-stable for a given input.
 */
#include "wfb_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

json_t *wfb_json_num(double x)
{
    return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

json_t *wfb_json_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* ---- documents ----
 *
 * jansson's calls return NULL or -1 when memory runs out, and a document
 * built of many of them (a path of a million steps) would be dumped with
 * the failed parts left out: every member goes in through wfb_json_set or
 * wfb_json_append, which note a failure in the document's wfb_json_doc
 * (a NULL value is one: its constructor failed), and wfb_json_dump
 * refuses such a document. */

int wfb_json_set(wfb_json_doc *d, json_t *o, const char *key, json_t *v)
{
    if (json_object_set_new(o, key, v) == 0)
        return 0;
    d->failed = true;
    return -1;
}

int wfb_json_append(wfb_json_doc *d, json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) == 0)
        return 0;
    d->failed = true;
    return -1;
}

/* ---- arrays made as they are written ----
 *
 * An array as long as the trace (a path's steps) is not built: its place
 * in the document holds a marker string naming its entry in the document's
 * list, and wfb_json_dump writes its items there one at a time, laid out
 * as jansson lays out an array at that depth (so the output is the same
 * bytes as with the array built). */
struct wfb_json_deferred {
    wfb_json_item item;
    const void *a, *b;
    size_t n;
};

#define DEFERRED_MARK "\001wfb-deferred "
#define DEFERRED_DUMPED "\"\\u0001wfb-deferred " /* the marker as json_dumps writes it */
#define JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

json_t *wfb_json_deferred_array(wfb_json_doc *d, wfb_json_item item, const void *a,
                                const void *b, size_t n)
{
    if (KIT_GROW(d->deferred, d->cap_deferred, d->n_deferred + 1)) {
        d->failed = true;
        return NULL;
    }
    d->deferred[d->n_deferred] = (struct wfb_json_deferred){item, a, b, n};
    char mark[48];
    snprintf(mark, sizeof mark, DEFERRED_MARK "%zu", d->n_deferred++);
    return json_string(mark);
}

/* s with every line after the first indented by `indent` more spaces. */
static void put_indented(const char *s, int indent, FILE *out)
{
    for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
        fprintf(out, "%.*s\n%*s", (int)(nl - s), s, indent, "");
    fputs(s, out);
}

/* The items of deferred array k of d, where a member line indented by
 * `indent` holds it. */
static int put_deferred(wfb_json_doc *d, size_t k, int indent, FILE *out)
{
    const struct wfb_json_deferred *x = &d->deferred[k];
    if (!x->n) {
        fputs("[]", out);
        return 0;
    }
    fputc('[', out);
    for (size_t i = 0; i < x->n; i++) {
        json_t *item = x->item(d, x->a, x->b, i);
        char *text = item && !d->failed ? json_dumps(item, JSON_FLAGS) : NULL;
        json_decref(item);
        if (!text)
            return -1;
        fprintf(out, "\n%*s", indent + 2, "");
        put_indented(text, indent + 2, out);
        free(text);
        if (i + 1 < x->n)
            fputc(',', out);
    }
    fprintf(out, "\n%*s]", indent, "");
    return ferror(out) ? -1 : 0;
}

/* The dumped document `text`, its markers replaced by their arrays. */
static int put_document(wfb_json_doc *d, const char *text, FILE *out)
{
    for (const char *m; (m = strstr(text, DEFERRED_DUMPED));) {
        const char *line = m;
        while (line > text && line[-1] != '\n')
            line--;
        int indent = (int)strspn(line, " ");
        char *end;
        unsigned long long k = strtoull(m + strlen(DEFERRED_DUMPED), &end, 10);
        if (*end != '"' || k >= d->n_deferred)
            return -1;
        fwrite(text, 1, (size_t)(m - text), out);
        if (put_deferred(d, (size_t)k, indent, out))
            return -1;
        text = end + 1;
    }
    fputs(text, out);
    return 0;
}

int wfb_json_dump(wfb_json_doc *d, json_t *root, FILE *out)
{
    char *text = root && !d->failed ? json_dumps(root, JSON_FLAGS) : NULL;
    json_decref(root);
    int rc = text ? put_document(d, text, out) : -1;
    free(text);
    free(d->deferred);
    *d = (wfb_json_doc){0};
    if (rc == 0)
        fputc('\n', out);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

/* RFC 4180: quote fields holding commas, quotes or line breaks. */
void wfb_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

#define num wfb_json_num
#define str_or_null wfb_json_str

/* ---- critical path ---- */

/* Label of an edge for the per-task shares: its task, else its kind. */
static const char *edge_owner(const wfb_graph *g, uint32_t e)
{
    const char *label = wfb_edge_label(g, e);
    return label ? label : wfb_edge_kind_name(wfb_edge_kind_of(g, e));
}

static json_t *path_shares(wfb_json_doc *d, const wfb_graph *g, const wfb_path *p)
{
    json_t *shares = json_array();
    for (size_t i = 0; i < p->n; i++) {
        double w = wfb_vertex_weight(g, p->vertices[i]);
        if (w <= 0)
            continue;
        json_t *s = json_object();
        wfb_json_set(d, s, "id", json_string(wfb_vertex_id(g, p->vertices[i])));
        wfb_json_set(d, s, "seconds", num(w));
        wfb_json_set(d, s, "fraction", num(p->length_s > 0 ? w / p->length_s : NAN));
        wfb_json_append(d, shares, s);
    }
    return shares;
}

/* Edge costs grouped by task (first-seen order). */
static json_t *task_shares(wfb_json_doc *d, const wfb_graph *g, const wfb_path *p)
{
    json_t *by_task = json_object();
    for (size_t i = 0; i + 1 < p->n; i++) {
        uint32_t e = p->edges[i];
        double c = wfb_edge_cost(g, e);
        if (c <= 0)
            continue;
        const char *owner = edge_owner(g, e);
        json_t *acc = json_object_get(by_task, owner);
        double prev = acc ? json_real_value(acc) : 0.0;
        wfb_json_set(d, by_task, owner, json_real(prev + c));
    }
    json_t *list = json_array();
    const char *key;
    json_t *val;
    json_object_foreach(by_task, key, val) {
        json_t *s = json_object();
        wfb_json_set(d, s, "task", json_string(key));
        wfb_json_set(d, s, "seconds", num(json_real_value(val)));
        wfb_json_set(d, s, "fraction",
                        num(p->length_s > 0 ? json_real_value(val) / p->length_s : NAN));
        wfb_json_append(d, list, s);
    }
    json_decref(by_task);
    return list;
}

static json_t *path_json(wfb_json_doc *d, const wfb_graph *g, const wfb_path *p)
{
    if (!p || !p->valid)
        return json_null();
    if (p->n_steps)
        return wfb_steps_json(d, g, p);
    json_t *o = json_object(), *vs = json_array(), *es = json_array();
    json_t *steps = json_array();
    wfb_json_set(d, o, "length_s", num(p->length_s));
    for (size_t i = 0; i < p->n; i++) {
        wfb_json_append(d, vs, json_string(wfb_vertex_id(g, p->vertices[i])));
        wfb_json_append(d, steps, num(wfb_path_step(g, p, i)));
    }
    for (size_t i = 0; i + 1 < p->n; i++) {
        uint32_t e = p->edges[i];
        json_t *ej = json_object();
        wfb_json_set(d, ej, "from", json_string(wfb_vertex_id(g, wfb_edge_src(g, e))));
        wfb_json_set(d, ej, "to", json_string(wfb_vertex_id(g, wfb_edge_dst(g, e))));
        wfb_json_set(d, ej, "kind", json_string(wfb_edge_kind_name(wfb_edge_kind_of(g, e))));
        wfb_json_set(d, ej, "cost_s", num(wfb_edge_cost(g, e)));
        wfb_json_append(d, es, ej);
    }
    wfb_json_set(d, o, "vertices", vs);
    wfb_json_set(d, o, "steps_s", steps);
    wfb_json_set(d, o, "edges", es);
    wfb_json_set(d, o, "shares", path_shares(d, g, p));
    wfb_json_set(d, o, "task_shares", task_shares(d, g, p));
    return o;
}

static void path_text(const wfb_graph *g, const char *title, const wfb_path *p, FILE *out)
{
    fprintf(out, "%s:\n", title);
    if (!p || !p->valid) {
        fprintf(out, "  not available (the input has no start/end times)\n\n");
        return;
    }
    if (p->n_steps) {
        wfb_steps_text(g, p, out);
        return;
    }
    fprintf(out, "  length %.9g s, %zu vertices (per vertex: its step, the time the path spends "
                 "there; the steps add up to the length)\n",
            p->length_s, p->n);
    for (size_t i = 0; i < p->n; i++) {
        uint32_t v = p->vertices[i];
        double w = wfb_path_step(g, p, i);
        if (i > 0) {
            uint32_t e = p->edges[i - 1];
            fprintf(out, "      | %s", wfb_edge_kind_name(wfb_edge_kind_of(g, e)));
            /* A cost is a difference of absolute times in seconds, whose
             * last of nine digits are rounding noise (5.40800011e-06 for
             * 5408 ns): six digits, as metrics prints (JSON has them all). */
            if (wfb_edge_cost(g, e) > 0)
                fprintf(out, " %g s", wfb_edge_cost(g, e));
            if (wfb_edge_label(g, e))
                fprintf(out, " (%s)", wfb_edge_label(g, e));
            fputc('\n', out);
        }
        fprintf(out, "  %3zu %-40s", i + 1, wfb_vertex_id(g, v));
        if (w != 0 && !isnan(w))
            fprintf(out, " %12.9f s  %5.1f%%", w, p->length_s > 0 ? 100.0 * w / p->length_s : 0);
        fputc('\n', out);
    }
    fputc('\n', out);
}

static json_t *wcp_json(wfb_json_doc *d, const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed)
{
    json_t *root = json_object();
    wfb_json_set(d, root, "input", json_string(wfb_graph_source(g)));
    wfb_json_set(d, root, "vertices", json_integer((json_int_t)wfb_vertex_count(g)));
    wfb_json_set(d, root, "edges", json_integer((json_int_t)wfb_edge_count(g)));
    wfb_json_set(d, root, "input_loss", wfb_input_loss_json(d, wfb_graph_input_loss(g)));
    if (wfb_graph_clock_alignment(g)) /* multi-rank traces only */
        wfb_json_set(d, root, "clock_alignment",
                        wfb_clock_alignment_json(d, wfb_graph_clock_alignment(g)));
    wfb_json_set(d, root, "longest_path", path_json(d, g, longest));
    wfb_json_set(d, root, "as_executed", path_json(d, g, as_executed));
    return root;
}

static json_t *nested_json(wfb_json_doc *d, const wfb_nested_wcp *n)
{
    json_t *o = n->graph ? wcp_json(d, n->graph, n->longest, n->as_executed) : json_object();
    wfb_json_set(d, o, "activity", json_string(n->activity));
    wfb_json_set(d, o, "trace", json_string(n->trace));
    wfb_json_set(d, o, "error", str_or_null(n->error));
    return o;
}

static void wcp_text(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                     FILE *out)
{
    fprintf(out, "Workflow critical path of %s (%zu vertices, %zu edges)\n", wfb_graph_source(g),
            wfb_vertex_count(g), wfb_edge_count(g));
    wfb_report_input_loss(wfb_graph_input_loss(g), WFB_OUT_TEXT, out);
    wfb_report_clock_alignment(wfb_graph_clock_alignment(g), WFB_OUT_TEXT, out);
    fputc('\n', out);
    path_text(g, "Longest path by durations (what-if, no contention)", longest, out);
    path_text(g,
              as_executed && as_executed->n_steps
                  ? "As-executed critical path (what each moment of the run waited for)"
                  : "As-executed critical path (last-finishing predecessors)",
              as_executed, out);
}

int wfb_report_wcp_nested(const wfb_graph *g, const wfb_path *longest,
                          const wfb_path *as_executed, const wfb_nested_wcp *nested,
                          size_t n_nested, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        wfb_json_doc doc = {0}, *d = &doc;
        json_t *root = wcp_json(d, g, longest, as_executed);
        if (n_nested) {
            json_t *list = json_array();
            for (size_t i = 0; i < n_nested; i++)
                wfb_json_append(d, list, nested_json(d, &nested[i]));
            wfb_json_set(d, root, "nested", list);
        }
        return wfb_json_dump(d, root, out);
    }
    wcp_text(g, longest, as_executed, out);
    for (size_t i = 0; i < n_nested; i++) {
        const wfb_nested_wcp *n = &nested[i];
        fprintf(out, "=== activity %s runs the LPEL trace %s ===\n", n->activity, n->trace);
        if (n->graph)
            wcp_text(n->graph, n->longest, n->as_executed, out);
        else
            fprintf(out, "  not analysed: %s\n\n", n->error ? n->error : "unknown error");
    }
    return ferror(out) ? -1 : 0;
}

int wfb_report_wcp(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                   wfb_output fmt, FILE *out)
{
    return wfb_report_wcp_nested(g, longest, as_executed, NULL, 0, fmt, out);
}

/* ---- dot ---- */

static void dot_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Bit 1: on the longest path, bit 2: on the as-executed path. */
static void mark_path(const wfb_path *p, uint8_t bit, uint8_t *vmark, uint8_t *emark)
{
    if (!p || !p->valid)
        return;
    for (size_t i = 0; i < p->n_steps; i++) { /* a path of steps: the data states it wrote */
        uint32_t v = wfb_path_step_at(p, i).vertex;
        if (v != WFB_NONE)
            vmark[v] |= bit;
    }
    for (size_t i = 0; i < p->n; i++)
        vmark[p->vertices[i]] |= bit;
    for (size_t i = 0; i + 1 < p->n; i++)
        emark[p->edges[i]] |= bit;
}

int wfb_write_dot(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                  FILE *out)
{
    static const char *const colour[] = {"black", "red", "blue", "purple"};
    if (g->online)
        return -1; /* its edges are counted, not kept (wfb_lifter_new_bounded) */
    size_t nv = wfb_vertex_count(g), ne = wfb_edge_count(g);
    uint8_t *vmark = calloc(nv ? nv : 1, 1), *emark = calloc(ne ? ne : 1, 1);
    if (!vmark || !emark) {
        free(vmark), free(emark);
        return -1;
    }
    mark_path(longest, 1, vmark, emark);
    mark_path(as_executed, 2, vmark, emark);
    fprintf(out, "digraph wcp {\n  rankdir=LR;\n  node [shape=box];\n");
    for (uint32_t v = 0; v < nv; v++) {
        fprintf(out, "  v%u [label=", v);
        dot_string(out, wfb_vertex_id(g, v));
        fprintf(out, ", shape=%s, color=%s%s];\n",
                wfb_vertex_kind_of(g, v) == WFB_VERTEX_ACTIVITY ? "box" : "ellipse",
                colour[vmark[v]], vmark[v] ? ", penwidth=2" : "");
    }
    for (uint32_t e = 0; e < ne; e++) {
        fprintf(out, "  v%u -> v%u [color=%s%s", wfb_edge_src(g, e), wfb_edge_dst(g, e),
                colour[emark[e]], emark[e] ? ", penwidth=2" : "");
        if (wfb_edge_kind_of(g, e) != WFB_EDGE_DEPEND)
            fprintf(out, ", label=\"%s\"", wfb_edge_kind_name(wfb_edge_kind_of(g, e)));
        fprintf(out, "];\n");
    }
    fprintf(out, "}\n");
    free(vmark), free(emark);
    return ferror(out) ? -1 : 0;
}

/* ---- metrics ---- */

