/*
 * viz_test_util.c - shared helpers for the visualiser's tests (see the
 * header): pixels back from PNG files through cairo, files to strings, and a
 * small XML well-formedness checker so SVG output can be validated without
 * extra packages (libxml2 is used in addition when it is installed).
 */
#include "viz_test_util.h"

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool vt_image_load(vt_image *img, const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return false;
    }
    cairo_surface_flush(s);
    img->surface = s;
    img->data = cairo_image_surface_get_data(s);
    img->width = cairo_image_surface_get_width(s);
    img->height = cairo_image_surface_get_height(s);
    img->stride = cairo_image_surface_get_stride(s);
    return true;
}

void vt_image_free(vt_image *img)
{
    if (img->surface)
        cairo_surface_destroy(img->surface);
    img->surface = NULL;
}

void vt_pixel(const vt_image *img, int x, int y, unsigned char rgb[3])
{
    /* cairo's RGB24/ARGB32 pixels are native-endian 32-bit 0xAARRGGBB */
    uint32_t p = *(const uint32_t *)(img->data + (size_t)y * img->stride + (size_t)x * 4);
    rgb[0] = (unsigned char)(p >> 16);
    rgb[1] = (unsigned char)(p >> 8);
    rgb[2] = (unsigned char)p;
}

bool vt_pixel_is(const vt_image *img, int x, int y, const unsigned char rgb[3], int tol)
{
    unsigned char got[3];
    vt_pixel(img, x, y, got);
    for (int i = 0; i < 3; i++)
        if (abs((int)got[i] - (int)rgb[i]) > tol)
            return false;
    return true;
}

char *vt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

bool vt_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

void vt_temp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "viz_test_%d_%s", (int)getpid(), name);
}

/* Skips a quoted attribute value; returns NULL if it never ends. */
static const char *skip_quoted(const char *p)
{
    char q = *p++;
    p = strchr(p, q);
    return p ? p + 1 : NULL;
}

const char *vt_xml_check(const char *doc)
{
    enum { MAX_DEPTH = 256 };
    const char *stack[MAX_DEPTH];
    size_t lens[MAX_DEPTH];
    int depth = 0;
    bool root_seen = false;
    for (const char *p = doc; (p = strchr(p, '<')) != NULL;) {
        if (!strncmp(p, "<!--", 4)) {
            p = strstr(p, "-->");
            if (!p)
                return "unterminated comment";
            p += 3;
        } else if (!strncmp(p, "<?", 2) || !strncmp(p, "<!", 2)) {
            p = strchr(p, '>');
            if (!p)
                return "unterminated declaration";
            p++;
        } else if (p[1] == '/') {
            const char *name = p + 2;
            size_t n = strcspn(name, " \t\r\n>");
            if (depth == 0 || lens[depth - 1] != n || strncmp(stack[depth - 1], name, n))
                return "mismatched closing tag";
            depth--;
            p = strchr(name, '>');
            if (!p)
                return "unterminated closing tag";
            p++;
        } else {
            const char *name = p + 1;
            size_t n = strcspn(name, " \t\r\n/>");
            if (n == 0)
                return "empty tag name";
            if (depth == 0 && root_seen)
                return "content after the root element";
            const char *q = name + n;
            while (*q && *q != '>' && !(q[0] == '/' && q[1] == '>')) {
                if (*q == '"' || *q == '\'') {
                    q = skip_quoted(q);
                    if (!q)
                        return "unterminated attribute value";
                } else if (*q == '<') {
                    return "'<' inside a tag";
                } else {
                    q++;
                }
            }
            if (!*q)
                return "unterminated tag";
            if (*q == '>') {
                if (depth == MAX_DEPTH)
                    return "nesting too deep";
                stack[depth] = name;
                lens[depth++] = n;
                p = q + 1;
            } else {
                p = q + 2;
            }
            root_seen = true;
        }
    }
    if (depth != 0)
        return "unclosed element";
    return root_seen ? NULL : "no element";
}
