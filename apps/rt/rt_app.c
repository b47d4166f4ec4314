/*
 * rt_app.c - the rt application: a stream of ray-traced scenes
 * (raytrace.h) rendered by N solver instances (default 4) on the paper's
 * S-Net network
 *
 *     balance .. (solver !@ <node>)
 *
 * Each input record {scene, <idx>} asks for one scene. balance tags it
 * <node> = the solver with the least outstanding estimated work at that
 * moment; each solver subtracts a scene's estimate when it has rendered it.
 * Because balance blocks whenever the split's streams are full, its choices
 * follow the solvers' actual progress: scenes are allocated dynamically, not
 * by a fixed table (the paper: 100 scenes dynamically balanced over 4
 * solvers). The outstanding-work counters are shared by the boxes of one run
 * through the boxes' user data; they influence placement only, never a
 * result. Scenes differ in their number of spheres, so their costs and
 * latencies differ. Images are written as PPM when --images DIR is given;
 * --check renders every scene sequentially and compares checksums.
 *
 * With --mpi (mpirun -n R rt --mpi ...) solver v runs on rank v mod R (the
 * !@ placement, docs/WIRE.md); the counters live on rank 0 with balance,
 * so a solver cannot subtract from them: its image carries <node> and the
 * scene's <cost> back, and a box after the split on rank 0 settles them,
 *     balance .. (solver !@ <node>) .. settle
 * Images cross ranks through the image codec below. Only placement, never
 * an image, depends on the counters, so checksums equal a run in one
 * process.
 *
 * The same network is apps/rt/rt.snet; rt_main.c runs this file's network
 * as a C program, rt_boxlib.c makes it the box library snetrun loads for
 * the .snet file (the boxes below are exported for it by name).
 */
#include "rt_app.h"
#include "raytrace.h"

#include <errno.h>
#include <limits.h>
#include <snet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_SEED 0x5ce7e5u
#define RT_MAX_SOLVERS 64

/* Shared by the boxes of one run. */
typedef struct rt_job {
    bool distributed; /* --mpi: settle subtracts, not the solver */
    long solvers;
    unsigned width, height;
    double share;     /* of each image's rows rendered: 1, or less with --scale solver=F */
    atomic_uint_fast64_t outstanding[RT_MAX_SOLVERS]; /* estimated cost queued per solver */
    atomic_long rendered[RT_MAX_SOLVERS];             /* scenes per solver, for the report */
} rt_job;

struct rt_app {
    long scenes, width, height, solvers;
    const char *image_dir;
    long next;       /* the next scene the input generator asks for */
    long got, bad;   /* images out of the network; failures writing them */
    uint64_t *sums;  /* per scene checksum */
    rt_job job;
};

/* ---- the image field ----------------------------------------------------------- */

static void image_free(void *v)
{
    rt_image *img = v;
    if (img)
        rt_image_free(img);
    free(img);
}

static void *image_copy(const void *v)
{
    const rt_image *src = v;
    rt_image *img = malloc(sizeof *img);
    if (!img || rt_image_init(img, src->width, src->height) != 0) {
        free(img);
        return NULL;
    }
    memcpy(img->rgb, src->rgb, (size_t)src->width * src->height * 3);
    return img;
}

static int image_print(FILE *out, const void *v)
{
    const rt_image *img = v;
    return fprintf(out, "\"%ux%u image\"", img->width, img->height) < 0 ? -1 : 0;
}

static int image_parse(const char *text, size_t len, void **value)
{
    (void)text, (void)len, (void)value;
    return -1; /* images never come from text input */
}

static const snet_field_type IMAGE_TYPE = {"rtimage", image_copy, image_free, image_print,
                                           image_parse};

/* An image crosses ranks as u32 width, u32 height (host order: ranks of
 * one job share it, snet.h), then its RGB bytes. */
static int image_encode(const void *v, snet_bytes *out)
{
    const rt_image *img = v;
    uint32_t size[2] = {img->width, img->height};
    return snet_bytes_put(out, size, sizeof size) == SNET_OK &&
                   snet_bytes_put(out, img->rgb, (size_t)img->width * img->height * 3) == SNET_OK
               ? 0
               : -1;
}

static int image_decode(const void *data, size_t len, void **value)
{
    uint32_t size[2];
    if (len < sizeof size)
        return -1;
    memcpy(size, data, sizeof size);
    if (size[0] < 1 || size[1] < 1 || size[0] > 8192 || size[1] > 8192 ||
        len != sizeof size + (size_t)size[0] * size[1] * 3)
        return -1;
    rt_image *img = malloc(sizeof *img);
    if (!img || rt_image_init(img, size[0], size[1]) != 0) {
        free(img);
        return -1;
    }
    memcpy(img->rgb, (const unsigned char *)data + sizeof size, len - sizeof size);
    *value = img;
    return 0;
}

