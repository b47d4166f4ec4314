/*
 * mc_main.c - the mc application: Monte-Carlo pricing of a European call as
 * the paper's S-Net network
 *
 *     png .. ((vcall | []) .. [| {V}, {Sum, <cnt>, <M>} |] .. (acc | [])) ** {<CALL>}
 *
 * png turns the job into M batch requests {req} plus one accumulator
 * {Sum, <cnt>=0, <M>}; vcall prices one batch of paths into {V}; in each star
 * replica the synchro-cell joins one V with the accumulator and acc adds it,
 * so the accumulator walks down M replicas and leaves tagged <CALL>. The
 * identity branches let records that a box does not take pass it (S-Net
 * reports a record matching no box type as an error). Sums are fixed point
 * (pricing.h), so the price does not depend on scheduling.
 */
#include "app_main.h"

#include <limits.h>
#include "pricing.h"

#include <mon.h>
#include <snet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mc_app {
    mc_option option;
    long paths, batch;
    unsigned workers;
    int star_worker; /* -1: default placement; else the whole star on it */
    int check;
} mc_app;

/* ---- the mc_sum field type -------------------------------------------------- */

static void *sum_copy(const void *v)
{
    mc_sum *c = malloc(sizeof *c);
    if (c)
        *c = *(const mc_sum *)v;
    return c;
}

static int sum_print(FILE *out, const void *v)
{
    const mc_sum *s = v;
    return fprintf(out, "\"%llu/%llu/%llu\"", (unsigned long long)s->count,
                   (unsigned long long)s->sum, (unsigned long long)s->sum_sq) < 0 ? -1 : 0;
}

static int sum_parse(const char *text, size_t len, void **value)
{
    (void)text, (void)len, (void)value;
    return -1; /* sums never come from text input */
}

static const snet_field_type SUM_TYPE = {"mcsum", sum_copy, free, sum_print, sum_parse};

static mc_sum *new_sum(mc_sum s)
{
    return sum_copy(&s);
}

/* ---- boxes ----------------------------------------------------------------- */

/* png ({paths, batch} -> {req} | {Sum, <cnt>, <M>}) */
static int png_box(snet_handle *h, snet_record *in)
{
    long paths = snet_record_int(in, "paths"), batch = snet_record_int(in, "batch");
    long batches = (paths + batch - 1) / batch;
    snet_record *acc = snet_record_new();
    snet_record_set_field(acc, "Sum", &SUM_TYPE, new_sum((mc_sum){0, 0, 0}));
    snet_record_set_tag(acc, "cnt", 0);
    snet_record_set_tag(acc, "M", batches);
    if (snet_out(h, acc) != SNET_OK)
        return -1;
    for (long b = 0; b < batches; b++) {
        snet_record *r = snet_record_new();
        snet_record_set_int(r, "req", b);
        snet_record_set_int(r, "first", b * batch);
        snet_record_set_int(r, "count", b + 1 < batches ? batch : paths - b * batch);
        if (snet_out(h, r) != SNET_OK)
            return -1;
    }
    return 0;
}

/* vcall ({req, first, count} -> {V}) */
static int vcall_box(snet_handle *h, snet_record *in)
{
    const mc_option *o = snet_handle_user(h);
    mc_sum s = mc_batch(o, (uint64_t)snet_record_int(in, "first"),
                        (uint64_t)snet_record_int(in, "count"));
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "V", &SUM_TYPE, new_sum(s));
    return snet_out(h, out);
}

/* acc ({V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}) */
static int acc_box(snet_handle *h, snet_record *in)
{
    mc_sum total = *(const mc_sum *)snet_record_field(in, "Sum");
    mc_sum_merge(&total, snet_record_field(in, "V"));
    long cnt = snet_record_tag(in, "cnt") + 1, m = snet_record_tag(in, "M");
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "Sum", &SUM_TYPE, new_sum(total));
    if (cnt >= m) {
        snet_record_set_tag(out, "CALL", 1);
    } else {
        snet_record_set_tag(out, "cnt", cnt);
        snet_record_set_tag(out, "M", m);
    }
    return snet_out(h, out);
}

