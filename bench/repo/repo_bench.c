/*
 * repo_bench.c - how fast the experiment repository answers `snetmon runs`
 * and `snetmon compare` when it holds many runs of large traces (issue 18:
 * 10^3 runs of 10^5-message traces in under a second). Never a test.
 *
 * usage: repo-bench TRACE SNETMON [--runs N] [--baseline B] [--repeat R] [--dir DIR]
 *
 * TRACE is lifted once (the workflow bridge), and its record is stored N
 * times through repo_store, with the label copy=i, into a new SQLite
 * repository (the big one), and B times into another (the baseline, run
 * alongside: what the same questions cost when the repository is small).
 * Then, R times interleaved between the two repositories, the real
 * command lines are run and timed from fork to exit:
 *     snetmon runs --db DB > /dev/null
 *     snetmon runs --db DB --where copy=K > /dev/null
 *     snetmon compare --db DB 1 LAST > /dev/null
 * Printed: medians and ranges, the big/baseline ratios, the store time per
 * run and the repository size.
 */
#include "prog_opt.h"
#include "repo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Stores rec n times into db; the median seconds per store. */
static double fill(const char *db, repo_run *rec, int n)
{
    unlink(db);
    repo *r;
    char err[512];
    if (repo_open(&r, db, true, err, sizeof err)) {
        fprintf(stderr, "repo-bench: %s\n", err);
        exit(1);
    }
    double *t = malloc((size_t)n * sizeof *t);
    char value[32];
    repo_label label = {"copy", value};
    rec->meta.labels = &label;
    rec->meta.n_labels = 1;
    for (int i = 0; i < n; i++) {
        snprintf(value, sizeof value, "%d", i + 1);
        int64_t id;
        double t0 = now();
        if (repo_store(r, rec, &id, err, sizeof err)) {
            fprintf(stderr, "repo-bench: %s\n", err);
            exit(1);
        }
        t[i] = now() - t0;
        if ((i + 1) % 100 == 0)
            fprintf(stderr, "repo-bench: %s: %d runs stored\n", db, i + 1);
    }
    rec->meta.labels = NULL;
    rec->meta.n_labels = 0;
    repo_close(r);
    double m = median(t, (size_t)n);
    free(t);
    return m;
}

/* Seconds from fork to exit of argv, output to /dev/null. */
static double run_cli(char *const argv[])
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    double t = now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "repo-bench: %s %s failed\n", argv[0], argv[1]);
        exit(1);
    }
    return t;
}

typedef struct query {
    const char *name;
    double *t[2]; /* [big, baseline] */
} query;

static void usage(FILE *out)
{
    fprintf(out, "usage: repo-bench TRACE SNETMON [--runs N] [--baseline B] [--repeat R] "
                 "[--dir DIR]\n"
                 "  -h, --help, --version\n");
}

/* A count option's value: a whole number >= 1, else -1 after the message. */
static int count_arg(const char *flag, const char *value)
{
    char *end;
    long n = strtol(value, &end, 10);
    if (end == value || *end || n < 1 || n > 1000000) {
        fprintf(stderr, "repo-bench: %s expects a whole number from 1 to 1000000, got '%s'\n",
                flag, value);
        return -1;
    }
    return (int)n;
}

