/*
 * des_app.c - the des application: DES (ECB) encryption of a stream of
 * messages as an S-Net pipeline of boxes, with messages processed in
 * parallel lanes:
 *
 *     gen .. (ip .. round1 .. ... .. round16 .. fp) !! <lane>
 *
 * Each input record {msg, <idx>} is one message of whole 8-byte blocks;
 * messages differ in length (0.5 to 1.5 times the mean), so their costs and
 * latencies differ. gen loads a message's blocks and tags it <lane> = idx
 * mod L; each lane is its own replica of the 18-box pipeline (initial
 * permutation, 16 Feistel rounds, final permutation), and the deterministic
 * split keeps the messages in order. --check runs the network a second time
 * with the reversed key schedule to decrypt, and compares both results with
 * the sequential kernel and the plaintext, after the published test vectors.
 *
 * The same network is apps/des/des.snet; des_main.c runs this file's
 * network as a C program, des_boxlib.c makes it the box library snetrun
 * loads for the .snet file (the boxes below are exported for it by name).
 * snetrun runs a network once, so there --check decrypts with the
 * sequential kernel instead of a second run through the network.
 */
#include "des_app.h"
#include "des.h"

#include <errno.h>
#include <limits.h>
#include <snet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the chunk field: B 64-bit words (blocks, or L:R halves) ------------- */

typedef struct chunk {
    size_t n;
    uint64_t word[];
} chunk;

static chunk *chunk_new(size_t n)
{
    chunk *c = malloc(sizeof *c + n * sizeof c->word[0]);
    if (c)
        c->n = n;
    return c;
}

static void *chunk_copy(const void *v)
{
    const chunk *src = v;
    chunk *c = chunk_new(src->n);
    if (c)
        memcpy(c->word, src->word, src->n * sizeof c->word[0]);
    return c;
}

static int chunk_print(FILE *out, const void *v)
{
    return fprintf(out, "\"%zu blocks\"", ((const chunk *)v)->n) < 0 ? -1 : 0;
}

static int chunk_parse(const char *text, size_t len, void **value)
{
    (void)text, (void)len, (void)value;
    return -1; /* chunks never come from text input */
}

static const snet_field_type CHUNK_TYPE = {"deschunk", chunk_copy, free, chunk_print, chunk_parse};

/* ---- boxes ----------------------------------------------------------------- */

/* The boxes --scale takes: ip, round1 .. round16, fp (box k of the pipeline). */
enum { DES_IP = 0, DES_FP = DES_ROUNDS + 1, DES_BOXES };
static const char *const DES_SCALABLE[DES_BOXES + 1] = {
    "ip",      "round1",  "round2",  "round3",  "round4",  "round5",  "round6",
    "round7",  "round8",  "round9",  "round10", "round11", "round12", "round13",
    "round14", "round15", "round16", "fp",      NULL};

/* What every box of one run shares: the key schedule, and the share of a
 * message's blocks each box of the pipeline transforms (1, or less with
 * --scale BOX=F; the others pass through unchanged). */
typedef struct des_job {
    long lanes;
    des_key_schedule ks;
    double share[DES_BOXES];
} des_job;

/* The blocks of n that box k transforms: all, or F of them (at least one). */
static size_t transformed(const des_job *job, unsigned k, size_t n)
{
    if (job->share[k] >= 1)
        return n;
    size_t m = (size_t)((double)n * job->share[k] + 0.5); /* rounded */
    return m < 1 ? 1 : m;
}

struct des_app {
    long kilobytes, lanes, messages;
    uint64_t key;
    des_job job;
    size_t len;                 /* bytes in all messages */
    size_t *offset;             /* message i is bytes [offset[i], offset[i+1]) */
    unsigned char *plain, *cipher, *back, *ref; /* len bytes each */
    const unsigned char *input; /* the current run's input and output */
    unsigned char *output;
    long next, got, bad;        /* generator position; outputs taken; bad outputs */
};

/* gen ({msg} -> {data, <lane>}): the message's bytes as blocks; the input's
 * <idx> is inherited. */
int des_gen(snet_handle *h, snet_record *in)
{
    const des_app *app = snet_handle_user(h);
    const chunk *bytes = snet_record_field(in, "msg"); /* raw bytes, 8 per word */
    chunk *c = chunk_new(bytes->n);
    if (!c)
        return -1;
    for (size_t i = 0; i < bytes->n; i++)
        c->word[i] = des_load_block((const unsigned char *)&bytes->word[i]);
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "data", &CHUNK_TYPE, c);
    snet_record_set_tag(r, "lane", snet_record_tag(in, "idx") % app->job.lanes);
    return snet_out(h, r);
}

