/*
 * des_main.c - the des application: DES (ECB) encryption of N KB as an
 * S-Net pipeline of boxes, with blocks processed in parallel:
 *
 *     gen .. (ip .. round1 .. ... .. round16 .. fp) !! <lane>
 *
 * gen cuts the input into chunks of B blocks tagged <lane> = chunk mod L;
 * each lane is its own replica of the 18-box pipeline (initial permutation,
 * 16 Feistel rounds, final permutation), and the deterministic split puts
 * the chunks back in order. --check runs the network a second time with the
 * reversed key schedule to decrypt, and compares both results with the
 * sequential kernel and the plaintext, after the published test vectors.
 */
#include "app_main.h"

#include <limits.h>
#include "des.h"

#include <mon.h>
#include <snet.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct des_app {
    long kilobytes, chunk_blocks, lanes;
    unsigned workers;
    int lane_worker; /* -1: default; else every lane pinned to lane mod workers */
    int check;
    uint64_t key;
} des_app;

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

/* What every box of one run shares: the input and the key schedule. */
typedef struct des_job {
    const unsigned char *input;
    size_t len; /* multiple of 8 */
    long chunk_blocks, lanes;
    des_key_schedule ks;
    unsigned char *output;
} des_job;

typedef struct round_box {
    const des_job *job;
    unsigned round;
} round_box;

/* gen ({go} -> {data, <idx>, <lane>}) */
static int gen_box(snet_handle *h, snet_record *in)
{
    (void)in;
    const des_job *job = snet_handle_user(h);
    size_t blocks = job->len / 8, per = (size_t)job->chunk_blocks;
    for (size_t first = 0, idx = 0; first < blocks; first += per, idx++) {
        size_t n = blocks - first < per ? blocks - first : per;
        chunk *c = chunk_new(n);
        if (!c)
            return -1;
        for (size_t i = 0; i < n; i++)
            c->word[i] = des_load_block(job->input + 8 * (first + i));
        snet_record *r = snet_record_new();
        snet_record_set_field(r, "data", &CHUNK_TYPE, c);
        snet_record_set_tag(r, "idx", (long)idx);
        snet_record_set_tag(r, "lane", (long)(idx % (size_t)job->lanes));
        if (snet_out(h, r) != SNET_OK)
            return -1;
    }
    return 0;
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
static int ip_box(snet_handle *h, snet_record *in)
{
    chunk *c = snet_record_take_field(in, "data");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = pack(des_initial_permutation(c->word[i]));
    return emit(h, "state", c);
}

/* roundK ({state} -> {state}) */
static int round_box_fn(snet_handle *h, snet_record *in)
{
    const round_box *rb = snet_handle_user(h);
    uint64_t key = rb->job->ks.k[rb->round];
    chunk *c = snet_record_take_field(in, "state");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = pack(des_round(unpack(c->word[i]), key));
    return emit(h, "state", c);
}

/* fp ({state} -> {out}) */
static int fp_box(snet_handle *h, snet_record *in)
{
    chunk *c = snet_record_take_field(in, "state");
    for (size_t i = 0; i < c->n; i++)
        c->word[i] = des_final_permutation(unpack(c->word[i]));
    return emit(h, "out", c);
}

static snet_net *build_net(des_job *job, round_box boxes[DES_ROUNDS], int lane_worker)
{
    snet_net *pipe = snet_box("des.fp", "{state} -> {out}", fp_box, NULL);
    for (int r = DES_ROUNDS - 1; r >= 0; r--) {
        boxes[r] = (round_box){job, (unsigned)r};
        /* snet_box keeps the name pointer: string literals outlive the run. */
        static const char *const names[DES_ROUNDS] = {
            "des.round1", "des.round2", "des.round3", "des.round4", "des.round5",
            "des.round6", "des.round7", "des.round8", "des.round9", "des.round10",
            "des.round11", "des.round12", "des.round13", "des.round14", "des.round15",
            "des.round16"};
        pipe = snet_serial(snet_box(names[r], "{state} -> {state}", round_box_fn, &boxes[r]), pipe);
    }
    pipe = snet_serial(snet_box("des.ip", "{data} -> {state}", ip_box, NULL), pipe);
    snet_net *lanes = lane_worker >= 0 ? snet_split_at(pipe, "<lane>") : snet_split_det(pipe, "<lane>");
    return snet_serial(snet_box("des.gen", "{go} -> {data, <idx>, <lane>}", gen_box, job), lanes);
}

/* Run the network over job->input into job->output. */
static int run_network(des_job *job, const des_app *app, const lpel_hooks *hooks)
{
    round_box boxes[DES_ROUNDS];
    snet_net *net = build_net(job, boxes, app->lane_worker);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = app->workers;
    cfg.lpel.hooks = hooks;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "des: %s\n", err);
        snet_net_free(net);
        return -1;
    }
    snet_record *go = snet_record_new();
    snet_record_set_int(go, "go", 1);
    snet_run_put(run, go);
    int rc = snet_run_execute(run);
    if (rc != SNET_OK)
        fprintf(stderr, "des: run failed: %s\n", snet_run_error(run));
    size_t chunks = 0, per = (size_t)job->chunk_blocks;
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o)) {
        const chunk *c = snet_record_field(o, "out");
        size_t idx = (size_t)snet_record_tag(o, "idx");
        if (!c || (idx * per + c->n) * 8 > job->len)
            continue;
        for (size_t i = 0; i < c->n; i++)
            des_store_block(c->word[i], job->output + 8 * (idx * per + i));
        chunks++;
    }
    snet_run_destroy(run);
    snet_net_free(net);
    size_t expected = (job->len / 8 + per - 1) / per;
    if (rc == SNET_OK && chunks != expected) {
        fprintf(stderr, "des: expected %zu chunks out of the network, got %zu\n", expected, chunks);
        return -1;
    }
    return rc == SNET_OK ? 0 : -1;
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: des [options]\n"
            "DES (ECB) encryption of N KB of generated data on the S-Net network\n"
            "  gen .. (ip .. round1 .. ... .. round16 .. fp) !! <lane>\n"
            "\n"
            "  -w N             workers (default: one per core)\n"
            "  --kb N           kilobytes to encrypt (default 64; --paper: 500)\n"
            "  --chunk B        blocks of 8 bytes per record (default 16)\n"
            "  --lanes L        parallel pipelines (default 4)\n"
            "  --paper          the paper's size (500 KB)\n"
            "  --map @lanes     run lane v on worker v mod workers (!@ <lane>)\n"
            "  --check          test vectors, then decrypt(encrypt(x)) == x through the\n"
            "                   network, and equality with the sequential kernel\n"
            MON_OPTIONS_HELP
            "  --help           this text\n");
}

