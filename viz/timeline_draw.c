/*
 * timeline_draw.c - draws the worker-utilisation image (the paper's Figure 4
 * style) from the binned model, once, through cairo: to an image surface for
 * PNG and to an SVG surface for SVG, so both outputs always agree.
 *
 * Layout: title and subtitle on top, worker names above their columns, the
 * time axis on the left (time runs downwards), the legend on the right. Each
 * pixel row of a column is drawn from the bins as side-by-side segments, one
 * per task kind in proportion to its busy time, then grey for waiting; what
 * is left stays white (unaccounted). Periods at least a pixel tall are then
 * drawn as boxes with labels clipped to the box, so labels never overlap.
 *
 * cairo writes SVG text as glyph outlines; so that the labels can be found
 * and selected in the SVG, a transparent <text> layer with the same strings
 * at the same places is added before </svg>.
 */
#include "viz_internal.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 14.0
#define TITLE_H 46.0
#define HEADER_H 24.0
#define AXIS_W 84.0
#define LEGEND_W 220.0
#define FONT "DejaVu Sans"
#define LABEL_SIZE 11.0
#define LINE_H 13.0
#define MARK_W 6.0

typedef struct text_item {
    double x, y, size;
    char *text;
} text_item;

/* Everything one drawing needs. */
typedef struct canvas {
    cairo_t *cr;
    bool record_text; /* SVG: keep strings for the text layer */
    text_item *texts;
    size_t texts_len, texts_cap;
    bool out_of_memory;
} canvas;

/* Where things go on the page. */
typedef struct layout {
    double plot_x, plot_y, plot_w, plot_h;
    double col_w, col_gap;
    double legend_x;
    int *workers; /* ids of the workers shown, in order */
    int n_workers;
    viz_time start, end, axis_origin;
    double ns_per_px;
} layout;

/* Colour per kind and the order kinds appear in segments and the legend. */
typedef struct kind_colours {
    viz_rgb *colour;
    int *order; /* kinds sorted by name, pseudo kinds last */
    bool *used;
    size_t n;
} kind_colours;

/* ------------------------------------------------------------------ */
/* text                                                                */
/* ------------------------------------------------------------------ */

static void set_rgb(cairo_t *cr, viz_rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

static void record_text(canvas *cv, double x, double y, double size, const char *text)
{
    if (!cv->record_text || cv->out_of_memory)
        return;
    if (KIT_GROW_ZEROED(cv->texts, cv->texts_cap, cv->texts_len + 1) != 0 ||
        !(cv->texts[cv->texts_len].text = viz_strdup(text))) {
        cv->out_of_memory = true;
        return;
    }
    text_item *item = &cv->texts[cv->texts_len++];
    item->x = x;
    item->y = y;
    item->size = size;
}

static double text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t ext;
    cairo_text_extents(cr, text, &ext);
    return ext.x_advance;
}

/* Copies text into buf, shortened with an ellipsis to fit max_w. Returns
 * false if not even one character and the ellipsis fit. */
static bool fit_text(cairo_t *cr, const char *text, double max_w, char *buf, size_t len)
{
    snprintf(buf, len, "%s", text);
    if (text_width(cr, buf) <= max_w)
        return true;
    size_t n = strlen(buf);
    while (n > 1) {
        n--;
        while (n > 1 && ((unsigned char)buf[n] & 0xC0) == 0x80)
            n--; /* do not cut a UTF-8 sequence */
        if (n + 4 > len)
            continue;
        memcpy(buf + n, "…", 4);
        if (text_width(cr, buf) <= max_w)
            return true;
    }
    return false;
}

/* The first candidate that fits max_w, shortened if need be, but never to a
 * fragment: fewer than min_chars characters before the ellipsis says nothing. */
static bool fit_first(cairo_t *cr, const char *const *candidates, size_t n, double max_w,
                      size_t min_chars, char *buf, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || !fit_text(cr, candidates[i], max_w, buf, len))
            continue;
        char *ellipsis = strstr(buf, "…");
        if (!ellipsis || (size_t)(ellipsis - buf) >= min_chars)
            return true;
    }
    return false;
}

/* Draws text with its baseline at y; align 0 left, 0.5 centre, 1 right. */
static void draw_text(canvas *cv, double x, double y, const char *text, double align)
{
    double w = text_width(cv->cr, text);
    cairo_move_to(cv->cr, x - align * w, y);
    cairo_show_text(cv->cr, text);
    cairo_matrix_t font;
    cairo_get_font_matrix(cv->cr, &font);
    record_text(cv, x - align * w, y, font.yy, text);
}

