/*
 * raytrace.h - a small Whitted-style ray tracer (spheres on a checkered
 * plane, point lights with shadows, mirror reflection) used by the rt
 * application: scene s is generated from its index, rendered into an RGB
 * image, and summarised by a checksum that --check compares with the
 * sequential rendering.
 *
 * Scenes differ in their number of spheres, so rendering times differ and
 * the network's load balancing has something to balance.
 */
#ifndef APPS_RT_RAYTRACE_H
#define APPS_RT_RAYTRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rt_vec {
    double x, y, z;
} rt_vec;

typedef struct rt_sphere {
    rt_vec center;
    double radius;
    rt_vec color;   /* diffuse colour, components in [0,1] */
    double reflect; /* mirror fraction in [0,1) */
} rt_sphere;

#define RT_MAX_SPHERES 48
#define RT_MAX_LIGHTS 3

typedef struct rt_scene {
    unsigned index;
    unsigned num_spheres, num_lights;
    rt_sphere spheres[RT_MAX_SPHERES];
    rt_vec lights[RT_MAX_LIGHTS];
    rt_vec eye, look_at;
} rt_scene;

typedef struct rt_image {
    unsigned width, height;
    unsigned char *rgb; /* width * height * 3 bytes, row-major from the top */
} rt_image;

/* Scene number `index` of a run seeded with `seed`. */
void rt_scene_generate(rt_scene *s, unsigned index, uint64_t seed);

/* The relative cost of rendering a scene (for load balancing). */
uint64_t rt_scene_cost(const rt_scene *s, unsigned width, unsigned height);

/* Allocate / free an image. rt_image_init returns 0 or -1 (out of memory). */
int rt_image_init(rt_image *img, unsigned width, unsigned height);
void rt_image_free(rt_image *img);

/* Render the whole scene into img (sized already). */
void rt_render(const rt_scene *s, rt_image *img);
/* Render only the share (0, 1] of its rows spread evenly over the image:
 * row y when floor((y + 1) share) > floor(y share) (the others stay as they
 * are), so the work shrinks with the share whatever the scene looks like. */
void rt_render_share(const rt_scene *s, rt_image *img, double share);

/* FNV-1a 64 over the dimensions and pixels. */
uint64_t rt_image_checksum(const rt_image *img);

/* Write img as binary PPM (P6). Returns 0, or -1 with errno set. */
int rt_image_write_ppm(const rt_image *img, const char *path);

#endif /* APPS_RT_RAYTRACE_H */
