/*
 * cmd_compare.c - `snetmon compare`: two runs side by side (stored ids or
 * trace directories, mixed as needed), or a series of stored runs along a
 * label, as a table and a plot. The figures are those of repo.h (part 3)
 * (docs/METRICS.md section 7); the plot is drawn by the visualiser
 * (viz_series_render) into a file that appears only when it is whole.
 */
#include "cli.h"
#include "out_file.h"
#include "repo.h"
#include "trace_input.h"
#include "viz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char snetmon_summary_compare[] = "speedup, per-worker and per-task changes between two runs, or a series of runs";

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon compare [--db URL] RUN_A RUN_B [--json|--csv] [--depth N] [--top N]\n"
            "                       [--from FORMAT] [--event-map FILE] [--partial]\n"
            "       snetmon compare [--db URL] --series KEY [--where K=V ...] [--json|--csv]\n"
            "                       [-o FILE.svg|FILE.png]\n\n"
            "RUN_A (the baseline) and RUN_B are stored run ids (see `snetmon runs`) or trace\n"
            "directories or event files (a directory named by digits only: write ./3).\n"
            "Prints the whole-run figures side by side with the speedup of B over A, the\n"
            "workers' execution and waiting times, the sub-graphs matched by net path and\n"
            "by entity kind (LPEL) or the common activities (workflows), the tasks that gained\n"
            "or lost most execution time and waiting, and the change of the critical path.\n"
            "With --series: one row per value of KEY (a label, or workers, git, program, host)\n"
            "over the stored runs, and with -o a plot of throughput, latency percentiles and\n"
            "waiting along the series. Every figure is defined in docs/METRICS.md.\n\n"
            "options:\n" REPO_DB_HELP
            "  --json           machine-readable output as JSON (docs/METRICS.md, section 7)\n"
            "  --csv            machine-readable output as CSV\n"
            "  --depth N        sub-graphs: net-path prefixes of up to N components (default 2)\n"
            "  --top N          tasks listed as gaining or losing most (default 5)\n"
            "  --subgraph RE    activities: also the speedup over the common activities\n"
            "                   whose id matches RE (pcre2)\n"
            "  --series KEY     compare the stored runs along KEY\n"
            "  --where K=V      --series: only runs with label (or run field) K = V\n"
            "  -o, --output FILE  --series: the plot, .svg or .png\n"
            "  --from FORMAT    jsonl | wfcommons | bp | lpel for inputs that are files\n"
            CLI_EVENT_MAP_HELP TRACE_INPUT_HELP
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon compare 1 2                 stored runs 1 and 2 (snetmon runs lists them)\n"
            "  snetmon compare --series mapping -o mapping.svg\n");
}

typedef struct compare_args {
    const char *db, *series, *plot, *map;
    const char *runs[2];
    wfb_format format;
    wfb_output output;
    repo_compare_options opt;
    bool partial;
    repo_where *where;
    size_t n_where;
} compare_args;

static int parse_count(const char *opt, const char *val, long max, long *out)
{
    char *end;
    long v = strtol(val, &end, 10);
    if (end == val || *end || v < 1 || v > max) {
        fprintf(stderr, "snetmon compare: %s needs a whole number from 1 to %ld, not '%s'\n", opt,
                max, val);
        return -1;
    }
    *out = v;
    return 0;
}

static int add_where(compare_args *a, char *arg)
{
    char *eq = strchr(arg, '=');
    repo_where *grown = eq && eq != arg ? realloc(a->where, (a->n_where + 1) * sizeof *grown)
                                        : NULL;
    if (!grown) {
        fprintf(stderr, "snetmon compare: --where needs KEY=VALUE, not '%s'\n", arg);
        return -1;
    }
    *eq = '\0';
    a->where = grown;
    a->where[a->n_where++] = (repo_where){arg, eq + 1};
    return 0;
}