static void use_font(cairo_t *cr, double size, bool bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* ------------------------------------------------------------------ */
/* layout and colours                                                  */
/* ------------------------------------------------------------------ */

static int plan_layout(const viz_timeline *tl, layout *lay)
{
    memset(lay, 0, sizeof *lay);
    size_t n = 0;
    for (size_t i = 0; i < tl->workers_cap; i++)
        n += tl->workers[i].present;
    lay->workers = malloc((n ? n : 1) * sizeof *lay->workers);
    if (!lay->workers)
        return VIZ_ENOMEM;
    for (size_t i = 0; i < tl->workers_cap; i++)
        if (tl->workers[i].present)
            lay->workers[lay->n_workers++] = (int)i;
    double legend_w = tl->width >= 700 ? LEGEND_W : 0.3 * tl->width;
    lay->plot_x = MARGIN + AXIS_W;
    lay->plot_y = MARGIN + TITLE_H + HEADER_H;
    lay->plot_w = floor(tl->width - lay->plot_x - legend_w - MARGIN);
    lay->plot_h = floor(tl->height - lay->plot_y - MARGIN);
    lay->legend_x = tl->width - legend_w + 4;
    if (lay->plot_w < 20 || lay->plot_h < 20)
        return VIZ_EINVAL;
    int cols = lay->n_workers ? lay->n_workers : 1;
    lay->col_gap = fmin(12.0, floor(lay->plot_w / cols * 0.08));
    lay->col_w = floor((lay->plot_w - (cols - 1) * lay->col_gap) / cols);
    return VIZ_OK;
}

static double column_x(const layout *lay, int column)
{
    return lay->plot_x + column * (lay->col_w + lay->col_gap);
}

static double time_y(const layout *lay, viz_time t)
{
    return lay->plot_y + (double)(t - lay->start) / lay->ns_per_px;
}

static int compare_kind_order(const void *a, const void *b, void *arg)
{
    const viz_kind *kinds = arg;
    const viz_kind *x = &kinds[*(const int *)a], *y = &kinds[*(const int *)b];
    if (x->pseudo != y->pseudo)
        return x->pseudo ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void free_kind_colours(kind_colours *kc)
{
    free(kc->colour);
    free(kc->order);
    free(kc->used);
}

static int assign_kind_colours(const viz_timeline *tl, kind_colours *kc)
{
    size_t n = tl->kinds_len;
    kc->n = n;
    kc->colour = calloc(n + 1, sizeof *kc->colour);
    kc->order = calloc(n + 1, sizeof *kc->order);
    kc->used = calloc(n + 1, sizeof *kc->used);
    const char **names = calloc(n + 1, sizeof *names);
    if (!kc->colour || !kc->order || !kc->used || !names) {
        free(names);
        return VIZ_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        names[i] = tl->kinds[i].name;
        kc->order[i] = (int)i;
    }
    viz_palette_assign(names, n, kc->colour);
    free(names);
    if (tl->kind_filtered >= 0)
        kc->colour[tl->kind_filtered] = viz_colour_filtered();
    if (tl->kind_other >= 0)
        kc->colour[tl->kind_other] = viz_colour_other();
    qsort_r(kc->order, n, sizeof *kc->order, compare_kind_order, tl->kinds);
    for (size_t w = 0; w < tl->workers_cap; w++)
        for (size_t k = 0; k < tl->workers[w].busy_cap && k < n; k++)
            kc->used[k] |= tl->workers[w].busy[k] != NULL;
    return VIZ_OK;
}

/* ------------------------------------------------------------------ */
/* columns from the bins                                               */
/* ------------------------------------------------------------------ */

/* Sum of bins over [lo, hi), taking a proportional share of partly covered
 * bins (time is assumed spread evenly inside a bin). */
static double bins_sum(const viz_bins *b, const double *bins, viz_time lo, viz_time hi)
{
    if (!bins || hi <= lo)
        return 0;
    double sum = 0;
    viz_time first = (lo - b->origin) / b->width, last = (hi - 1 - b->origin) / b->width;
    if (lo < b->origin)
        first = 0;
    for (viz_time i = first < 0 ? 0 : first; i <= last && i < b->count; i++) {
        viz_time bin_lo = b->origin + i * b->width, bin_hi = bin_lo + b->width;
        viz_time a = bin_lo > lo ? bin_lo : lo, z = bin_hi < hi ? bin_hi : hi;
        if (z > a)
            sum += bins[i] * (double)(z - a) / (double)b->width;
    }
    return sum;
}

static uint32_t counts_sum(const viz_bins *b, const uint32_t *counts, viz_time lo, viz_time hi)
{
    viz_time first = (lo - b->origin) / b->width, last = (hi - 1 - b->origin) / b->width;
    uint32_t sum = 0;
    for (viz_time i = first < 0 ? 0 : first; i <= last && i < b->count; i++)
        sum += counts[i];
    return sum;
}

/* Fractions of [lo, hi) per kind (slots 0..n-1) and waiting (slot n). */
static void row_fractions(const viz_timeline *tl, const viz_worker *w, size_t n, viz_time lo,
                          viz_time hi, double *frac)
{
    double span = (double)(hi - lo), total = 0;
    for (size_t k = 0; k <= n; k++) {
        const double *bins = k < n ? (k < w->busy_cap ? w->busy[k] : NULL) : w->wait;
        frac[k] = bins_sum(&tl->bins, bins, lo, hi) / span;
        total += frac[k];
    }
    if (total > 1) /* overlapping input: scale down rather than overflow */
        for (size_t k = 0; k <= n; k++)
            frac[k] /= total;
}

static bool same_fractions(const double *a, const double *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (fabs(a[k] - b[k]) > 0.002)
            return false;
    return true;
}

/* One run of rows with equal fractions: segments left to right in legend
 * order, then waiting. */
static void fill_run(cairo_t *cr, const kind_colours *kc, const double *frac, double x,
                     double w, double y0, double y1)
{
    double cursor = x, min_w = 0.25;
    for (size_t i = 0; i <= kc->n; i++) {
        size_t k = i < kc->n ? (size_t)kc->order[i] : kc->n;
        double seg = frac[k] * w;
        if (seg < min_w)
            continue;
        set_rgb(cr, k < kc->n ? kc->colour[k] : viz_colour_waiting());
        cairo_rectangle(cr, cursor, y0, seg, y1 - y0);
        cairo_fill(cr);
        cursor += seg;
    }
}

static int draw_binned_column(const viz_timeline *tl, canvas *cv, const layout *lay,
                              const kind_colours *kc, int column)
{
    const viz_worker *w = &tl->workers[lay->workers[column]];
    size_t n = kc->n;
    double *frac = calloc(2 * (n + 1), sizeof *frac), *run = frac + n + 1;
    if (!frac)
        return VIZ_ENOMEM;
    double x = column_x(lay, column);
    int run_start = 0, rows = (int)lay->plot_h;
    for (int r = 0; r <= rows; r++) {
        if (r < rows) {
            viz_time lo = lay->start + (viz_time)llround(r * lay->ns_per_px);
            viz_time hi = lay->start + (viz_time)llround((r + 1) * lay->ns_per_px);
            row_fractions(tl, w, n, lo, hi > lo ? hi : lo + 1, frac);
            if (r > 0 && same_fractions(frac, run, n + 1))
                continue;
        }
        if (r > 0)
            fill_run(cv->cr, kc, run, x, lay->col_w, lay->plot_y + run_start, lay->plot_y + r);
        memcpy(run, frac, (n + 1) * sizeof *frac);
        run_start = r;
    }
    free(frac);
    return VIZ_OK;
}

static void mark_colour(cairo_t *cr, bool read)
{
    if (read)
        cairo_set_source_rgb(cr, 0.03, 0.08, 0.30);
    else
        cairo_set_source_rgb(cr, 0.50, 0.0, 0.05);
}

/* A sparse mark: a small triangle pointing into the box, outlined in white
 * so it shows on dark task colours too. */
static void draw_mark_triangle(cairo_t *cr, double edge_x, double y, bool read)
{
    double dir = read ? 1 : -1;
    cairo_move_to(cr, edge_x, y - 3);
    cairo_line_to(cr, edge_x + dir * MARK_W, y);
    cairo_line_to(cr, edge_x, y + 3);
    cairo_close_path(cr);
    mark_colour(cr, read);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
}

/* Marks where messages were read (left edge) or written (right edge). When
 * most rows have messages (a binned overview), marks are thin strips that
 * show the density; otherwise each is a triangle. */
static void draw_marks(const viz_timeline *tl, canvas *cv, const layout *lay, int column)
{
    const viz_worker *w = &tl->workers[lay->workers[column]];
    double x = column_x(lay, column);
    int rows = (int)lay->plot_h, marked = 0;
    unsigned char *flags = calloc((size_t)rows + 1, 1); /* bit 0 read, bit 1 written */
    if (!flags)
        return;
    for (int r = 0; r < rows; r++) {
        viz_time lo = lay->start + (viz_time)llround(r * lay->ns_per_px);
        viz_time hi = lay->start + (viz_time)llround((r + 1) * lay->ns_per_px);
        if (hi <= lo)
            hi = lo + 1;
        flags[r] = (unsigned char)((counts_sum(&tl->bins, w->reads, lo, hi) ? 1 : 0) |
                                   (counts_sum(&tl->bins, w->writes, lo, hi) ? 2 : 0));
        marked += flags[r] != 0;
    }
    bool dense = marked * 6 > rows;
    for (int r = 0; r < rows; r++) {
        for (int bit = 0; bit < 2; bit++) {
            if (!(flags[r] & (1 << bit)))
                continue;
            bool read = bit == 0;
            double edge = read ? x : x + lay->col_w;
            if (dense) {
                mark_colour(cv->cr, read);
                cairo_rectangle(cv->cr, read ? edge : edge - MARK_W, lay->plot_y + r, MARK_W, 1.5);
                cairo_fill(cv->cr);
            } else {
                draw_mark_triangle(cv->cr, edge, lay->plot_y + r + 0.5, read);
            }
        }
    }
    free(flags);
}

/* ------------------------------------------------------------------ */
/* detailed boxes                                                      */
/* ------------------------------------------------------------------ */

static void label_box(const viz_timeline *tl, canvas *cv, const viz_kept_period *p, viz_rgb fill,
                      double x, double y0, double w, double h)
{
    if (h < LINE_H + 1 || w < 24)
        return;
    const viz_task *task = &tl->tasks[p->task];
    char duration[32], detail[96], fitted[160];
    viz_format_duration(p->end - p->start, duration, sizeof duration);
    snprintf(detail, sizeof detail, "%s, %s", duration, viz_period_end_label(p->how));
    cairo_t *cr = cv->cr;
    cairo_save(cr);
    cairo_rectangle(cr, x, y0, w, h);
    cairo_clip(cr);
    use_font(cr, LABEL_SIZE, false);
    set_rgb(cr, viz_text_colour_on(fill));
    double inner = w - 2 * MARK_W - 4, tx = x + MARK_W + 2;
    double y = y0 + (h >= 2 * LINE_H + 3 ? (h - 2 * LINE_H) / 2 : (h - LINE_H) / 2) + LINE_H - 3;
    const char *kind = mon_task_kind(task->name);
    if (h >= 2 * LINE_H + 3) {
        const char *names[] = {task->name, kind != task->name ? kind : NULL};
        const char *details[] = {detail, duration};
        if (fit_first(cr, names, 2, inner, 4, fitted, sizeof fitted))
            draw_text(cv, tx, y, fitted, 0);
        if (fit_first(cr, details, 2, inner, 4, fitted, sizeof fitted))
            draw_text(cv, tx, y + LINE_H, fitted, 0);
    } else {
        char both[200];
        snprintf(both, sizeof both, "%s  %s", task->name, detail);
        const char *lines[] = {both, task->name, kind != task->name ? kind : NULL};
        if (fit_first(cr, lines, 3, inner, 4, fitted, sizeof fitted))
            draw_text(cv, tx, y, fitted, 0);
    }
    cairo_restore(cr);
}

static void draw_boxes(const viz_timeline *tl, canvas *cv, const layout *lay,
                       const kind_colours *kc, int column)
{
    const viz_worker *w = &tl->workers[lay->workers[column]];
    double x = column_x(lay, column), bottom = lay->plot_y + lay->plot_h;
    for (size_t i = 0; i < w->kept_len; i++) {
        const viz_kept_period *p = &w->kept[i];
        double y0 = fmax(time_y(lay, p->start), lay->plot_y);
        double y1 = fmin(time_y(lay, p->end), bottom);
        if (y1 - y0 < 1)
            continue; /* the bins already show it */
        viz_rgb fill = kc->colour[tl->tasks[p->task].kind];
        set_rgb(cv->cr, fill);
        cairo_rectangle(cv->cr, x, y0, lay->col_w, y1 - y0);
        cairo_fill(cv->cr);
        if (y1 - y0 >= 5) {
            cairo_set_source_rgb(cv->cr, fill.r * 0.55, fill.g * 0.55, fill.b * 0.55);
            cairo_set_line_width(cv->cr, 1);
            cairo_rectangle(cv->cr, x + 0.5, y0 + 0.5, lay->col_w - 1, y1 - y0 - 1);
            cairo_stroke(cv->cr);
        }
        label_box(tl, cv, p, fill, x, y0, lay->col_w, y1 - y0);
    }
}

/* ------------------------------------------------------------------ */
/* frame: title, header, axis, legend                                  */
/* ------------------------------------------------------------------ */

static void draw_title(const viz_timeline *tl, canvas *cv, const layout *lay)
{
    char range_from[32], range_to[32], px[32], sub[320];
    viz_format_duration(lay->start - lay->axis_origin, range_from, sizeof range_from);
    viz_format_duration(lay->end - lay->axis_origin, range_to, sizeof range_to);
    viz_format_duration((viz_time)ceil(lay->ns_per_px), px, sizeof px);
    int n = snprintf(sub, sizeof sub, "%s to %s, %d worker%s, 1 pixel row = %s%s", range_from,
                     range_to, lay->n_workers, lay->n_workers == 1 ? "" : "s", px,
                     tl->has_window ? " (zoomed)" : "");
    if (tl->task_regex && n > 0 && (size_t)n < sizeof sub)
        snprintf(sub + n, sizeof sub - (size_t)n, ", tasks matching /%s/", tl->task_regex);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    use_font(cv->cr, 16, true);
    char fitted[320];
    if (fit_text(cv->cr, tl->title, tl->width - 2 * MARGIN, fitted, sizeof fitted))
        draw_text(cv, MARGIN, MARGIN + 16, fitted, 0);
    use_font(cv->cr, 11.5, false);
    cairo_set_source_rgb(cv->cr, 0.25, 0.25, 0.25);
    if (fit_text(cv->cr, sub, tl->width - 2 * MARGIN, fitted, sizeof fitted))
        draw_text(cv, MARGIN, MARGIN + 36, fitted, 0);
}

static void draw_header(const viz_timeline *tl, canvas *cv, const layout *lay)
{
    use_font(cv->cr, 12, true);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    for (int c = 0; c < lay->n_workers; c++) {
        const viz_worker *w = &tl->workers[lay->workers[c]];
        char name[64], fitted[96];
        if (w->name)
            snprintf(name, sizeof name, "%s", w->name);
        else
            snprintf(name, sizeof name, "worker %d", lay->workers[c]);
        char compact[16], number[16];
        snprintf(compact, sizeof compact, "w%d", lay->workers[c]);
        snprintf(number, sizeof number, "%d", lay->workers[c]);
        const char *names[] = {name, compact, number};
        if (!fit_first(cv->cr, names, 3, lay->col_w, 6, fitted, sizeof fitted))
            snprintf(fitted, sizeof fitted, "%d", lay->workers[c]);
        draw_text(cv, column_x(lay, c) + lay->col_w / 2, lay->plot_y - 8, fitted, 0.5);
    }
    /* a thin frame around each column separates white time from the page */
    cairo_set_source_rgb(cv->cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cv->cr, 1);
    for (int c = 0; c < lay->n_workers; c++) {
        cairo_rectangle(cv->cr, column_x(lay, c) - 0.5, lay->plot_y - 0.5, lay->col_w + 1,
                        lay->plot_h + 1);
        cairo_stroke(cv->cr);
    }
}

static void draw_axis(canvas *cv, const layout *lay)
{
    cairo_t *cr = cv->cr;
    double axis_x = lay->plot_x - 8;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, axis_x + 0.5, lay->plot_y);
    cairo_line_to(cr, axis_x + 0.5, lay->plot_y + lay->plot_h);
    cairo_stroke(cr);
    viz_time span = lay->end - lay->start;
    viz_time step = viz_axis_step(span, (int)(lay->plot_h / 55) + 1);
    /* the unit follows the largest value shown, so 1.2 ms not 1200 µs */
    viz_time largest = llabs(lay->end - lay->axis_origin) > llabs(lay->start - lay->axis_origin)
                           ? llabs(lay->end - lay->axis_origin)
                           : llabs(lay->start - lay->axis_origin);
    viz_axis_unit unit = viz_axis_unit_for(largest > step ? largest : step);
    viz_time rel_start = lay->start - lay->axis_origin;
    viz_time first = rel_start >= 0 ? (rel_start + step - 1) / step * step : -(-rel_start / step * step);
    use_font(cr, 11, false);
    for (viz_time v = first; v <= lay->end - lay->axis_origin; v += step) {
        double y = time_y(lay, lay->axis_origin + v);
        cairo_move_to(cr, axis_x - 5, floor(y) + 0.5);
        cairo_line_to(cr, axis_x + 0.5, floor(y) + 0.5);
        cairo_stroke(cr);
        char label[48];
        viz_axis_label(v, step, unit, label, sizeof label);
        draw_text(cv, axis_x - 8, y + 4, label, 1);
    }
    use_font(cr, 11, true);
    draw_text(cv, axis_x - 8, lay->plot_y - 8, "time ↓", 1);
}

static void legend_swatch(canvas *cv, double x, double y, viz_rgb fill, bool outline,
                          const char *label, double max_w)
{
    set_rgb(cv->cr, fill);
    cairo_rectangle(cv->cr, x, y, 14, 14);
    cairo_fill(cv->cr);
    if (outline) {
        cairo_set_source_rgb(cv->cr, 0.3, 0.3, 0.3);
        cairo_set_line_width(cv->cr, 1);
        cairo_rectangle(cv->cr, x + 0.5, y + 0.5, 13, 13);
        cairo_stroke(cv->cr);
    }
    char fitted[160];
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    if (fit_text(cv->cr, label, max_w - 22, fitted, sizeof fitted))
        draw_text(cv, x + 20, y + 11.5, fitted, 0);
}

static void legend_mark(canvas *cv, double x, double y, bool read, const char *label,
                        double max_w)
{
    cairo_set_source_rgb(cv->cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cv->cr, 1);
    cairo_rectangle(cv->cr, x + 0.5, y + 0.5, 13, 13);
    cairo_stroke(cv->cr);
    draw_mark_triangle(cv->cr, read ? x + 1 : x + 13, y + 7, read);
    char fitted[160];
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    if (fit_text(cv->cr, label, max_w - 22, fitted, sizeof fitted))
        draw_text(cv, x + 20, y + 11.5, fitted, 0);
}

static void draw_legend(const viz_timeline *tl, canvas *cv, const layout *lay,
                        const kind_colours *kc)
{
    double x = lay->legend_x, y = lay->plot_y, max_w = tl->width - x - MARGIN / 2, row = 19;
    double bottom = lay->plot_y + lay->plot_h, fixed_rows = 6 * row + 30;
    use_font(cv->cr, 12, true);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    draw_text(cv, x, y - 8, "Task kinds", 0);
    use_font(cv->cr, 11, false);
    size_t shown = 0, used = 0;
    for (size_t i = 0; i < kc->n; i++)
        used += kc->used[kc->order[i]];
    for (size_t i = 0; i < kc->n; i++) {
        int k = kc->order[i];
        if (!kc->used[k])
            continue;
        if (y + 2 * row > bottom - fixed_rows && shown + 1 < used) {
            char more[48];
            snprintf(more, sizeof more, "… %zu more kinds", used - shown);
            draw_text(cv, x, y + 11.5, more, 0);
            y += row;
            break;
        }
        legend_swatch(cv, x, y, kc->colour[k], false, tl->kinds[k].name, max_w);
        y += row;
        shown++;
    }
    y += 10;
    legend_swatch(cv, x, y, viz_colour_waiting(), false, "waiting", max_w);
    legend_swatch(cv, x, y + row, (viz_rgb){1, 1, 1}, true, "unaccounted", max_w);
    legend_mark(cv, x, y + 2 * row, true, "message read", max_w);
    legend_mark(cv, x, y + 3 * row, false, "message written", max_w);
    cairo_set_source_rgb(cv->cr, 0.3, 0.3, 0.3);
    use_font(cv->cr, 10, false);
    draw_text(cv, x, y + 4 * row + 10, "boxes: task, time, how it ended", 0);
}

/* ------------------------------------------------------------------ */
/* the one drawing routine                                             */
/* ------------------------------------------------------------------ */

static int draw_page(const viz_timeline *tl, canvas *cv, layout *lay)
{
    cairo_t *cr = cv->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    kind_colours kc = {0};
    int rc = assign_kind_colours(tl, &kc);
    if (rc == VIZ_OK) {
        draw_title(tl, cv, lay);
        draw_header(tl, cv, lay);
        draw_axis(cv, lay);
        for (int c = 0; c < lay->n_workers && rc == VIZ_OK; c++) {
            cairo_save(cr);
            cairo_rectangle(cr, column_x(lay, c), lay->plot_y, lay->col_w, lay->plot_h);
            cairo_clip(cr);
            rc = draw_binned_column(tl, cv, lay, &kc, c);
            draw_boxes(tl, cv, lay, &kc, c);
            draw_marks(tl, cv, lay, c);
            cairo_restore(cr);
        }
        draw_legend(tl, cv, lay, &kc);
    }
    free_kind_colours(&kc);
    if (rc == VIZ_OK && cv->out_of_memory)
        rc = VIZ_ENOMEM;
    return rc;
}

static void draw_empty(const viz_timeline *tl, canvas *cv)
{
    cairo_set_source_rgb(cv->cr, 1, 1, 1);
    cairo_paint(cv->cr);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    use_font(cv->cr, 16, true);
    draw_text(cv, MARGIN, MARGIN + 16, tl->title, 0);
    use_font(cv->cr, 12, false);
    draw_text(cv, MARGIN, MARGIN + 40, "no events in the trace (or in the window)", 0);
}

static int draw_on(const viz_timeline *tl, canvas *cv)
{
    layout lay;
    viz_time start, end, axis_origin;
    int rc = plan_layout(tl, &lay);
    if (rc == VIZ_OK && (!viz_timeline_range(tl, &start, &end, &axis_origin) || !lay.n_workers)) {
        draw_empty(tl, cv);
    } else if (rc == VIZ_OK) {
        lay.start = start;
        lay.end = end;
        lay.axis_origin = axis_origin;
        lay.ns_per_px = (double)(end - start) / lay.plot_h;
        rc = draw_page(tl, cv, &lay);
    }
    free(lay.workers);
    return rc;
}

/* ------------------------------------------------------------------ */
/* queries                                                             */
/* ------------------------------------------------------------------ */

int viz_timeline_get_geometry(viz_timeline *tl, viz_timeline_geometry *g)
{
    layout lay = {0};
    memset(g, 0, sizeof *g);
    int rc = plan_layout(tl, &lay);
    if (rc == VIZ_OK) {
        g->plot_x = (int)lay.plot_x;
        g->plot_y = (int)lay.plot_y;
        g->plot_w = (int)lay.plot_w;
        g->plot_h = (int)lay.plot_h;
        g->col_w = (int)lay.col_w;
        g->col_gap = (int)lay.col_gap;
        g->columns = lay.n_workers;
        if (!viz_timeline_range(tl, &g->start, &g->end, &g->axis_origin))
            rc = VIZ_EINVAL;
    }
    free(lay.workers);
    if (rc != VIZ_OK)
        viz_set_error(tl->error, sizeof tl->error, "nothing to lay out");
    return rc;
}

static void to_bytes(viz_rgb c, unsigned char rgb[3])
{
    rgb[0] = (unsigned char)lround(c.r * 255);
    rgb[1] = (unsigned char)lround(c.g * 255);
    rgb[2] = (unsigned char)lround(c.b * 255);
}

int viz_timeline_colour(viz_timeline *tl, const char *kind, unsigned char rgb[3])
{
    if (!strcmp(kind, "(waiting)")) {
        to_bytes(viz_colour_waiting(), rgb);
        return VIZ_OK;
    }
    if (!strcmp(kind, "(unaccounted)")) {
        to_bytes((viz_rgb){1, 1, 1}, rgb);
        return VIZ_OK;
    }
    kind_colours kc = {0};
    int rc = assign_kind_colours(tl, &kc);
    if (rc == VIZ_OK) {
        rc = VIZ_EINVAL;
        for (size_t k = 0; k < kc.n; k++) {
            if (!strcmp(tl->kinds[k].name, kind)) {
                to_bytes(kc.colour[k], rgb);
                rc = VIZ_OK;
            }
        }
        if (rc != VIZ_OK)
            viz_set_error(tl->error, sizeof tl->error, "no kind '%s'", kind);
    }
    free_kind_colours(&kc);
    return rc;
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

static void free_texts(canvas *cv)
{
    for (size_t i = 0; i < cv->texts_len; i++)
        free(cv->texts[i].text);
    free(cv->texts);
}

static int write_png(viz_timeline *tl, const char *path)
{
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, tl->width, tl->height);
    cairo_t *cr = cairo_create(surface);
    canvas cv = {.cr = cr};
    int rc = draw_on(tl, &cv);
    if (rc == VIZ_OK && cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        viz_set_error(tl->error, sizeof tl->error, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
        rc = VIZ_ERENDER;
    }
    cairo_destroy(cr);
    if (rc == VIZ_OK) {
        cairo_status_t st = cairo_surface_write_to_png(surface, path);
        if (st != CAIRO_STATUS_SUCCESS) {
            viz_set_error(tl->error, sizeof tl->error, "%s: cannot write PNG: %s", path,
                          cairo_status_to_string(st));
            rc = VIZ_EIO;
        }
    }
    cairo_surface_destroy(surface);
    free_texts(&cv);
    return rc;
}

static void write_xml_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* The transparent, selectable copy of every string drawn. */
static void write_text_layer(FILE *out, const canvas *cv)
{
    fputs("<g id=\"viz-text\" font-family=\"DejaVu Sans, sans-serif\" fill-opacity=\"0\">\n", out);
    for (size_t i = 0; i < cv->texts_len; i++) {
        const text_item *t = &cv->texts[i];
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\">", t->x, t->y, t->size);
        write_xml_escaped(out, t->text);
        fputs("</text>\n", out);
    }
    fputs("</g>\n", out);
}

int viz_timeline_svg_document(viz_timeline *tl, char **out, size_t *out_len)
{
    char *doc = NULL, *full = NULL;
    size_t doc_len = 0, full_len = 0;
    *out = NULL;
    *out_len = 0;
    FILE *mem = open_memstream(&doc, &doc_len);
    if (!mem)
        return VIZ_ENOMEM;
    cairo_surface_t *surface = cairo_svg_surface_create_for_stream(viz_cairo_write_file, mem, tl->width,
                                                                   tl->height);
    cairo_t *cr = cairo_create(surface);
    canvas cv = {.cr = cr, .record_text = true};
    int rc = draw_on(tl, &cv);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    if (rc == VIZ_OK && cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        viz_set_error(tl->error, sizeof tl->error, "cairo: %s",
                      cairo_status_to_string(cairo_surface_status(surface)));
        rc = VIZ_ERENDER;
    }
    cairo_surface_destroy(surface);
    fclose(mem);
    FILE *with_text = rc == VIZ_OK ? open_memstream(&full, &full_len) : NULL;
    if (rc == VIZ_OK && !with_text)
        rc = VIZ_ENOMEM;
    if (with_text) {
        char *close_tag = NULL;
        for (char *p = strstr(doc, "</svg>"); p; p = strstr(p + 1, "</svg>"))
            close_tag = p;
        size_t head = close_tag ? (size_t)(close_tag - doc) : doc_len;
        fwrite(doc, 1, head, with_text);
        write_text_layer(with_text, &cv);
        fwrite(doc + head, 1, doc_len - head, with_text);
        if (fclose(with_text) != 0) {
            free(full);
            full = NULL;
            rc = VIZ_ENOMEM;
        }
    }
    free(doc);
    free_texts(&cv);
    if (rc == VIZ_OK) {
        *out = full;
        *out_len = full_len;
    }
    return rc;
}

static int write_svg(viz_timeline *tl, const char *path)
{
    char *doc;
    size_t len;
    int rc = viz_timeline_svg_document(tl, &doc, &len);
    if (rc != VIZ_OK)
        return rc;
    FILE *out = fopen(path, "w");
    if (!out) {
        viz_set_error(tl->error, sizeof tl->error, "%s: cannot open for writing", path);
        rc = VIZ_EIO;
    } else {
        /* A write that fails part way leaves the stream's error set and may
         * leave nothing for fclose to fail on: both are checked. */
        errno = 0;
        bool failed = fwrite(doc, 1, len, out) != len;
        int err = errno;
        if (fclose(out) != 0 && !failed) {
            failed = true;
            err = errno;
        }
        if (failed) {
            viz_set_error(tl->error, sizeof tl->error, "%s: cannot write: %s", path,
                          err ? strerror(err) : "a write failed");
            rc = VIZ_EIO;
        }
    }
    free(doc);
    return rc;
}

int viz_timeline_draw(viz_timeline *tl, const char *path, viz_format format)
{
    int rc = format == VIZ_FMT_SVG ? write_svg(tl, path) : write_png(tl, path);
    if (rc == VIZ_ENOMEM)
        viz_set_error(tl->error, sizeof tl->error, "out of memory while drawing");
    else if (rc == VIZ_EINVAL)
        viz_set_error(tl->error, sizeof tl->error, "image %dx%d too small for the layout",
                      tl->width, tl->height);
    return rc;
}

void viz_release_font_caches(void)
{
    /* cairo first: its font faces hold fontconfig patterns. */
    cairo_debug_reset_static_data();
    FcFini();
}
