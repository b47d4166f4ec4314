/*
 * wfb_test_util.h - helpers shared by the bridge's Check tests: loading a
 * fixture, building graphs from inline JSONL, and comparing paths.
 */
#ifndef WFB_TEST_UTIL_H
#define WFB_TEST_UTIL_H

#include "wfb.h"
/* White-box tests: the lifter's event interface, BP lines, histograms. */
#include "wfb_internal.h"
#include "mon_reader.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BRIDGE_FIXTURE(name) (WFB_BRIDGE_FIXTURES "/" name)
#define SHARED_FIXTURE(name) (WFB_FIXTURES "/" name)

/* Loads a fixture file (format detected) and fails the test on error. */
static inline wfb_graph *load_fixture(const char *path)
{
    wfb_graph *g;
    wfb_error err;
    int rc = wfb_load_input(path, WFB_FORMAT_UNKNOWN, NULL, false, NULL, NULL, &g, &err);
    ck_assert_msg(rc == 0, "%s: %s (line %ld)", path, err.msg, err.line);
    return g;
}

/* Imports JSONL text; returns the importer's result, graph in *out. */
static inline int load_jsonl_text(const char *text, wfb_graph **out, wfb_error *err)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(in);
    *out = wfb_graph_new();
    int rc = wfb_import_jsonl(*out, in, "inline.jsonl", NULL, err);
    fclose(in);
    return rc;
}

static inline wfb_graph *jsonl_graph(const char *text)
{
    wfb_graph *g;
    wfb_error err;
    int rc = load_jsonl_text(text, &g, &err);
    ck_assert_msg(rc == 0, "inline JSONL: %s (line %ld)", err.msg, err.line);
    return g;
}

/* "a,b,c" == the path's vertex ids in order. */
static inline void assert_path(const wfb_graph *g, const wfb_path *p, const char *expected)
{
    char got[4096] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n && used < sizeof got; i++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", i ? "," : "",
                                 wfb_vertex_id(g, p->vertices[i]));
    ck_assert_str_eq(got, expected);
}

/* Seconds as the trace's ns: events made by hand give their times in
 * seconds, as the figures are. */
#define WFB_NS(s) ((uint64_t)llround((s)*1e9))

static inline uint32_t vertex(const wfb_graph *g, const char *id)
{
    uint32_t v = wfb_vertex_find(g, id, strlen(id));
    ck_assert_msg(v != WFB_NONE, "no vertex '%s'", id);
    return v;
}

static inline void assert_near_at(double a, double b, int line)
{
    ck_assert_msg(fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)), "line %d: %.17g != %.17g", line, a, b);
}
#define assert_near(a, b) assert_near_at((a), (b), __LINE__)

/* One expected step of an as-executed path (an LPEL trace's: steps): kind,
 * via, its task's and the other task's ids (0: none), start and end (in
 * units of `scale` seconds), the data state it wrote (NULL: none). */
typedef struct step_want {
    wfb_step_kind kind;
    wfb_via via;
    uint64_t task, other;
    double start, end;
    const char *wrote;
} step_want;

static inline void assert_steps(const wfb_graph *g, const wfb_path *p, const step_want *want,
                                size_t n, double scale)
{
    ck_assert(p->valid);
    ck_assert_uint_eq(p->n_steps, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        wfb_step step_i = wfb_path_step_at(p, i);
        const wfb_step *s = &step_i;
        ck_assert_msg(s->kind == want[i].kind && s->via == want[i].via, "step %zu: %s %s", i,
                      wfb_step_kind_name(s->kind), wfb_via_name(s->via));
        ck_assert_uint_eq(wfb_task_stats_at(g, s->task)->task, want[i].task);
        if (want[i].other)
            ck_assert_uint_eq(wfb_task_stats_at(g, s->other)->task, want[i].other);
        assert_near(s->end_s - s->start_s, (want[i].end - want[i].start) * scale);
        assert_near(wfb_path_step(g, p, i), (want[i].end - want[i].start) * scale);
        sum += wfb_path_step(g, p, i);
        if (want[i].wrote)
            ck_assert_str_eq(wfb_vertex_id(g, s->vertex), want[i].wrote);
        else
            ck_assert_uint_eq(s->vertex, WFB_NONE);
        if (i)
            assert_near(s->start_s, wfb_path_step_at(p, i - 1).end_s);
    }
    assert_near(sum, p->length_s); /* the steps add up to the length */
}

#endif