static int compare_option(compare_args *a, int c)
{
    long v;
    switch (c) {
    case 'd': a->db = optarg; break;
    case 's': a->series = optarg; break;
    case 'o': a->plot = optarg; break;
    case 'S': a->opt.subgraph = optarg; break;
    case 'p': a->partial = true; break;
    case 'w': return add_where(a, optarg);
    case 'D':
        if (parse_count("--depth", optarg, 64, &v))
            return -1;
        a->opt.depth = (int)v;
        break;
    case 't':
        if (parse_count("--top", optarg, 1000000, &v))
            return -1;
        a->opt.top = (size_t)v;
        break;
    case 'f':
        if ((a->format = wfb_format_parse(optarg)) == WFB_FORMAT_UNKNOWN) {
            fprintf(stderr, "snetmon compare: unknown format '%s'\n", optarg);
            return -1;
        }
        break;
    default: return -1;
    }
    return 0;
}

static bool is_image_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (!strcasecmp(dot, ".svg") || !strcasecmp(dot, ".png"));
}

/* 0 go on, 1 done (--help, --version), 2 usage error (printed). */
static int compare_parse(int argc, char **argv, compare_args *a)
{
    /* Own long options keep their letters as values (compare_option);
     * none of them is a short option. */
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"db", required_argument, NULL, 'd'},     {"json", no_argument, NULL, CLI_JSON},
        {"csv", no_argument, NULL, CLI_CSV},      {"series", required_argument, NULL, 's'},
        {"where", required_argument, NULL, 'w'},  {"depth", required_argument, NULL, 'D'},
        {"top", required_argument, NULL, 't'},    {"from", required_argument, NULL, 'f'},
        CLI_EVENT_MAP_OPTIONS,    {"partial", no_argument, NULL, 'p'},
        {"subgraph", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_parser p;
    cli_begin(&p, "compare", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        if (c == 'h') {
            compare_usage(stdout);
            return 1;
        }
        if (c == CLI_VERSION) {
            cli_version();
            return 1;
        }
        if (c == CLI_ERROR)
            return 2;
        if (c == CLI_JSON || c == CLI_CSV) {
            if (cli_format(&p, c, &a->output))
                return 2;
        } else if (c == CLI_EVENT_MAP || c == CLI_EVENT_MAP_OLD) {
            a->map = cli_event_map(&p, c);
        } else if (compare_option(a, c)) {
            return 2;
        }
    }
    int n = cli_npositional(&p);
    if (a->series ? n != 0 : n != 2)
        return cli_usage_error(&p, a->series ? "--series takes no RUN arguments"
                                             : "give two runs, RUN_A RUN_B (see --help)");
    if (!a->series && (a->plot || a->where))
        return cli_usage_error(&p, "-o and --where go with --series");
    if (a->plot && !is_image_path(a->plot))
        return cli_usage_error(&p, "-o needs a .svg or .png file, not '%s'", a->plot);
    a->runs[0] = n == 2 ? cli_positional(&p)[0] : NULL;
    a->runs[1] = n == 2 ? cli_positional(&p)[1] : NULL;
    return 0;
}

