/*
 * raytrace.c - the rendering kernel of the rt application (see
 * raytrace.h): scene generation, ray-sphere and ray-plane intersection,
 * Lambert shading with shadow rays, and recursive mirror reflection.
 *
 * Why so plain: the benchmark needs a real, deterministic, CPU-bound
 * computation whose result can be checked bit for bit against a sequential
 * run, not a fast renderer. Everything is a pure function of the scene.
 */
#include "raytrace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- vectors --------------------------------------------------------------- */

static rt_vec v(double x, double y, double z) { return (rt_vec){x, y, z}; }
static rt_vec add(rt_vec a, rt_vec b) { return v(a.x + b.x, a.y + b.y, a.z + b.z); }
static rt_vec sub(rt_vec a, rt_vec b) { return v(a.x - b.x, a.y - b.y, a.z - b.z); }
static rt_vec scale(rt_vec a, double k) { return v(a.x * k, a.y * k, a.z * k); }
static rt_vec mul(rt_vec a, rt_vec b) { return v(a.x * b.x, a.y * b.y, a.z * b.z); }
static double dot(rt_vec a, rt_vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static rt_vec cross(rt_vec a, rt_vec b)
{
    return v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static rt_vec normalize(rt_vec a)
{
    double len = sqrt(dot(a, a));
    return len > 0 ? scale(a, 1.0 / len) : a;
}

/* ---- scenes ---------------------------------------------------------------- */

static uint64_t mix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (double)(mix(state) >> 11) * (1.0 / 9007199254740992.0);
}

void rt_scene_generate(rt_scene *s, unsigned index, uint64_t seed)
{
    uint64_t st = seed ^ ((uint64_t)index * 0xd1b54a32d192ed03u);
    memset(s, 0, sizeof *s); /* unused slots too, so scenes compare bytewise */
    s->index = index;
    /* 4..RT_MAX_SPHERES spheres: cost varies by an order of magnitude. */
    s->num_spheres = 4 + (unsigned)(mix(&st) % (RT_MAX_SPHERES - 3));
    for (unsigned i = 0; i < s->num_spheres; i++) {
        rt_sphere *sp = &s->spheres[i];
        sp->radius = uniform(&st, 0.25, 1.0);
        sp->center = v(uniform(&st, -4, 4), sp->radius, uniform(&st, -4, 4));
        sp->color = v(uniform(&st, 0.2, 1), uniform(&st, 0.2, 1), uniform(&st, 0.2, 1));
        sp->reflect = (mix(&st) % 3 == 0) ? uniform(&st, 0.3, 0.8) : 0.0;
    }
    s->num_lights = 1 + (unsigned)(mix(&st) % RT_MAX_LIGHTS);
    for (unsigned i = 0; i < s->num_lights; i++)
        s->lights[i] = v(uniform(&st, -6, 6), uniform(&st, 4, 9), uniform(&st, -6, 6));
    double angle = uniform(&st, 0, 6.283185307179586);
    s->eye = v(9 * cos(angle), uniform(&st, 2, 5), 9 * sin(angle));
    s->look_at = v(0, 0.5, 0);
}

uint64_t rt_scene_cost(const rt_scene *s, unsigned width, unsigned height)
{
    return (uint64_t)width * height * (s->num_spheres + 1) * (s->num_lights + 1);
}

/* ---- intersection ---------------------------------------------------------- */

#define RT_EPS 1e-6
#define RT_FAR 1e30
#define RT_MAX_DEPTH 4

typedef struct hit {
    double t;
    int sphere; /* -1: the ground plane y = 0; -2: nothing */
} hit;

static double sphere_distance(const rt_sphere *sp, rt_vec origin, rt_vec dir)
{
    rt_vec oc = sub(origin, sp->center);
    double b = dot(oc, dir), c = dot(oc, oc) - sp->radius * sp->radius;
    double disc = b * b - c;
    if (disc < 0)
        return RT_FAR;
    double root = sqrt(disc), t = -b - root;
    if (t > RT_EPS)
        return t;
    t = -b + root;
    return t > RT_EPS ? t : RT_FAR;
}

static hit nearest(const rt_scene *s, rt_vec origin, rt_vec dir)
{
    hit h = {RT_FAR, -2};
    if (dir.y < -RT_EPS) {
        double t = -origin.y / dir.y;
        if (t > RT_EPS)
            h = (hit){t, -1};
    }
    for (unsigned i = 0; i < s->num_spheres; i++) {
        double t = sphere_distance(&s->spheres[i], origin, dir);
        if (t < h.t)
            h = (hit){t, (int)i};
    }
    return h;
}

static int in_shadow(const rt_scene *s, rt_vec point, rt_vec to_light, double light_dist)
{
    for (unsigned i = 0; i < s->num_spheres; i++)
        if (sphere_distance(&s->spheres[i], point, to_light) < light_dist)
            return 1;
    return 0;
}

/* ---- shading --------------------------------------------------------------- */

static rt_vec sky(rt_vec dir)
{
    double k = 0.5 * (dir.y + 1.0);
    return add(scale(v(1, 1, 1), 1 - k), scale(v(0.5, 0.7, 1.0), k));
}

static rt_vec checker(rt_vec p)
{
    int parity = ((int)floor(p.x) + (int)floor(p.z)) & 1;
    return parity ? v(0.9, 0.9, 0.9) : v(0.25, 0.25, 0.3);
}

static rt_vec trace(const rt_scene *s, rt_vec origin, rt_vec dir, int depth);

static rt_vec shade(const rt_scene *s, rt_vec point, rt_vec normal, rt_vec base, double reflect,
                    rt_vec dir, int depth)
{
    rt_vec color = scale(base, 0.1); /* ambient */
    for (unsigned i = 0; i < s->num_lights; i++) {
        rt_vec to_light = sub(s->lights[i], point);
        double dist = sqrt(dot(to_light, to_light));
        to_light = scale(to_light, 1.0 / dist);
        double lambert = dot(normal, to_light);
        if (lambert > 0 && !in_shadow(s, point, to_light, dist))
            color = add(color, scale(base, lambert * 0.9 / s->num_lights));
    }
    if (reflect > 0 && depth < RT_MAX_DEPTH) {
        rt_vec r = sub(dir, scale(normal, 2 * dot(dir, normal)));
        color = add(scale(color, 1 - reflect), scale(trace(s, point, r, depth + 1), reflect));
    }
    return color;
}

static rt_vec trace(const rt_scene *s, rt_vec origin, rt_vec dir, int depth)
{
    hit h = nearest(s, origin, dir);
    if (h.sphere == -2)
        return sky(dir);
    rt_vec point = add(origin, scale(dir, h.t));
    if (h.sphere == -1)
        return shade(s, point, v(0, 1, 0), checker(point), 0.2, dir, depth);
    const rt_sphere *sp = &s->spheres[h.sphere];
    rt_vec normal = normalize(sub(point, sp->center));
    return mul(shade(s, point, normal, v(1, 1, 1), sp->reflect, dir, depth), sp->color);
}

static unsigned char to_byte(double c)
{
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return (unsigned char)lround(255.0 * sqrt(c)); /* gamma 2 */
}

void rt_render(const rt_scene *s, rt_image *img) { rt_render_share(s, img, 1.0); }

void rt_render_share(const rt_scene *s, rt_image *img, double share)
{
    rt_vec forward = normalize(sub(s->look_at, s->eye));
    rt_vec right = normalize(cross(forward, v(0, 1, 0)));
    rt_vec up = cross(right, forward);
    double aspect = (double)img->width / img->height, half = 0.6;
    for (unsigned y = 0; y < img->height; y++) {
        if (share < 1 && floor((y + 1) * share) == floor(y * share))
            continue;
        for (unsigned x = 0; x < img->width; x++) {
            double u = (2.0 * (x + 0.5) / img->width - 1.0) * half * aspect;
            double w = (1.0 - 2.0 * (y + 0.5) / img->height) * half;
            rt_vec dir = normalize(add(forward, add(scale(right, u), scale(up, w))));
            rt_vec c = trace(s, s->eye, dir, 0);
            unsigned char *px = img->rgb + 3 * ((size_t)y * img->width + x);
            px[0] = to_byte(c.x);
            px[1] = to_byte(c.y);
            px[2] = to_byte(c.z);
        }
    }
}

/* ---- images ---------------------------------------------------------------- */

int rt_image_init(rt_image *img, unsigned width, unsigned height)
{
    img->width = width;
    img->height = height;
    img->rgb = calloc((size_t)width * height * 3 + 1, 1);
    return img->rgb ? 0 : -1;
}

void rt_image_free(rt_image *img)
{
    free(img->rgb);
    img->rgb = NULL;
}

uint64_t rt_image_checksum(const rt_image *img)
{
    uint64_t h = 0xcbf29ce484222325u;
    unsigned dims[2] = {img->width, img->height};
    const unsigned char *d = (const unsigned char *)dims;
    for (size_t i = 0; i < sizeof dims; i++)
        h = (h ^ d[i]) * 0x100000001b3u;
    size_t n = (size_t)img->width * img->height * 3;
    for (size_t i = 0; i < n; i++)
        h = (h ^ img->rgb[i]) * 0x100000001b3u;
    return h;
}

int rt_image_write_ppm(const rt_image *img, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = (size_t)img->width * img->height * 3;
    int ok = fprintf(f, "P6\n%u %u\n255\n", img->width, img->height) > 0 &&
             fwrite(img->rgb, 1, n, f) == n;
    int saved = errno;
    if (fclose(f) != 0 || !ok) {
        errno = ok ? errno : saved;
        return -1;
    }
    return 0;
}