static snet_net *build_net(const mc_app *app)
{
    snet_net *body = snet_serial(
        snet_parallel(snet_box("mc.vcall", "{req, first, count} -> {V}", vcall_box,
                               (void *)&app->option),
                      snet_filter("[]")),
        snet_serial(snet_sync("[| {V}, {Sum, <cnt>, <M>} |]"),
                    snet_parallel(snet_box("mc.acc",
                                           "{V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}",
                                           acc_box, NULL),
                                  snet_filter("[]"))));
    snet_net *star = snet_star(body, "{<CALL>}");
    if (app->star_worker >= 0)
        star = snet_at(star, app->star_worker);
    return snet_serial(snet_box("mc.png", "{paths, batch} -> {req, first, count} | {Sum, <cnt>, <M>}",
                                png_box, NULL),
                       star);
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mc [options]\n"
            "Monte-Carlo price of a European call (S=100 K=105 r=5%% sigma=20%% T=1,\n"
            "64 steps per path) on the S-Net network\n"
            "  png .. ((vcall | []) .. [| {V},{Sum,<cnt>,<M>} |] .. (acc | [])) ** {<CALL>}\n"
            "\n"
            "  -w N             workers (default: one per core)\n"
            "  --paths P        paths (default 20000; --paper: 1000000)\n"
            "  --batch B        paths per vcall request (default 200; --paper: 1000)\n"
            "  --paper          the paper's size\n"
            "  --map @N         place every task of the serial replication on worker N\n"
            "  --check          exit 1 unless the price is within 3 standard errors\n"
            "                   of Black-Scholes\n"
            MON_OPTIONS_HELP
            "  --help           this text\n");
}

/* 0 ok, 1 help shown, -1 usage error (message printed). */
static int parse(int argc, char **argv, mc_app *app)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--check")) {
            app->check = 1;
        } else if (!strcmp(a, "--paper")) {
            app->paths = 1000000;
            app->batch = 1000;
        } else if (!strcmp(a, "-w") || !strcmp(a, "--paths") || !strcmp(a, "--batch")) {
            if (app_parse_long("mc", a, v, 1, LONG_MAX, &n) != 0)
                return -1;
            i++;
            if (a[1] == 'w')
                app->workers = (unsigned)n;
            else if (a[2] == 'p')
                app->paths = n;
            else
                app->batch = n;
        } else if (!strcmp(a, "--map")) {
            if (!v || v[0] != '@') {
                fprintf(stderr, "mc: --map expects @N (map files are not supported), got '%s'\n",
                        v ? v : "(nothing)");
                return -1;
            }
            if (app_parse_long("mc", "--map @", v + 1, 0, LONG_MAX, &n) != 0)
                return -1;
            app->star_worker = (int)n;
            i++;
        } else {
            fprintf(stderr, "mc: unknown option '%s' (see mc --help)\n", a);
            return -1;
        }
    }
    return 0;
}

/* Run the network once; the final accumulator into *result. */
static int run_network(const mc_app *app, const lpel_hooks *hooks, mc_sum *result)
{
    snet_net *net = build_net(app);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = app->workers;
    cfg.lpel.hooks = hooks;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "mc: %s\n", err);
        snet_net_free(net);
        return -1;
    }
    snet_record *job = snet_record_new();
    snet_record_set_int(job, "paths", app->paths);
    snet_record_set_int(job, "batch", app->batch);
    snet_run_put(run, job);
    int rc = snet_run_execute(run), found = 0;
    if (rc != SNET_OK)
        fprintf(stderr, "mc: run failed: %s\n", snet_run_error(run));
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o)) {
        if (snet_record_has_tag(o, "CALL") && snet_record_has_field(o, "Sum")) {
            *result = *(const mc_sum *)snet_record_field(o, "Sum");
            found++;
        }
    }
    snet_run_destroy(run);
    snet_net_free(net);
    if (rc == SNET_OK && found != 1) {
        fprintf(stderr, "mc: expected one {Sum, <CALL>} record, got %d\n", found);
        return -1;
    }
    return rc == SNET_OK ? 0 : -1;
}

static int report(const mc_app *app, const mc_sum *s)
{
    double bs = black_scholes_call(&app->option);
    printf("mc: %llu paths: price %.6f +- %.6f (Black-Scholes %.6f)\n",
           (unsigned long long)s->count, mc_sum_mean(s), mc_sum_stderr(s), bs);
    if (!app->check)
        return 0;
    if ((long)s->count != app->paths || !mc_price_plausible(&app->option, s)) {
        fprintf(stderr, "mc: check failed: %llu of %ld paths, price %.6f is not within 3 "
                        "standard errors (%.6f) of %.6f\n",
                (unsigned long long)s->count, app->paths, mc_sum_mean(s), mc_sum_stderr(s), bs);
        return 1;
    }
    printf("mc: check passed\n");
    return 0;
}

static int parse_mc(int argc, char **argv, void *app) { return parse(argc, argv, app); }

static int run_mc(void *app, const lpel_hooks *hooks)
{
    mc_sum result = {0, 0, 0};
    return run_network(app, hooks, &result) == 0 ? report(app, &result) : 1;
}

int main(int argc, char **argv)
{
    mc_app app = {.option = mc_option_default(), .paths = 20000, .batch = 200,
                  .workers = 0, .star_worker = -1, .check = 0};
    return app_main("mc", argc, argv, &app, parse_mc, run_mc);
}
