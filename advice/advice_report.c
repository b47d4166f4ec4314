/*
 * advice_report.c - the mapping advice in words: what the trace shows
 * (per worker, the heaviest tasks, traffic, waiting), the problems the
 * evidence points to, the model's prediction and the verdict.
 *
 * Each problem is named by a rule on the figures (docs/METRICS.md,
 * "Mapping advice"), so the same trace always reads the same way, and each
 * sentence carries the numbers it rests on.
 */
#include "advice_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static void report_workers(const advice_result *a, FILE *out)
{
    for (unsigned w = 0; w < a->workers; w++) {
        const advice_worker *x = &a->per_worker[w];
        if (isnan(x->span_s))
            fprintf(out, "  worker %u: busy %.4g s (no worker events: span and waiting unknown)\n",
                    w, x->load_now_s);
        else
            fprintf(out,
                    "  worker %u: span %.4g s, busy %.4g s (%.1f %%), waiting %.4g s (%.1f %%) "
                    "in %llu waits\n",
                    w, x->span_s, x->busy_s, pct(x->busy_s, x->span_s), x->wait_s,
                    pct(x->wait_s, x->span_s), (unsigned long long)x->waits);
        if (!isnan(x->cpu_s))
            fprintf(out, "            CPU %.4g s; off its core %.4g s (%.1f %% of its span)\n",
                    x->cpu_s, x->preempted_s, pct(x->preempted_s, x->span_s));
        fprintf(out, "            its tasks blocked %.4g s, then ready %.4g s waiting for it "
                     "(summed over tasks)\n",
                x->blocked_s, x->ready_s);
    }
}

static void report_heaviest(const advice_result *a, FILE *out)
{
    fprintf(out, "  execution time %.4g s in %zu tasks under %zu names", a->exec_s, a->n_tasks,
            a->n_groups);
    if (a->n_unnamed)
        fprintf(out, " (and %zu unnamed tasks, %.4g s, which stay where they ran)", a->n_unnamed,
                a->unnamed_exec_s);
    fprintf(out, "; the heaviest:\n");
    for (size_t i = 0; i < a->n_top_groups; i++) {
        const advice_group *g = &a->groups[a->top_groups[i]];
        fprintf(out, "    %-44s %.4g s (%.1f %%) on worker %u%s\n", g->name, g->exec_s,
                pct(g->exec_s, a->exec_s), g->worker_now,
                g->split_now ? " (and others)" : "");
    }
}

