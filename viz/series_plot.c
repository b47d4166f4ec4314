/*
 * series_plot.c - a plot of figures along a series of runs (viz.h section
 * 4): panels stacked above one categorical x axis, each with its own y axis
 * from zero and one line per figure, drawn once through cairo to an image
 * surface (PNG) or an SVG surface, so both agree. `snetmon compare
 * --series KEY -o FILE` draws throughput, latency percentiles and waiting
 * along KEY with it; the data comes in plain arrays, so this file knows
 * nothing of runs or repositories.
 */
#include "viz_internal.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SP_FONT "DejaVu Sans"
#define SP_MARGIN 16.0
#define SP_TITLE_H 44.0
#define SP_AXIS_W 86.0
#define SP_LEGEND_W 210.0
#define SP_XLABEL_H 64.0
#define SP_GAP 26.0

/* A step of 1, 2 or 5 times a power of ten giving at most max_ticks ticks. */
static double nice_step(double span, int max_ticks)
{
    double raw = span / max_ticks;
    double power = pow(10.0, floor(log10(raw)));
    static const double multiples[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof multiples / sizeof multiples[0]; i++)
        if (multiples[i] * power >= raw)
            return multiples[i] * power;
    return 10 * power;
}

static double panel_max(const viz_series_panel *p, size_t n)
{
    double max = 0;
    for (size_t l = 0; l < p->n_lines; l++)
        for (size_t i = 0; i < n; i++)
            if (!isnan(p->lines[l].values[i]) && p->lines[l].values[i] > max)
                max = p->lines[l].values[i];
    return max > 0 ? max : 1;
}

static void text_at(cairo_t *cr, double x, double y, double size, const char *s, double align)
{
    cairo_set_font_size(cr, size);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, s, &ext);
    cairo_move_to(cr, x - align * ext.x_advance, y);
    cairo_show_text(cr, s);
}

typedef struct frame {
    double x, y, w, h; /* the plot area of a panel */
} frame;

static double x_of(const frame *f, size_t i, size_t n) { return f->x + (i + 0.5) * f->w / (double)n; }

static void draw_axes(cairo_t *cr, const frame *f, const viz_series_panel *p, double top,
                      double step)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, f->x, f->y - 8, 13, p->title, 0);
    for (double v = 0; v <= top * (1 + 1e-9); v += step) {
        double y = f->y + f->h - v / top * f->h;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, f->x, y);
        cairo_line_to(cr, f->x + f->w, y);
        cairo_stroke(cr);
        char label[32];
        snprintf(label, sizeof label, "%.4g", v);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, f->x - 6, y + 4, 11, label, 1);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, f->x, f->y, f->w, f->h);
    cairo_stroke(cr);
}

static void draw_lines(cairo_t *cr, const frame *f, const viz_series_panel *p, size_t n,
                       double top)
{
    for (size_t l = 0; l < p->n_lines; l++) {
        viz_rgb c = viz_palette_worker((int)l);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        cairo_set_line_width(cr, 2);
        bool open = false;
        for (size_t i = 0; i < n; i++) {
            double v = p->lines[l].values[i];
            if (isnan(v)) {
                open = false;
                continue;
            }
            double x = x_of(f, i, n), y = f->y + f->h - v / top * f->h;
            if (open)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
            open = true;
        }
        cairo_stroke(cr);
        for (size_t i = 0; i < n; i++) {
            double v = p->lines[l].values[i];
            if (isnan(v))
                continue;
            cairo_arc(cr, x_of(f, i, n), f->y + f->h - v / top * f->h, 3.5, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        /* legend entry */
        double ly = f->y + 12 + 18.0 * (double)l;
        cairo_rectangle(cr, f->x + f->w + 14, ly - 9, 12, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, f->x + f->w + 32, ly, 11, p->lines[l].name, 0);
    }
    cairo_set_line_width(cr, 1);
}

static void draw_x_labels(cairo_t *cr, const frame *f, const viz_series_plot *plot)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    double room = f->w / (double)plot->n_points;
    for (size_t i = 0; i < plot->n_points; i++) {
        char label[24];
        snprintf(label, sizeof label, "%s", plot->x_labels[i] ? plot->x_labels[i] : "");
        if (room < 40 && i % (size_t)ceil(40 / room) != 0)
            continue; /* too many to label each: every k-th */
        text_at(cr, x_of(f, i, plot->n_points), f->y + f->h + 16, 11, label, 0.5);
    }
    text_at(cr, f->x + f->w / 2, f->y + f->h + 40, 12, plot->x_title ? plot->x_title : "", 0.5);
}

static void draw_plot(cairo_t *cr, const viz_series_plot *plot, int width, int height)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, SP_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, SP_MARGIN, 28, 15, plot->title ? plot->title : "", 0);
    double panel_h = (height - SP_TITLE_H - SP_XLABEL_H) / (double)plot->n_panels;
    frame f = {0};
    for (size_t k = 0; k < plot->n_panels; k++) {
        const viz_series_panel *p = &plot->panels[k];
        f = (frame){SP_MARGIN + SP_AXIS_W, SP_TITLE_H + k * panel_h + SP_GAP,
                    width - 2 * SP_MARGIN - SP_AXIS_W - SP_LEGEND_W, panel_h - SP_GAP - 6};
        double max = panel_max(p, plot->n_points);
        double step = nice_step(max, 5);
        double top = ceil(max / step) * step;
        draw_axes(cr, &f, p, top, step);
        draw_lines(cr, &f, p, plot->n_points, top);
    }
    draw_x_labels(cr, &f, plot);
}

