/*
 * top_check.c - checks `snetmon top --json` output for tests/cli/top_test.sh
 * with a real JSON parser (jansson):
 *
 *   top_check grow A B           A and B are two snapshots of one run in
 *                                progress, B taken later: both say so, and
 *                                B has more events, inputs no fewer, a
 *                                later time, and per worker no fewer waits
 *                                and no less busy or waiting time.
 *   top_check match TOP METRICS EVENTS
 *                                TOP is top's snapshot of a finished trace,
 *                                METRICS `snetmon metrics --json` of it and
 *                                EVENTS `snetmon dump --count` of it: the
 *                                figures both print agree (events, inputs,
 *                                throughput, per worker waits, wait, busy
 *                                and span, per task execution time and
 *                                dispatches; times to 1 us: metrics adds
 *                                seconds as doubles, top ns as integers).
 *
 * Prints what differs and exits 1, or exits 0.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
}

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, e.line, e.column, e.text);
        exit(1);
    }
    return root;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

static void close_to(const char *what, double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol))
        fail("%s: %.9g vs %.9g", what, a, b);
}

/* The worker object with number w in an array of them, NULL if none. */
static json_t *worker(json_t *arr, int w)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        if ((int)num(o, "worker") == w)
            return o;
    }
    return NULL;
}

static int grow(const char *pa, const char *pb)
{
    json_t *a = load(pa), *b = load(pb);
    for (json_t *s = a; s; s = s == a ? b : NULL)
        if (!json_is_true(json_object_get(s, "live")) ||
            strcmp(str(s, "run"), "in progress") != 0)
            fail("%s: not a run in progress", s == a ? pa : pb);
    if (!(num(b, "events") > num(a, "events")))
        fail("events do not grow: %g then %g", num(a, "events"), num(b, "events"));
    if (!(num(b, "inputs") >= num(a, "inputs")))
        fail("fewer inputs: %g then %g", num(a, "inputs"), num(b, "inputs"));
    if (!(num(b, "time_s") > num(a, "time_s")))
        fail("time does not advance: %g then %g", num(a, "time_s"), num(b, "time_s"));
    size_t i;
    json_t *wa;
    json_array_foreach(json_object_get(a, "workers"), i, wa)
    {
        json_t *wb = worker(json_object_get(b, "workers"), (int)num(wa, "worker"));
        if (!wb) {
            fail("worker %g missing in the later snapshot", num(wa, "worker"));
            continue;
        }
        static const char *const keys[] = {"waits", "busy_s", "wait_s"};
        for (int k = 0; k < 3; k++)
            if (!(num(wb, keys[k]) >= num(wa, keys[k])))
                fail("worker %g: %s shrinks: %g then %g", num(wa, "worker"), keys[k],
                     num(wa, keys[k]), num(wb, keys[k]));
    }
    json_decref(a);
    json_decref(b);
    return failures ? 1 : 0;
}

/* metrics has one row per (run, worker): top's are over all runs. */
static void match_workers(json_t *top, json_t *met)
{
    size_t i;
    json_t *tw;
    json_array_foreach(json_object_get(top, "workers"), i, tw)
    {
        int w = (int)num(tw, "worker");
        static const char *const split[] = {"blocked_s", "ready_s", "cpu_s", "preempted_s"};
        double waits = 0, wait = 0, busy = 0, span = 0, parts[4] = {0};
        size_t j;
        json_t *mw;
        json_array_foreach(json_object_get(met, "workers"), j, mw)
        {
            if ((int)num(mw, "worker") != w)
                continue;
            waits += num(mw, "waits");
            wait += num(mw, "wait_s");
            busy += num(mw, "busy_s");
            span += num(mw, "span_s");
            for (int k = 0; k < 4; k++)
                parts[k] += num(mw, split[k]);
        }
        char what[64];
        /* blocked and ready apart, the CPU time and the time off the core:
         * the same in both (the run is recorded with -m A, C included) */
        for (int k = 0; k < 4; k++) {
            snprintf(what, sizeof what, "worker %d %s", w, split[k]);
            close_to(what, num(tw, split[k]), parts[k], 1e-6);
        }
        snprintf(what, sizeof what, "worker %d waits", w);
        close_to(what, num(tw, "waits"), waits, 0);
        snprintf(what, sizeof what, "worker %d wait_s", w);
        close_to(what, num(tw, "wait_s"), wait, 1e-6);
        snprintf(what, sizeof what, "worker %d busy_s", w);
        close_to(what, num(tw, "busy_s"), busy, 1e-6);
        snprintf(what, sizeof what, "worker %d span_s", w);
        close_to(what, num(tw, "span_s"), span, 1e-6);
    }
    if (json_array_size(json_object_get(top, "workers")) == 0)
        fail("top: no workers");
}

static void match_tasks(json_t *top, json_t *met)
{
    json_t *tt = json_object_get(top, "tasks"), *mt = json_object_get(met, "tasks");
    close_to("task count", (double)json_array_size(tt), (double)json_array_size(mt), 0);
    size_t i;
    json_t *m;
    json_array_foreach(mt, i, m)
    {
        json_t *t = NULL, *c;
        size_t j;
        json_array_foreach(tt, j, c)
        {
            if (num(c, "run") == num(m, "run") && num(c, "task") == num(m, "task"))
                t = c;
        }
        char what[80];
        snprintf(what, sizeof what, "run %g task %g exec_s", num(m, "run"), num(m, "task"));
        if (!t) {
            fail("%s: missing in top", what);
            continue;
        }
        close_to(what, num(t, "exec_s"), num(m, "exec_s"), 1e-6);
        snprintf(what, sizeof what, "run %g task %g dispatches", num(m, "run"), num(m, "task"));
        close_to(what, num(t, "dispatches"), num(m, "dispatches"), 0);
    }
}

static int match(const char *ptop, const char *pmet, const char *events)
{
    json_t *top = load(ptop), *met = load(pmet);
    json_t *mm = json_object_get(met, "message_metrics");
    if (strcmp(str(top, "run"), "finished") != 0)
        fail("%s: run not finished", ptop);
    close_to("events", num(top, "events"), strtod(events, NULL), 0);
    close_to("inputs", num(top, "inputs"), num(mm, "inputs"), 0);
    close_to("throughput_per_s", num(top, "throughput_per_s"), num(mm, "throughput_per_s"),
             1e-6 * num(mm, "throughput_per_s"));
    close_to("span_s", num(top, "span_s"), num(mm, "span_s"), 1e-6);
    match_workers(top, met);
    match_tasks(top, met);
    json_decref(top);
    json_decref(met);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "grow"))
        return grow(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "match"))
        return match(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: top_check grow A B | top_check match TOP METRICS EVENTS\n");
    return 2;
}