int main(int argc, char **argv)
{
    enum { OPT_RUNS = PROG_OPT_OWN, OPT_BASELINE, OPT_REPEAT, OPT_DIR };
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"runs", required_argument, NULL, OPT_RUNS},
                                              {"baseline", required_argument, NULL, OPT_BASELINE},
                                              {"repeat", required_argument, NULL, OPT_REPEAT},
                                              {"dir", required_argument, NULL, OPT_DIR},
                                              {NULL, 0, NULL, 0}};
    const char *dir = "/tmp";
    int runs = 1000, base = 10, repeat = 11;
    prog_opt p;
    prog_opt_begin(&p, "repo-bench", argc, argv);
    for (int c; (c = prog_opt_next(&p, "h", longopts)) != -1;) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case PROG_OPT_VERSION:
            return prog_opt_version(&p);
        case OPT_RUNS:
            if ((runs = count_arg("--runs", optarg)) < 0)
                return 2;
            break;
        case OPT_BASELINE:
            if ((base = count_arg("--baseline", optarg)) < 0)
                return 2;
            break;
        case OPT_REPEAT:
            if ((repeat = count_arg("--repeat", optarg)) < 0)
                return 2;
            break;
        case OPT_DIR:
            dir = optarg;
            break;
        default:
            return 2; /* PROG_OPT_ERROR: the message is printed */
        }
    }
    if (prog_opt_npositional(&p) != 2) {
        usage(stderr);
        return 2;
    }
    const char *trace = prog_opt_positional(&p)[0], *snetmon = prog_opt_positional(&p)[1];
    if (runs < 2 || base < 2) {
        fprintf(stderr, "repo-bench: --runs and --baseline need at least 2 runs\n");
        return 2;
    }
    wfb_graph *g = wfb_graph_new();
    wfb_error e;
    double t0 = now();
    if (wfb_import_lpel_trace(g, trace, &e)) {
        fprintf(stderr, "repo-bench: %s: %s\n", trace, e.msg);
        return 1;
    }
    repo_run rec;
    char err[512];
    repo_options opt = {.source = trace};
    if (repo_run_from_graph(&rec, g, &opt, err, sizeof err)) {
        fprintf(stderr, "repo-bench: %s\n", err);
        return 1;
    }
    double lift = now() - t0;
    size_t messages = wfb_vertex_count(g);
    wfb_graph_free(g);

    char db[2][512];
    snprintf(db[0], sizeof db[0], "%s/repo-bench-%d.sqlite", dir, runs);
    snprintf(db[1], sizeof db[1], "%s/repo-bench-%d.sqlite", dir, base);
    double store_big = fill(db[0], &rec, runs), store_base = fill(db[1], &rec, base);
    struct stat st[2];
    stat(db[0], &st[0]);
    stat(db[1], &st[1]);

    query q[3] = {{"runs", {NULL, NULL}}, {"runs --where copy=K", {NULL, NULL}}, {"compare 1 LAST", {NULL, NULL}}};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++)
            q[k].t[s] = calloc((size_t)repeat, sizeof(double));
    for (int i = 0; i < repeat; i++)
        for (int s = 0; s < 2; s++) {
            int n = s ? base : runs;
            char last[32], where[48];
            snprintf(last, sizeof last, "%d", n);
            snprintf(where, sizeof where, "copy=%d", n / 2);
            char *a0[] = {(char *)snetmon, "runs", "--db", db[s], NULL};
            char *a1[] = {(char *)snetmon, "runs", "--db", db[s], "--where", where, NULL};
            char *a2[] = {(char *)snetmon, "compare", "--db", db[s], "1", last, NULL};
            q[0].t[s][i] = run_cli(a0);
            q[1].t[s][i] = run_cli(a1);
            q[2].t[s][i] = run_cli(a2);
        }

    printf("trace %s: %zu vertices (messages and inputs), %zu inputs, %zu tasks; lifted in %.2f s\n",
           trace, messages, rec.n_inputs, rec.n_tasks, lift);
    printf("store: median %.1f ms per run into %d runs, %.1f ms into %d runs; repository %.0f MiB "
           "(%d runs), %.1f MiB (%d runs)\n",
           store_big * 1e3, runs, store_base * 1e3, base, st[0].st_size / 1048576.0, runs,
           st[1].st_size / 1048576.0, base);
    printf("%-22s %26s %26s %8s\n", "command (wall, s)", "median (min-max), big",
           "median (min-max), baseline", "ratio");
    for (int k = 0; k < 3; k++) {
        double m[2], lo[2], hi[2];
        for (int s = 0; s < 2; s++) {
            m[s] = median(q[k].t[s], (size_t)repeat); /* sorts */
            lo[s] = q[k].t[s][0];
            hi[s] = q[k].t[s][repeat - 1];
        }
        printf("%-22s %8.4f (%.4f-%.4f) %8.4f (%.4f-%.4f) %8.2f\n", q[k].name, m[0], lo[0], hi[0],
               m[1], lo[1], hi[1], m[0] / m[1]);
        free(q[k].t[0]);
        free(q[k].t[1]);
    }
    repo_run_free(&rec);
    return 0;
}