static const snet_codec IMAGE_CODEC = {&IMAGE_TYPE, image_encode, image_decode};
static const snet_codec *const RT_CODECS[] = {&IMAGE_CODEC, NULL};

/* ---- boxes ----------------------------------------------------------------- */

static long least_loaded(rt_job *job)
{
    long best = 0;
    uint_fast64_t best_load = atomic_load(&job->outstanding[0]);
    for (long s = 1; s < job->solvers; s++) {
        uint_fast64_t load = atomic_load(&job->outstanding[s]);
        if (load < best_load) {
            best = s;
            best_load = load;
        }
    }
    return best;
}

/* balance ({scene} -> {scene, <node>}) */
int rt_balance(snet_handle *h, snet_record *in)
{
    rt_job *job = &((rt_app *)snet_handle_user(h))->job;
    long i = snet_record_int(in, "scene");
    rt_scene s;
    rt_scene_generate(&s, (unsigned)i, RT_SEED);
    long node = least_loaded(job);
    atomic_fetch_add(&job->outstanding[node], rt_scene_cost(&s, job->width, job->height));
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "scene", i);
    snet_record_set_tag(r, "node", node);
    return snet_out(h, r);
}

/* solver ({scene, <node>} -> {img}); the input's <idx> is inherited */
int rt_solver(snet_handle *h, snet_record *in)
{
    rt_job *job = &((rt_app *)snet_handle_user(h))->job;
    long i = snet_record_int(in, "scene"), node = snet_record_tag(in, "node");
    rt_scene s;
    rt_scene_generate(&s, (unsigned)i, RT_SEED);
    rt_image *img = malloc(sizeof *img);
    if (!img || rt_image_init(img, job->width, job->height) != 0) {
        free(img);
        return -1;
    }
    rt_render_share(&s, img, job->share);
    uint64_t cost = rt_scene_cost(&s, job->width, job->height);
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "img", &IMAGE_TYPE, img);
    if (job->distributed) { /* settle, on rank 0, subtracts */
        snet_record_set_tag(out, "node", node);
        snet_record_set_tag(out, "cost", (long)cost);
    } else {
        atomic_fetch_sub(&job->outstanding[node], cost);
        atomic_fetch_add(&job->rendered[node], 1);
    }
    return snet_out(h, out);
}

/* settle ({img, <node>, <cost>} -> {img}): with --mpi, on rank 0 */
static int rt_settle(snet_handle *h, snet_record *in)
{
    rt_job *job = &((rt_app *)snet_handle_user(h))->job;
    long node = snet_record_tag(in, "node");
    atomic_fetch_sub(&job->outstanding[node], (uint_fast64_t)snet_record_tag(in, "cost"));
    atomic_fetch_add(&job->rendered[node], 1);
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "img", &IMAGE_TYPE, image_copy(snet_record_field(in, "img")));
    return snet_out(h, out);
}

static snet_net *rt_build(void *arg)
{
    rt_app *app = arg;
    snet_net *balance = snet_box("rt.balance", "{scene} -> {scene, <node>}", rt_balance, app);
    if (!app->job.distributed) {
        snet_net *solver = snet_box("rt.solver", "{scene, <node>} -> {img}", rt_solver, app);
        return snet_serial(balance, snet_split_at(solver, "<node>"));
    }
    snet_net *solver =
        snet_box("rt.solver", "{scene, <node>} -> {img, <node>, <cost>}", rt_solver, app);
    return snet_serial(balance,
                       snet_serial(snet_split_at(solver, "<node>"),
                                   snet_box("rt.settle", "{img, <node>, <cost>} -> {img}",
                                            rt_settle, app)));
}

/* ---- running ------------------------------------------------------------------ */

