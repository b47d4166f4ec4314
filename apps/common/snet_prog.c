/*
 * snet_prog.c - snet_prog_main: a whole command-line program around a
 * network, so that an S-Net program reads records from stdin (or -i FILE),
 * writes them to stdout (or -O FILE), places tasks by a mapping file
 * (--map FILE, docs/MAPPING.md), and understands the monitoring options
 * (-m FLAGS, --mon-dir DIR, --mon-tasks RE) without code of its own; and the
 * mapping check every program on the runtime shares (snet_prog.h).
 */
#include "snet_prog.h"

#include <mon.h>
#include <prog_opt.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct main_options {
    unsigned workers;
    const char *input, *output, *map;
} main_options;

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "usage: %s [-w N] [-i FILE] [-O FILE] [--map FILE]"
            " [-m FLAGS] [--mon-dir DIR] [--mon-tasks RE]"
            "\n"
            "  reads records ({x=1, <t>=2}, docs/RECORDS.md) from FILE or stdin, runs them\n"
            "  through the network, writes the output records to FILE or stdout\n"
            "  -w N   workers (default: one per core)\n"
            "  --map FILE  place tasks on workers by net-path patterns (docs/MAPPING.md)\n"
            "  -h, --help, --version\n"
            "  -m FLAGS  monitor (letters mtWTSMLC, A = all); --mon-dir DIR trace directory\n"
            , prog);
}

/* Returns 0, -1 (help or version printed: exit 0), or 2 (usage error). */
static int parse_options(int argc, char **argv, main_options *o)
{
    enum { OPT_MAP = PROG_OPT_OWN };
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"workers", required_argument, NULL, 'w'},
                                              {"input", required_argument, NULL, 'i'},
                                              {"output", required_argument, NULL, 'O'},
                                              {"map", required_argument, NULL, OPT_MAP},
                                              {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, argv[0], argc, argv);
    for (int c; (c = prog_opt_next(&p, "hw:i:O:", longopts)) != -1;) {
        char *end;
        long n;
        switch (c) {
        case 'h':
            usage(stdout, argv[0]);
            return -1;
        case PROG_OPT_VERSION:
            prog_opt_version(&p);
            return -1;
        case 'w':
            errno = 0;
            n = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || n < 1 || n > 4096) {
                fprintf(stderr, "%s: -w expects a worker count >= 1, got '%s'\n", argv[0],
                        optarg);
                return 2;
            }
            o->workers = (unsigned)n;
            break;
        case 'i':
            o->input = optarg;
            break;
        case 'O':
            o->output = optarg;
            break;
        case OPT_MAP:
            o->map = optarg;
            break;
        default:
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (prog_opt_npositional(&p) > 0) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], prog_opt_positional(&p)[0]);
        return 2;
    }
    return 0;
}

static int run_files(snet_net *net, const snet_config *cfg, const main_options *o,
                     const snet_field_type *const *types, size_t ntypes, const char *prog)
{
    FILE *in = o->input ? fopen(o->input, "r") : stdin;
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    int status = 1;
    snet_run *run = NULL;
    char err[512];
    if (!in || !out) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, !in ? o->input : o->output,
                strerror(errno));
        goto done;
    }
    if (snet_run_create(&run, net, cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        goto done;
    }
    for (size_t i = 0; i < ntypes; i++)
        snet_run_register_field_type(run, types[i]);
    snet_run_set_input_file(run, in);
    snet_run_set_output_file(run, out);
    int rc = snet_run_execute(run);
    if (rc != SNET_OK)
        fprintf(stderr, "%s: run failed (%s): %s\n", prog, snet_strerror(rc),
                snet_run_error(run));
    status = rc == SNET_OK ? 0 : 1;
done:
    snet_run_destroy(run);
    if (in && in != stdin)
        fclose(in);
    if (out && out != stdout && fclose(out) != 0)
        status = 1;
    return status;
}

int snet_prog_main_types(int argc, char **argv, snet_net *net,
                         const snet_field_type *const *types, size_t ntypes)
{
    const char *prog = argc > 0 ? argv[0] : "snet";
    main_options o = {0, NULL, NULL, NULL};
    snet_mapping *mapping = NULL;
    snet_config cfg = snet_config_default();
    int status;
    mon_options mo;
    char err[512];
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        snet_net_free(net);
        return 2;
    }
    status = parse_options(argc, argv, &o);
    if (status != 0) {
        snet_net_free(net);
        return status < 0 ? 0 : status;
    }
    /* A bad mapping is a usage error, found before any output exists. */
    if (o.map && snet_prog_load_mapping(prog, o.map, net, o.workers, &mapping) != 0) {
        snet_net_free(net);
        return 2;
    }
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        snet_mapping_free(mapping);
        snet_net_free(net);
        return 1;
    }
    cfg.lpel.hooks = mon_lpel_hooks(m);
    cfg.lpel.num_workers = o.workers;
    cfg.mapping = mapping;
    status = run_files(net, &cfg, &o, types, ntypes, prog);
    snet_mapping_free(mapping);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
    snet_net_free(net);
    return status;
}

int snet_prog_main(int argc, char **argv, snet_net *net)
{
    return snet_prog_main_types(argc, argv, net, NULL, 0);
}

int snet_prog_load_mapping(const char *prog, const char *path, const snet_net *net,
                           unsigned workers, snet_mapping **out)
{
    char err[1024];
    *out = NULL;
    unsigned run_workers = workers ? workers : lpel_core_count();
    if (snet_mapping_load(path, out, err, sizeof err) != SNET_OK ||
        snet_mapping_check(*out, net, run_workers, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        snet_mapping_free(*out);
        *out = NULL;
        return -1;
    }
    /* A mapping made for fewer workers leaves the others nearly idle, one
     * for more cannot have been checked against them: say so, run anyway. */
    long line;
    unsigned written_for = snet_mapping_workers(*out, &line);
    if (written_for && written_for != run_workers)
        fprintf(stderr,
                "%s: warning: %s:%ld: the mapping is for %u worker%s, this run has %u%s; give"
                " -w %u\n",
                prog, path, line, written_for, written_for == 1 ? "" : "s", run_workers,
                workers ? "" : " (one per core)", written_for);
    return 0;
}
