/*
 * whatif_report.c - the causal profile in words and in machine-readable
 * form (whatif_profile_print, whatif.h): a ranked table with the figures
 * of the run as recorded beside it, CSV rows, or one JSON object
 * (docs/METRICS.md section 11 defines every field).
 */
#include "whatif_internal.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static const char *source_name(whatif_source s)
{
    switch (s) {
    case WHATIF_SOURCE_STREAMS: return "streams";
    case WHATIF_SOURCE_EXECUTIONS: return "executions";
    default: return "activities";
    }
}

static bool one_question(const whatif_profile *p)
{
    return p->n_rows == 1 && p->rows[0].kind == WHATIF_GROUP_PATTERN;
}

/* ---- text ------------------------------------------------------------------- */

/* A figure in 4 significant digits, or n/a. */
static const char *fig(double x, char *buf, size_t len)
{
    if (isnan(x) || isinf(x))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.4g", x);
    return buf;
}

static void text_model(const whatif_profile *p, FILE *out)
{
    char a[32], b[32], c[32];
    if (p->span_unknown_why)
        fprintf(out, "  model: the replay of the run as recorded takes %s s; the span is not known "
                     "(%s):\n         predictions are relative to the replay\n",
                fig(p->replay_s, a, sizeof a), p->span_unknown_why);
    else if (p->stretch < 1)
        fprintf(out, "  model: the replay of the run as recorded takes %s s, more than the %s s "
                     "span\n         (times stretched by other load): predictions scaled by %s\n",
                fig(p->replay_s, a, sizeof a), fig(p->span_s, b, sizeof b),
                fig(p->stretch, c, sizeof c));
    else
        fprintf(out, "  model: the replay of the run as recorded takes %s s; the other %s s of "
                     "the span,\n         which it does not see, is added to every prediction\n",
                fig(p->replay_s, a, sizeof a), fig(p->unexplained_s, b, sizeof b));
}

static void text_now(const whatif_profile *p, const char *source, FILE *out)
{
    char a[32], b[32];
    bool dag = p->source == WHATIF_SOURCE_ACTIVITIES;
    fprintf(out, "What-if profile of %s: %zu %s, %s s of execution time\n", source, p->tasks,
            dag ? "activities" : "tasks", fig(p->exec_s, a, sizeof a));
    if (dag)
        fprintf(out, "  now: makespan %s s%s\n", fig(p->span_s, a, sizeof a),
                p->span_unknown_why ? " (the replay's)" : " (latest end - earliest start)");
    else if (p->throughput_unknown_why)
        fprintf(out, "  now: throughput (eq. 1) n/a (%s); span %s s\n", p->throughput_unknown_why,
                fig(p->span_s, a, sizeof a));
    else
        fprintf(out, "  now: throughput (eq. 1) %s inputs/s = %zu inputs / %s s span\n",
                fig(p->throughput_per_s, a, sizeof a), p->inputs, fig(p->span_s, b, sizeof b));
    if (!dag && p->latency_unknown_why)
        fprintf(out, "       latency (eq. 2) n/a (%s)\n", p->latency_unknown_why);
    else if (!dag)
        fprintf(out, "       latency (eq. 2) mean %s s, p95 %s s\n",
                fig(p->latency_mean_s, a, sizeof a), fig(p->latency_p95_s, b, sizeof b));
    text_model(p, out);
}

static int label_width(const whatif_profile *p)
{
    size_t w = 12;
    for (size_t i = 0; i < p->n_rows; i++)
        if (strlen(p->rows[i].label) > w)
            w = strlen(p->rows[i].label);
    return (int)(w > 48 ? 48 : w);
}

static void text_header(const whatif_profile *p, const char *title, int lw, bool latency,
                        FILE *out)
{
    fprintf(out, "  %-*s %6s %10s %10s", lw, title, "tasks", "exec [s]", "work [s]");
    for (size_t f = 0; f < p->n_faster; f++) {
        char h[32];
        snprintf(h, sizeof h, "%g %%", p->faster_pct[f]);
        fprintf(out, latency ? " %19s" : " %9s", h);
    }
    fputc('\n', out);
}

/* One row: the speedups, or (latency) mean/p95 pairs. */
static void text_row(const whatif_profile *p, const whatif_row *r, int lw, bool latency, FILE *out)
{
    char a[32], b[32];
    fprintf(out, "  %-*.*s %6zu %10s %10s", lw, lw, r->label, r->tasks, fig(r->exec_s, a, sizeof a),
            fig(r->work_s, b, sizeof b));
    for (size_t f = 0; f < p->n_faster; f++) {
        const whatif_prediction *x = &r->at[f];
        if (latency) {
            fprintf(out, " %9s", fig(x->latency_mean_s, a, sizeof a));
            fprintf(out, " %9s", fig(x->latency_p95_s, a, sizeof a));
        } else {
            snprintf(a, sizeof a, "%.3fx", x->speedup);
            fprintf(out, " %9s", isnan(x->speedup) ? "n/a" : a);
        }
    }
    fputc('\n', out);
}