/* 0 ok, 1 help shown, -1 usage error (message printed). */
static int parse(int argc, char **argv, des_app *app)
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
            app->kilobytes = 500;
        } else if (!strcmp(a, "--map")) {
            if (!v || strcmp(v, "@lanes")) {
                fprintf(stderr, "des: --map expects @lanes (map files are not supported), got '%s'\n",
                        v ? v : "(nothing)");
                return -1;
            }
            app->lane_worker = 1;
            i++;
        } else if (!strcmp(a, "-w") || !strcmp(a, "--kb") || !strcmp(a, "--chunk") ||
                   !strcmp(a, "--lanes")) {
            if (app_parse_long("des", a, v, 1, LONG_MAX, &n) != 0)
                return -1;
            i++;
            if (!strcmp(a, "-w"))
                app->workers = (unsigned)n;
            else if (!strcmp(a, "--kb"))
                app->kilobytes = n;
            else if (!strcmp(a, "--chunk"))
                app->chunk_blocks = n;
            else
                app->lanes = n;
        } else {
            fprintf(stderr, "des: unknown option '%s' (see des --help)\n", a);
            return -1;
        }
    }
    return 0;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* Encrypt (and with --check decrypt and compare); the exit status. */
static int run_app(const des_app *app, const lpel_hooks *hooks)
{
    char err[256];
    if (app->check && des_self_test(err, sizeof err) != 0) {
        fprintf(stderr, "des: check failed: %s\n", err);
        return 1;
    }
    size_t len = (size_t)app->kilobytes * 1024;
    unsigned char *plain = malloc(len), *cipher = malloc(len), *back = malloc(len),
                  *ref = malloc(len);
    int status = 1;
    if (!plain || !cipher || !back || !ref) {
        fprintf(stderr, "des: out of memory for %zu bytes\n", len);
        goto out;
    }
    for (size_t i = 0; i < len; i++)
        plain[i] = (unsigned char)((i * 2654435761u) >> 13);
    des_job job = {.input = plain, .len = len, .chunk_blocks = app->chunk_blocks,
                   .lanes = app->lanes, .output = cipher};
    des_make_schedule(app->key, &job.ks);
    if (run_network(&job, app, hooks) != 0)
        goto out;
    printf("des: encrypted %zu bytes in %ld lanes: checksum %016llx\n", len, app->lanes,
           (unsigned long long)fnv1a(cipher, len));
    status = 0;
    if (!app->check)
        goto out;
    des_ecb(&job.ks, 0, plain, ref, len);
    des_job dec = job;
    des_reverse_schedule(&job.ks, &dec.ks);
    dec.input = cipher;
    dec.output = back;
    /* The second run is not monitored: one trace per program run. */
    if (run_network(&dec, app, NULL) != 0) {
        status = 1;
    } else if (memcmp(ref, cipher, len) != 0) {
        fprintf(stderr, "des: check failed: network ciphertext differs from the sequential kernel\n");
        status = 1;
    } else if (memcmp(back, plain, len) != 0) {
        fprintf(stderr, "des: check failed: decrypt(encrypt(x)) != x\n");
        status = 1;
    } else {
        printf("des: check passed (test vectors, sequential equality, round trip)\n");
    }
out:
    free(plain);
    free(cipher);
    free(back);
    free(ref);
    return status;
}

static int parse_des(int argc, char **argv, void *app) { return parse(argc, argv, app); }
static int run_des(void *app, const lpel_hooks *hooks) { return run_app(app, hooks); }

int main(int argc, char **argv)
{
    des_app app = {.kilobytes = 64, .chunk_blocks = 16, .lanes = 4, .workers = 0,
                   .lane_worker = -1, .check = 0, .key = 0x133457799BBCDFF1u};
    return app_main("des", argc, argv, &app, parse_des, run_des);
}
