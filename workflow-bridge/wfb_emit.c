/*
 * wfb_emit.c - the emitter: writes workflow events as JSON Lines (schema in
 * docs/EVENTS.md) so that workflow programs, and the `snetmon import`
 * converters, produce files the JSONL importer reads back.
 *
 * Writing by hand rather than through a JSON library keeps the emitter
 * cheap enough to call from a running workflow for every event.
 */
#include "wfb_internal.h"

#include <math.h>
#include <stdlib.h>

struct wfb_emitter {
    FILE *out;
    int failed;
};

wfb_emitter *wfb_emit_open(FILE *out)
{
    wfb_emitter *em = calloc(1, sizeof *em);
    if (em)
        em->out = out;
    return em;
}

int wfb_emit_close(wfb_emitter *em)
{
    if (!em)
        return -1;
    int rc = (fflush(em->out) || em->failed || ferror(em->out)) ? -1 : 0;
    free(em);
    return rc;
}

/* Writes s as a JSON string literal. */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void put_field(FILE *out, const char *key, const char *value)
{
    if (!value)
        return;
    fprintf(out, ",\"%s\":", key);
    put_string(out, value);
}

/* Shortest text that reads back to the same double. */
static void put_number(FILE *out, const char *key, double x)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fprintf(out, ",\"%s\":%s", key, buf);
}

static int end_line(wfb_emitter *em)
{
    if (fputs("}\n", em->out) == EOF)
        em->failed = 1;
    return em->failed ? -1 : 0;
}

int wfb_emit_activity(wfb_emitter *em, const char *id, const char *event, double time,
                      const char *name, const char *resources)
{
    fputs("{\"type\":\"activity\"", em->out);
    put_field(em->out, "id", id);
    put_field(em->out, "event", event);
    put_number(em->out, "time", time);
    put_field(em->out, "name", name);
    put_field(em->out, "resources", resources);
    return end_line(em);
}

int wfb_emit_activity_duration(wfb_emitter *em, const char *id, const char *name,
                               double duration, const char *resources)
{
    fputs("{\"type\":\"activity\"", em->out);
    put_field(em->out, "id", id);
    if (!isnan(duration))
        put_number(em->out, "duration", duration);
    put_field(em->out, "name", name);
    put_field(em->out, "resources", resources);
    return end_line(em);
}

int wfb_emit_dependency(wfb_emitter *em, const char *parent, const char *child)
{
    fputs("{\"type\":\"dependency\"", em->out);
    put_field(em->out, "parent", parent);
    put_field(em->out, "child", child);
    return end_line(em);
}

int wfb_emit_data(wfb_emitter *em, const char *id, double time, uint64_t size,
                  const char *origin, const char *location, const char *label)
{
    fputs("{\"type\":\"data\"", em->out);
    put_field(em->out, "id", id);
    if (!isnan(time))
        put_number(em->out, "time", time);
    if (size)
        fprintf(em->out, ",\"size\":%llu", (unsigned long long)size);
    put_field(em->out, "origin", origin);
    put_field(em->out, "location", location);
    put_field(em->out, "label", label);
    return end_line(em);
}

/* exec = WFB_NONE when the mutation belongs to no known execution. */
static int emit_mutation(wfb_emitter *em, wfb_edge_kind kind, const char *from, const char *to,
                         double cost, const char *task, uint32_t exec)
{
    fputs("{\"type\":\"mutation\"", em->out);
    put_field(em->out, "kind", wfb_edge_kind_name(kind));
    put_field(em->out, "from", from);
    put_field(em->out, "to", to);
    put_number(em->out, "cost", cost);
    put_field(em->out, "task", task);
    if (exec != WFB_NONE)
        fprintf(em->out, ",\"exec\":%u", (unsigned)exec);
    return end_line(em);
}

int wfb_emit_mutation(wfb_emitter *em, wfb_edge_kind kind, const char *from, const char *to,
                      double cost, const char *task)
{
    return emit_mutation(em, kind, from, to, cost, task, WFB_NONE);
}

/* An activity: its explicit duration and attributes, then its events. */
static void write_activity(wfb_emitter *em, const wfb_graph *g, uint32_t v)
{
    const char *id = wfb_vertex_id(g, v);
    const char *name = wfb_vertex_attr(g, v, WFB_ATTR_LABEL);
    const char *res = wfb_vertex_attr(g, v, WFB_ATTR_RESOURCES);
    const char *trace = wfb_vertex_attr(g, v, WFB_ATTR_TRACE);
    fputs("{\"type\":\"activity\"", em->out);
    put_field(em->out, "id", id);
    if (g->v_duration && !isnan(g->v_duration[v]))
        put_number(em->out, "duration", g->v_duration[v]);
    put_field(em->out, "name", name);
    put_field(em->out, "resources", res);
    put_field(em->out, "trace", trace);
    end_line(em);
    static const char *const events[] = {"submitted", "active", NULL};
    for (int k = 0; k < WFB_T_KIND_COUNT; k++) {
        double t = wfb_vertex_time(g, v, (wfb_time_kind)k);
        if (isnan(t))
            continue;
        const char *ev = k < 2 ? events[k] : wfb_vertex_failed(g, v) ? "failed" : "completed";
        wfb_emit_activity(em, id, ev, t, NULL, NULL);
    }
}

int wfb_write_jsonl(const wfb_graph *g, FILE *out)
{
    if (g->online)
        return -1; /* its edges are counted, not kept (wfb_lifter_new_bounded) */
    wfb_emitter *em = wfb_emit_open(out);
    if (!em)
        return -1;
    for (uint32_t v = 0; v < wfb_vertex_count(g); v++) {
        if (wfb_vertex_kind_of(g, v) == WFB_VERTEX_ACTIVITY)
            write_activity(em, g, v);
        else
            wfb_emit_data(em, wfb_vertex_id(g, v), wfb_vertex_end(g, v), wfb_vertex_size(g, v),
                          wfb_vertex_attr(g, v, WFB_ATTR_ORIGIN),
                          wfb_vertex_attr(g, v, WFB_ATTR_LOCATION),
                          wfb_vertex_attr(g, v, WFB_ATTR_LABEL));
    }
    for (uint32_t e = 0; e < wfb_edge_count(g); e++) {
        const char *src = wfb_vertex_id(g, wfb_edge_src(g, e));
        const char *dst = wfb_vertex_id(g, wfb_edge_dst(g, e));
        if (wfb_edge_kind_of(g, e) == WFB_EDGE_DEPEND)
            wfb_emit_dependency(em, src, dst);
        else
            emit_mutation(em, wfb_edge_kind_of(g, e), src, dst, wfb_edge_cost(g, e),
                          wfb_edge_label(g, e), wfb_edge_exec(g, e));
    }
    return wfb_emit_close(em);
}