/* One section's title: "by kind (3 of 12)". */
static const char *section_title(const char *what, size_t listed, size_t skipped, char *buf,
                                 size_t len)
{
    if (skipped)
        snprintf(buf, len, "by %s (%zu of %zu)", what, listed, listed + skipped);
    else
        snprintf(buf, len, "by %s", what);
    return buf;
}

static void text_table(const whatif_profile *p, bool latency, int lw, FILE *out)
{
    bool dag = p->source == WHATIF_SOURCE_ACTIVITIES;
    bool one = dag && p->n_rows == p->n_kinds; /* activities with names of their own */
    char title[96];
    text_header(p, section_title(one ? "activity" : dag ? "name" : "kind", p->n_kinds,
                                 p->kinds_skipped, title, sizeof title),
                lw, latency, out);
    for (size_t i = 0; i < p->n_kinds; i++)
        text_row(p, &p->rows[i], lw, latency, out);
    if (one)
        return;
    text_header(p, section_title(dag ? "activity" : "net path", p->n_rows - p->n_kinds,
                                 p->paths_skipped, title, sizeof title),
                lw, latency, out);
    for (size_t i = p->n_kinds; i < p->n_rows; i++)
        text_row(p, &p->rows[i], lw, latency, out);
}

static void text_question(const whatif_profile *p, FILE *out)
{
    const whatif_row *r = &p->rows[0];
    char a[32], b[32];
    fprintf(out, "\nIf the %zu tasks matching '%s' (%s s of work, of %s s execution time) took "
                 "X %% less time:\n",
            r->tasks, r->label, fig(r->work_s, a, sizeof a), fig(r->exec_s, b, sizeof b));
    fprintf(out, "  %-22s %12s", "X", "now");
    for (size_t f = 0; f < p->n_faster; f++) {
        snprintf(a, sizeof a, "%g %%", p->faster_pct[f]);
        fprintf(out, " %12s", a);
    }
    fputc('\n', out);
    static const char *const names[] = {"span [s]", "throughput [1/s]", "speedup",
                                        "latency mean [s]", "latency p95 [s]"};
    double now[] = {p->span_s, p->throughput_per_s, 1.0, p->latency_mean_s, p->latency_p95_s};
    for (int k = 0; k < 5; k++) {
        fprintf(out, "  %-22s %12s", names[k], fig(now[k], a, sizeof a));
        for (size_t f = 0; f < p->n_faster; f++) {
            const whatif_prediction *x = &r->at[f];
            double v[] = {x->span_s, x->throughput_per_s, x->speedup, x->latency_mean_s,
                          x->latency_p95_s};
            fprintf(out, " %12s", fig(v[k], a, sizeof a));
        }
        fputc('\n', out);
    }
}

static void print_text(const whatif_profile *p, const char *source, FILE *out)
{
    text_now(p, source, out);
    if (one_question(p)) {
        text_question(p, out);
        return;
    }
    int lw = label_width(p);
    char a[32];
    if (p->source == WHATIF_SOURCE_ACTIVITIES)
        fprintf(out, "\nPredicted speedup of the makespan if a group's activities took X %% "
                     "less time:\n");
    else if (p->throughput_unknown_why)
        fprintf(out, "\nPredicted speedup of the run (eq. 1's span) if a group's executions "
                     "took X %% less time\n(work: the part of its execution time that would "
                     "shrink):\n");
    else
        fprintf(out, "\nPredicted throughput (eq. 1), as a speedup over the %s inputs/s now, if "
                     "a group's\nexecutions took X %% less time (work: the part of its execution "
                     "time that would shrink):\n",
                fig(p->throughput_per_s, a, sizeof a));
    text_table(p, false, lw, out);
    if (!p->latency_unknown_why && p->source != WHATIF_SOURCE_ACTIVITIES) {
        fprintf(out, "\nPredicted latency (eq. 2) [s], mean and p95 at each X:\n");
        text_table(p, true, lw, out);
    }
}

/* ---- CSV -------------------------------------------------------------------- */

static void csv_num(FILE *out, double x)
{
    if (isnan(x) || isinf(x))
        fputs(",", out);
    else
        fprintf(out, ",%.9g", x);
}

static const char *group_name(whatif_group_kind k)
{
    return k == WHATIF_GROUP_KIND ? "kind" : k == WHATIF_GROUP_PATH ? "path" : "tasks";
}