static uint64_t pack(des_halves h) { return ((uint64_t)h.l << 32) | h.r; }
static des_halves unpack(uint64_t w) { return (des_halves){(uint32_t)(w >> 32), (uint32_t)w}; }

/* Emit chunk c under label. */
static int emit(snet_handle *h, const char *label, chunk *c)
{
    snet_record *r = snet_record_new();
    snet_record_set_field(r, label, &CHUNK_TYPE, c);
    return snet_out(h, r);
}

/* What box k does to block i of a message of n blocks (the sequential
 * reference under --scale does the same). */
static uint64_t transform(const des_job *job, unsigned k, size_t i, size_t n, uint64_t w)
{
    if (i >= transformed(job, k, n))
        return w;
    if (k == DES_IP)
        return pack(des_initial_permutation(w));
    if (k == DES_FP)
        return des_final_permutation(unpack(w));
    return pack(des_round(unpack(w), job->ks.k[k - 1]));
}

static int des_pipeline_box(snet_handle *h, snet_record *in, unsigned k, const char *from,
                            const char *to)
{
    const des_app *app = snet_handle_user(h);
    chunk *c = snet_record_take_field(in, from);
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = transform(&app->job, k, i, c->n, c->word[i]);
    return emit(h, to, c);
}

/* ip ({data} -> {state}) */
int des_ip(snet_handle *h, snet_record *in) { return des_pipeline_box(h, in, DES_IP, "data", "state"); }

/* roundK ({state} -> {state}): Feistel round K (round = K - 1) with the
 * run's key schedule. */
static int des_round_box(snet_handle *h, snet_record *in, unsigned round)
{
    return des_pipeline_box(h, in, 1 + round, "state", "state");
}

/* One exported function per round: a box knows its round by its function,
 * as the .snet file's boxes round1 .. round16 are found by name. */
#define DES_ROUND_BOX(K)                                                                  \
    int des_round##K(snet_handle *h, snet_record *in) { return des_round_box(h, in, K - 1); }
DES_ROUND_BOX(1)
DES_ROUND_BOX(2)
DES_ROUND_BOX(3)
DES_ROUND_BOX(4)
DES_ROUND_BOX(5)
DES_ROUND_BOX(6)
DES_ROUND_BOX(7)
DES_ROUND_BOX(8)
DES_ROUND_BOX(9)
DES_ROUND_BOX(10)
DES_ROUND_BOX(11)
DES_ROUND_BOX(12)
DES_ROUND_BOX(13)
DES_ROUND_BOX(14)
DES_ROUND_BOX(15)
DES_ROUND_BOX(16)

/* fp ({state} -> {out}) */
int des_fp(snet_handle *h, snet_record *in) { return des_pipeline_box(h, in, DES_FP, "state", "out"); }

static snet_net *des_build(void *arg)
{
    /* snet_box keeps the name pointer: string literals outlive the run. */
    static const char *const names[DES_ROUNDS] = {
        "des.round1", "des.round2", "des.round3", "des.round4", "des.round5", "des.round6",
        "des.round7", "des.round8", "des.round9", "des.round10", "des.round11", "des.round12",
        "des.round13", "des.round14", "des.round15", "des.round16"};
    static const snet_box_fn rounds[DES_ROUNDS] = {
        des_round1, des_round2, des_round3, des_round4, des_round5, des_round6,
        des_round7, des_round8, des_round9, des_round10, des_round11, des_round12,
        des_round13, des_round14, des_round15, des_round16};
    snet_net *pipe = snet_box("des.fp", "{state} -> {out}", des_fp, arg);
    for (int r = DES_ROUNDS - 1; r >= 0; r--)
        pipe = snet_serial(snet_box(names[r], "{state} -> {state}", rounds[r], arg), pipe);
    pipe = snet_serial(snet_box("des.ip", "{data} -> {state}", des_ip, arg), pipe);
    return snet_serial(snet_box("des.gen", "{msg} -> {data, <lane>}", des_gen, arg),
                       snet_split_det(pipe, "<lane>"));
}

/* ---- input and output -------------------------------------------------------- */

