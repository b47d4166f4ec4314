/*
 * cmd_runs.c - `snetmon runs`: the runs of the experiment repository, in
 * the order they were stored (ids 1, 2, ...), with how each was made and
 * its main figures; --where selects by label or run field.
 */
#include "cli.h"
#include "out_file.h"
#include "repo.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char snetmon_summary_runs[] = "list the runs of the experiment repository";

static void runs_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon runs [--db URL] [--where KEY=VALUE ...] [--json|--csv] [-o FILE]\n\n"
            "Lists the stored runs in the order they were stored, with their ids (for\n"
            "`snetmon compare`), how each was made, its labels, and its throughput (eq. 1),\n"
            "median latency (eq. 2) and waiting time (docs/METRICS.md).\n\n"
            "options:\n" REPO_DB_HELP
            "  --where K=V      only runs whose label K (or run field: workers, git, program,\n"
            "                   host, format, flags) is V; repeatable, all must hold\n"
            "  --json           a JSON list of objects, one per run\n"
            "  --csv            one CSV row per run\n"
            "  -o, --output FILE  the list (default: standard output); it appears only when\n"
            "                   the command succeeded\n"
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon runs --where mapping=all0\n"
            "  snetmon runs --csv -o runs.csv\n");
}

typedef struct runs_args {
    const char *db;
    repo_where *where;
    size_t n_where;
    const char *output; /* -o FILE; "-" = standard output */
    wfb_output format;
} runs_args;

static int add_where(runs_args *a, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "snetmon runs: --where needs KEY=VALUE, not '%s'\n", arg);
        return -1;
    }
    *eq = '\0';
    repo_where *grown = realloc(a->where, (a->n_where + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "snetmon runs: out of memory\n");
        return -1;
    }
    a->where = grown;
    a->where[a->n_where++] = (repo_where){arg, eq + 1};
    return 0;
}

/* 0 go on, 1 done (--help, --version), 2 usage error (printed). */
static int runs_parse(int argc, char **argv, runs_args *a)
{
    enum { OPT_DB = CLI_OWN, OPT_WHERE };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"db", required_argument, NULL, OPT_DB},
                                              {"where", required_argument, NULL, OPT_WHERE},
                                              {"json", no_argument, NULL, CLI_JSON},
                                              {"csv", no_argument, NULL, CLI_CSV},
                                              {"output", required_argument, NULL, 'o'},
                                              {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->output = "-";
    cli_parser p;
    cli_begin(&p, "runs", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case OPT_DB: a->db = optarg; break;
        case 'o': a->output = optarg; break;
        case CLI_JSON:
        case CLI_CSV:
            if (cli_format(&p, c, &a->format))
                return 2;
            break;
        case 'h': runs_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case OPT_WHERE:
            if (add_where(a, optarg))
                return 2;
            break;
        default:
            return 2; /* CLI_ERROR: the message is printed */
        }
    }
    if (cli_npositional(&p) != 0)
        return cli_usage_error(&p, "unexpected argument '%s'", cli_positional(&p)[0]);
    return 0;
}

static double run_wait(const repo_run *r)
{
    double s = NAN;
    for (size_t i = 0; i < r->n_workers; i++)
        if (!isnan(r->workers[i].wait_s))
            s = (isnan(s) ? 0 : s) + r->workers[i].wait_s;
    return s;
}

static json_t *num(double v) { return isnan(v) || isinf(v) ? json_null() : json_real(v); }
static json_t *str(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *run_json(const repo_run *r)
{
    const repo_meta *m = &r->meta;
    const repo_figures *f = repo_figures_of(r, 0);
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(m->id));
    json_object_set_new(o, "stored_at", str(m->stored_at));
    json_object_set_new(o, "source", str(m->source));
    json_object_set_new(o, "format", str(m->format));
    json_object_set_new(o, "program", str(m->program));
    json_t *cl = m->command_line ? json_loads(m->command_line, 0, NULL) : NULL;
    json_object_set_new(o, "command_line", cl ? cl : json_null());
    json_object_set_new(o, "workers", m->workers >= 0 ? json_integer(m->workers) : json_null());
    json_object_set_new(o, "flags", str(m->flags));
    json_object_set_new(o, "task_filter", str(m->task_filter));
    json_object_set_new(o, "host", str(m->host));
    json_object_set_new(o, "start_time", str(m->start_time));
    json_object_set_new(o, "git_revision", str(m->git_revision));
    json_object_set_new(o, "complete", m->complete < 0 ? json_null() : json_boolean(m->complete));
    json_object_set_new(o, "input_loss", str(m->loss));
    json_t *labels = json_object();
    for (size_t i = 0; i < m->n_labels; i++)
        json_object_set_new(labels, m->labels[i].key, json_string(m->labels[i].value));
    json_object_set_new(o, "labels", labels);
    json_object_set_new(o, "inputs", f ? json_integer((json_int_t)f->f.inputs) : json_null());
    json_object_set_new(o, "span_s", num(f ? f->f.span_s : NAN));
    json_object_set_new(o, "throughput_per_s", num(f ? f->f.throughput_per_s : NAN));
    json_object_set_new(o, "latency_median_s", num(f ? f->f.latency.median : NAN));
    json_object_set_new(o, "latency_p95_s", num(f ? f->f.latency.p95 : NAN));
    json_object_set_new(o, "latency_p99_s", num(f ? f->f.latency.p99 : NAN));
    json_object_set_new(o, "jitter_s", num(f ? f->f.jitter_s : NAN));
    json_object_set_new(o, "wait_s", num(run_wait(r)));
    return o;
}

