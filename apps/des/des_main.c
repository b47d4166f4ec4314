/*
 * des_main.c - the des application: DES (ECB) encryption of a stream of
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
 */
#include "snet_prog.h"
#include "des.h"

#include <errno.h>
#include <limits.h>
#include <mon.h>
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

/* What every box of one run shares: the key schedule. */
typedef struct des_job {
    long lanes;
    des_key_schedule ks;
} des_job;

typedef struct round_box {
    const des_job *job;
    unsigned round;
} round_box;

/* gen ({msg} -> {data, <lane>}): the message's bytes as blocks; the input's
 * <idx> is inherited. */
static int des_gen(snet_handle *h, snet_record *in)
{
    const des_job *job = snet_handle_user(h);
    const chunk *bytes = snet_record_field(in, "msg"); /* raw bytes, 8 per word */
    chunk *c = chunk_new(bytes->n);
    if (!c)
        return -1;
    for (size_t i = 0; i < bytes->n; i++)
        c->word[i] = des_load_block((const unsigned char *)&bytes->word[i]);
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "data", &CHUNK_TYPE, c);
    snet_record_set_tag(r, "lane", snet_record_tag(in, "idx") % job->lanes);
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

/* ip ({data} -> {state}) */
static int des_ip(snet_handle *h, snet_record *in)
{
    chunk *c = snet_record_take_field(in, "data");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = pack(des_initial_permutation(c->word[i]));
    return emit(h, "state", c);
}

/* roundK ({state} -> {state}) */
static int des_round_box(snet_handle *h, snet_record *in)
{
    const round_box *rb = snet_handle_user(h);
    uint64_t key = rb->job->ks.k[rb->round];
    chunk *c = snet_record_take_field(in, "state");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = pack(des_round(unpack(c->word[i]), key));
    return emit(h, "state", c);
}

/* fp ({state} -> {out}) */
static int des_fp(snet_handle *h, snet_record *in)
{
    chunk *c = snet_record_take_field(in, "state");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = des_final_permutation(unpack(c->word[i]));
    return emit(h, "out", c);
}

typedef struct des_app {
    long kilobytes, lanes, messages;
    uint64_t key;
    des_job job;
    round_box rounds[DES_ROUNDS];
    size_t len;                 /* bytes in all messages */
    size_t *offset;             /* message i is bytes [offset[i], offset[i+1]) */
    const unsigned char *input; /* the current run's input and output */
    unsigned char *output;
    long next, got, bad;        /* generator position; outputs taken; bad outputs */
} des_app;

static snet_net *des_build(void *arg)
{
    des_app *app = arg;
    /* snet_box keeps the name pointer: string literals outlive the run. */
    static const char *const names[DES_ROUNDS] = {
        "des.round1", "des.round2", "des.round3", "des.round4", "des.round5", "des.round6",
        "des.round7", "des.round8", "des.round9", "des.round10", "des.round11", "des.round12",
        "des.round13", "des.round14", "des.round15", "des.round16"};
    snet_net *pipe = snet_box("des.fp", "{state} -> {out}", des_fp, NULL);
    for (int r = DES_ROUNDS - 1; r >= 0; r--) {
        app->rounds[r] = (round_box){&app->job, (unsigned)r};
        pipe = snet_serial(snet_box(names[r], "{state} -> {state}", des_round_box, &app->rounds[r]),
                           pipe);
    }
    pipe = snet_serial(snet_box("des.ip", "{data} -> {state}", des_ip, NULL), pipe);
    return snet_serial(snet_box("des.gen", "{msg} -> {data, <lane>}", des_gen, &app->job),
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

/* Run the network over input into output; 0 or -1 (message printed). */
static int run_network(des_app *app, const app_ctx *ctx, bool monitored,
                       const unsigned char *input, unsigned char *output)
{
    app->input = input;
    app->output = output;
    app->next = app->got = app->bad = 0;
    if (app_run_network(ctx, monitored, next_message, app, take_message, app) != 0)
        return -1;
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

/* Message lengths: weights 0.5..1.5 from the index, scaled so that the
 * blocks add up to exactly the total; every message has at least one. */
static int des_finish(void *arg, const app_ctx *ctx)
{
    des_app *app = arg;
    app->messages = ctx->inputs ? ctx->inputs : ctx->paper ? 500 : 128;
    if (!app->kilobytes)
        app->kilobytes = ctx->paper ? 500 : 64;
    app->job.lanes = app->lanes;
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
    return given <= blocks ? 0 : -1;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* --check after the encryption: test vectors, sequential equality, and the
 * round trip through the network with the reversed key schedule. */
static int check(des_app *app, const app_ctx *ctx, const unsigned char *plain,
                 const unsigned char *cipher, unsigned char *back, unsigned char *ref)
{
    char err[256];
    if (des_self_test(err, sizeof err) != 0) {
        fprintf(stderr, "des: check failed: %s\n", err);
        return 1;
    }
    des_ecb(&app->job.ks, 0, plain, ref, app->len);
    if (memcmp(ref, cipher, app->len) != 0) {
        fprintf(stderr, "des: check failed: network ciphertext differs from the sequential "
                        "kernel\n");
        return 1;
    }
    des_key_schedule enc = app->job.ks;
    des_reverse_schedule(&enc, &app->job.ks);
    /* The second run is not monitored: one trace per program run. */
    int rc = run_network(app, ctx, false, cipher, back);
    app->job.ks = enc;
    if (rc != 0)
        return 1;
    if (memcmp(back, plain, app->len) != 0) {
        fprintf(stderr, "des: check failed: decrypt(encrypt(x)) != x\n");
        return 1;
    }
    printf("des: check passed (test vectors, sequential equality, round trip)\n");
    return 0;
}

static int des_run(void *arg, const app_ctx *ctx)
{
    des_app *app = arg;
    size_t len = app->len;
    unsigned char *plain = malloc(len), *cipher = malloc(len), *back = malloc(len),
                  *ref = malloc(len);
    int status = 1;
    if (!plain || !cipher || !back || !ref) {
        fprintf(stderr, "des: out of memory for %zu bytes\n", len);
        goto out;
    }
    for (size_t i = 0; i < len; i++)
        plain[i] = (unsigned char)((i * 2654435761u) >> 13);
    des_make_schedule(app->key, &app->job.ks);
    if (run_network(app, ctx, true, plain, cipher) != 0)
        goto out;
    printf("des: encrypted %ld messages, %zu bytes in all, in %ld lanes: checksum %016llx\n",
           app->messages, len, app->lanes, (unsigned long long)fnv1a(cipher, len));
    status = ctx->check ? check(app, ctx, plain, cipher, back, ref) : 0;
out:
    free(plain);
    free(cipher);
    free(back);
    free(ref);
    free(app->offset);
    return status;
}

static const app_spec DES_SPEC = {
    .name = "des",
    .about = "DES (ECB) encryption of a stream of messages of generated data on the S-Net\n"
             "network  gen .. (ip .. round1 .. ... .. round16 .. fp) !! <lane>\n"
             "default: 128 messages, 64 KB in all; --paper: 500 messages, 500 KB in all (the\n"
             "paper: 500 KB)\n",
    .options = "  --kb N           kilobytes in all the messages together\n"
               "  --lanes L        parallel pipelines (default 4)\n",
    .value_options = (const char *const[]){"kb", "lanes", NULL},
    .option = des_option,
    .finish = des_finish,
    .build = des_build,
    .run = des_run,
};

int main(int argc, char **argv)
{
    des_app app = {.lanes = 4, .key = 0x133457799BBCDFF1u};
    return app_main(&DES_SPEC, argc, argv, &app);
}