/* The plot's size, or VIZ_EINVAL (err set) when there is nothing to plot. */
static int plot_size(const viz_series_plot *plot, int *width, int *height, char *err,
                     size_t errlen)
{
    if (!plot->n_points || !plot->n_panels) {
        viz_set_error(err, errlen, "nothing to plot (no points or no panels)");
        return VIZ_EINVAL;
    }
    *width = plot->width > 0 ? plot->width : 900;
    *height = plot->height > 0 ? plot->height
                               : (int)(SP_TITLE_H + SP_XLABEL_H + 260 * plot->n_panels);
    return VIZ_OK;
}

int viz_series_svg_document(const viz_series_plot *plot, char **doc, size_t *len, int *width,
                            int *height, char *err, size_t errlen)
{
    *doc = NULL;
    *len = 0;
    int rc = plot_size(plot, width, height, err, errlen);
    FILE *mem = rc == VIZ_OK ? open_memstream(doc, len) : NULL;
    if (rc != VIZ_OK || !mem)
        return rc != VIZ_OK ? rc : VIZ_ENOMEM;
    cairo_surface_t *surface =
        cairo_svg_surface_create_for_stream(viz_cairo_write_file, mem, *width, *height);
    cairo_t *cr = cairo_create(surface);
    draw_plot(cr, plot, *width, *height);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (fclose(mem) != 0 && st == CAIRO_STATUS_SUCCESS)
        st = CAIRO_STATUS_WRITE_ERROR;
    if (st != CAIRO_STATUS_SUCCESS) {
        viz_set_error(err, errlen, "cannot draw the plot: %s", cairo_status_to_string(st));
        free(*doc);
        *doc = NULL;
        return VIZ_ERENDER;
    }
    return VIZ_OK;
}

int viz_series_render(const viz_series_plot *plot, const char *path, char *err, size_t errlen)
{
    viz_format fmt = viz_format_from_path(path);
    if (fmt != VIZ_FMT_PNG && fmt != VIZ_FMT_SVG) {
        viz_set_error(err, errlen, "%s: the plot is .png or .svg", path);
        return VIZ_EINVAL;
    }
    int width, height;
    int rc = plot_size(plot, &width, &height, err, errlen);
    if (rc != VIZ_OK)
        return rc;
    cairo_surface_t *surface = fmt == VIZ_FMT_PNG
                                   ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)
                                   : cairo_svg_surface_create(path, width, height);
    cairo_t *cr = cairo_create(surface);
    draw_plot(cr, plot, width, height);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && fmt == VIZ_FMT_PNG)
        st = cairo_surface_write_to_png(surface, path);
    cairo_surface_finish(surface);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (st != CAIRO_STATUS_SUCCESS) {
        viz_set_error(err, errlen, "%s: cannot draw the plot: %s", path,
                      cairo_status_to_string(st));
        return VIZ_EIO;
    }
    return VIZ_OK;
}
