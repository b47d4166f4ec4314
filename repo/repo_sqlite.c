/*
 * repo_sqlite.c - the SQLite backend of the run repository (repo_internal.h):
 * one file, no server, the default.
 *
 * Concurrency: every writer starts with BEGIN IMMEDIATE, which takes the
 * file's write lock at once, and a busy timeout makes a second writer wait
 * for it instead of failing; SQLite's journal makes a transaction all or
 * nothing, so a store killed half-way leaves no trace of its run.
 */
#include "repo_internal.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long a writer waits for another one (a store of a large trace holds
 * the lock for seconds). */
#define SQLITE_BUSY_MS 120000

struct repo_db {
    sqlite3 *db;
    char error[512];
};

struct repo_stmt {
    repo_db *db;
    sqlite3_stmt *st;
};

static void set_error(repo_db *db, const char *what)
{
    snprintf(db->error, sizeof db->error, "%s: %s", what, sqlite3_errmsg(db->db));
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1; rc == 0; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
                rc = -1;
            }
            *p = c;
            if (c == '\0')
                break;
        }
    }
    free(dir);
    return rc;
}

static int sq_open(repo_db **out, const char *path, bool create, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (!create && stat(path, &st) != 0) {
        snprintf(err, errlen, "no repository at %s (snetmon store makes one)", path);
        return -1;
    }
    if (create && make_parent_dirs(path, err, errlen) != 0)
        return -1;
    repo_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 db->db ? sqlite3_errmsg(db->db) : "out of memory");
        sqlite3_close(db->db);
        free(db);
        return -1;
    }
    sqlite3_busy_timeout(db->db, SQLITE_BUSY_MS);
    sqlite3_extended_result_codes(db->db, 1);
    *out = db;
    return 0;
}

static void sq_close(repo_db *db)
{
    if (!db)
        return;
    sqlite3_close(db->db);
    free(db);
}

static const char *sq_error(repo_db *db) { return db->error; }

static int sq_exec(repo_db *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(db->error, sizeof db->error, "%s", msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int sq_begin_write(repo_db *db) { return sq_exec(db, "BEGIN IMMEDIATE"); }
static int sq_begin_read(repo_db *db) { return sq_exec(db, "BEGIN"); }
static int sq_commit(repo_db *db) { return sq_exec(db, "COMMIT"); }
static int sq_rollback(repo_db *db) { return sq_exec(db, "ROLLBACK"); }

static repo_stmt *sq_prepare(repo_db *db, const char *sql)
{
    repo_stmt *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(db->error, sizeof db->error, "out of memory");
        return NULL;
    }
    s->db = db;
    if (sqlite3_prepare_v2(db->db, sql, -1, &s->st, NULL) != SQLITE_OK) {
        set_error(db, "prepare");
        free(s);
        return NULL;
    }
    return s;
}

static int sq_table_exists(repo_db *db, const char *table)
{
    repo_stmt *s = sq_prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    if (!s)
        return -1;
    sqlite3_bind_text(s->st, 1, table, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s->st);
    int found = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
    if (found < 0)
        set_error(db, "reading the schema");
    sqlite3_finalize(s->st);
    free(s);
    return found;
}

static void sq_bind_int(repo_stmt *s, int i, int64_t v) { sqlite3_bind_int64(s->st, i, v); }
static void sq_bind_null(repo_stmt *s, int i) { sqlite3_bind_null(s->st, i); }

static void sq_bind_double(repo_stmt *s, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(s->st, i);
    else
        sqlite3_bind_double(s->st, i, v);
}

static void sq_bind_text(repo_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s->st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s->st, i);
}

static int sq_step(repo_stmt *s)
{
    int rc = sqlite3_step(s->st);
    if (rc == SQLITE_ROW)
        return REPO_STEP_ROW;
    if (rc == SQLITE_DONE)
        return REPO_STEP_DONE;
    set_error(s->db, "query");
    return REPO_STEP_ERROR;
}

static bool sq_is_null(repo_stmt *s, int col)
{
    return sqlite3_column_type(s->st, col) == SQLITE_NULL;
}

static int64_t sq_col_int(repo_stmt *s, int col) { return sqlite3_column_int64(s->st, col); }

static double sq_col_double(repo_stmt *s, int col)
{
    return sq_is_null(s, col) ? NAN : sqlite3_column_double(s->st, col);
}

static const char *sq_col_text(repo_stmt *s, int col)
{
    return (const char *)sqlite3_column_text(s->st, col);
}

static void sq_reset(repo_stmt *s)
{
    sqlite3_reset(s->st);
    sqlite3_clear_bindings(s->st);
}

static void sq_finalize(repo_stmt *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->st);
    free(s);
}

const repo_backend repo_backend_sqlite = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .error = sq_error,
    .exec = sq_exec,
    .begin_write = sq_begin_write,
    .begin_read = sq_begin_read,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .table_exists = sq_table_exists,
    .prepare = sq_prepare,
    .bind_int = sq_bind_int,
    .bind_double = sq_bind_double,
    .bind_text = sq_bind_text,
    .bind_null = sq_bind_null,
    .step = sq_step,
    .is_null = sq_is_null,
    .col_int = sq_col_int,
    .col_double = sq_col_double,
    .col_text = sq_col_text,
    .reset = sq_reset,
    .finalize = sq_finalize,
};
