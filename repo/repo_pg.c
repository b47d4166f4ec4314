/*
 * repo_pg.c - the PostgreSQL backend of the run repository
 * (repo_internal.h), through libpq: a team's shared repository.
 *
 * The SQL is repo.c's, with its '?' parameters numbered $1, $2, ... here.
 * Parameters and results travel as text (what libpq does by default); NULL
 * stands for unknown, as in the SQLite file. Writers take one advisory
 * lock for the length of their transaction, so that run ids are handed out
 * in commit order without gaps, as in SQLite.
 */
#include "repo_internal.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock every writer of a repository takes ("snetmon"). */
#define PG_WRITER_LOCK "736e65746d6f6e"
#define PG_MAX_PARAMS 64

struct repo_db {
    PGconn *conn;
    unsigned long next_name; /* prepared statements s1, s2, ... */
    char error[512];
};

struct repo_stmt {
    repo_db *db;
    char name[32];
    int nparams;
    char *params[PG_MAX_PARAMS];
    PGresult *res;
    int row, rows; /* the current row is row - 1 */
};

/* libpq's messages span lines ("ERROR:  ...\nDETAIL: ..."): one line. */
static void set_error(repo_db *db, const char *what, const char *msg)
{
    snprintf(db->error, sizeof db->error, "%s%s%s", what, *what ? ": " : "", msg ? msg : "");
    for (char *p = db->error; *p; p++)
        if (*p == '\n')
            *p = ' ';
    size_t n = strlen(db->error);
    while (n && db->error[n - 1] == ' ')
        db->error[--n] = '\0';
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static int pg_open(repo_db **out, const char *uri, bool create, char *err, size_t errlen)
{
    (void)create; /* the database must exist; its tables are made by repo.c */
    *out = NULL;
    repo_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* A default connect timeout; the URI's own settings come later and win. */
    const char *const keys[] = {"connect_timeout", "dbname", NULL};
    const char *const vals[] = {"10", uri, NULL};
    db->conn = PQconnectdbParams(keys, vals, 1);
    if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
        set_error(db, "cannot connect", db->conn ? PQerrorMessage(db->conn) : "out of memory");
        snprintf(err, errlen, "%s", db->error);
        PQfinish(db->conn);
        free(db);
        return -1;
    }
    PQsetNoticeProcessor(db->conn, ignore_notice, NULL);
    *out = db;
    return 0;
}

static void pg_close(repo_db *db)
{
    if (!db)
        return;
    PQfinish(db->conn);
    free(db);
}

static const char *pg_error(repo_db *db) { return db->error; }

