/*
 * repo_compare_table.c - the comparison's tables and their one writer
 * (repo_internal.h): text columns, CSV rows prefixed by the table's
 * key, or one JSON member per table holding a list of row objects.
 */
#include "repo_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *repo_xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

repo_table *repo_table_add(repo_report *r, const char *key, char *title, const char *const *cols,
                         size_t n_cols)
{
    if (KIT_GROW(r->tables, r->cap, r->n + 1)) {
        r->oom = true;
        free(title);
        return NULL;
    }
    repo_table *t = &r->tables[r->n++];
    *t = (repo_table){.key = key, .title = title, .n_cols = n_cols, .cols = cols};
    return t;
}

/* A new row; its cells are set with repo_cell_set_text / set_num. */
repo_cell *repo_table_row(repo_report *r, repo_table *t)
{
    if (!t)
        return NULL;
    /* cap counts cells: a row is n_cols of them */
    if (KIT_GROW(t->cells, t->cap, (t->n_rows + 1) * t->n_cols)) {
        r->oom = true;
        return NULL;
    }
    repo_cell *row = &t->cells[t->n_rows++ * t->n_cols];
    for (size_t i = 0; i < t->n_cols; i++)
        row[i] = (repo_cell){NULL, NAN};
    return row;
}

void repo_cell_set_text(repo_report *r, repo_cell *row, size_t i, const char *text)
{
    if (!row)
        return;
    row[i].text = xstrdup(text ? text : "");
    if (!row[i].text)
        r->oom = true;
}

void repo_report_free(repo_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        repo_table *t = &r->tables[i];
        for (size_t k = 0; k < t->n_rows * t->n_cols; k++)
            free(t->cells[k].text);
        free(t->cells);
        free(t->title);
        free(t->note);
    }
    free(r->tables);
}

double repo_ratio(double b, double a)
{
    return a != 0 && !isnan(a) && !isnan(b) ? b / a : NAN;
}

static void print_num(FILE *out, double v, int width)
{
    if (isnan(v))
        fprintf(out, "%*s", width, "n/a");
    else
        fprintf(out, "%*.6g", width, v);
}

static void text_table(const repo_table *t, FILE *out)
{
    if (t->title)
        fprintf(out, "%s\n", t->title);
    size_t w0 = strlen(t->cols[0]);
    for (size_t r = 0; r < t->n_rows; r++) {
        const repo_cell *c = &t->cells[r * t->n_cols];
        if (c->text && strlen(c->text) > w0)
            w0 = strlen(c->text);
    }
    fprintf(out, "  %-*s", (int)w0, t->cols[0]);
    for (size_t i = 1; i < t->n_cols; i++)
        fprintf(out, " %13s", t->cols[i]);
    fputc('\n', out);
    for (size_t r = 0; r < t->n_rows; r++) {
        const repo_cell *row = &t->cells[r * t->n_cols];
        fprintf(out, "  %-*s", (int)w0, row[0].text ? row[0].text : "");
        for (size_t i = 1; i < t->n_cols; i++) {
            fputc(' ', out);
            if (row[i].text)
                fprintf(out, "%13s", row[i].text);
            else
                print_num(out, row[i].num, 13);
        }
        fputc('\n', out);
    }
    if (t->n_rows == 0)
        fprintf(out, "  (none)\n");
    if (t->note)
        fprintf(out, "  %s\n", t->note);
    fputc('\n', out);
}

/* CSV: one table after the other, each with its header line prefixed by
 * the column "table". */
static void csv_table(const repo_table *t, FILE *out)
{
    fputs("table", out);
    for (size_t i = 0; i < t->n_cols; i++) {
        fputc(',', out);
        wfb_csv_field(out, t->cols[i]);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->n_rows; r++) {
        const repo_cell *row = &t->cells[r * t->n_cols];
        fputs(t->key, out);
        for (size_t i = 0; i < t->n_cols; i++) {
            fputc(',', out);
            if (row[i].text)
                wfb_csv_field(out, row[i].text);
            else if (!isnan(row[i].num))
                fprintf(out, "%.9g", row[i].num);
        }
        fputc('\n', out);
    }
}

static json_t *json_num(double v) { return isnan(v) || isinf(v) ? json_null() : json_real(v); }

/* A column name as a JSON member: "span A" -> "span_a", "B/A" -> "b_over_a",
 * "B-A" -> "b_minus_a". */
static void json_key(const char *col, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = col; *p && n + 8 < len; p++) {
        const char *w = *p == '/' ? "_over_" : *p == '-' ? "_minus_" : NULL;
        if (w) {
            n += (size_t)snprintf(buf + n, len - n, "%s", w);
        } else {
            char c = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
            buf[n++] = c;
        }
    }
    buf[n] = '\0';
}

static json_t *json_table(const repo_table *t)
{
    json_t *rows = json_array();
    for (size_t r = 0; r < t->n_rows; r++) {
        const repo_cell *row = &t->cells[r * t->n_cols];
        json_t *o = json_object();
        for (size_t i = 0; i < t->n_cols; i++) {
            char key[64];
            json_key(t->cols[i], key, sizeof key);
            json_object_set_new(o, key,
                                row[i].text ? json_string(row[i].text) : json_num(row[i].num));
        }
        json_array_append_new(rows, o);
    }
    return rows;
}

int repo_report_write(const repo_report *r, json_t *head, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        json_t *root = head ? head : json_object();
        for (size_t i = 0; i < r->n; i++)
            json_object_set_new(root, r->tables[i].key, json_table(&r->tables[i]));
        int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
        fputc('\n', out);
        json_decref(root);
        return rc;
    }
    json_decref(head);
    for (size_t i = 0; i < r->n; i++)
        (fmt == WFB_OUT_CSV ? csv_table : text_table)(&r->tables[i], out);
    return 0;
}

