/*
 * rt_main.c - the rt application: S ray-traced scenes (raytrace.h) rendered
 * by N solver instances (default 4) on the S-Net network
 *
 *     balance .. (solver !@ <node>)
 *
 * balance emits one request per scene tagged <node> = the solver with the
 * least outstanding estimated work at that moment; each solver subtracts a
 * scene's estimate when it has rendered it. Because balance blocks whenever
 * the split's streams are full, its choices follow the solvers' actual
 * progress: scenes are allocated dynamically, not by a fixed table. (The
 * outstanding-work counters are shared by the boxes of one run through the
 * boxes' user data; they influence placement only, never a result.)
 * Images are written as PPM when --images DIR is given; --check renders
 * every scene sequentially and compares checksums.
 */
#include "app_main.h"

#include <limits.h>
#include "raytrace.h"

#include <mon.h>
#include <snet.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_SEED 0x5ce7e5u
#define RT_MAX_SOLVERS 64

typedef struct rt_app {
    long scenes, width, height, solvers;
    unsigned workers;
    int pin_solvers; /* 1: solver v on worker v (!@), 0: the mapper decides (!) */
    const char *image_dir;
    int check;
} rt_app;

/* Shared by the boxes of one run. */
typedef struct rt_job {
    long scenes, solvers;
    unsigned width, height;
    atomic_uint_fast64_t outstanding[RT_MAX_SOLVERS]; /* estimated cost queued per solver */
    atomic_long rendered[RT_MAX_SOLVERS];             /* scenes per solver, for the report */
} rt_job;

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

/* balance ({go} -> {scene, <node>}) */
static int balance_box(snet_handle *h, snet_record *in)
{
    (void)in;
    rt_job *job = snet_handle_user(h);
    for (long i = 0; i < job->scenes; i++) {
        rt_scene s;
        rt_scene_generate(&s, (unsigned)i, RT_SEED);
        long node = least_loaded(job);
        atomic_fetch_add(&job->outstanding[node], rt_scene_cost(&s, job->width, job->height));
        snet_record *r = snet_record_new();
        snet_record_set_int(r, "scene", i);
        snet_record_set_tag(r, "node", node);
        if (snet_out(h, r) != SNET_OK)
            return -1;
    }
    return 0;
}

/* solver ({scene, <node>} -> {img, <idx>}) */
static int solver_box(snet_handle *h, snet_record *in)
{
    rt_job *job = snet_handle_user(h);
    long i = snet_record_int(in, "scene"), node = snet_record_tag(in, "node");
    rt_scene s;
    rt_scene_generate(&s, (unsigned)i, RT_SEED);
    rt_image *img = malloc(sizeof *img);
    if (!img || rt_image_init(img, job->width, job->height) != 0) {
        free(img);
        return -1;
    }
    rt_render(&s, img);
    atomic_fetch_sub(&job->outstanding[node], rt_scene_cost(&s, job->width, job->height));
    atomic_fetch_add(&job->rendered[node], 1);
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "img", &IMAGE_TYPE, img);
    snet_record_set_tag(out, "idx", i);
    return snet_out(h, out);
}

static snet_net *build_net(rt_job *job, int pin_solvers)
{
    snet_net *solver = snet_box("rt.solver", "{scene, <node>} -> {img, <idx>}", solver_box, job);
    snet_net *solvers = pin_solvers ? snet_split_at(solver, "<node>") : snet_split(solver, "<node>");
    return snet_serial(snet_box("rt.balance", "{go} -> {scene, <node>}", balance_box, job),
                       solvers);
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

/* Run the network; per-scene checksums into sums[scenes]. */
static int run_network(rt_job *job, const rt_app *app, const lpel_hooks *hooks, uint64_t *sums)
{
    snet_net *net = build_net(job, app->pin_solvers);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = app->workers;
    cfg.lpel.hooks = hooks;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "rt: %s\n", err);
        snet_net_free(net);
        return -1;
    }
    snet_record *go = snet_record_new();
    snet_record_set_int(go, "go", 1);
    snet_run_put(run, go);
    int rc = snet_run_execute(run), bad = 0;
    long got = 0;
    if (rc != SNET_OK)
        fprintf(stderr, "rt: run failed: %s\n", snet_run_error(run));
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o)) {
        const rt_image *img = snet_record_field(o, "img");
        long idx = snet_record_tag(o, "idx");
        if (!img || idx < 0 || idx >= job->scenes)
            continue;
        sums[idx] = rt_image_checksum(img);
        got++;
        if (app->image_dir && write_image(app->image_dir, idx, img) != 0)
            bad = 1;
    }
    snet_run_destroy(run);
    snet_net_free(net);
    if (rc == SNET_OK && got != job->scenes) {
        fprintf(stderr, "rt: expected %ld images out of the network, got %ld\n", job->scenes, got);
        return -1;
    }
    return rc == SNET_OK && !bad ? 0 : -1;
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