static snet_record *next_message(void *arg)
{
    des_app *app = arg;
    if (app->next >= app->messages)
        return NULL;
    long i = app->next++;
    size_t words = (app->offset[i + 1] - app->offset[i]) / 8;
    chunk *c = chunk_new(words);
    if (!c)
        return NULL;
    memcpy(c->word, app->input + app->offset[i], words * 8);
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "msg", &CHUNK_TYPE, c);
    snet_record_set_tag(r, "idx", i);
    return r;
}

static void take_message(void *arg, snet_record *o)
{
    des_app *app = arg;
    const chunk *c = snet_record_field(o, "out");
    long i = snet_record_tag(o, "idx");
    if (c && i >= 0 && i < app->messages && c->n * 8 == app->offset[i + 1] - app->offset[i]) {
        for (size_t k = 0; k < c->n; k++)
            des_store_block(c->word[k], app->output + app->offset[i] + 8 * k);
        app->got++;
    } else {
        app->bad++;
    }
    snet_record_free(o);
}

/* Aim the input generator and the output collector at input and output. */
static void aim(des_app *app, const unsigned char *input, unsigned char *output)
{
    app->input = input;
    app->output = output;
    app->next = app->got = app->bad = 0;
}

/* After a run: did every message come out, intact? 0, or -1 (printed). */
static int all_out(const des_app *app)
{
    if (app->got != app->messages || app->bad) {
        fprintf(stderr, "des: expected %ld messages out of the network, got %ld (and %ld bad)\n",
                app->messages, app->got, app->bad);
        return -1;
    }
    return 0;
}

/* ---- command line ---------------------------------------------------------- */

static int des_option(void *arg, const char *flag, const char *value)
{
    des_app *app = arg;
    long *target = !strcmp(flag, "--kb") ? &app->kilobytes
                   : !strcmp(flag, "--lanes") ? &app->lanes
                                              : NULL;
    if (!target)
        return 0;
    return app_parse_long("des", flag, value, 1, 1L << 30, target) == 0 ? 2 : -1;
}

/* The plaintext, the key schedule, and room for the results; the first run
 * encrypts plain into cipher. 0, or -1 (printed). */