/* Write img as DIR/scene<idx>.ppm; 0 or -1 (message printed). */
static int write_image(const char *dir, long idx, const rt_image *img)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/scene%03ld.ppm", dir, idx);
    if (rt_image_write_ppm(img, path) != 0) {
        fprintf(stderr, "rt: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static snet_record *next_scene(void *arg)
{
    rt_app *app = arg;
    if (app->next >= app->scenes)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "scene", app->next);
    snet_record_set_tag(r, "idx", app->next);
    app->next++;
    return r;
}

static void take_image(void *arg, snet_record *o)
{
    rt_app *app = arg;
    const rt_image *img = snet_record_field(o, "img");
    long idx = snet_record_tag(o, "idx");
    if (img && idx >= 0 && idx < app->scenes) {
        app->sums[idx] = rt_image_checksum(img);
        app->got++;
        if (app->image_dir && write_image(app->image_dir, idx, img) != 0)
            app->bad++;
    }
    snet_record_free(o);
}

/* FNV-1a over the per-scene checksums in scene order. */
static uint64_t combine(const uint64_t *sums, long n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (long i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++)
            h = (h ^ ((sums[i] >> (8 * b)) & 0xffu)) * 0x100000001b3u;
    return h;
}

static int check_sequential(const rt_app *app)
{
    rt_image img;
    if (rt_image_init(&img, (unsigned)app->width, (unsigned)app->height) != 0) {
        fprintf(stderr, "rt: check failed: out of memory\n");
        return 1;
    }
    int status = 0;
    for (long i = 0; i < app->scenes && !status; i++) {
        rt_scene s;
        rt_scene_generate(&s, (unsigned)i, RT_SEED);
        memset(img.rgb, 0, (size_t)img.width * img.height * 3);
        rt_render_share(&s, &img, app->job.share);
        if (rt_image_checksum(&img) != app->sums[i]) {
            fprintf(stderr, "rt: check failed: scene %ld checksum %016llx, sequential %016llx\n",
                    i, (unsigned long long)app->sums[i],
                    (unsigned long long)rt_image_checksum(&img));
            status = 1;
        }
    }
    rt_image_free(&img);
    if (!status)
        printf("rt: check passed (every image equals the sequential rendering)\n");
    return status;
}

/* ---- command line ---------------------------------------------------------- */

static int parse_size(const char *v, rt_app *app)
{
    unsigned w, hgt;
    char extra;
    if (!v || sscanf(v, "%ux%u%c", &w, &hgt, &extra) != 2 || w < 1 || hgt < 1 || w > 8192 ||
        hgt > 8192) {
        fprintf(stderr, "rt: --size expects WxH (1..8192 each), got '%s'\n", v ? v : "(nothing)");
        return -1;
    }
    app->width = w;
    app->height = hgt;
    return 0;
}

static int rt_option(void *arg, const char *flag, const char *value)
{
    rt_app *app = arg;
    if (!strcmp(flag, "--size"))
        return parse_size(value, app) == 0 ? 2 : -1;
    if (!strcmp(flag, "--images")) {
        if (!value) {
            fprintf(stderr, "rt: --images expects a directory\n");
            return -1;
        }
        app->image_dir = value;
        return 2;
    }
    if (!strcmp(flag, "--solvers"))
        return app_parse_long("rt", flag, value, 1, RT_MAX_SOLVERS, &app->solvers) == 0 ? 2 : -1;
    return 0;
}

static int rt_finish(void *arg, const app_ctx *ctx)
{
    rt_app *app = arg;
    app->scenes = ctx->inputs ? ctx->inputs : ctx->paper ? 100 : 32;
    if (!app->width) {
        app->width = ctx->paper ? 320 : 160;
        app->height = ctx->paper ? 240 : 120;
    }
    app->job.solvers = app->solvers;
    app->job.distributed = ctx->mpi;
    app->job.width = (unsigned)app->width;
    app->job.height = (unsigned)app->height;
    app->job.share = app_scale_of(ctx, "solver");
    app->sums = calloc((size_t)app->scenes, sizeof *app->sums);
    if (!app->sums) {
        fprintf(stderr, "rt: out of memory for %ld scenes\n", app->scenes);
        return -1;
    }
    return 0;
}

static int rt_report(void *arg, const app_ctx *ctx, int run)
{
    rt_app *app = arg;
    int status = 1;
    if (run != 0 || app->bad)
        goto out;
    if (ctx->rank != 0) { /* --mpi: the images are on rank 0 */
        status = 0;
        goto out;
    }
    if (app->got != app->scenes) {
        fprintf(stderr, "rt: expected %ld images out of the network, got %ld\n", app->scenes,
                app->got);
        goto out;
    }
    printf("rt: %ld scenes %ldx%ld by %ld solvers: checksum %016llx; scenes per solver:",
           app->scenes, app->width, app->height, app->solvers,
           (unsigned long long)combine(app->sums, app->scenes));
    for (long s = 0; s < app->solvers; s++)
        printf(" %ld", (long)atomic_load(&app->job.rendered[s]));
    printf("\n");
    status = ctx->check ? check_sequential(app) : 0;
out:
    free(app->sums);
    return status;
}

/* The defaults before the options. */
static void rt_init(void *arg) { ((rt_app *)arg)->solvers = 4; }

const app_spec rt_app_spec = {
    .name = "rt",
    .about = RT_ABOUT,
    .options = RT_OPTIONS_HELP,
    .value_options = (const char *const[]){"solvers", "size", "images", NULL},
    .size = sizeof(rt_app),
    .init = rt_init,
    .option = rt_option,
    .finish = rt_finish,
    .build = rt_build,
    .input = next_scene,
    .output = take_image,
    .report = rt_report,
    .mpi = true,
    .codecs = RT_CODECS,
    .scalable = (const char *const[]){"solver", NULL},
};