static int write_json(const repo_run *recs, size_t n, FILE *out)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, run_json(&recs[i]));
    int rc = json_dumpf(list, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
    fputc('\n', out);
    json_decref(list);
    return rc;
}

static void csv_num(double v, FILE *out)
{
    if (!isnan(v))
        fprintf(out, "%.9g", v);
}

/* Labels as "k=v;k=v". */
static void labels_text(const repo_meta *m, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->n_labels && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? ";" : "",
                                 m->labels[i].key, m->labels[i].value);
}

static void write_csv(const repo_run *recs, size_t n, FILE *out)
{
    fputs("id,stored_at,source,format,program,workers,flags,host,start_time,git_revision,labels,"
         "inputs,span_s,throughput_per_s,latency_median_s,latency_p95_s,latency_p99_s,jitter_s,"
         "wait_s\n", out);
    for (size_t i = 0; i < n; i++) {
        const repo_meta *m = &recs[i].meta;
        const repo_figures *f = repo_figures_of(&recs[i], 0);
        char labels[2048];
        labels_text(m, labels, sizeof labels);
        fprintf(out, "%lld,", (long long)m->id);
        const char *texts[] = {m->stored_at, m->source, m->format, m->program};
        for (size_t k = 0; k < 4; k++) {
            if (texts[k])
                wfb_csv_field(out, texts[k]);
            fputc(',', out);
        }
        if (m->workers >= 0)
            fprintf(out, "%lld", (long long)m->workers);
        fputc(',', out);
        const char *more[] = {m->flags, m->host, m->start_time, m->git_revision, labels};
        for (size_t k = 0; k < 5; k++) {
            if (more[k])
                wfb_csv_field(out, more[k]);
            fputc(',', out);
        }
        if (f)
            fprintf(out, "%zu", f->f.inputs);
        double nums[] = {f ? f->f.span_s : NAN,           f ? f->f.throughput_per_s : NAN,
                         f ? f->f.latency.median : NAN,   f ? f->f.latency.p95 : NAN,
                         f ? f->f.latency.p99 : NAN,      f ? f->f.jitter_s : NAN,
                         run_wait(&recs[i])};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            fputc(',', out);
            csv_num(nums[k], out);
        }
        fputc('\n', out);
    }
}

static void text_num(double v, int width, FILE *out)
{
    if (isnan(v))
        fprintf(out, " %*s", width, "n/a");
    else
        fprintf(out, " %*.4g", width, v);
}

static void write_text(const repo_run *recs, size_t n, const char *repo_name, FILE *out)
{
    if (n == 0) {
        fprintf(out, "no runs in %s\n", repo_name);
        return;
    }
    fprintf(out, "%4s  %-20s  %-12s %7s  %-10s %-10s %8s %12s %12s %10s  %s\n", "id", "stored (UTC)",
           "program", "workers", "host", "git", "inputs", "throughput/s", "latency p50",
           "wait [s]", "labels / source");
    for (size_t i = 0; i < n; i++) {
        const repo_meta *m = &recs[i].meta;
        const repo_figures *f = repo_figures_of(&recs[i], 0);
        char workers[24] = "-", labels[2048], git[11];
        if (m->workers >= 0)
            snprintf(workers, sizeof workers, "%lld", (long long)m->workers);
        snprintf(git, sizeof git, "%s", m->git_revision ? m->git_revision : "-");
        labels_text(m, labels, sizeof labels);
        fprintf(out, "%4lld  %-20s  %-12s %7s  %-10s %-10s", (long long)m->id,
               m->stored_at ? m->stored_at : "-", m->program ? m->program : m->format, workers,
               m->host ? m->host : "-", git);
        if (f)
            fprintf(out, " %8zu", f->f.inputs);
        else
            fprintf(out, " %8s", "-");
        text_num(f ? f->f.throughput_per_s : NAN, 12, out);
        text_num(f ? f->f.latency.median : NAN, 12, out);
        text_num(run_wait(&recs[i]), 10, out);
        fprintf(out, "  %s%s%s\n", labels, labels[0] ? "  " : "", m->source ? m->source : "");
    }
}

int snetmon_cmd_runs(int argc, char **argv)
{
    runs_args a;
    int rc = runs_parse(argc, argv, &a);
    if (rc) {
        free(a.where);
        return rc == 1 ? 0 : 2;
    }
    char err[1024];
    repo *r;
    if (repo_open(&r, a.db, false, err, sizeof err)) {
        fprintf(stderr, "snetmon runs: %s\n", err);
        free(a.where);
        return 1;
    }
    repo_run *recs;
    size_t n;
    rc = repo_list(r, a.where, a.n_where, &recs, &n, err, sizeof err);
    if (rc) {
        fprintf(stderr, "snetmon runs: %s\n", err);
    } else {
        out_file of;
        FILE *out = out_file_open(&of, "runs", a.output);
        if (!out) {
            rc = 1;
        } else {
            if (a.format == WFB_OUT_JSON)
                rc = write_json(recs, n, out);
            else if (a.format == WFB_OUT_CSV)
                write_csv(recs, n, out);
            else
                write_text(recs, n, repo_name(r), out);
            /* A write that failed is said by out_file_finish. */
            if (out_file_finish(&of, rc == 0) != 0)
                rc = 1;
            else if (rc)
                fprintf(stderr, "snetmon runs: error writing the list\n");
        }
        repo_list_free(recs, n);
    }
    repo_close(r);
    free(a.where);
    return rc ? 1 : 0;
}
