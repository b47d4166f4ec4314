/*
 * snet_mc_example.c - snet-mc-example: the Monte Carlo option-pricing
 * network of the LPEL/S-Net paper, built with the S-Net builder API and run
 * on LPEL (with -m FLAGS --mon-dir DIR to trace it):
 *
 *     png .. ((vcall | []) .. [| {V}, {Sum, <cnt>, <M>} |] .. (acc | [])) * {<CALL>}
 *
 * png turns {<M>} into M path seeds {rnd} and one accumulator
 * {Sum, <cnt>, <M>}. In each star replica vcall prices one path ({rnd} ->
 * {V}); the synchro-cell joins one V with the accumulator; acc adds it in
 * and either passes the accumulator on to the next replica or, after M
 * paths, tags it <CALL> so that it leaves the star. The "| []" branches let
 * the records a box does not take pass by (S-Net's type inference would add
 * them; here they are written out). The star unfolds M replicas. The paper
 * writes ** (ordered); only one record ever leaves this star, so * gives the
 * same result without the sort marker that ** sends through every replica
 * after every record (O(M^2) markers).
 */
#include <lpel.h>
#include <snet.h>
#include <mon.h>
#include <prog_opt.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The option: spot, strike, rate, volatility, maturity (years). */
static const double S0 = 100.0, STRIKE = 105.0, RATE = 0.05, SIGMA = 0.2, MATURITY = 1.0;

/* png ({<M>} -> {rnd} | {Sum, <cnt>, <M>}) */
static int png(snet_handle *h, snet_record *in)
{
    long m = snet_record_tag(in, "M");
    for (long i = 0; i < m; i++) {
        snet_record *path = snet_record_new();
        snet_record_set_int(path, "rnd", i * 2654435761L + 12345);
        if (snet_out(h, path) != SNET_OK)
            return -1;
    }
    snet_record *acc = snet_record_new();
    snet_record_set_double(acc, "Sum", 0.0);
    snet_record_set_tag(acc, "cnt", 0);
    snet_record_set_tag(acc, "M", m);
    return snet_out(h, acc);
}

/* A standard normal number from a seed (hash + Box-Muller): deterministic. */
static double normal_from(long seed)
{
    uint64_t x = (uint64_t)seed * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    double u1 = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 32;
    double u2 = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* vcall ({rnd} -> {V}): the discounted call payoff of one path */
static int vcall(snet_handle *h, snet_record *in)
{
    double z = normal_from(snet_record_int(in, "rnd"));
    double st = S0 * exp((RATE - 0.5 * SIGMA * SIGMA) * MATURITY + SIGMA * sqrt(MATURITY) * z);
    snet_record *out = snet_record_new();
    snet_record_set_double(out, "V", exp(-RATE * MATURITY) * fmax(st - STRIKE, 0.0));
    return snet_out(h, out);
}

/* acc ({V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}) */
static int acc(snet_handle *h, snet_record *in)
{
    double sum = snet_record_double(in, "Sum") + snet_record_double(in, "V");
    long cnt = snet_record_tag(in, "cnt") + 1, m = snet_record_tag(in, "M");
    snet_record *out = snet_record_new();
    snet_record_set_double(out, "Sum", sum);
    if (cnt == m) {
        snet_record_set_tag(out, "CALL", m);
    } else {
        snet_record_set_tag(out, "cnt", cnt);
        snet_record_set_tag(out, "M", m);
    }
    return snet_out(h, out);
}

static snet_net *mc_network(void)
{
    snet_net *body = snet_serial(
        snet_parallel(snet_box("mc.vcall", "{rnd} -> {V}", vcall, NULL), snet_filter("[]")),
        snet_serial(snet_sync("[| {V}, {Sum, <cnt>, <M>} |]"),
                    snet_parallel(snet_box("mc.acc",
                                           "{V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}",
                                           acc, NULL),
                                  snet_filter("[]"))));
    return snet_serial(snet_box("mc.png", "{<M>} -> {rnd} | {Sum, <cnt>, <M>}", png, NULL),
                       snet_star(body, "{<CALL>}"));
}

static void usage(FILE *out)
{
    fprintf(out, "usage: snet-mc-example [-w N] [-p PATHS] [-m FLAGS] [--mon-dir DIR] [--version]"
                 "\n  prices a European call by Monte Carlo over PATHS paths (default 1000)\n");
}

int main(int argc, char **argv)
{
    snet_config cfg = snet_config_default();
    long paths = 1000;
    mon_options mo;
    char merr[512];
    if (mon_parse_args(&argc, argv, &mo, merr, sizeof merr) != 0) {
        fprintf(stderr, "snet-mc-example: %s\n", merr);
        return 2;
    }
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"workers", required_argument, NULL, 'w'},
                                              {"paths", required_argument, NULL, 'p'},
                                              {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, "snet-mc-example", argc, argv);
    for (int c; (c = prog_opt_next(&p, "hw:p:", longopts)) != -1;) {
        char *end;
        long n = 0;
        if (c == 'w' || c == 'p') {
            errno = 0;
            n = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || n < 1) {
                fprintf(stderr, "snet-mc-example: -%c expects a whole number >= 1, got '%s'\n",
                        c, optarg);
                return 2;
            }
        }
        if (c == 'w')
            cfg.lpel.num_workers = (unsigned)n;
        else if (c == 'p')
            paths = n;
        else if (c == 'h')
            return usage(stdout), 0;
        else if (c == PROG_OPT_VERSION)
            return prog_opt_version(&p);
        else
            return usage(stderr), 2;
    }
    if (prog_opt_npositional(&p) > 0)
        return usage(stderr), 2;
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, merr, sizeof merr) != 0) {
        fprintf(stderr, "snet-mc-example: %s\n", merr);
        return 1;
    }
    cfg.lpel.hooks = mon_lpel_hooks(m);
    snet_net *net = mc_network();
    snet_run *run;
    char err[512];
    int status = 1;
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "snet-mc-example: %s\n", err);
    } else {
        snet_record *in = snet_record_new();
        snet_record_set_tag(in, "M", paths);
        snet_run_put(run, in);
        int rc = snet_run_execute(run);
        snet_record *out = snet_run_take_output(run);
        if (rc != SNET_OK || !out || !snet_record_has_tag(out, "CALL")) {
            fprintf(stderr, "snet-mc-example: run failed: %s\n", snet_run_error(run));
        } else {
            printf("call price over %ld paths: %.4f (%u workers)\n", paths,
                   snet_record_double(out, "Sum") / (double)paths,
                   lpel_runtime_num_workers(snet_run_lpel(run)));
            status = 0;
        }
        snet_record_free(out);
        snet_run_destroy(run);
    }
    snet_net_free(net);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
    return status;
}