static int pg_exec(repo_db *db, const char *sql)
{
    PGresult *r = PQexec(db->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : -1;
    if (rc)
        set_error(db, "", PQresultErrorMessage(r));
    PQclear(r);
    return rc;
}

static int pg_begin_write(repo_db *db)
{
    return pg_exec(db, "BEGIN; SELECT pg_advisory_xact_lock(x'" PG_WRITER_LOCK "'::bigint)");
}
static int pg_begin_read(repo_db *db) { return pg_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ"); }
static int pg_commit(repo_db *db) { return pg_exec(db, "COMMIT"); }
static int pg_rollback(repo_db *db) { return pg_exec(db, "ROLLBACK"); }

/* '?' -> $n outside quoted text; the number of parameters in *n. */
static char *number_params(const char *sql, int *n)
{
    size_t len = strlen(sql);
    char *out = malloc(len * 4 + 1);
    if (!out)
        return NULL;
    char *o = out;
    bool quoted = false;
    *n = 0;
    for (const char *p = sql; *p; p++) {
        if (*p == '\'')
            quoted = !quoted;
        if (*p == '?' && !quoted)
            o += sprintf(o, "$%d", ++*n);
        else
            *o++ = *p;
    }
    *o = '\0';
    return out;
}

static repo_stmt *pg_prepare(repo_db *db, const char *sql)
{
    repo_stmt *s = calloc(1, sizeof *s);
    int n = 0;
    char *text = s ? number_params(sql, &n) : NULL;
    if (!text || n > PG_MAX_PARAMS) {
        set_error(db, "prepare", text ? "too many parameters" : "out of memory");
        free(text);
        free(s);
        return NULL;
    }
    s->db = db;
    s->nparams = n;
    snprintf(s->name, sizeof s->name, "s%lu", ++db->next_name);
    PGresult *r = PQprepare(db->conn, s->name, text, 0, NULL);
    free(text);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        set_error(db, "prepare", PQresultErrorMessage(r));
    PQclear(r);
    if (!ok) {
        free(s);
        return NULL;
    }
    return s;
}

static int pg_table_exists(repo_db *db, const char *table)
{
    repo_stmt *s = pg_prepare(db, "SELECT 1 FROM information_schema.tables "
                                  "WHERE table_schema = current_schema() AND table_name = ?");
    if (!s)
        return -1;
    const char *params[1] = {table};
    PGresult *r = PQexecPrepared(db->conn, s->name, 1, params, NULL, NULL, 0);
    int found = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) > 0 : -1;
    if (found < 0)
        set_error(db, "reading the schema", PQresultErrorMessage(r));
    PQclear(r);
    char dealloc[64];
    snprintf(dealloc, sizeof dealloc, "DEALLOCATE %s", s->name);
    PQclear(PQexec(db->conn, dealloc));
    free(s);
    return found;
}

static void set_param(repo_stmt *s, int i, char *value)
{
    if (i < 1 || i > s->nparams) {
        free(value);
        return;
    }
    free(s->params[i - 1]);
    s->params[i - 1] = value;
}

static void pg_bind_text(repo_stmt *s, int i, const char *v) { set_param(s, i, v ? strdup(v) : NULL); }
static void pg_bind_null(repo_stmt *s, int i) { set_param(s, i, NULL); }

static void pg_bind_int(repo_stmt *s, int i, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    pg_bind_text(s, i, buf);
}

static void pg_bind_double(repo_stmt *s, int i, double v)
{
    if (isnan(v)) {
        set_param(s, i, NULL);
        return;
    }
    char buf[40];
    if (isinf(v))
        snprintf(buf, sizeof buf, "%sInfinity", v < 0 ? "-" : "");
    else
        snprintf(buf, sizeof buf, "%.17g", v);
    pg_bind_text(s, i, buf);
}

static int pg_step(repo_stmt *s)
{
    if (!s->res) {
        s->res = PQexecPrepared(s->db->conn, s->name, s->nparams, (const char *const *)s->params,
                                NULL, NULL, 0);
        ExecStatusType st = PQresultStatus(s->res);
        if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
            set_error(s->db, "query", PQresultErrorMessage(s->res));
            return REPO_STEP_ERROR;
        }
        s->rows = st == PGRES_TUPLES_OK ? PQntuples(s->res) : 0;
        s->row = 0;
    }
    if (s->row >= s->rows)
        return REPO_STEP_DONE;
    s->row++;
    return REPO_STEP_ROW;
}

static bool pg_is_null(repo_stmt *s, int col)
{
    return !s->res || s->row < 1 || PQgetisnull(s->res, s->row - 1, col);
}

static const char *pg_col_text(repo_stmt *s, int col)
{
    return pg_is_null(s, col) ? NULL : PQgetvalue(s->res, s->row - 1, col);
}

static int64_t pg_col_int(repo_stmt *s, int col)
{
    const char *t = pg_col_text(s, col);
    return t ? strtoll(t, NULL, 10) : 0;
}

static double pg_col_double(repo_stmt *s, int col)
{
    const char *t = pg_col_text(s, col);
    return t ? strtod(t, NULL) : NAN;
}

static void pg_reset(repo_stmt *s)
{
    PQclear(s->res);
    s->res = NULL;
    s->row = s->rows = 0;
    for (int i = 0; i < s->nparams; i++) {
        free(s->params[i]);
        s->params[i] = NULL;
    }
}

static void pg_finalize(repo_stmt *s)
{
    if (!s)
        return;
    pg_reset(s);
    char dealloc[64];
    snprintf(dealloc, sizeof dealloc, "DEALLOCATE %s", s->name);
    PGresult *r = PQexec(s->db->conn, dealloc);
    PQclear(r);
    free(s);
}

const repo_backend repo_backend_postgresql = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .error = pg_error,
    .exec = pg_exec,
    .begin_write = pg_begin_write,
    .begin_read = pg_begin_read,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .table_exists = pg_table_exists,
    .prepare = pg_prepare,
    .bind_int = pg_bind_int,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .is_null = pg_is_null,
    .col_int = pg_col_int,
    .col_double = pg_col_double,
    .col_text = pg_col_text,
    .reset = pg_reset,
    .finalize = pg_finalize,
};
