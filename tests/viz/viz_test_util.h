/*
 * viz_test_util.h - helpers the visualiser's tests share: reading PNG pixels
 * back, checking that an SVG is well-formed XML, reading files into strings.
 */
#ifndef VIZ_TEST_UTIL_H
#define VIZ_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct vt_image {
    void *surface; /* cairo_surface_t */
    const unsigned char *data;
    int width, height, stride;
} vt_image;

/* Loads a PNG; returns false if it cannot be read. */
bool vt_image_load(vt_image *img, const char *path);
void vt_image_free(vt_image *img);
/* The pixel at (x, y) as r, g, b. */
void vt_pixel(const vt_image *img, int x, int y, unsigned char rgb[3]);
/* Whether the pixel is within tol of rgb in every channel. */
bool vt_pixel_is(const vt_image *img, int x, int y, const unsigned char rgb[3], int tol);

/* Whole file as a NUL-terminated string (caller frees), NULL on error. */
char *vt_read_file(const char *path, size_t *len);
bool vt_write_file(const char *path, const char *text);
/* A fresh file name in the test's temporary directory. */
void vt_temp_path(char *buf, size_t len, const char *name);

/* Tiny XML well-formedness check: balanced, properly nested tags, quoted
 * attributes, comments/PIs/doctype skipped. Returns NULL or a message. */
const char *vt_xml_check(const char *doc);

#endif