static bool is_id(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* One side: a stored run or an input read now. */
static int load_side(const compare_args *a, const char *arg, repo **r, repo_run *rec)
{
    char err[1024] = "";
    if (is_id(arg)) {
        if (!*r && repo_open(r, a->db, false, err, sizeof err)) {
            fprintf(stderr, "snetmon compare: %s\n", err);
            return -1;
        }
        long long id = strtoll(arg, NULL, 10);
        int rc = repo_load(*r, id, false, rec, err, sizeof err);
        if (rc == 1)
            fprintf(stderr, "snetmon compare: %s has no run %lld (see snetmon runs)\n",
                    repo_name(*r), id);
        else if (rc)
            fprintf(stderr, "snetmon compare: %s\n", err);
        return rc ? -1 : 0;
    }
    wfb_graph *g = input_load_graph_bounded("compare", arg, a->format, a->map, a->partial,
                                            CLI_MAX_MEMORY_DEFAULT, NULL, 0);
    if (!g)
        return -1;
    repo_options opt = {.source = arg, .format = a->format};
    int rc = repo_run_from_graph(rec, g, &opt, err, sizeof err);
    if (rc)
        fprintf(stderr, "snetmon compare: %s\n", err);
    wfb_graph_free(g);
    return rc;
}

static int compare_two(const compare_args *a)
{
    repo *r = NULL;
    repo_run recs[2];
    repo_run_init(&recs[0]);
    repo_run_init(&recs[1]);
    int rc = load_side(a, a->runs[0], &r, &recs[0]);
    if (rc == 0)
        rc = load_side(a, a->runs[1], &r, &recs[1]);
    if (rc == 0) {
        char err[512] = "";
        rc = repo_compare_write(&recs[0], &recs[1], &a->opt, a->output, stdout, err, sizeof err);
        if (rc)
            fprintf(stderr, "snetmon compare: %s\n", err);
    }
    repo_run_free(&recs[0]);
    repo_run_free(&recs[1]);
    repo_close(r);
    return rc ? 1 : 0;
}

/* The plot of a series: three panels. */
static int plot_series(const compare_args *a, const repo_series_point *p, size_t n)
{
    double *v = calloc(6 * (n ? n : 1), sizeof *v);
    const char **x = calloc(n ? n : 1, sizeof *x);
    if (!v || !x) {
        free(v), free(x);
        fprintf(stderr, "snetmon compare: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = p[i].value;
        v[i] = p[i].throughput_per_s;
        v[n + i] = p[i].latency_median_s;
        v[2 * n + i] = p[i].latency_p95_s;
        v[3 * n + i] = p[i].latency_p99_s;
        v[4 * n + i] = p[i].wait_s;
    }
    viz_series_line thr[] = {{"throughput (eq. 1)", v}};
    viz_series_line lat[] = {{"median", v + n}, {"p95", v + 2 * n}, {"p99", v + 3 * n}};
    viz_series_line wait[] = {{"waiting time of all workers", v + 4 * n}};
    viz_series_panel panels[] = {{"throughput [inputs/s]", 1, thr},
                                 {"latency (eq. 2) [s]", 3, lat},
                                 {"waiting [s]", 1, wait}};
    char title[300];
    snprintf(title, sizeof title, "Runs along '%s' (medians over the runs of each value)",
             a->series);
    viz_series_plot plot = {title, a->series, n, x, 3, panels, 0, 0};
    out_file o;
    const char *tmp = out_file_reserve(&o, "compare", a->plot);
    int rc = tmp ? 0 : -1;
    char err[256];
    if (rc == 0 && viz_series_render(&plot, tmp, err, sizeof err) != VIZ_OK) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s: %s", a->plot, err);
        out_file_say(&o, msg);
        rc = -1;
    }
    if (tmp && out_file_finish(&o, rc == 0) != 0)
        rc = -1;
    viz_release_font_caches(); /* the process is done drawing */
    free(v), free(x);
    return rc;
}

static int compare_series(const compare_args *a)
{
    char err[1024];
    repo *r;
    if (repo_open(&r, a->db, false, err, sizeof err)) {
        fprintf(stderr, "snetmon compare: %s\n", err);
        return 1;
    }
    repo_run *recs = NULL;
    size_t n = 0, np = 0;
    repo_series_point *p = NULL;
    int rc = repo_list(r, a->where, a->n_where, &recs, &n, err, sizeof err);
    if (rc == 0)
        rc = repo_series(recs, n, a->series, &p, &np, err, sizeof err);
    if (rc)
        fprintf(stderr, "snetmon compare: %s\n", err);
    else if (np == 0) {
        fprintf(stderr, "snetmon compare: no stored run has '%s'%s\n", a->series,
                a->n_where ? " among those selected by --where" : "");
        rc = -1;
    }
    if (rc == 0 && repo_series_write(p, np, a->series, a->output, stdout) != 0) {
        if (out_stream_check("compare", stdout, "-") == 0)
            fprintf(stderr, "snetmon compare: error writing the series\n");
        rc = -1;
    }
    if (rc == 0 && a->plot)
        rc = plot_series(a, p, np);
    free(p);
    repo_list_free(recs, n);
    repo_close(r);
    return rc ? 1 : 0;
}

int snetmon_cmd_compare(int argc, char **argv)
{
    compare_args a;
    int rc = compare_parse(argc, argv, &a);
    if (rc == 0)
        rc = a.series ? compare_series(&a) : compare_two(&a);
    else
        rc = rc == 1 ? 0 : 2;
    free(a.where);
    return rc;
}