/* The entity a task name ends in: its last path component ("mc.vcall"). */
static const char *entity(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

static int by_entity(const void *x, const void *y)
{
    return strcmp(entity((*(const advice_group *const *)x)->name),
                  entity((*(const advice_group *const *)y)->name));
}

/* One entity's tasks: a run of the names sorted by entity. */
typedef struct entity_run {
    size_t from, to;
    double exec_s;
} entity_run;

static int by_exec_desc(const void *x, const void *y)
{
    const entity_run *a = x, *b = y;
    return (a->exec_s < b->exec_s) - (a->exec_s > b->exec_s);
}

/* The execution time by entity: the largest three, and the worker holding
 * most of each (where the work of one kind of box sits). */
static void report_entities(const advice_result *a, FILE *out)
{
    size_t n = a->n_groups ? a->n_groups : 1, nr = 0;
    const advice_group **g = malloc(n * sizeof *g);
    entity_run *runs = malloc(n * sizeof *runs);
    double *per_worker = calloc(a->workers, sizeof *per_worker);
    if (!g || !runs || !per_worker)
        goto out;
    for (size_t i = 0; i < a->n_groups; i++)
        g[i] = &a->groups[i];
    qsort(g, a->n_groups, sizeof *g, by_entity);
    for (size_t i = 0, j; i < a->n_groups; i = j) {
        runs[nr] = (entity_run){i, i, 0};
        for (j = i; j < a->n_groups && !strcmp(entity(g[j]->name), entity(g[i]->name)); j++)
            runs[nr].exec_s += g[j]->exec_s;
        runs[nr++].to = j;
    }
    qsort(runs, nr, sizeof *runs, by_exec_desc);
    for (size_t r = 0; r < nr && r < 3 && runs[r].exec_s >= 0.01 * a->exec_s; r++) {
        memset(per_worker, 0, a->workers * sizeof *per_worker);
        size_t tasks = 0;
        for (size_t i = runs[r].from; i < runs[r].to; i++) {
            per_worker[g[i]->worker_now] += g[i]->exec_s;
            tasks += g[i]->tasks;
        }
        unsigned top = 0;
        for (unsigned w = 1; w < a->workers; w++)
            if (per_worker[w] > per_worker[top])
                top = w;
        fprintf(out, "  %s %s: %.4g s (%.1f %%) in %zu tasks, %.1f %% of it on worker %u\n",
                r ? "         " : "by entity:", entity(g[runs[r].from]->name), runs[r].exec_s,
                pct(runs[r].exec_s, a->exec_s), tasks, pct(per_worker[top], runs[r].exec_s), top);
    }
out:
    free(g);
    free(runs);
    free(per_worker);
}

static void report_traffic(const advice_result *a, FILE *out)
{
    if (!a->streams_known) {
        fprintf(out, "  stream traffic: not recorded (no stream events: record with -m A, or a "
                     "flag set with S); the model leaves communication out\n");
        return;
    }
    fprintf(out, "  stream traffic: %llu items over %zu streams, %llu (%.1f %%) between workers\n",
            (unsigned long long)a->items, a->n_streams, (unsigned long long)a->cross_now,
            pct((double)a->cross_now, (double)a->items));
}

/* W(A,B) summed over the tasks of each pair of workers: task time spent
 * blocked (block to wake: what a faster B removes; the ready time after
 * the wake is A's worker's, below), which overlaps (many tasks block at
 * once), so it is no share of a span; across workers it says which
 * worker's tasks hold up which. */
static void report_waits(const advice_result *a, FILE *out)
{
    double same = 0;
    int any = 0;
    for (unsigned x = 0; x < a->workers; x++)
        for (unsigned y = 0; y < a->workers; y++) {
            double s = a->waited_s[(size_t)x * a->workers + y];
            if (x == y) {
                same += s;
                continue;
            }
            if (s <= 0)
                continue;
            fprintf(out, "  %s tasks on worker %u were blocked %.4g s (summed over tasks) "
                         "waiting for tasks on worker %u\n",
                    any ? "     " : "waiting:", x, s, y);
            any = 1;
        }
    if (!any && same <= 0) {
        fprintf(out, "  waiting: no waiting relations recorded (flag S)\n");
        return;
    }
    fprintf(out, "  %s tasks were blocked %.4g s (summed) waiting for tasks on their own worker\n",
            any ? "     " : "waiting:", same);
    if (!a->n_top_waits)
        return;
    fprintf(out, "  the largest waiting relations W(A,B) across workers, A waits for B:\n");
    for (size_t i = 0; i < a->n_top_waits; i++) {
        const advice_wait *w = &a->top_waits[i];
        fprintf(out, "    %s (worker %u) for %s (worker %u): blocked %.4g s in %llu blocks on %s "
                     "stream, then ready %.4g s\n",
                w->waiter ? w->waiter : "(unnamed)", w->waiter_worker,
                w->waited_for ? w->waited_for : "(unnamed)", w->waited_worker, w->total_s,
                (unsigned long long)w->count, w->on_empty ? "an empty" : "a full", w->ready_s);
    }
}

/* The worker with the largest and the smallest model load now. */
static void extremes(const advice_result *a, unsigned *hi, unsigned *lo)
{
    *hi = *lo = 0;
    for (unsigned w = 1; w < a->workers; w++) {
        if (a->per_worker[w].load_now_s > a->per_worker[*hi].load_now_s)
            *hi = w;
        if (a->per_worker[w].load_now_s < a->per_worker[*lo].load_now_s)
            *lo = w;
    }
}

static double heaviest_exec(const advice_result *a)
{
    return a->n_top_groups ? a->groups[a->top_groups[0]].exec_s : 0.0;
}

/* Two rules on the not-running time of docs/METRICS.md section 3: tasks
 * ready and not dispatched wait for their worker (a mapping that moves work
 * off it removes that: contention), and a worker whose core the OS held
 * makes every time measured on it longer than the work (no mapping
 * removes that). The ready time is summed over the tasks, so it is
 * compared with the span only as a sign, never as a share. */
static int report_contention(const advice_result *a, FILE *out)
{
    int n = 0;
    for (unsigned w = 0; w < a->workers; w++) {
        const advice_worker *x = &a->per_worker[w];
        if (a->workers > 1 && !isnan(x->span_s) && x->ready_s > a->min_gain * x->span_s) {
            fprintf(out, "  contention: tasks on worker %u were ready %.4g s (summed over tasks, "
                         "%.1f times its span) waiting for it: time a mapping that moves work off "
                         "it removes.\n",
                    w, x->ready_s, x->ready_s / x->span_s);
            n++;
        }
        if (!isnan(x->preempted_s) && !isnan(x->span_s) &&
            x->preempted_s > WFB_PREEMPTED_WARN_SHARE * x->span_s) {
            fprintf(out, "  the machine: the OS held worker %u's core %.4g s (%.1f %% of its "
                         "span): its execution times, and the model's loads, count that time; no "
                         "mapping removes it.\n",
                    w, x->preempted_s, pct(x->preempted_s, x->span_s));
            n++;
        }
    }
    return n;
}

/* The rules of docs/METRICS.md, each printed with its evidence. */
static int report_problems(const advice_result *a, FILE *out)
{
    int n = 0;
    unsigned hi, lo;
    extremes(a, &hi, &lo);
    const advice_worker *H = &a->per_worker[hi], *Lw = &a->per_worker[lo];
    double mean = 0;
    for (unsigned w = 0; w < a->workers; w++)
        mean += a->per_worker[w].load_now_s / a->workers;
    double imbalance = mean > 0 ? H->load_now_s / mean : 1.0;
    double msg_hi = a->message_cost_s * (double)H->cross_now;
    double top = heaviest_exec(a), L = a->critical_path_s;
    fprintf(out, "\nProblem\n");
    if (a->workers > 1 && imbalance > 1 + a->min_gain) {
        fprintf(out, "  load imbalance: worker %u executes %.1f %% of the execution time (%.4g s), "
                     "worker %u %.1f %% (%.4g s): %.2f times the mean load",
                hi, pct(H->load_now_s, a->exec_s), H->load_now_s, lo,
                pct(Lw->load_now_s, a->exec_s), Lw->load_now_s, imbalance);
        if (!isnan(Lw->wait_s) && !isnan(Lw->span_s))
            fprintf(out, "; worker %u waits %.1f %% of its span", lo, pct(Lw->wait_s, Lw->span_s));
        fprintf(out, ".\n");
        n++;
    }
    if (a->workers > 1 && top > mean * (1 + a->min_gain)) {
        fprintf(out, "  one task name is too heavy to balance: %s alone executes %.4g s, more than "
                     "a worker's fair share (%.4g s); its tasks stay on one worker whatever the "
                     "mapping.\n",
                a->groups[a->top_groups[0]].name, top, mean);
        n++;
    }
    if (a->streams_known && H->load_now_s + msg_hi > 0 &&
        msg_hi > a->min_gain * (H->load_now_s + msg_hi)) {
        fprintf(out, "  communication: %llu items cross between workers; at %.3g s each they cost "
                     "worker %u %.4g s, %.1f %% of its predicted time.\n",
                (unsigned long long)a->cross_now, a->message_cost_s, hi, msg_hi,
                pct(msg_hi, H->load_now_s + msg_hi));
        n++;
    }
    double busiest = 0;
    for (unsigned w = 0; w < a->workers; w++)
        busiest = fmax(busiest, a->per_worker[w].load_now_s +
                                    a->message_cost_s * (double)a->per_worker[w].cross_now);
    if (a->workers > 1 && !isnan(a->replay_now_s) && a->replay_now_s > busiest * (1 + a->min_gain)) {
        fprintf(out, "  workers take turns: replayed on this mapping the executions take %.4g s, "
                     "%.2f times the busiest\n  worker's %.4g s of work: results reach the workers "
                     "one after the other, so each waits for the\n  other's.\n",
                a->replay_now_s, a->replay_now_s / busiest, busiest);
        n++;
    }
    n += report_contention(a, out);
    if (!isnan(L) && L >= a->predicted_now_s * (1 - a->min_gain)) {
        fprintf(out, "  dependencies: the longest chain of dependent executions (critical path) "
                     "takes %.4g s, %.1f %% of the predicted time: no mapping can go below it.\n",
                L, pct(L, a->predicted_now_s));
        n++;
    }
    if (!n)
        fprintf(out, "  none found: the load is balanced within %.0f %% (largest/mean load %.3f), "
                     "no task name outweighs a worker's share, and communication costs under "
                     "%.0f %%.\n",
                100 * a->min_gain, imbalance, 100 * a->min_gain);
    return n;
}

static void report_prediction(const advice_result *a, FILE *out)
{
    fprintf(out, "\nPrediction (docs/METRICS.md, \"Mapping advice\": the model's time is the largest "
                 "worker load plus c\nper item crossing workers, at least the replay and the "
                 "critical path; c = %.3g s",
            a->message_cost_s);
    if (a->message_cost_s < a->message_cost_given_s)
        fprintf(out, ", less than the %.3g s asked for: the measured span leaves no more",
                a->message_cost_given_s);
    fprintf(out, ")\n");
    fprintf(out, "  current mapping    model %.4g s", a->predicted_now_s);
    if (!isnan(a->measured_span_s) && a->predicted_now_s > a->measured_span_s)
        fprintf(out, "; measured span %.4g s, shorter: execution times were stretched\n"
                     "                     (workers sharing a core, or other load on the machine), "
                     "so predictions are scaled by %.3f",
                a->measured_span_s, a->measured_span_s / a->predicted_now_s);
    else if (!isnan(a->measured_span_s))
        fprintf(out, "; measured span %.4g s, so %.4g s (%.1f %%) is time the model does not "
                     "explain,\n                     taken to be the same under any mapping",
                a->measured_span_s, a->unexplained_s, pct(a->unexplained_s, a->measured_span_s));
    fprintf(out, "\n  best mapping found model %.4g s, predicted span %.4g s (%s)\n",
            a->predicted_advised_s, advice_span_advised(a), a->partitioner);
    if (!isnan(a->replay_now_s))
        fprintf(out, "    replay: %.4g s now -> %.4g s\n", a->replay_now_s, a->replay_advised_s);
    for (unsigned w = 0; w < a->workers; w++) {
        const advice_worker *x = &a->per_worker[w];
        fprintf(out, "    worker %u: load %.4g s, %llu items crossing -> ", w, x->load_now_s,
                (unsigned long long)x->cross_now);
        if (a->change)
            fprintf(out, "load %.4g s, %llu items crossing\n", x->load_advised_s,
                    (unsigned long long)x->cross_advised);
        else
            fprintf(out, "unchanged\n");
    }
}

static void report_verdict(const advice_result *a, FILE *out)
{
    double now = advice_span_now(a), adv = advice_span_advised(a);
    double gain = now > 0 ? 1 - adv / now : 0;
    fprintf(out, "\nAdvice\n");
    if (a->change) {
        fprintf(out, "  change the mapping: predicted %.2fx faster (span %.4g s -> %.4g s) by "
                     "moving %zu of %zu task names (%.4g s of execution time).\n",
                now / adv, now, adv, a->moved_groups, a->n_groups, a->moved_exec_s);
        return;
    }
    if (a->workers <= 1)
        fprintf(out, "  the mapping is already good: the run has one worker, so every mapping is "
                     "the same.\n");
    else
        fprintf(out, "  the mapping is already good: the best mapping found is predicted %.1f %% "
                     "faster, less than the %.0f %% worth a change%s.\n",
                100 * (gain > 0 ? gain : 0), 100 * a->min_gain,
                gain > 0 ? "" : " (none is predicted faster)");
}

int advice_report(const advice_result *a, const char *source, FILE *out)
{
    fprintf(out, "Mapping advice for %s (run %u, %u worker%s)\n\nWhat the trace shows\n",
            source ? source : "(unnamed)", (unsigned)a->run, a->workers,
            a->workers == 1 ? "" : "s");
    report_workers(a, out);
    report_heaviest(a, out);
    report_entities(a, out);
    report_traffic(a, out);
    report_waits(a, out);
    if (isnan(a->critical_path_s))
        fprintf(out, "  critical path: unknown (no component executions with execution times)\n");
    else
        fprintf(out, "  critical path: %.4g s (the longest chain of dependent executions)\n",
                a->critical_path_s);
    if (!isnan(a->replay_now_s))
        fprintf(out, "  replay: the run's component executions, replayed on this mapping with their "
                     "dependencies,\n          one at a time per worker, take %.4g s\n",
                a->replay_now_s);
    report_problems(a, out);
    report_prediction(a, out);
    report_verdict(a, out);
    return ferror(out) ? -1 : 0;
}
