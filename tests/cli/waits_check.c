/*
 * waits_check.c - `waits_check METRICS_JSON`: the waits of a real run as
 * docs/METRICS.md section 3 defines them, from `snetmon metrics --json`:
 *
 *  - the two ends of one stream were blocked at different times (one end
 *    blocks on an empty stream, the other on a full one, and each block
 *    ends at the other end's wake), so the blocked time (`total_s`) of all
 *    the waits on one stream adds up to at most the run's span: the figure
 *    issue 23 measured at 180 % when a wait ran to the dispatch;
 *  - every relation names the task waited for (a wake, or the other end's
 *    stream_open, is in a trace of -m A);
 *  - each worker's tasks' blocked and ready time is the sum of the
 *    relations' of the tasks on it, and the worker has a CPU time (-m A
 *    records C).
 *
 * Exit status 0 when all hold, 1 with one line per failure.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void fail(const char *what, double a, double b)
{
    printf("FAIL: %s: %.9g against %.9g\n", what, a, b);
    failures++;
}

/* Per stream, the blocked time of its waits: sums[stream] (streams are
 * numbered from 1 in one run; a larger id is skipped, said once). */
static void streams_within_span(json_t *relations, double span)
{
    size_t n = 1 << 20, i;
    double *sum = calloc(n, sizeof *sum);
    json_t *w;
    if (!sum)
        exit(2);
    json_array_foreach(relations, i, w)
    {
        double s = num(w, "stream");
        const char *via = json_string_value(json_object_get(w, "via"));
        if (!via || strcmp(via, "stream") != 0 || !(s < (double)n))
            continue;
        sum[(size_t)s] += num(w, "total_s");
        if (num(w, "waited_for") == 0)
            fail("a relation without the task waited for (waiter)", num(w, "waiter"), 0);
    }
    double worst = 0;
    for (size_t k = 0; k < n; k++)
        worst = fmax(worst, sum[k]);
    /* the wake is stamped on the waker's worker: a few ns of skew allowed */
    if (!(worst <= span + 1e-6))
        fail("the blocked time of one stream's waits exceeds the span", worst, span);
    printf("ok: the most blocked stream: %.6f s of the span %.6f s\n", worst, span);
    free(sum);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: waits_check METRICS_JSON\n");
        return 2;
    }
    json_error_t e;
    json_t *m = json_load_file(argv[1], 0, &e);
    if (!m) {
        fprintf(stderr, "%s:%d: %s\n", argv[1], e.line, e.text);
        return 2;
    }
    double span = num(json_object_get(m, "message_metrics"), "span_s");
    json_t *relations = json_object_get(m, "waiting_relations");
    if (!(span > 0) || json_array_size(relations) == 0)
        fail("no span or no waiting relations", span, 0);
    streams_within_span(relations, span);
    size_t i, j;
    json_t *w, *t;
    json_array_foreach(json_object_get(m, "workers"), i, w)
    {
        double blocked = 0, ready = 0;
        json_array_foreach(json_object_get(m, "tasks"), j, t)
        {
            if (num(t, "worker") != num(w, "worker"))
                continue;
            blocked += num(t, "blocked_s");
            ready += num(t, "ready_s");
        }
        if (!(fabs(blocked - num(w, "blocked_s")) <= 1e-6 * fmax(1, blocked)))
            fail("a worker's blocked time is not its tasks'", num(w, "blocked_s"), blocked);
        if (!(fabs(ready - num(w, "ready_s")) <= 1e-6 * fmax(1, ready)))
            fail("a worker's ready time is not its tasks'", num(w, "ready_s"), ready);
        if (!(num(w, "cpu_s") > 0))
            fail("a worker without CPU time", num(w, "worker"), num(w, "cpu_s"));
    }
    json_decref(m);
    return failures ? 1 : 0;
}
