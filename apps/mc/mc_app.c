/*
 * mc_app.c - the mc application: Monte-Carlo pricing of a stream of
 * European call options, each request on the paper's S-Net network
 *
 *     png .. ((vcall | []) .. [| {V}, {Sum, <cnt>, <M>} |] .. (acc | [])) * {<CALL>}
 *
 * with the star in a split by the request's tag, png .. ( (...) * {<CALL>} ) ! <job>,
 * so that every request gets a star of its own.
 *
 * Per request {strike, years, paths, batch, <job>}, png emits M batch
 * requests {opt, first, count} and one accumulator {Sum, <cnt>=0, <M>};
 * vcall prices one batch into {V}; in each star replica the synchro-cell
 * joins one V with the accumulator and acc adds it, so the accumulator
 * walks down M replicas and leaves tagged <CALL>. The identity branches let
 * records that a box does not take pass it. The tag <job> is flow-inherited
 * by every record of the request.
 *
 * Why the split: a synchro-cell fires once, so a star of them serves one
 * reduction; requests sharing one star would each pass through every
 * replica the earlier requests used (work growing with the square of the
 * stream) and could join a V with another request's accumulator. With a
 * star per request each V passes at most M replicas, so the work grows with
 * the number of records. The paper priced 10^6 paths in batches of 1000, a
 * star of 1000 replicas; --paper prices 100 requests of 10^4 paths in
 * batches of 1000: the same 1000 replicas, now as a stream.
 *
 * With --mpi (mpirun -n R mc --mpi ...) the split is a placing one,
 * png .. ( (...) * {<CALL>} ) !@ <job>: request j's star runs on rank
 * j mod R (docs/WIRE.md), the batches and the accumulator travel there and
 * the price comes back to rank 0, which prints and checks the results; the
 * two field types cross ranks through their codecs below.
 *
 * Requests differ in strike and maturity (16 to 128 time steps per path), so
 * their costs, and latencies, differ. Sums are fixed point (pricing.h), so
 * a price does not depend on scheduling: --check compares every price with
 * the sequential kernel bit for bit, and with Black-Scholes.
 *
 * The same network is apps/mc/mc.snet; mc_main.c runs this file's network
 * as a C program, mc_boxlib.c makes it the box library snetrun loads for
 * the .snet file (the boxes below are exported for it by name).
 */
#include "mc_app.h"
#include "pricing.h"

#include <limits.h>
#include <math.h>
#include <snet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mc_app {
    bool distributed;  /* --mpi: the stars go to the ranks (!@) */
    long paths, batch; /* per request; 0 = default */
    double vcall_share;/* --scale vcall=F: the fraction of a batch's paths priced */
    long inputs;
    long next;         /* the next request the input generator makes */
    long done, bad;    /* outputs taken; outputs not of the expected kind */
    mc_sum *results;   /* per request */
    unsigned char *seen;
};

enum { MC_STEPS_PER_YEAR = 64 };

/* Request i's option: strike 90..110, maturity 0.25..2 years. */
static mc_option request_option(long i)
{
    uint64_t h = app_mix64((uint64_t)i);
    mc_option o = mc_option_default();
    o.strike = 90.0 + 5.0 * (double)(h % 5);
    o.maturity = 0.25 * (double)(1 + (h >> 8) % 8);
    o.steps = (unsigned)lround(o.maturity * MC_STEPS_PER_YEAR);
    return o;
}

/* ---- field types -------------------------------------------------------------- */

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

static void *option_copy(const void *v)
{
    mc_option *c = malloc(sizeof *c);
    if (c)
        *c = *(const mc_option *)v;
    return c;
}

static int option_print(FILE *out, const void *v)
{
    const mc_option *o = v;
    return fprintf(out, "\"K=%g T=%g steps=%u\"", o->strike, o->maturity, o->steps) < 0 ? -1 : 0;
}

static int no_parse(const char *text, size_t len, void **value)
{
    (void)text, (void)len, (void)value;
    return -1; /* these fields never come from text input */
}

static const snet_field_type SUM_TYPE = {"mcsum", sum_copy, free, sum_print, no_parse};
static const snet_field_type OPTION_TYPE = {"mcoption", option_copy, free, option_print, no_parse};

static mc_sum *new_sum(mc_sum s) { return sum_copy(&s); }

/* Codecs: both types are plain structs of numbers, and ranks of one job
 * run the same program on hosts of one byte order (snet.h), so their bytes
 * cross as they are, checked for length on arrival. */
static int struct_encode(const void *v, size_t size, snet_bytes *out)
{
    return snet_bytes_put(out, v, size) == SNET_OK ? 0 : -1;
}

static int struct_decode(const void *data, size_t len, size_t size, void **v)
{
    void *copy = len == size ? malloc(size) : NULL;
    if (!copy)
        return -1;
    memcpy(copy, data, size);
    *v = copy;
    return 0;
}