static void print_csv(const whatif_profile *p, FILE *out)
{
    fputs("group,label,tasks,exec_s,work_s,faster_pct,span_s,throughput_per_s,speedup,"
          "latency_mean_s,latency_p95_s\n",
          out);
    fprintf(out, "now,,%zu", p->tasks);
    csv_num(out, p->exec_s);
    fputs(",,0", out);
    double now[] = {p->span_s, p->throughput_per_s, 1.0, p->latency_mean_s, p->latency_p95_s};
    for (int k = 0; k < 5; k++)
        csv_num(out, now[k]);
    fputc('\n', out);
    for (size_t i = 0; i < p->n_rows; i++) {
        const whatif_row *r = &p->rows[i];
        for (size_t f = 0; f < p->n_faster; f++) {
            const whatif_prediction *x = &r->at[f];
            fprintf(out, "%s,", group_name(r->kind));
            wfb_csv_field(out, r->label);
            fprintf(out, ",%zu", r->tasks);
            csv_num(out, r->exec_s);
            csv_num(out, r->work_s);
            csv_num(out, x->faster_pct);
            double v[] = {x->span_s, x->throughput_per_s, x->speedup, x->latency_mean_s,
                          x->latency_p95_s};
            for (int k = 0; k < 5; k++)
                csv_num(out, v[k]);
            fputc('\n', out);
        }
    }
}

/* ---- JSON ------------------------------------------------------------------- */

static json_t *num(double x)
{
    return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static json_t *str(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *prediction_json(const whatif_prediction *x)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "faster_pct", num(x->faster_pct),
                     "replay_s", num(x->replay_s), "span_s", num(x->span_s), "throughput_per_s",
                     num(x->throughput_per_s), "speedup", num(x->speedup), "latency_mean_s",
                     num(x->latency_mean_s), "latency_p95_s", num(x->latency_p95_s));
}

static json_t *predictions_json(const whatif_profile *p, const whatif_row *r)
{
    json_t *a = json_array();
    for (size_t f = 0; a && f < p->n_faster; f++)
        json_array_append_new(a, prediction_json(&r->at[f]));
    return a;
}

static json_t *row_json(const whatif_profile *p, const whatif_row *r)
{
    return json_pack("{s:s, s:I, s:o, s:o, s:o}", "label", r->label, "tasks", (json_int_t)r->tasks,
                     "exec_s", num(r->exec_s), "work_s", num(r->work_s), "predictions",
                     predictions_json(p, r));
}

static json_t *rows_json(const whatif_profile *p, size_t from, size_t to)
{
    json_t *a = json_array();
    for (size_t i = from; a && i < to; i++)
        json_array_append_new(a, row_json(p, &p->rows[i]));
    return a;
}

static json_t *head_json(const whatif_profile *p, const char *source)
{
    json_t *factors = json_array();
    for (size_t f = 0; factors && f < p->n_faster; f++)
        json_array_append_new(factors, num(p->faster_pct[f]));
    json_t *now = json_pack(
        "{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "inputs", (json_int_t)p->inputs, "span_s",
        num(p->span_s), "throughput_per_s", num(p->throughput_per_s), "latency_mean_s",
        num(p->latency_mean_s), "latency_p95_s", num(p->latency_p95_s), "throughput_unknown_why",
        str(p->throughput_unknown_why), "latency_unknown_why", str(p->latency_unknown_why));
    json_t *model = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:I}", "source",
                              source_name(p->source), "tasks", (json_int_t)p->tasks, "exec_s",
                              num(p->exec_s), "replay_s", num(p->replay_s), "unexplained_s",
                              num(p->unexplained_s), "stretch", num(p->stretch), "replays",
                              (json_int_t)p->replays);
    return json_pack("{s:s, s:o, s:o, s:o}", "trace", source, "now", now, "model", model,
                     "faster_pct", factors);
}

static int print_json(const whatif_profile *p, const char *source, FILE *out)
{
    json_t *root = head_json(p, source);
    if (!root)
        return -1;
    if (one_question(p)) {
        const whatif_row *r = &p->rows[0];
        json_object_set_new(root, "tasks", json_string(r->label));
        json_object_set_new(root, "matched_tasks", json_integer((json_int_t)r->tasks));
        json_object_set_new(root, "exec_s", num(r->exec_s));
        json_object_set_new(root, "work_s", num(r->work_s));
        json_object_set_new(root, "predictions", predictions_json(p, r));
        if (p->n_faster == 1) /* one question, one answer */
            json_object_set_new(root, "speedup", num(r->at[0].speedup));
    } else {
        json_object_set_new(root, "kinds", rows_json(p, 0, p->n_kinds));
        json_object_set_new(root, "paths", rows_json(p, p->n_kinds, p->n_rows));
        json_object_set_new(root, "paths_not_listed", json_integer((json_int_t)p->paths_skipped));
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? 0 : -1;
    fputc('\n', out);
    json_decref(root);
    return rc;
}

int whatif_profile_print(const whatif_profile *p, const char *source, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        if (print_json(p, source, out))
            return -1;
    } else if (fmt == WFB_OUT_CSV) {
        print_csv(p, out);
    } else {
        print_text(p, source, out);
    }
    return ferror(out) ? -1 : 0;
}
