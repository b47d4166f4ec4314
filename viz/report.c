/*
 * report.c - the HTML report (viz.h, part 4): one self-contained file that
 * opens offline in any browser and can be mailed or archived as it is.
 *
 * Everything is inline: the style sheet, the script and the utilisation
 * timeline, which is the SVG viz_timeline_render writes (one drawing
 * routine, so the report's colours are the PNG's). A Content-Security-
 * Policy forbids every fetch, so a report that tried one would say so in
 * the browser's console instead of quietly phoning home.
 *
 * The script (report_page.js, embedded at build time with the style sheet
 * report_page.css) sorts tables by the clicked column, zooms and
 * pans the timeline by rewriting the SVG's viewBox, and writes a self-test
 * line into <pre id="selftest">: the number of worker lanes drawn and the
 * errors seen (script errors, console errors, blocked fetches), which the
 * browser test reads back from the rendered page.
 */
#include "viz_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum block_kind { BLOCK_HEADING, BLOCK_TEXT, BLOCK_TABLE, BLOCK_TIMELINE, BLOCK_PLOT } block_kind;

typedef struct report_row {
    char **text;
    double *value;
    bool highlight;
} report_row;

typedef struct report_block {
    block_kind kind;
    char *id, *text;            /* heading: anchor and title; text: the paragraph */
    viz_report_column *columns; /* table: titles copied */
    size_t ncolumns;
    bool sortable;
    report_row *rows;
    size_t nrows, rows_cap;
    viz_timeline *timeline;
    char *svg;                  /* plot: its SVG document, drawn when added */
    size_t svg_len;
    int width, height;
} report_block;

typedef struct path_point {
    int worker;
    viz_time when;
    char *label;
} path_point;

struct viz_report {
    char *title;
    char **meta; /* key, value, key, value, ... */
    size_t nmeta, meta_cap;
    report_block *blocks;
    size_t nblocks, blocks_cap;
    path_point *path;
    size_t npath, path_cap;
    char *advice;
    char error[VIZ_ERR_LEN];
};

/* The page's style sheet and script: report_page.css and report_page.js,
 * made into C strings by CMake (viz/CMakeLists.txt). */
extern const char viz_report_css[];
extern const char viz_report_js[];

int viz_report_create(viz_report **out, const char *title, char *err, size_t errlen)
{
    *out = NULL;
    viz_report *r = calloc(1, sizeof *r);
    if (!r || !(r->title = viz_strdup(title ? title : "Report"))) {
        free(r);
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    *out = r;
    return VIZ_OK;
}

static void free_block(report_block *b)
{
    free(b->id);
    free(b->text);
    for (size_t i = 0; i < b->nrows; i++) {
        for (size_t c = 0; c < b->ncolumns; c++)
            free(b->rows[i].text[c]);
        free(b->rows[i].text);
        free(b->rows[i].value);
    }
    free(b->rows);
    for (size_t c = 0; c < b->ncolumns; c++)
        free((char *)b->columns[c].title);
    free(b->columns);
    free(b->svg);
}

void viz_report_destroy(viz_report *r)
{
    if (!r)
        return;
    free(r->title);
    for (size_t i = 0; i < r->nmeta; i++)
        free(r->meta[i]);
    free(r->meta);
    for (size_t i = 0; i < r->nblocks; i++)
        free_block(&r->blocks[i]);
    free(r->blocks);
    for (size_t i = 0; i < r->npath; i++)
        free(r->path[i].label);
    free(r->path);
    free(r->advice);
    free(r);
}

const char *viz_report_error(const viz_report *r) { return r->error; }

static int no_memory(viz_report *r)
{
    viz_set_error(r->error, sizeof r->error, "out of memory");
    return VIZ_ENOMEM;
}

int viz_report_add_meta(viz_report *r, const char *key, const char *value)
{
    if (KIT_GROW_ZEROED(r->meta, r->meta_cap, r->nmeta + 2) != 0)
        return no_memory(r);
    char *k = viz_strdup(key ? key : ""), *v = viz_strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return no_memory(r);
    }
    r->meta[r->nmeta++] = k;
    r->meta[r->nmeta++] = v;
    return VIZ_OK;
}