static int sum_encode(const void *v, snet_bytes *out) { return struct_encode(v, sizeof(mc_sum), out); }
static int sum_decode(const void *d, size_t len, void **v)
{
    return struct_decode(d, len, sizeof(mc_sum), v);
}
static int option_encode(const void *v, snet_bytes *out)
{
    return struct_encode(v, sizeof(mc_option), out);
}
static int option_decode(const void *d, size_t len, void **v)
{
    return struct_decode(d, len, sizeof(mc_option), v);
}

static const snet_codec SUM_CODEC = {&SUM_TYPE, sum_encode, sum_decode};
static const snet_codec OPTION_CODEC = {&OPTION_TYPE, option_encode, option_decode};
static const snet_codec *const MC_CODECS[] = {&SUM_CODEC, &OPTION_CODEC, NULL};

/* ---- boxes ------------------------------------------------------------------------ */

/* png ({strike, years, paths, batch} -> {opt, first, count} | {Sum, <cnt>, <M>}) */
int mc_png(snet_handle *h, snet_record *in)
{
    mc_option o = mc_option_default();
    o.strike = snet_record_double(in, "strike");
    o.maturity = snet_record_double(in, "years");
    o.steps = (unsigned)lround(o.maturity * MC_STEPS_PER_YEAR);
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
        snet_record_set_field(r, "opt", &OPTION_TYPE, option_copy(&o));
        snet_record_set_int(r, "first", b * batch);
        snet_record_set_int(r, "count", b + 1 < batches ? batch : paths - b * batch);
        if (snet_out(h, r) != SNET_OK)
            return -1;
    }
    return 0;
}

/* The paths of a batch of `count` that vcall prices (--scale vcall=F). */
static uint64_t priced(const mc_app *app, long count)
{
    long n = lround((double)count * app->vcall_share);
    return (uint64_t)(n < 1 ? 1 : n);
}

/* vcall ({opt, first, count} -> {V}) */
int mc_vcall(snet_handle *h, snet_record *in)
{
    const mc_app *app = snet_handle_user(h);
    const mc_option *o = snet_record_field(in, "opt");
    mc_sum s = mc_batch(o, (uint64_t)snet_record_int(in, "first"),
                        priced(app, snet_record_int(in, "count")));
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "V", &SUM_TYPE, new_sum(s));
    return snet_out(h, out);
}

/* acc ({V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}) */
int mc_acc(snet_handle *h, snet_record *in)
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

static snet_net *mc_build(void *arg)
{
    const mc_app *app = arg;
    snet_net *body = snet_serial(
        snet_parallel(snet_box("mc.vcall", "{opt, first, count} -> {V}", mc_vcall, arg),
                      snet_filter("[]")),
        snet_serial(snet_sync("[| {V}, {Sum, <cnt>, <M>} |]"),
                    snet_parallel(snet_box("mc.acc",
                                           "{V, Sum, <cnt>, <M>} -> {Sum, <cnt>, <M>} | {Sum, <CALL>}",
                                           mc_acc, arg),
                                  snet_filter("[]"))));
    snet_net *png = snet_box("mc.png",
                             "{strike, years, paths, batch} -> {opt, first, count} | "
                             "{Sum, <cnt>, <M>}",
                             mc_png, arg);
    snet_net *star = snet_star(body, "{<CALL>}");
    return snet_serial(png, app->distributed ? snet_split_at(star, "<job>")
                                             : snet_split(star, "<job>"));
}

/* ---- input and output -------------------------------------------------------------- */

static snet_record *next_request(void *arg)
{
    mc_app *app = arg;
    if (app->next >= app->inputs)
        return NULL;
    long i = app->next++;
    mc_option o = request_option(i);
    snet_record *r = snet_record_new();
    snet_record_set_double(r, "strike", o.strike);
    snet_record_set_double(r, "years", o.maturity);
    snet_record_set_int(r, "paths", app->paths);
    snet_record_set_int(r, "batch", app->batch);
    snet_record_set_tag(r, "job", i);
    return r;
}

static void take_price(void *arg, snet_record *o)
{
    mc_app *app = arg;
    long job = snet_record_tag(o, "job");
    const mc_sum *s = snet_record_field(o, "Sum");
    if (snet_record_has_tag(o, "CALL") && s && job >= 0 && job < app->inputs && !app->seen[job]) {
        app->results[job] = *s;
        app->seen[job] = 1;
        app->done++;
    } else {
        app->bad++;
    }
    snet_record_free(o);
}

/* ---- command line ------------------------------------------------------------------- */

static int mc_option_arg(void *arg, const char *flag, const char *value)
{
    mc_app *app = arg;
    long n;
    if (strcmp(flag, "--paths") && strcmp(flag, "--batch"))
        return 0;
    if (app_parse_long("mc", flag, value, 1, 1000000000, &n) != 0)
        return -1;
    if (flag[2] == 'p')
        app->paths = n;
    else
        app->batch = n;
    return 2;
}

