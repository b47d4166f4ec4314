/*
 * run_compare_table.h - the small tables the comparison of runs is made of
 * (run_compare.c), and the one writer that prints them as text, JSON or
 * CSV, so the three formats always say the same. Internal to snetmon.
 */
#ifndef SNETMON_RUN_COMPARE_TABLE_H
#define SNETMON_RUN_COMPARE_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "wfb.h"

typedef struct cell {
    char *text;   /* NULL: a number */
    double num;   /* NAN prints n/a (JSON null) */
} cell;

typedef struct ctable {
    const char *key;     /* JSON member, CSV "table" column */
    char *title;         /* text heading (owned), may be NULL */
    size_t n_cols;
    const char *const *cols;
    cell *cells;         /* n_rows * n_cols */
    size_t n_rows, cap;
    char *note;          /* a line printed under the table, may be NULL */
} ctable;

typedef struct creport {
    ctable *tables;
    size_t n, cap;
    bool oom;            /* some allocation failed: the report is incomplete */
} creport;

/* printf into a new string (NULL when out of memory). */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new table; title is taken over. NULL (and r->oom) when out of memory. */
ctable *add_table(creport *r, const char *key, char *title, const char *const *cols,
                  size_t n_cols);
/* A new row of t (NULL t: NULL), every cell n/a until set. */
cell *add_row(creport *r, ctable *t);
void set_text(creport *r, cell *row, size_t i, const char *text);
/* b / a, NAN when either is unknown or a is 0. */
double ratio(double b, double a);
/* Every table in the format; head: JSON members written first (taken
 * over, may be NULL). Non-zero when writing failed. */
int write_report(const creport *r, json_t *head, wfb_output fmt, FILE *out);
void report_free(creport *r);

#endif