/* A new zeroed block of kind, or NULL (error set). */
static report_block *add_block(viz_report *r, block_kind kind)
{
    if (KIT_GROW_ZEROED(r->blocks, r->blocks_cap, r->nblocks + 1) != 0) {
        no_memory(r);
        return NULL;
    }
    report_block *b = &r->blocks[r->nblocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

int viz_report_add_heading(viz_report *r, const char *id, const char *title)
{
    report_block *b = add_block(r, BLOCK_HEADING);
    if (!b)
        return VIZ_ENOMEM;
    b->id = viz_strdup(id ? id : "");
    b->text = viz_strdup(title ? title : "");
    return b->id && b->text ? VIZ_OK : no_memory(r);
}

int viz_report_add_text(viz_report *r, const char *text)
{
    report_block *b = add_block(r, BLOCK_TEXT);
    if (!b)
        return VIZ_ENOMEM;
    b->text = viz_strdup(text ? text : "");
    return b->text ? VIZ_OK : no_memory(r);
}

int viz_report_add_table(viz_report *r, const char *id, const viz_report_column *columns,
                         size_t ncolumns, bool sortable)
{
    if (!ncolumns) {
        viz_set_error(r->error, sizeof r->error, "a table needs columns");
        return VIZ_EINVAL;
    }
    report_block *b = add_block(r, BLOCK_TABLE);
    if (!b)
        return VIZ_ENOMEM;
    b->sortable = sortable;
    b->id = id ? viz_strdup(id) : NULL;
    b->columns = calloc(ncolumns, sizeof *b->columns);
    if ((id && !b->id) || !b->columns)
        return no_memory(r);
    b->ncolumns = ncolumns;
    for (size_t c = 0; c < ncolumns; c++) {
        b->columns[c].numeric = columns[c].numeric;
        if (!(b->columns[c].title = viz_strdup(columns[c].title ? columns[c].title : "")))
            return no_memory(r);
    }
    return VIZ_OK;
}

int viz_report_add_row(viz_report *r, const viz_report_cell *cells, bool highlight)
{
    report_block *b = r->nblocks ? &r->blocks[r->nblocks - 1] : NULL;
    if (!b || b->kind != BLOCK_TABLE) {
        viz_set_error(r->error, sizeof r->error, "a row needs a table before it");
        return VIZ_EINVAL;
    }
    if (KIT_GROW_ZEROED(b->rows, b->rows_cap, b->nrows + 1) != 0)
        return no_memory(r);
    report_row *row = &b->rows[b->nrows];
    row->highlight = highlight;
    row->text = calloc(b->ncolumns, sizeof *row->text);
    row->value = calloc(b->ncolumns, sizeof *row->value);
    if (!row->text || !row->value) {
        free(row->text);
        free(row->value);
        return no_memory(r);
    }
    b->nrows++; /* from here on freed with the block */
    for (size_t c = 0; c < b->ncolumns; c++) {
        row->value[c] = cells[c].value;
        if (cells[c].text && !(row->text[c] = viz_strdup(cells[c].text)))
            return no_memory(r);
    }
    return VIZ_OK;
}

int viz_report_add_timeline(viz_report *r, viz_timeline *tl)
{
    report_block *b = add_block(r, BLOCK_TIMELINE);
    if (!b)
        return VIZ_ENOMEM;
    b->timeline = tl;
    return VIZ_OK;
}

int viz_report_add_plot(viz_report *r, const viz_series_plot *plot)
{
    report_block *b = add_block(r, BLOCK_PLOT);
    if (!b)
        return VIZ_ENOMEM;
    int rc = viz_series_svg_document(plot, &b->svg, &b->svg_len, &b->width, &b->height, r->error,
                                     sizeof r->error);
    if (rc != VIZ_OK)
        r->nblocks--; /* nothing to show */
    return rc;
}

int viz_report_add_path_point(viz_report *r, int worker, viz_time when, const char *label)
{
    if (KIT_GROW_ZEROED(r->path, r->path_cap, r->npath + 1) != 0)
        return no_memory(r);
    char *copy = viz_strdup(label ? label : "");
    if (!copy)
        return no_memory(r);
    r->path[r->npath++] = (path_point){worker, when, copy};
    return VIZ_OK;
}

int viz_report_set_advice(viz_report *r, const char *text)
{
    char *copy = viz_strdup(text ? text : "");
    if (!copy)
        return no_memory(r);
    free(r->advice);
    r->advice = copy;
    return VIZ_OK;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */
/* ------------------------------------------------------------------ */

static void escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static void write_table(FILE *out, const report_block *b)
{
    fputs("<div class=\"table-wrap\"><table", out);
    if (b->id) {
        fputs(" id=\"", out);
        escaped(out, b->id);
        fputc('"', out);
    }
    fprintf(out, " class=\"data%s\"><thead><tr>", b->sortable ? " sortable" : "");
    for (size_t c = 0; c < b->ncolumns; c++) {
        fprintf(out, "<th%s>", b->columns[c].numeric ? " class=\"num\"" : "");
        escaped(out, b->columns[c].title);
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < b->nrows; i++) {
        const report_row *row = &b->rows[i];
        fputs(row->highlight ? "<tr class=\"hl\">" : "<tr>", out);
        for (size_t c = 0; c < b->ncolumns; c++) {
            if (b->columns[c].numeric && isfinite(row->value[c]))
                fprintf(out, "<td class=\"num\" data-v=\"%.17g\">", row->value[c]);
            else
                fputs(b->columns[c].numeric ? "<td class=\"num\">" : "<td>", out);
            escaped(out, row->text[c]);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
}

/* The cairo document's body: everything after its root <svg ...> tag, up
 * to (not including) its closing tag. */
static bool svg_body(const char *doc, size_t len, const char **body, size_t *body_len)
{
    const char *root = strstr(doc, "<svg");
    const char *open_end = root ? strchr(root, '>') : NULL;
    const char *close = NULL;
    for (const char *p = strstr(doc, "</svg>"); p; p = strstr(p + 1, "</svg>"))
        close = p;
    if (!open_end || !close || close < open_end || (size_t)(close - doc) > len)
        return false;
    *body = open_end + 1;
    *body_len = (size_t)(close - *body);
    return true;
}

/* The column of worker in the drawn timeline, -1 when it is not drawn. */
static int worker_column(const viz_timeline *tl, int worker)
{
    int column = 0;
    for (size_t w = 0; w < tl->workers_cap; w++) {
        if (!tl->workers[w].present)
            continue;
        if ((int)w == worker)
            return column;
        column++;
    }
    return -1;
}

static double column_centre(const viz_timeline_geometry *g, int column)
{
    return g->plot_x + column * (g->col_w + g->col_gap) + g->col_w / 2.0;
}

static double time_y(const viz_timeline_geometry *g, viz_time t)
{
    if (g->end <= g->start)
        return g->plot_y;
    return g->plot_y + (double)(t - g->start) * g->plot_h / (double)(g->end - g->start);
}

/* One transparent lane per drawn worker column, to hover (and to count). */
static void write_lanes(FILE *out, const viz_timeline *tl, const viz_timeline_geometry *g)
{
    fputs("<g id=\"lanes\">\n", out);
    int column = 0;
    for (size_t w = 0; w < tl->workers_cap; w++) {
        if (!tl->workers[w].present)
            continue;
        fprintf(out,
                "<rect class=\"lane\" data-worker=\"%zu\" x=\"%d\" y=\"%d\" width=\"%d\" "
                "height=\"%d\"><title>",
                w, g->plot_x + column * (g->col_w + g->col_gap), g->plot_y, g->col_w, g->plot_h);
        if (tl->workers[w].name)
            escaped(out, tl->workers[w].name);
        else
            fprintf(out, "worker %zu", w);
        fputs("</title></rect>\n", out);
        column++;
    }
    fputs("</g>\n", out);
}

static void write_path(FILE *out, const viz_report *r, const viz_timeline *tl,
                       const viz_timeline_geometry *g)
{
    if (!r->npath)
        return;
    fputs("<g id=\"critical-path\"><polyline points=\"", out);
    for (size_t i = 0; i < r->npath; i++) {
        int column = worker_column(tl, r->path[i].worker);
        if (column >= 0)
            fprintf(out, "%.1f,%.1f ", column_centre(g, column), time_y(g, r->path[i].when));
    }
    fputs("\"/>\n", out);
    for (size_t i = 0; i < r->npath; i++) {
        int column = worker_column(tl, r->path[i].worker);
        if (column < 0)
            continue;
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>", column_centre(g, column),
                time_y(g, r->path[i].when));
        escaped(out, r->path[i].label);
        fputs("</title></circle>\n", out);
    }
    fputs("</g>\n", out);
}

static int write_timeline(FILE *out, viz_report *r, viz_timeline *tl)
{
    viz_timeline_geometry g;
    char *doc = NULL;
    size_t len = 0;
    const char *body;
    size_t body_len;
    int rc = viz_timeline_get_geometry(tl, &g);
    if (rc == VIZ_OK)
        rc = viz_timeline_svg_document(tl, &doc, &len);
    if (rc != VIZ_OK) {
        viz_set_error(r->error, sizeof r->error, "timeline: %s", viz_timeline_error(tl));
        free(doc);
        return rc;
    }
    if (!svg_body(doc, len, &body, &body_len)) {
        viz_set_error(r->error, sizeof r->error, "timeline: cairo wrote no SVG document");
        free(doc);
        return VIZ_ERENDER;
    }
    fprintf(out,
            "<div class=\"timeline\"><div class=\"tl-tools\">"
            "<button type=\"button\" data-zoom=\"in\" title=\"zoom in\">+</button>"
            "<button type=\"button\" data-zoom=\"out\" title=\"zoom out\">&#8722;</button>"
            "<button type=\"button\" data-zoom=\"reset\">whole run</button>"
            "<span>wheel: zoom at the pointer &#183; drag: pan &#183; hover a lane or a red "
            "point for its name</span></div>\n"
            "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
            "xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 %d %d\" "
            "preserveAspectRatio=\"xMidYMin meet\" style=\"aspect-ratio: %d / %d\" "
            "data-width=\"%d\" data-height=\"%d\" data-lanes=\"%d\">\n"
            "<svg x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
            tl->width, tl->height, tl->width, tl->height, tl->width, tl->height, g.columns,
            tl->width, tl->height, tl->width, tl->height);
    fwrite(body, 1, body_len, out);
    fputs("</svg>\n", out);
    write_lanes(out, tl, &g);
    write_path(out, r, tl, &g);
    fputs("</svg></div>\n", out);
    free(doc);
    return VIZ_OK;
}

/* SVG text with every id it defines and refers to (cairo's glyphs, clips)
 * prefixed, so that two drawings in one page do not take each other's: the
 * timeline's glyph0-1 is not the plot's. */
static void write_prefixed_ids(FILE *out, const char *svg, size_t len, const char *prefix)
{
    static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
    size_t i = 0;
    while (i < len) {
        size_t k = 0, n = 0;
        for (; k < 3; k++) {
            n = strlen(refs[k]);
            if (n <= len - i && !memcmp(svg + i, refs[k], n))
                break;
        }
        if (k == 3) {
            fputc(svg[i++], out);
            continue;
        }
        fwrite(svg + i, 1, n, out);
        fputs(prefix, out);
        i += n;
    }
}

/* A plot: its drawing inline, scaled to the page's width. */
static int write_plot(FILE *out, viz_report *r, const report_block *b, size_t index)
{
    const char *body;
    size_t body_len;
    if (!svg_body(b->svg, b->svg_len, &body, &body_len)) {
        viz_set_error(r->error, sizeof r->error, "plot: cairo wrote no SVG document");
        return VIZ_ERENDER;
    }
    fprintf(out,
            "<div class=\"plot\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
            "xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 %d %d\" "
            "style=\"max-width: %dpx; width: 100%%\">",
            b->width, b->height, b->width);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "plot%zu-", index);
    write_prefixed_ids(out, body, body_len, prefix);
    fputs("</svg></div>\n", out);
    return VIZ_OK;
}

static void write_paragraphs(FILE *out, const char *text)
{
    fputs("<p>", out);
    for (const char *s = text; *s; s++) {
        if (s[0] == '\n' && s[1] == '\n') {
            fputs("</p>\n<p>", out);
            while (s[1] == '\n')
                s++;
        } else {
            char c[2] = {*s, 0};
            escaped(out, c);
        }
    }
    fputs("</p>\n", out);
}

static void write_head(FILE *out, const viz_report *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    escaped(out, r->title);
    fprintf(out, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n<body>\n<header><h1>",
            viz_report_css, viz_report_js);
    escaped(out, r->title);
    fputs("</h1>\n<table class=\"meta\"><tbody>\n", out);
    for (size_t i = 0; i + 1 < r->nmeta; i += 2) {
        fputs("<tr><th>", out);
        escaped(out, r->meta[i]);
        fputs("</th><td>", out);
        escaped(out, r->meta[i + 1]);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n<nav>", out);
    for (size_t i = 0; i < r->nblocks; i++) {
        if (r->blocks[i].kind != BLOCK_HEADING)
            continue;
        fputs("<a href=\"#", out);
        escaped(out, r->blocks[i].id);
        fputs("\">", out);
        escaped(out, r->blocks[i].text);
        fputs("</a> ", out);
    }
    if (r->advice)
        fputs("<a href=\"#advice\">Advice</a>", out);
    fputs("</nav></header>\n<main>\n", out);
}

int viz_report_write(viz_report *r, FILE *out)
{
    write_head(out, r);
    int rc = VIZ_OK;
    for (size_t i = 0; i < r->nblocks && rc == VIZ_OK; i++) {
        const report_block *b = &r->blocks[i];
        switch (b->kind) {
        case BLOCK_HEADING:
            fputs("<h2 id=\"", out);
            escaped(out, b->id);
            fputs("\">", out);
            escaped(out, b->text);
            fputs("</h2>\n", out);
            break;
        case BLOCK_TEXT:
            write_paragraphs(out, b->text);
            break;
        case BLOCK_TABLE:
            write_table(out, b);
            break;
        case BLOCK_TIMELINE:
            rc = write_timeline(out, r, b->timeline);
            break;
        case BLOCK_PLOT:
            rc = write_plot(out, r, b, i);
            break;
        }
    }
    if (rc != VIZ_OK)
        return rc;
    if (r->advice) {
        fputs("<section id=\"advice\"><h2>Advice</h2>\n<pre>", out);
        escaped(out, r->advice);
        fputs("</pre></section>\n", out);
    }
    fputs("</main>\n<pre id=\"selftest\" hidden></pre>\n</body></html>\n", out);
    if (ferror(out)) {
        viz_set_error(r->error, sizeof r->error, "write error");
        return VIZ_EIO;
    }
    return VIZ_OK;
}