static int mc_finish(void *arg, const app_ctx *ctx)
{
    mc_app *app = arg;
    app->distributed = ctx->mpi;
    app->inputs = ctx->inputs ? ctx->inputs : ctx->paper ? 100 : 32;
    if (!app->paths)
        app->paths = ctx->paper ? 10000 : 2000;
    if (!app->batch)
        app->batch = ctx->paper ? 1000 : 500;
    app->vcall_share = app_scale_of(ctx, "vcall");
    app->results = calloc((size_t)app->inputs, sizeof *app->results);
    app->seen = calloc((size_t)app->inputs, 1);
    if (!app->results || !app->seen) {
        fprintf(stderr, "mc: out of memory for %ld requests\n", app->inputs);
        return -1;
    }
    return 0;
}

/* What the network should have summed for request o: every path, or with
 * --scale vcall=F the paths each batch priced. */
static mc_sum reference(const mc_app *app, const mc_option *o)
{
    if (app->vcall_share >= 1)
        return mc_batch(o, 0, (uint64_t)app->paths);
    mc_sum ref = {0, 0, 0};
    for (long first = 0; first < app->paths; first += app->batch) {
        long count = first + app->batch < app->paths ? app->batch : app->paths - first;
        mc_sum b = mc_batch(o, (uint64_t)first, priced(app, count));
        mc_sum_merge(&ref, &b);
    }
    return ref;
}

/* --check: every price equals the sequential kernel's, bit for bit, and is
 * within 5 standard errors of Black-Scholes. */
static int check(const mc_app *app)
{
    for (long i = 0; i < app->inputs; i++) {
        mc_option o = request_option(i);
        mc_sum ref = reference(app, &o);
        const mc_sum *s = &app->results[i];
        double bs = black_scholes_call(&o), se = mc_sum_stderr(s);
        if (memcmp(s, &ref, sizeof ref) != 0) {
            fprintf(stderr, "mc: check failed: request %ld: the network's sum of %llu paths "
                            "differs from the sequential kernel's (%llu paths)\n",
                    i, (unsigned long long)s->count, (unsigned long long)ref.count);
            return 1;
        }
        if (s->count < 2 || fabs(mc_sum_mean(s) - bs) > 5.0 * se) {
            fprintf(stderr, "mc: check failed: request %ld (K=%g T=%g): price %.6f is not "
                            "within 5 standard errors (%.6f) of Black-Scholes %.6f\n",
                    i, o.strike, o.maturity, mc_sum_mean(s), se, bs);
            return 1;
        }
    }
    printf("mc: check passed (every price equals the sequential kernel's and is within 5 "
           "standard errors of Black-Scholes)\n");
    return 0;
}

static int mc_report(void *arg, const app_ctx *ctx, int run)
{
    mc_app *app = arg;
    int status = run == 0 ? 0 : 1;
    if (ctx->rank != 0) { /* --mpi: the prices are on rank 0 */
        free(app->results);
        free(app->seen);
        return status;
    }
    if (run == 0 && (app->done != app->inputs || app->bad)) {
        fprintf(stderr, "mc: expected one {Sum, <CALL>} record per request (%ld), got %ld "
                        "(and %ld others)\n", app->inputs, app->done, app->bad);
        status = 1;
    }
    if (status == 0) {
        double lo = INFINITY, hi = -INFINITY;
        for (long i = 0; i < app->inputs; i++) {
            lo = fmin(lo, mc_sum_mean(&app->results[i]));
            hi = fmax(hi, mc_sum_mean(&app->results[i]));
        }
        mc_option o0 = request_option(0);
        printf("mc: %ld option requests, %ld paths each in batches of %ld%s: prices %.4f to "
               "%.4f; request 0 (K=%g T=%g): %.6f +- %.6f (Black-Scholes %.6f)\n",
               app->inputs, app->paths, app->batch,
               app->vcall_share < 1 ? " (--scale: fewer priced)" : "", lo, hi, o0.strike,
               o0.maturity,
               mc_sum_mean(&app->results[0]), mc_sum_stderr(&app->results[0]),
               black_scholes_call(&o0));
        if (ctx->check)
            status = check(app);
    }
    free(app->results);
    free(app->seen);
    return status;
}

const app_spec mc_app_spec = {
    .name = "mc",
    .about = MC_ABOUT,
    .options = MC_OPTIONS_HELP,
    .value_options = (const char *const[]){"paths", "batch", NULL},
    .size = sizeof(mc_app),
    .option = mc_option_arg,
    .finish = mc_finish,
    .build = mc_build,
    .input = next_request,
    .output = take_price,
    .report = mc_report,
    .mpi = true,
    .codecs = MC_CODECS,
    .scalable = (const char *const[]){"vcall", NULL},
};