static int make_buffers(des_app *app)
{
    size_t len = app->len;
    app->plain = malloc(len);
    app->cipher = malloc(len);
    app->back = malloc(len);
    app->ref = malloc(len);
    if (!app->plain || !app->cipher || !app->back || !app->ref) {
        fprintf(stderr, "des: out of memory for %zu bytes\n", len);
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        app->plain[i] = (unsigned char)((i * 2654435761u) >> 13);
    des_make_schedule(app->key, &app->job.ks);
    aim(app, app->plain, app->cipher);
    return 0;
}

/* Message lengths: weights 0.5..1.5 from the index, scaled so that the
 * blocks add up to exactly the total; every message has at least one. */
static int des_finish(void *arg, const app_ctx *ctx)
{
    des_app *app = arg;
    app->messages = ctx->inputs ? ctx->inputs : ctx->paper ? 500 : 128;
    if (!app->kilobytes)
        app->kilobytes = ctx->paper ? 500 : 64;
    app->job.lanes = app->lanes;
    for (unsigned k = 0; k < DES_BOXES; k++)
        app->job.share[k] = app_scale_of(ctx, DES_SCALABLE[k]);
    size_t blocks = (size_t)app->kilobytes * 128, n = (size_t)app->messages;
    if (n > blocks) {
        fprintf(stderr, "des: --inputs %ld is more messages than the %zu blocks of 8 bytes in "
                        "%ld KB\n", app->messages, blocks, app->kilobytes);
        return -1;
    }
    double *w = malloc(n * sizeof *w), sum = 0;
    app->offset = malloc((n + 1) * sizeof *app->offset);
    if (!w || !app->offset) {
        free(w);
        fprintf(stderr, "des: out of memory for %zu messages\n", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        sum += w[i] = 0.5 + (double)(app_mix64(i) >> 11) * 0x1p-53;
    size_t given = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = 1 + (size_t)((double)(blocks - n) * w[i] / sum);
        app->offset[i] = given * 8;
        given += b;
    }
    free(w);
    /* rounding down left a few blocks over: the last message takes them */
    app->offset[n] = blocks * 8;
    app->len = blocks * 8;
    return given <= blocks ? make_buffers(app) : -1;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* Decrypt cipher into back through the network with the reversed key
 * schedule (the C program), else with the sequential kernel (snetrun runs
 * the network once). 0, or -1 (printed). */
static int decrypt(des_app *app, const app_ctx *ctx)
{
    des_key_schedule enc = app->job.ks;
    if (!ctx->rerun) {
        des_ecb(&enc, 1, app->cipher, app->back, app->len);
        return 0;
    }
    des_reverse_schedule(&enc, &app->job.ks);
    aim(app, app->cipher, app->back);
    /* The second run is not monitored: one trace per program run. */
    int rc = ctx->rerun(ctx, next_message, app, take_message, app);
    app->job.ks = enc;
    return rc == 0 ? all_out(app) : -1;
}

static bool scaled(const des_job *job)
{
    for (unsigned k = 0; k < DES_BOXES; k++)
        if (job->share[k] < 1)
            return true;
    return false;
}

/* What the pipeline of scaled boxes makes of plain, sequentially, into ref. */
static void scaled_reference(des_app *app)
{
    for (long m = 0; m < app->messages; m++) {
        size_t n = (app->offset[m + 1] - app->offset[m]) / 8;
        for (size_t i = 0; i < n; i++) {
            size_t off = app->offset[m] + 8 * i;
            uint64_t w = des_load_block(app->plain + off);
            for (unsigned k = 0; k < DES_BOXES; k++)
                w = transform(&app->job, k, i, n, w);
            des_store_block(w, app->ref + off);
        }
    }
}

/* --check under --scale: the network's output equals the same scaled boxes
 * run sequentially (no longer DES, so no round trip). */
static int check_scaled(des_app *app)
{
    scaled_reference(app);
    if (memcmp(app->ref, app->cipher, app->len) != 0) {
        fprintf(stderr, "des: check failed: network output differs from the sequential run of "
                        "the same scaled boxes\n");
        return 1;
    }
    printf("des: check passed (test vectors; under --scale the output is not DES: it equals "
           "the sequential run of the same scaled boxes; no round trip)\n");
    return 0;
}

/* --check after the encryption: test vectors, sequential equality, and the
 * round trip. */
static int check(des_app *app, const app_ctx *ctx)
{
    char err[256];
    if (des_self_test(err, sizeof err) != 0) {
        fprintf(stderr, "des: check failed: %s\n", err);
        return 1;
    }
    if (scaled(&app->job))
        return check_scaled(app);
    des_ecb(&app->job.ks, 0, app->plain, app->ref, app->len);
    if (memcmp(app->ref, app->cipher, app->len) != 0) {
        fprintf(stderr, "des: check failed: network ciphertext differs from the sequential "
                        "kernel\n");
        return 1;
    }
    if (decrypt(app, ctx) != 0)
        return 1;
    if (memcmp(app->back, app->plain, app->len) != 0) {
        fprintf(stderr, "des: check failed: decrypt(encrypt(x)) != x\n");
        return 1;
    }
    printf("des: check passed (test vectors, sequential equality, round trip%s)\n",
           ctx->rerun ? "" : " by the sequential kernel");
    return 0;
}

static int des_report(void *arg, const app_ctx *ctx, int run)
{
    des_app *app = arg;
    int status = 1;
    if (run == 0 && all_out(app) == 0) {
        printf("des: encrypted %ld messages, %zu bytes in all, in %ld lanes: checksum %016llx\n",
               app->messages, app->len, app->lanes,
               (unsigned long long)fnv1a(app->cipher, app->len));
        status = ctx->check ? check(app, ctx) : 0;
    }
    free(app->plain);
    free(app->cipher);
    free(app->back);
    free(app->ref);
    free(app->offset);
    return status;
}

/* The defaults before the options. */
static void des_init(void *arg)
{
    des_app *app = arg;
    app->lanes = 4;
    app->key = 0x133457799BBCDFF1u;
}

const app_spec des_app_spec = {
    .scalable = DES_SCALABLE,
    .name = "des",
    .about = DES_ABOUT,
    .options = DES_OPTIONS_HELP,
    .value_options = (const char *const[]){"kb", "lanes", NULL},
    .size = sizeof(des_app),
    .init = des_init,
    .option = des_option,
    .finish = des_finish,
    .build = des_build,
    .input = next_message,
    .output = take_message,
    .report = des_report,
};