static int check_sequential(const rt_job *job, const uint64_t *sums)
{
    rt_image img;
    if (rt_image_init(&img, job->width, job->height) != 0) {
        fprintf(stderr, "rt: check failed: out of memory\n");
        return 1;
    }
    int status = 0;
    for (long i = 0; i < job->scenes && !status; i++) {
        rt_scene s;
        rt_scene_generate(&s, (unsigned)i, RT_SEED);
        rt_render(&s, &img);
        if (rt_image_checksum(&img) != sums[i]) {
            fprintf(stderr, "rt: check failed: scene %ld checksum %016llx, sequential %016llx\n", i,
                    (unsigned long long)sums[i], (unsigned long long)rt_image_checksum(&img));
            status = 1;
        }
    }
    rt_image_free(&img);
    if (!status)
        printf("rt: check passed (every image equals the sequential rendering)\n");
    return status;
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rt [options]\n"
            "Ray tracing of S scenes by N solver instances with dynamic load balancing on\n"
            "the S-Net network  balance .. (solver !@ <node>)\n"
            "\n"
            "  -w N             workers (default: one per core)\n"
            "  --scenes S       scenes (default 24; --paper: 100)\n"
            "  --solvers N      solver instances (default 4, at most 64)\n"
            "  --size WxH       image size (default 320x240)\n"
            "  --images DIR     write each image as DIR/sceneNNN.ppm\n"
            "  --paper          the paper's size (100 scenes)\n"
            "  --map @auto      let the mapper place the solvers (! instead of !@)\n"
            "  --check          compare every image's checksum with a sequential rendering\n"
            MON_OPTIONS_HELP
            "  --help           this text\n");
}

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

/* 0 ok, 1 help shown, -1 usage error (message printed). */
static int parse(int argc, char **argv, rt_app *app)
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
            app->scenes = 100;
        } else if (!strcmp(a, "--size")) {
            if (parse_size(v, app) != 0)
                return -1;
            i++;
        } else if (!strcmp(a, "--images")) {
            if (!v) {
                fprintf(stderr, "rt: --images expects a directory\n");
                return -1;
            }
            app->image_dir = v;
            i++;
        } else if (!strcmp(a, "--map")) {
            if (!v || strcmp(v, "@auto")) {
                fprintf(stderr, "rt: --map expects @auto (map files are not supported), got '%s'\n",
                        v ? v : "(nothing)");
                return -1;
            }
            app->pin_solvers = 0;
            i++;
        } else if (!strcmp(a, "-w") || !strcmp(a, "--scenes") || !strcmp(a, "--solvers")) {
            long max = !strcmp(a, "--solvers") ? RT_MAX_SOLVERS : 1000000;
            if (app_parse_long("rt", a, v, 1, max, &n) != 0)
                return -1;
            i++;
            if (!strcmp(a, "-w"))
                app->workers = (unsigned)n;
            else if (!strcmp(a, "--scenes"))
                app->scenes = n;
            else
                app->solvers = n;
        } else {
            fprintf(stderr, "rt: unknown option '%s' (see rt --help)\n", a);
            return -1;
        }
    }
    return 0;
}

static int run_app(const rt_app *app, const lpel_hooks *hooks)
{
    rt_job *job = calloc(1, sizeof *job);
    uint64_t *sums = calloc((size_t)app->scenes, sizeof *sums);
    int status = 1;
    if (!job || !sums) {
        fprintf(stderr, "rt: out of memory\n");
        goto out;
    }
    job->scenes = app->scenes;
    job->solvers = app->solvers;
    job->width = (unsigned)app->width;
    job->height = (unsigned)app->height;
    if (run_network(job, app, hooks, sums) != 0)
        goto out;
    printf("rt: %ld scenes %ldx%ld by %ld solvers: checksum %016llx; scenes per solver:",
           app->scenes, app->width, app->height, app->solvers,
           (unsigned long long)combine(sums, app->scenes));
    for (long s = 0; s < app->solvers; s++)
        printf(" %ld", (long)atomic_load(&job->rendered[s]));
    printf("\n");
    status = app->check ? check_sequential(job, sums) : 0;
out:
    free(job);
    free(sums);
    return status;
}

static int parse_rt(int argc, char **argv, void *app) { return parse(argc, argv, app); }
static int run_rt(void *app, const lpel_hooks *hooks) { return run_app(app, hooks); }

int main(int argc, char **argv)
{
    rt_app app = {.scenes = 24, .width = 320, .height = 240, .solvers = 4, .workers = 0,
                  .pin_solvers = 1, .image_dir = NULL, .check = 0};
    return app_main("rt", argc, argv, &app, parse_rt, run_rt);
}
