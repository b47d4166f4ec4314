/*
 * cmd_store.c - `snetmon store`: remember a run in the experiment
 * repository (repo.h): its metadata and the figures the workflow bridge
 * computes for it, so that `runs` lists it and `compare` compares it long
 * after its trace directory is gone.
 *
 * The input is read through the shared loader (trace_input.h: same errors,
 * same --partial as every other subcommand); the record is made from the
 * bridge's analyses (repo_run.h); the store is one transaction.
 */
#include "cli.h"
#include "repo.h"
#include "trace_input.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char snetmon_summary_store[] = "remember a run (trace or event file) in the experiment repository";

static void store_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon store INPUT [--db URL] [--label KEY=VALUE ...] [--git REV]\n"
            "                     [--from FORMAT] [--event-map FILE] [--partial] [--json]\n\n"
            "Stores the run INPUT (an LPEL trace directory, or a workflow event file) in\n"
            "the repository: how it was made (run.json: command line, program, workers,\n"
            "monitoring flags, host, start time), its labels, and its figures (docs/METRICS.md):\n"
            "per run and worker, per task, per input, waiting relations, critical paths,\n"
            "activities. Prints the run's id (1, 2, ... in the order stored).\n\n"
            "options:\n" REPO_DB_HELP
            "  --label K=V      a label of the run (repeatable), e.g. --label mapping=all0;\n"
            "                   `runs --where K=V` and `compare --series K` select by it\n"
            "  --git REV        the git revision the program was built from\n"
            "  --from FORMAT    jsonl | wfcommons | bp | lpel (skip detection)\n"
            CLI_EVENT_MAP_HELP
            "  --json           print {\"id\": N, \"repository\": ...}\n" TRACE_INPUT_HELP
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon store trace --label mapping=default\n"
            "  snetmon store trace --db runs.sqlite --git $(git rev-parse --short HEAD)\n");
}

typedef struct store_args {
    const char *input, *db, *git, *map;
    wfb_format format;
    bool partial, json;
    repo_label *labels;
    size_t n_labels;
} store_args;

/* KEY=VALUE into a label, checked. */
static int add_label(store_args *a, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "snetmon store: --label needs KEY=VALUE, not '%s'\n", arg);
        return -1;
    }
    *eq = '\0';
    if (repo_is_field(arg)) {
        fprintf(stderr, "snetmon store: '%s' is a field of every run (workers, git, program, "
                        "host, format, flags), not a label; %s\n",
                arg, !strcmp(arg, "git") ? "use --git" : "choose another name");
        return -1;
    }
    for (size_t i = 0; i < a->n_labels; i++)
        if (!strcmp(a->labels[i].key, arg)) {
            fprintf(stderr, "snetmon store: label '%s' given twice\n", arg);
            return -1;
        }
    repo_label *grown = realloc(a->labels, (a->n_labels + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "snetmon store: out of memory\n");
        return -1;
    }
    a->labels = grown;
    a->labels[a->n_labels++] = (repo_label){arg, eq + 1};
    return 0;
}

/* 0 go on, 1 done (--help, --version), 2 usage error (printed). */
static int store_parse(int argc, char **argv, store_args *a)
{
    enum { OPT_DB = CLI_OWN, OPT_LABEL, OPT_GIT, OPT_FROM };
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"db", required_argument, NULL, OPT_DB},   {"label", required_argument, NULL, OPT_LABEL},
        {"git", required_argument, NULL, OPT_GIT}, {"from", required_argument, NULL, OPT_FROM},
        CLI_EVENT_MAP_OPTIONS, {"partial", no_argument, NULL, CLI_PARTIAL},
        {"json", no_argument, NULL, CLI_JSON},     {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_parser p;
    cli_begin(&p, "store", argc, argv);
    for (int c; (c = cli_next(&p, "h", longopts)) != -1;) {
        switch (c) {
        case OPT_DB: a->db = optarg; break;
        case OPT_GIT: a->git = optarg; break;
        case CLI_EVENT_MAP:
        case CLI_EVENT_MAP_OLD: a->map = cli_event_map(&p, c); break;
        case CLI_PARTIAL: a->partial = true; break;
        case CLI_JSON: a->json = true; break;
        case 'h': store_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case OPT_LABEL:
            if (add_label(a, optarg))
                return 2;
            break;
        case OPT_FROM:
            if ((a->format = wfb_format_parse(optarg)) == WFB_FORMAT_UNKNOWN)
                return cli_usage_error(&p, "unknown format '%s'", optarg);
            break;
        default:
            return 2; /* CLI_ERROR: the message is printed */
        }
    }
    if (cli_npositional(&p) != 1)
        return cli_usage_error(&p, cli_npositional(&p) == 0 ? "which INPUT? (see --help)"
                                                            : "more than one INPUT");
    a->input = cli_positional(&p)[0];
    return 0;
}

static int store_run(const store_args *a, const wfb_graph *g)
{
    char err[1024] = "";
    repo_run rec;
    repo_options opt = {a->input, a->format, a->git, a->n_labels, a->labels};
    if (repo_run_from_graph(&rec, g, &opt, err, sizeof err)) {
        fprintf(stderr, "snetmon store: %s\n", err);
        return 1;
    }
    repo *r;
    int rc = 1;
    int64_t id;
    if (repo_open(&r, a->db, true, err, sizeof err) == 0) {
        if (repo_store(r, &rec, &id, err, sizeof err) == 0) {
            if (a->json) {
                json_t *o = json_pack("{sIss}", "id", (json_int_t)id, "repository", repo_name(r));
                json_dumpf(o, stdout, 0);
                putchar('\n');
                json_decref(o);
            } else {
                printf("stored run %lld in %s (%zu tasks, %zu inputs, %zu activities)\n",
                       (long long)id, repo_name(r), rec.n_tasks, rec.n_inputs, rec.n_activities);
            }
            rc = 0;
        }
        repo_close(r);
    }
    if (rc)
        fprintf(stderr, "snetmon store: %s\n", err);
    repo_run_free(&rec);
    return rc;
}

int snetmon_cmd_store(int argc, char **argv)
{
    store_args a;
    int rc = store_parse(argc, argv, &a);
    if (rc) {
        free(a.labels);
        return rc == 1 ? 0 : 2;
    }
    wfb_graph *g = input_load_graph_bounded("store", a.input, a.format, a.map, a.partial,
                                            CLI_MAX_MEMORY_DEFAULT, NULL, 0);
    rc = g ? store_run(&a, g) : 1;
    wfb_graph_free(g);
    free(a.labels);
    return rc;
}
