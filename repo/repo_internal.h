/*
 * repo_internal.h - the repository library's internals (repo/): what a
 * database must offer the repository (the backends), and the small tables
 * the comparison of runs is made of.
 *
 * Backends: a connection, transactions, and prepared statements with '?'
 * parameters. Two implement it: SQLite (repo_sqlite.c, a file, the
 * default) and PostgreSQL (repo_pg.c, through libpq). repo.c writes its SQL
 * once, in the words both dialects share (BIGINT, DOUBLE PRECISION, TEXT,
 * '?' parameters, which the PostgreSQL backend turns into $1, $2, ...); the
 * few things the dialects say differently (asking whether a table exists,
 * taking the one writer's lock) are behind this table of functions. The
 * commands never see it: they use repo.h.
 *
 * Tables: the comparison (repo_compare.c) builds its report as tables,
 * and one writer (repo_compare_table.c) prints them as text, JSON or CSV,
 * so the three formats always say the same.
 */
#ifndef REPO_INTERNAL_H
#define REPO_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kit.h" /* growing arrays */
#include "repo.h"

/* ---- backends ---- */

typedef struct repo_db repo_db;     /* one open connection, backend's own */
typedef struct repo_stmt repo_stmt; /* one prepared statement */

/* Results of step. */
enum { REPO_STEP_ROW = 1, REPO_STEP_DONE = 0, REPO_STEP_ERROR = -1 };

typedef struct repo_backend {
    const char *name; /* "sqlite", "postgresql", for messages */
    /* Connect to target (a file path, or a libpq connection URI). create:
     * the repository may be made (store); without it a missing SQLite file
     * is an error. 0, or -1 with one line in err. */
    int (*open)(repo_db **out, const char *target, bool create, char *err, size_t errlen);
    void (*close)(repo_db *db);
    /* The last error of db, one line. */
    const char *(*error)(repo_db *db);
    /* Statements without parameters or rows (DDL), ';'-separated. */
    int (*exec)(repo_db *db, const char *sql);
    /* A transaction that holds the repository's one writer lock from its
     * start, so that concurrent writers queue instead of failing half-way
     * (SQLite: BEGIN IMMEDIATE under a busy timeout; PostgreSQL: an
     * advisory transaction lock). Readers are not blocked. */
    int (*begin_write)(repo_db *db);
    int (*begin_read)(repo_db *db);
    int (*commit)(repo_db *db);
    int (*rollback)(repo_db *db);
    /* 1 when the table exists, 0 when not, -1 on error. */
    int (*table_exists)(repo_db *db, const char *table);
    /* '?' placeholders, numbered from 1 in order. NULL on error. */
    repo_stmt *(*prepare)(repo_db *db, const char *sql);
    /* Parameters, i from 1. NAN doubles and NULL texts bind NULL. */
    void (*bind_int)(repo_stmt *s, int i, int64_t v);
    void (*bind_double)(repo_stmt *s, int i, double v);
    void (*bind_text)(repo_stmt *s, int i, const char *v);
    void (*bind_null)(repo_stmt *s, int i);
    /* Runs the statement (first call) and moves to the next row. */
    int (*step)(repo_stmt *s);
    /* Columns of the current row, from 0. NULL reads as 0, NAN, NULL. */
    bool (*is_null)(repo_stmt *s, int col);
    int64_t (*col_int)(repo_stmt *s, int col);
    double (*col_double)(repo_stmt *s, int col);
    const char *(*col_text)(repo_stmt *s, int col);
    /* Ready to run again with new parameters. */
    void (*reset)(repo_stmt *s);
    void (*finalize)(repo_stmt *s);
} repo_backend;

extern const repo_backend repo_backend_sqlite;
extern const repo_backend repo_backend_postgresql;

/* ---- the comparison's tables ---- */

typedef struct repo_cell {
    char *text;   /* NULL: a number */
    double num;   /* NAN prints n/a (JSON null) */
} repo_cell;

typedef struct repo_table {
    const char *key;     /* JSON member, CSV "table" column */
    char *title;         /* text heading (owned), may be NULL */
    size_t n_cols;
    const char *const *cols;
    repo_cell *cells;         /* n_rows * n_cols */
    size_t n_rows, cap;   /* rows; cells the array has room for */
    char *note;          /* a line printed under the table, may be NULL */
} repo_table;

typedef struct repo_report {
    repo_table *tables;
    size_t n, cap;
    bool oom;            /* some allocation failed: the report is incomplete */
} repo_report;

/* printf into a new string (NULL when out of memory). */
char *repo_xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new table; title is taken over. NULL (and r->oom) when out of memory. */
repo_table *repo_table_add(repo_report *r, const char *key, char *title, const char *const *cols,
                  size_t n_cols);
/* A new row of t (NULL t: NULL), every repo_cell n/a until set. */
repo_cell *repo_table_row(repo_report *r, repo_table *t);
void repo_cell_set_text(repo_report *r, repo_cell *row, size_t i, const char *text);
/* b / a, NAN when either is unknown or a is 0. */
double repo_ratio(double b, double a);
/* Every table in the format; head: JSON members written first (taken
 * over, may be NULL). Non-zero when writing failed. */
int repo_report_write(const repo_report *r, json_t *head, wfb_output fmt, FILE *out);
void repo_report_free(repo_report *r);

#endif /* REPO_INTERNAL_H */
