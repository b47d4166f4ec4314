/*
 * repo.c - the experiment repository (repo.h): URLs, the schema and its
 * migrations, and storing, listing and loading runs, in SQL that SQLite
 * and PostgreSQL both accept (repo_internal.h says what differs).
 *
 * The rows of each per-run table are described once (a table of columns
 * and where each lives in the record's structs), and both the INSERT and
 * the SELECT are made from that description, so what is stored is what is
 * read back. The CREATE TABLE text is written out per schema version
 * instead, because a migration must keep meaning what it meant when it was
 * released, whatever the structs become.
 */
#include "repo.h"
#include "repo_internal.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct repo {
    const repo_backend *be;
    repo_db *db;
    char name[PATH_MAX + 128];
    int found_version;
};

/* ------------------------------------------------------------ schema */

/* Summary columns of one wfb_summary. */
#define SUMMARY_DDL(p)                                                                         \
    p "_n BIGINT, " p "_min_s DOUBLE PRECISION, " p "_median_s DOUBLE PRECISION, " p          \
      "_p95_s DOUBLE PRECISION, " p "_p99_s DOUBLE PRECISION, " p "_max_s DOUBLE PRECISION, " p \
      "_mean_s DOUBLE PRECISION, " p "_stddev_s DOUBLE PRECISION, "

/* Version 1 (docs/REPOSITORY.md). BIGINT, DOUBLE PRECISION and TEXT mean
 * the same in both dialects; NULL is "unknown". */
static const char schema_v1[] =
    "CREATE TABLE run ("
    " id BIGINT PRIMARY KEY, stored_at TEXT NOT NULL, source TEXT NOT NULL, format TEXT NOT NULL,"
    " program TEXT, command_line TEXT, workers BIGINT, flags TEXT, task_filter TEXT, host TEXT,"
    " start_time TEXT, start_ns BIGINT, git_revision TEXT, complete BIGINT, loss TEXT,"
    " instances BIGINT NOT NULL, vertices BIGINT NOT NULL, edges BIGINT NOT NULL);"
    "CREATE TABLE run_label ("
    " run_id BIGINT NOT NULL REFERENCES run(id), key TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (run_id, key));"
    "CREATE INDEX run_label_by_key ON run_label (key, value);"
    "CREATE TABLE run_figures ("
    " run_id BIGINT NOT NULL REFERENCES run(id), instance BIGINT NOT NULL, inputs BIGINT,"
    " inputs_given BIGINT, inputs_only_read BIGINT, span_s DOUBLE PRECISION, span_worker BIGINT,"
    " throughput_per_s DOUBLE PRECISION, busy_max_s DOUBLE PRECISION, busy_worker BIGINT,"
    " throughput_busy_per_s DOUBLE PRECISION, exec_s DOUBLE PRECISION, " SUMMARY_DDL("latency")
        SUMMARY_DDL("end_to_end") " jitter_s DOUBLE PRECISION, timeout_s DOUBLE PRECISION,"
    " timed_out BIGINT, missing_events BIGINT, span_unknown_why TEXT, latency_unknown_why TEXT,"
    " PRIMARY KEY (run_id, instance));"
    "CREATE TABLE worker ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, instance BIGINT NOT NULL,"
    " worker BIGINT NOT NULL, start_s DOUBLE PRECISION, end_s DOUBLE PRECISION,"
    " busy_s DOUBLE PRECISION, wait_s DOUBLE PRECISION, waits BIGINT,"
    " first_s DOUBLE PRECISION, last_s DOUBLE PRECISION, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE task ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, instance BIGINT NOT NULL,"
    " task BIGINT NOT NULL, name TEXT, worker BIGINT, exec_s DOUBLE PRECISION, dispatches BIGINT,"
    " executions BIGINT, blocks_input BIGINT, blocks_output BIGINT, blocks_any BIGINT,"
    " blocks_other BIGINT, first_s DOUBLE PRECISION, last_s DOUBLE PRECISION,"
    " wait_s DOUBLE PRECISION, waits BIGINT, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE input_latency ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, instance BIGINT NOT NULL,"
    " input TEXT NOT NULL, latency_s DOUBLE PRECISION, end_to_end_s DOUBLE PRECISION,"
    " descendants BIGINT, missing_events BIGINT, timed_out BIGINT, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE wait_relation ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, instance BIGINT NOT NULL,"
    " waiter BIGINT, waiter_name TEXT, waited_for BIGINT, waited_for_name TEXT, stream BIGINT,"
    " on_empty BIGINT, count BIGINT, total_s DOUBLE PRECISION, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE critical_path ("
    " run_id BIGINT NOT NULL REFERENCES run(id), kind TEXT NOT NULL, valid BIGINT NOT NULL,"
    " length_s DOUBLE PRECISION, vertices BIGINT NOT NULL, PRIMARY KEY (run_id, kind));"
    "CREATE TABLE path_step ("
    " run_id BIGINT NOT NULL REFERENCES run(id), kind TEXT NOT NULL, seq BIGINT NOT NULL,"
    " vertex TEXT NOT NULL, task TEXT, step_s DOUBLE PRECISION, PRIMARY KEY (run_id, kind, seq));"
    "CREATE TABLE activity ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, activity TEXT NOT NULL,"
    " label TEXT, resources TEXT, submitted_s DOUBLE PRECISION, active_s DOUBLE PRECISION,"
    " end_s DOUBLE PRECISION, duration_s DOUBLE PRECISION, response_s DOUBLE PRECISION,"
    " waiting_s DOUBLE PRECISION, processing_s DOUBLE PRECISION, failed BIGINT,"
    " not_started BIGINT, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE dependency ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, parent TEXT NOT NULL,"
    " child TEXT NOT NULL, sync_delay_s DOUBLE PRECISION, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE fork_region ("
    " run_id BIGINT NOT NULL REFERENCES run(id), seq BIGINT NOT NULL, fork TEXT NOT NULL,"
    " branches BIGINT, max_s DOUBLE PRECISION, mean_s DOUBLE PRECISION, min_s DOUBLE PRECISION,"
    " load_imbalance_s DOUBLE PRECISION, imbalance_pct DOUBLE PRECISION,"
    " slowdown_factor DOUBLE PRECISION, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE activity_figures ("
    " run_id BIGINT NOT NULL REFERENCES run(id), activities BIGINT, failed BIGINT,"
    " not_started BIGINT, makespan_s DOUBLE PRECISION, makespan_measured_s DOUBLE PRECISION,"
    " makespan_declared BIGINT, " SUMMARY_DDL("response") SUMMARY_DDL("waiting")
        SUMMARY_DDL("processing") SUMMARY_DDL("sync_delay") SUMMARY_DDL("load_imbalance")
            SUMMARY_DDL("slowdown_factor") " PRIMARY KEY (run_id));";

/* Version 2: blocked and ready time apart (a wait's total_s is its
 * blocked time from now on), the workers' CPU time, the reason of an n/a
 * throughput. */
static const char schema_v2[] =
    "ALTER TABLE worker ADD COLUMN blocked_s DOUBLE PRECISION;"
    "ALTER TABLE worker ADD COLUMN ready_s DOUBLE PRECISION;"
    "ALTER TABLE worker ADD COLUMN cpu_s DOUBLE PRECISION;"
    "ALTER TABLE worker ADD COLUMN preempted_s DOUBLE PRECISION;"
    "ALTER TABLE worker ADD COLUMN preemptions BIGINT;"
    "ALTER TABLE task ADD COLUMN ready_s DOUBLE PRECISION;"
    "ALTER TABLE task ADD COLUMN preempted_s DOUBLE PRECISION;"
    "ALTER TABLE wait_relation ADD COLUMN ready_s DOUBLE PRECISION;"
    "ALTER TABLE wait_relation ADD COLUMN woken BIGINT;"
    "ALTER TABLE run_figures ADD COLUMN throughput_unknown_why TEXT;";

/* migrations[v] takes a repository from version v to v + 1. */
static const char *const migrations[REPO_SCHEMA_VERSION] = {schema_v1, schema_v2};

/* ---------------------------------------------------- URL and opening */

/* libpq checks a port only when connecting: a port that is not a number
 * (or a comma-separated list of them) is a malformed URL. NULL when fine. */
static const char *bad_port(const PQconninfoOption *opts)
{
    for (const PQconninfoOption *o = opts; o->keyword; o++) {
        if (strcmp(o->keyword, "port") || !o->val)
            continue;
        for (const char *p = o->val; *p; p++)
            if (!isdigit((unsigned char)*p) && *p != ',')
                return o->val;
    }
    return NULL;
}

static int parse_url(const char *url, const repo_backend **be, char *target, size_t len,
                     char *err, size_t errlen)
{
    if (!url || !*url) {
        snprintf(err, errlen, "empty repository URL (give a file path, sqlite:PATH or "
                              "postgresql://...)");
        return -1;
    }
    if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
        char *msg = NULL;
        PQconninfoOption *opts = PQconninfoParse(url, &msg);
        if (!opts) {
            char *nl = msg ? strchr(msg, '\n') : NULL;
            if (nl)
                *nl = '\0';
            snprintf(err, errlen, "malformed PostgreSQL URL '%s': %s", url,
                     msg ? msg : "out of memory");
            PQfreemem(msg);
            return -1;
        }
        const char *bad = bad_port(opts);
        PQconninfoFree(opts);
        if (bad) {
            snprintf(err, errlen, "malformed PostgreSQL URL '%s': the port is not a number", url);
            return -1;
        }
        *be = &repo_backend_postgresql;
        snprintf(target, len, "%s", url);
        return 0;
    }
    if (!strncmp(url, "postgresql:", 11) || !strncmp(url, "postgres:", 9)) {
        snprintf(err, errlen, "malformed PostgreSQL URL '%s': expected postgresql://", url);
        return -1;
    }
    const char *path = url;
    if (!strncmp(url, "sqlite:", 7)) {
        path = url + 7;
        if (!strncmp(path, "//", 2))
            path += 2;
        if (!*path || strchr(path, '?')) {
            snprintf(err, errlen, "malformed SQLite URL '%s': expected sqlite:PATH "
                                  "(sqlite:///absolute/path), without options", url);
            return -1;
        }
    } else {
        const char *sep = strstr(url, "://");
        if (sep) {
            snprintf(err, errlen, "unsupported repository URL scheme '%.*s' in '%s' (use a file "
                                  "path, sqlite:PATH or postgresql://...)",
                     (int)(sep - url), url, url);
            return -1;
        }
    }
    if (strlen(path) >= len) {
        snprintf(err, errlen, "repository path too long: %s", path);
        return -1;
    }
    *be = &repo_backend_sqlite;
    snprintf(target, len, "%s", path);
    return 0;
}

const char *repo_default_url(char *buf, size_t len)
{
    const char *env = getenv("SNETMON_DB");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return buf;
    }
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/') {
        snprintf(buf, len, "%s/snetmon/runs.sqlite", xdg);
        return buf;
    }
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    snprintf(buf, len, "%s/.local/share/snetmon/runs.sqlite", home);
    return buf;
}

/* The URL without a password, for messages. */
static void safe_name(const char *url, char *buf, size_t len)
{
    snprintf(buf, len, "%s", url);
    char *scheme = strstr(buf, "://");
    if (!scheme)
        return;
    char *at = strchr(scheme + 3, '@');
    char *colon = strchr(scheme + 3, ':');
    if (at && colon && colon < at)
        memmove(colon, at, strlen(at) + 1);
}

static void db_error(const repo *r, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s: %s", r->name, what, r->be->error(r->db));
}

/* A prepared statement for sql, or NULL with "NAME: what: why" in err. */
static repo_stmt *prepare(const repo *r, const char *sql, const char *what, char *err,
                          size_t errlen)
{
    repo_stmt *s = r->be->prepare(r->db, sql);
    if (!s)
        db_error(r, what, err, errlen);
    return s;
}

/* The version a repository has: 0 when it has no schema yet. */
static int read_version(repo *r, int *version, char *err, size_t errlen)
{
    int has = r->be->table_exists(r->db, "schema_version");
    if (has < 0) {
        db_error(r, "not a repository", err, errlen);
        return -1;
    }
    *version = 0;
    if (!has) {
        int other = r->be->table_exists(r->db, "run");
        if (other != 0) {
            snprintf(err, errlen, "%s: not a snetmon repository (a table 'run' but no "
                                  "schema_version)", r->name);
            return -1;
        }
        return 0;
    }
    repo_stmt *s = r->be->prepare(r->db, "SELECT MAX(version) FROM schema_version");
    if (!s || r->be->step(s) != REPO_STEP_ROW) {
        db_error(r, "reading the schema version", err, errlen);
        r->be->finalize(s);
        return -1;
    }
    *version = (int)r->be->col_int(s, 0);
    r->be->finalize(s);
    return 0;
}

static int apply_migrations(repo *r, int from, char *err, size_t errlen)
{
    if (from == 0 && r->be->exec(r->db, "CREATE TABLE schema_version (version BIGINT NOT NULL)")) {
        db_error(r, "creating the schema", err, errlen);
        return -1;
    }
    for (int v = from; v < REPO_SCHEMA_VERSION; v++) {
        char bump[80];
        snprintf(bump, sizeof bump, "DELETE FROM schema_version; INSERT INTO schema_version "
                                    "VALUES (%d)", v + 1);
        if (r->be->exec(r->db, migrations[v]) || r->be->exec(r->db, bump)) {
            char what[64];
            snprintf(what, sizeof what, "migrating the schema to version %d", v + 1);
            db_error(r, what, err, errlen);
            return -1;
        }
    }
    return 0;
}

/* Creates or migrates the schema, under the writer lock so that two
 * processes opening a new repository at once make it once. */
static int prepare_schema(repo *r, bool create, char *err, size_t errlen)
{
    int version;
    if (read_version(r, &version, err, errlen))
        return -1;
    r->found_version = version;
    if (version > REPO_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s has schema version %d, newer than this snetmon knows (%d): "
                              "use a newer snetmon",
                 r->name, version, REPO_SCHEMA_VERSION);
        return -1;
    }
    if (version == REPO_SCHEMA_VERSION)
        return 0;
    if (version == 0 && !create) {
        snprintf(err, errlen, "%s holds no runs yet (snetmon store makes the repository)",
                 r->name);
        return -1;
    }
    if (r->be->begin_write(r->db)) {
        db_error(r, "locking", err, errlen);
        return -1;
    }
    int rc = read_version(r, &version, err, errlen); /* another process may have done it */
    if (rc == 0 && version > REPO_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s has schema version %d, newer than this snetmon knows (%d)",
                 r->name, version, REPO_SCHEMA_VERSION);
        rc = -1;
    }
    if (rc == 0 && version < REPO_SCHEMA_VERSION)
        rc = apply_migrations(r, version, err, errlen);
    if (rc == 0 && r->be->commit(r->db)) {
        db_error(r, "committing the schema", err, errlen);
        rc = -1;
    }
    if (rc)
        r->be->rollback(r->db);
    return rc;
}

int repo_open(repo **out, const char *url, bool create, char *err, size_t errlen)
{
    *out = NULL;
    char def[PATH_MAX];
    if (!url && !(url = repo_default_url(def, sizeof def))) {
        snprintf(err, errlen, "no repository: give --db, or set SNETMON_DB or HOME");
        return -1;
    }
    repo *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char target[PATH_MAX + 64];
    if (parse_url(url, &r->be, target, sizeof target, err, errlen)) {
        free(r);
        return -1;
    }
    if (r->be == &repo_backend_sqlite)
        snprintf(r->name, sizeof r->name, "%s", target);
    else
        safe_name(url, r->name, sizeof r->name);
    char msg[512];
    if (r->be->open(&r->db, target, create, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        free(r);
        return -1;
    }
    if (prepare_schema(r, create, err, errlen)) {
        repo_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void repo_close(repo *r)
{
    if (!r)
        return;
    if (r->db)
        r->be->close(r->db);
    free(r);
}

const char *repo_name(const repo *r) { return r->name; }
int repo_found_version(const repo *r) { return r->found_version; }

/* ------------------------------------------------- row descriptions */

typedef enum col_type { C_I64, C_U64, C_U32, C_INT, C_SIZE, C_DBL, C_STR } col_type;

typedef struct col {
    const char *name;
    col_type type;
    size_t offset;
} col;

#define COL(n, t, type, member) {n, t, offsetof(type, member)}
#define SUMMARY_COLS(p, type, m)                                                               \
    COL(p "_n", C_SIZE, type, m.n), COL(p "_min_s", C_DBL, type, m.min),                       \
        COL(p "_median_s", C_DBL, type, m.median), COL(p "_p95_s", C_DBL, type, m.p95),        \
        COL(p "_p99_s", C_DBL, type, m.p99), COL(p "_max_s", C_DBL, type, m.max),              \
        COL(p "_mean_s", C_DBL, type, m.mean), COL(p "_stddev_s", C_DBL, type, m.stddev)

/* One per-run table: its rows are an array in the record. seq: the table
 * numbers its rows (the index in the array). */
typedef struct table_spec {
    const char *table;
    size_t row_size;
    size_t array_offset, count_offset; /* in repo_run */
    bool seq;
    const col *cols;
    size_t n_cols;
} table_spec;

static const col figures_cols[] = {
    COL("instance", C_U32, repo_figures, f.run),
    COL("inputs", C_SIZE, repo_figures, f.inputs),
    COL("inputs_given", C_INT, repo_figures, f.inputs_given),
    COL("inputs_only_read", C_SIZE, repo_figures, f.inputs_only_read),
    COL("span_s", C_DBL, repo_figures, f.span_s),
    COL("span_worker", C_U32, repo_figures, f.span_worker),
    COL("throughput_per_s", C_DBL, repo_figures, f.throughput_per_s),
    COL("busy_max_s", C_DBL, repo_figures, f.busy_max_s),
    COL("busy_worker", C_U32, repo_figures, f.busy_worker),
    COL("throughput_busy_per_s", C_DBL, repo_figures, f.throughput_busy_per_s),
    COL("exec_s", C_DBL, repo_figures, f.exec_s),
    SUMMARY_COLS("latency", repo_figures, f.latency),
    SUMMARY_COLS("end_to_end", repo_figures, f.end_to_end),
    COL("jitter_s", C_DBL, repo_figures, f.jitter_s),
    COL("timeout_s", C_DBL, repo_figures, timeout_s),
    COL("timed_out", C_I64, repo_figures, timed_out),
    COL("missing_events", C_I64, repo_figures, missing_events),
    COL("span_unknown_why", C_STR, repo_figures, f.span_unknown_why),
    COL("latency_unknown_why", C_STR, repo_figures, f.latency_unknown_why),
    COL("throughput_unknown_why", C_STR, repo_figures, f.throughput_unknown_why),
};

static const col worker_cols[] = {
    COL("instance", C_U32, wfb_worker_stats, run), COL("worker", C_U32, wfb_worker_stats, worker),
    COL("start_s", C_DBL, wfb_worker_stats, start_s), COL("end_s", C_DBL, wfb_worker_stats, end_s),
    COL("busy_s", C_DBL, wfb_worker_stats, busy_s), COL("wait_s", C_DBL, wfb_worker_stats, wait_s),
    COL("waits", C_U64, wfb_worker_stats, waits), COL("first_s", C_DBL, wfb_worker_stats, first_s),
    COL("last_s", C_DBL, wfb_worker_stats, last_s),
    COL("blocked_s", C_DBL, wfb_worker_stats, blocked_s),
    COL("ready_s", C_DBL, wfb_worker_stats, ready_s),
    COL("cpu_s", C_DBL, wfb_worker_stats, cpu_s),
    COL("preempted_s", C_DBL, wfb_worker_stats, preempted_s),
    COL("preemptions", C_U64, wfb_worker_stats, preemptions),
};

static const col task_cols[] = {
    COL("instance", C_U32, repo_task, instance),   COL("task", C_U64, repo_task, task),
    COL("name", C_STR, repo_task, name),           COL("worker", C_U32, repo_task, worker),
    COL("exec_s", C_DBL, repo_task, exec_s),       COL("dispatches", C_U64, repo_task, dispatches),
    COL("executions", C_U64, repo_task, executions),
    COL("blocks_input", C_U64, repo_task, blocks[0]),
    COL("blocks_output", C_U64, repo_task, blocks[1]),
    COL("blocks_any", C_U64, repo_task, blocks[2]),
    COL("blocks_other", C_U64, repo_task, blocks[3]),
    COL("first_s", C_DBL, repo_task, first_s),     COL("last_s", C_DBL, repo_task, last_s),
    COL("wait_s", C_DBL, repo_task, wait_s),       COL("waits", C_U64, repo_task, waits),
    COL("ready_s", C_DBL, repo_task, ready_s),     COL("preempted_s", C_DBL, repo_task, preempted_s),
};

static const col input_cols[] = {
    COL("instance", C_U32, repo_input, instance),
    COL("input", C_STR, repo_input, input),
    COL("latency_s", C_DBL, repo_input, latency_s),
    COL("end_to_end_s", C_DBL, repo_input, end_to_end_s),
    COL("descendants", C_U64, repo_input, descendants),
    COL("missing_events", C_INT, repo_input, missing_events),
    COL("timed_out", C_INT, repo_input, timed_out),
};

static const col wait_cols[] = {
    COL("instance", C_U32, repo_wait, w.run),
    COL("waiter", C_U64, repo_wait, w.waiter),
    COL("waiter_name", C_STR, repo_wait, waiter_name),
    COL("waited_for", C_U64, repo_wait, w.waited_for),
    COL("waited_for_name", C_STR, repo_wait, waited_for_name),
    COL("stream", C_U64, repo_wait, w.stream),
    COL("on_empty", C_INT, repo_wait, w.on_empty),
    COL("count", C_U64, repo_wait, w.count),
    COL("total_s", C_DBL, repo_wait, w.total_s),
    COL("ready_s", C_DBL, repo_wait, w.ready_s),
    COL("woken", C_U64, repo_wait, w.woken),
};

static const col activity_cols[] = {
    COL("activity", C_STR, repo_activity, id),
    COL("label", C_STR, repo_activity, label),
    COL("resources", C_STR, repo_activity, resources),
    COL("submitted_s", C_DBL, repo_activity, submitted_s),
    COL("active_s", C_DBL, repo_activity, active_s),
    COL("end_s", C_DBL, repo_activity, end_s),
    COL("duration_s", C_DBL, repo_activity, duration_s),
    COL("response_s", C_DBL, repo_activity, response_s),
    COL("waiting_s", C_DBL, repo_activity, waiting_s),
    COL("processing_s", C_DBL, repo_activity, processing_s),
    COL("failed", C_INT, repo_activity, failed),
    COL("not_started", C_INT, repo_activity, not_started),
};

static const col dependency_cols[] = {
    COL("parent", C_STR, repo_dependency, parent),
    COL("child", C_STR, repo_dependency, child),
    COL("sync_delay_s", C_DBL, repo_dependency, sync_delay_s),
};

static const col fork_cols[] = {
    COL("fork", C_STR, repo_fork, fork),
    COL("branches", C_U64, repo_fork, branches),
    COL("max_s", C_DBL, repo_fork, max_s),
    COL("mean_s", C_DBL, repo_fork, mean_s),
    COL("min_s", C_DBL, repo_fork, min_s),
    COL("load_imbalance_s", C_DBL, repo_fork, load_imbalance_s),
    COL("imbalance_pct", C_DBL, repo_fork, imbalance_pct),
    COL("slowdown_factor", C_DBL, repo_fork, slowdown_factor),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SPEC(t, type, arr, cnt, seq, cols)                                                     \
    {t, sizeof(type), offsetof(repo_run, arr), offsetof(repo_run, cnt), seq, cols, N(cols)}

static const table_spec figures_table = SPEC("run_figures", repo_figures, figures, n_figures, false,
                                             figures_cols);
static const table_spec worker_table = SPEC("worker", wfb_worker_stats, workers, n_workers, true,
                                            worker_cols);
static const table_spec task_table = SPEC("task", repo_task, tasks, n_tasks, true, task_cols);
static const table_spec input_table = SPEC("input_latency", repo_input, inputs, n_inputs, true,
                                           input_cols);
static const table_spec wait_table = SPEC("wait_relation", repo_wait, waits, n_waits, true,
                                          wait_cols);
static const table_spec activity_table = SPEC("activity", repo_activity, activities, n_activities,
                                              true, activity_cols);
static const table_spec dependency_table = SPEC("dependency", repo_dependency, dependencies,
                                                n_dependencies, true, dependency_cols);
static const table_spec fork_table = SPEC("fork_region", repo_fork, forks, n_forks, true,
                                          fork_cols);

static const col activity_figures_cols[] = {
    COL("activities", C_U64, repo_activity_figures, activities),
    COL("failed", C_U64, repo_activity_figures, failed),
    COL("not_started", C_U64, repo_activity_figures, not_started),
    COL("makespan_s", C_DBL, repo_activity_figures, makespan_s),
    COL("makespan_measured_s", C_DBL, repo_activity_figures, makespan_measured_s),
    COL("makespan_declared", C_INT, repo_activity_figures, makespan_declared),
    SUMMARY_COLS("response", repo_activity_figures, response),
    SUMMARY_COLS("waiting", repo_activity_figures, waiting),
    SUMMARY_COLS("processing", repo_activity_figures, processing),
    SUMMARY_COLS("sync_delay", repo_activity_figures, sync_delay),
    SUMMARY_COLS("load_imbalance", repo_activity_figures, load_imbalance),
    SUMMARY_COLS("slowdown_factor", repo_activity_figures, slowdown_factor),
};

static const col meta_cols[] = {
    COL("stored_at", C_STR, repo_meta, stored_at),
    COL("source", C_STR, repo_meta, source),
    COL("format", C_STR, repo_meta, format),
    COL("program", C_STR, repo_meta, program),
    COL("command_line", C_STR, repo_meta, command_line),
    COL("workers", C_I64, repo_meta, workers),
    COL("flags", C_STR, repo_meta, flags),
    COL("task_filter", C_STR, repo_meta, task_filter),
    COL("host", C_STR, repo_meta, host),
    COL("start_time", C_STR, repo_meta, start_time),
    COL("start_ns", C_I64, repo_meta, start_ns),
    COL("git_revision", C_STR, repo_meta, git_revision),
    COL("complete", C_INT, repo_meta, complete),
    COL("loss", C_STR, repo_meta, loss),
    COL("instances", C_I64, repo_meta, instances),
    COL("vertices", C_I64, repo_meta, vertices),
    COL("edges", C_I64, repo_meta, edges),
};

/* Column list "a, b, c" (prefix: "t." or ""). */
static void column_list(char *buf, size_t len, const char *prefix, const col *cols, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s", i ? ", " : "", prefix,
                                 cols[i].name);
}

static void bind_col(const repo *r, repo_stmt *s, int i, const col *c, const void *row)
{
    const char *p = (const char *)row + c->offset;
    switch (c->type) {
    case C_I64: r->be->bind_int(s, i, *(const int64_t *)p); break;
    case C_U64: r->be->bind_int(s, i, (int64_t) * (const uint64_t *)p); break;
    case C_U32: r->be->bind_int(s, i, *(const uint32_t *)p); break;
    case C_INT: r->be->bind_int(s, i, *(const int *)p); break;
    case C_SIZE: r->be->bind_int(s, i, (int64_t) * (const size_t *)p); break;
    case C_DBL: r->be->bind_double(s, i, *(const double *)p); break;
    case C_STR: r->be->bind_text(s, i, *(const char *const *)p); break;
    }
}

/* Reads column i of the current row into the row's member; strings are
 * copied into the record. */
static int read_col(const repo *r, repo_stmt *s, int i, const col *c, void *row, repo_run *rec)
{
    char *p = (char *)row + c->offset;
    bool null = r->be->is_null(s, i);
    int64_t v = null ? 0 : r->be->col_int(s, i);
    switch (c->type) {
    case C_I64: *(int64_t *)p = null ? -1 : v; break;
    case C_U64: *(uint64_t *)p = (uint64_t)v; break;
    case C_U32: *(uint32_t *)p = (uint32_t)v; break;
    case C_INT: *(int *)p = null ? -1 : (int)v; break;
    case C_SIZE: *(size_t *)p = (size_t)v; break;
    case C_DBL: *(double *)p = r->be->col_double(s, i); break;
    case C_STR: {
        const char *t = r->be->col_text(s, i);
        char *copy = repo_strdup(rec, t);
        if (t && !copy)
            return -1;
        *(char **)p = copy;
        break;
    }
    }
    return 0;
}

/* ------------------------------------------------------------- store */

/* For the test of an interrupted store: SNETMON_REPO_KILL_AFTER_ROWS=N
 * kills the process (SIGKILL, no clean-up at all) after N rows were
 * written inside the transaction. Documented in docs/REPOSITORY.md. */
static long kill_after_rows = -1;

static void count_row(void)
{
    if (kill_after_rows >= 0 && kill_after_rows-- == 0)
        raise(SIGKILL);
}

static int insert_rows(repo *r, int64_t id, const table_spec *t, const void *rows, size_t n,
                       char *err, size_t errlen)
{
    if (n == 0)
        return 0;
    char cols[2048], sql[4096], marks[512] = "";
    column_list(cols, sizeof cols, "", t->cols, t->n_cols);
    size_t m = t->n_cols + 1 + (t->seq ? 1 : 0);
    for (size_t i = 0; i < m; i++)
        strcat(marks, i ? ", ?" : "?");
    snprintf(sql, sizeof sql, "INSERT INTO %s (run_id, %s%s) VALUES (%s)", t->table,
             t->seq ? "seq, " : "", cols, marks);
    repo_stmt *s = prepare(r, sql, t->table, err, errlen);
    if (!s)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const void *row = (const char *)rows + k * t->row_size;
        int i = 1;
        r->be->bind_int(s, i++, id);
        if (t->seq)
            r->be->bind_int(s, i++, (int64_t)k);
        for (size_t c = 0; c < t->n_cols; c++)
            bind_col(r, s, i++, &t->cols[c], row);
        if (r->be->step(s) == REPO_STEP_ERROR) {
            db_error(r, t->table, err, errlen);
            rc = -1;
        }
        r->be->reset(s);
        count_row();
    }
    r->be->finalize(s);
    return rc;
}

static int insert_table(repo *r, int64_t id, const table_spec *t, const repo_run *rec,
                        char *err, size_t errlen)
{
    const void *rows = *(const void *const *)((const char *)rec + t->array_offset);
    size_t n = *(const size_t *)((const char *)rec + t->count_offset);
    return insert_rows(r, id, t, rows, n, err, errlen);
}

/* run and run_label rows. */
static int insert_run(repo *r, int64_t id, const repo_run *rec, char *err, size_t errlen)
{
    static const table_spec meta = {"run", sizeof(repo_meta), 0, 0, false, meta_cols, N(meta_cols)};
    char cols[1024], sql[2048], marks[256] = "?";
    column_list(cols, sizeof cols, "", meta_cols, N(meta_cols));
    for (size_t i = 0; i < N(meta_cols); i++)
        strcat(marks, ", ?");
    snprintf(sql, sizeof sql, "INSERT INTO run (id, %s) VALUES (%s)", cols, marks);
    repo_stmt *s = prepare(r, sql, "run", err, errlen);
    if (!s)
        return -1;
    r->be->bind_int(s, 1, id);
    for (size_t c = 0; c < meta.n_cols; c++)
        bind_col(r, s, (int)c + 2, &meta_cols[c], &rec->meta);
    int rc = r->be->step(s) == REPO_STEP_ERROR ? -1 : 0;
    if (rc)
        db_error(r, "run", err, errlen);
    r->be->finalize(s);
    count_row();
    s = rc ? NULL : r->be->prepare(r->db, "INSERT INTO run_label (run_id, key, value) "
                                          "VALUES (?, ?, ?)");
    if (!rc && !s) {
        db_error(r, "run_label", err, errlen);
        return -1;
    }
    for (size_t i = 0; i < rec->meta.n_labels && rc == 0; i++) {
        r->be->bind_int(s, 1, id);
        r->be->bind_text(s, 2, rec->meta.labels[i].key);
        r->be->bind_text(s, 3, rec->meta.labels[i].value);
        if (r->be->step(s) == REPO_STEP_ERROR) {
            db_error(r, "run_label", err, errlen);
            rc = -1;
        }
        r->be->reset(s);
    }
    r->be->finalize(s);
    return rc;
}

static const char *path_kind_key(wfb_path_kind k)
{
    return k == WFB_PATH_LONGEST ? "longest" : "as_executed";
}

static int insert_paths(repo *r, int64_t id, const repo_run *rec, char *err, size_t errlen)
{
    repo_stmt *p = r->be->prepare(r->db, "INSERT INTO critical_path (run_id, kind, valid, "
                                         "length_s, vertices) VALUES (?, ?, ?, ?, ?)");
    repo_stmt *s = r->be->prepare(r->db, "INSERT INTO path_step (run_id, kind, seq, vertex, "
                                         "task, step_s) VALUES (?, ?, ?, ?, ?, ?)");
    int rc = p && s ? 0 : -1;
    for (int k = 0; k < 2 && rc == 0; k++) {
        const repo_path *path = &rec->paths[k];
        r->be->bind_int(p, 1, id);
        r->be->bind_text(p, 2, path_kind_key(path->kind));
        r->be->bind_int(p, 3, path->valid);
        r->be->bind_double(p, 4, path->length_s);
        r->be->bind_int(p, 5, (int64_t)path->n);
        rc = r->be->step(p) == REPO_STEP_ERROR ? -1 : 0;
        r->be->reset(p);
        for (size_t i = 0; i < path->n && rc == 0; i++) {
            r->be->bind_int(s, 1, id);
            r->be->bind_text(s, 2, path_kind_key(path->kind));
            r->be->bind_int(s, 3, (int64_t)i);
            r->be->bind_text(s, 4, path->steps[i].vertex);
            r->be->bind_text(s, 5, path->steps[i].task);
            r->be->bind_double(s, 6, path->steps[i].step_s);
            rc = r->be->step(s) == REPO_STEP_ERROR ? -1 : 0;
            r->be->reset(s);
            count_row();
        }
    }
    if (rc)
        db_error(r, "critical_path", err, errlen);
    r->be->finalize(p);
    r->be->finalize(s);
    return rc;
}

static int insert_activity_figures(repo *r, int64_t id, const repo_run *rec, char *err,
                                   size_t errlen)
{
    static const table_spec t = {"activity_figures", sizeof(repo_activity_figures), 0, 0, false,
                                 activity_figures_cols, N(activity_figures_cols)};
    return insert_rows(r, id, &t, &rec->activity, 1, err, errlen);
}

static int next_id(repo *r, int64_t *id, char *err, size_t errlen)
{
    repo_stmt *s = r->be->prepare(r->db, "SELECT COALESCE(MAX(id), 0) + 1 FROM run");
    int rc = s && r->be->step(s) == REPO_STEP_ROW ? 0 : -1;
    if (rc)
        db_error(r, "numbering the run", err, errlen);
    else
        *id = r->be->col_int(s, 0);
    r->be->finalize(s);
    return rc;
}

int repo_store(repo *r, const repo_run *rec, int64_t *id, char *err, size_t errlen)
{
    const char *kill = getenv("SNETMON_REPO_KILL_AFTER_ROWS");
    kill_after_rows = kill && *kill ? strtol(kill, NULL, 10) : -1;
    if (r->be->begin_write(r->db)) {
        db_error(r, "locking for the store", err, errlen);
        return -1;
    }
    const table_spec *tables[] = {&figures_table, &worker_table,     &task_table,
                                  &input_table,   &wait_table,       &activity_table,
                                  &dependency_table, &fork_table};
    int rc = next_id(r, id, err, errlen);
    if (rc == 0)
        rc = insert_run(r, *id, rec, err, errlen);
    for (size_t i = 0; i < N(tables) && rc == 0; i++)
        rc = insert_table(r, *id, tables[i], rec, err, errlen);
    if (rc == 0)
        rc = insert_paths(r, *id, rec, err, errlen);
    if (rc == 0)
        rc = insert_activity_figures(r, *id, rec, err, errlen);
    if (rc == 0 && r->be->commit(r->db)) {
        db_error(r, "committing the run", err, errlen);
        rc = -1;
    }
    if (rc)
        r->be->rollback(r->db);
    return rc;
}

/* -------------------------------------------------------------- load */

/* Reads the rows of t for run id into a new array of the record. */
static int load_table(repo *r, int64_t id, const table_spec *t, repo_run *rec, char *err,
                      size_t errlen)
{
    char cols[2048], sql[4096];
    column_list(cols, sizeof cols, "", t->cols, t->n_cols);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE run_id = ? ORDER BY %s", cols, t->table,
             t->seq ? "seq" : "instance");
    repo_stmt *s = prepare(r, sql, t->table, err, errlen);
    if (!s)
        return -1;
    r->be->bind_int(s, 1, id);
    size_t n = 0, cap = 0;
    char *rows = NULL;
    int rc, step;
    while ((step = r->be->step(s)) == REPO_STEP_ROW) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char *grown = repo_alloc(rec, ncap * t->row_size);
            if (!grown)
                break;
            if (n)
                memcpy(grown, rows, n * t->row_size);
            rows = grown, cap = ncap;
        }
        void *row = rows + n * t->row_size;
        for (size_t c = 0; c < t->n_cols; c++)
            if (read_col(r, s, (int)c, &t->cols[c], row, rec))
                step = REPO_STEP_ERROR;
        if (step == REPO_STEP_ERROR)
            break;
        n++;
    }
    rc = step == REPO_STEP_DONE ? 0 : -1;
    if (rc)
        db_error(r, t->table, err, errlen);
    r->be->finalize(s);
    *(void **)((char *)rec + t->array_offset) = rows;
    *(size_t *)((char *)rec + t->count_offset) = n;
    return rc;
}

/* The metadata row; 1 when there is no such run. */
static int load_meta(repo *r, int64_t id, repo_run *rec, char *err, size_t errlen)
{
    char cols[1024], sql[2048];
    column_list(cols, sizeof cols, "", meta_cols, N(meta_cols));
    snprintf(sql, sizeof sql, "SELECT %s FROM run WHERE id = ?", cols);
    repo_stmt *s = prepare(r, sql, "run", err, errlen);
    if (!s)
        return -1;
    r->be->bind_int(s, 1, id);
    int step = r->be->step(s), rc = step == REPO_STEP_ROW ? 0 : step == REPO_STEP_DONE ? 1 : -1;
    for (size_t c = 0; c < N(meta_cols) && rc == 0; c++)
        rc = read_col(r, s, (int)c, &meta_cols[c], &rec->meta, rec);
    if (rc < 0)
        db_error(r, "run", err, errlen);
    r->be->finalize(s);
    rec->meta.id = id;
    return rc;
}

static int load_labels(repo *r, int64_t id, repo_run *rec, char *err, size_t errlen)
{
    repo_stmt *s = r->be->prepare(r->db, "SELECT key, value FROM run_label WHERE run_id = ? "
                                         "ORDER BY key");
    if (!s) {
        db_error(r, "run_label", err, errlen);
        return -1;
    }
    r->be->bind_int(s, 1, id);
    repo_label *labels = NULL;
    size_t n = 0;
    int step;
    while ((step = r->be->step(s)) == REPO_STEP_ROW) {
        repo_label *grown = repo_alloc(rec, (n + 1) * sizeof *grown);
        if (!grown)
            break;
        if (n)
            memcpy(grown, labels, n * sizeof *grown);
        labels = grown;
        labels[n].key = repo_strdup(rec, r->be->col_text(s, 0));
        labels[n].value = repo_strdup(rec, r->be->col_text(s, 1));
        n++;
    }
    int rc = step == REPO_STEP_DONE ? 0 : -1;
    if (rc)
        db_error(r, "run_label", err, errlen);
    r->be->finalize(s);
    rec->meta.labels = labels;
    rec->meta.n_labels = n;
    return rc;
}

static int load_paths(repo *r, int64_t id, repo_run *rec, char *err, size_t errlen)
{
    repo_stmt *p = r->be->prepare(r->db, "SELECT valid, length_s, vertices FROM critical_path "
                                         "WHERE run_id = ? AND kind = ?");
    repo_stmt *s = r->be->prepare(r->db, "SELECT vertex, task, step_s FROM path_step "
                                         "WHERE run_id = ? AND kind = ? ORDER BY seq");
    int rc = p && s ? 0 : -1;
    for (int k = 0; k < 2 && rc == 0; k++) {
        repo_path *path = &rec->paths[k];
        path->kind = (wfb_path_kind)k;
        r->be->bind_int(p, 1, id);
        r->be->bind_text(p, 2, path_kind_key(path->kind));
        int step = r->be->step(p);
        if (step == REPO_STEP_ROW) {
            path->valid = (int)r->be->col_int(p, 0);
            path->length_s = r->be->col_double(p, 1);
            size_t cap = (size_t)r->be->col_int(p, 2);
            path->steps = repo_alloc(rec, (cap ? cap : 1) * sizeof *path->steps);
            r->be->bind_int(s, 1, id);
            r->be->bind_text(s, 2, path_kind_key(path->kind));
            while (path->steps && path->n < cap && (step = r->be->step(s)) == REPO_STEP_ROW) {
                repo_step *st = &path->steps[path->n++];
                st->vertex = repo_strdup(rec, r->be->col_text(s, 0));
                st->task = repo_strdup(rec, r->be->col_text(s, 1));
                st->step_s = r->be->col_double(s, 2);
            }
            r->be->reset(s);
        }
        rc = step == REPO_STEP_ERROR ? -1 : 0;
        r->be->reset(p);
    }
    if (rc)
        db_error(r, "critical_path", err, errlen);
    r->be->finalize(p);
    r->be->finalize(s);
    return rc;
}

static int load_activity_figures(repo *r, int64_t id, repo_run *rec, char *err, size_t errlen)
{
    char cols[4096], sql[4600];
    column_list(cols, sizeof cols, "", activity_figures_cols, N(activity_figures_cols));
    snprintf(sql, sizeof sql, "SELECT %s FROM activity_figures WHERE run_id = ?", cols);
    repo_stmt *s = prepare(r, sql, "activity_figures", err, errlen);
    if (!s)
        return -1;
    r->be->bind_int(s, 1, id);
    int step = r->be->step(s), rc = step == REPO_STEP_ERROR ? -1 : 0;
    for (size_t c = 0; c < N(activity_figures_cols) && step == REPO_STEP_ROW && rc == 0; c++)
        rc = read_col(r, s, (int)c, &activity_figures_cols[c], &rec->activity, rec);
    if (rc)
        db_error(r, "activity_figures", err, errlen);
    r->be->finalize(s);
    return rc;
}

int repo_load(repo *r, int64_t id, bool with_inputs, repo_run *rec, char *err, size_t errlen)
{
    repo_run_init(rec);
    if (r->be->begin_read(r->db)) {
        db_error(r, "reading", err, errlen);
        return -1;
    }
    const table_spec *tables[] = {&figures_table, &worker_table,     &task_table,
                                  &wait_table,    &activity_table,   &dependency_table,
                                  &fork_table,    &input_table};
    size_t n_tables = N(tables) - (with_inputs ? 0 : 1);
    int rc = load_meta(r, id, rec, err, errlen);
    if (rc == 0)
        rc = load_labels(r, id, rec, err, errlen);
    for (size_t i = 0; i < n_tables && rc == 0; i++)
        rc = load_table(r, id, tables[i], rec, err, errlen);
    if (rc == 0)
        rc = load_paths(r, id, rec, err, errlen);
    if (rc == 0)
        rc = load_activity_figures(r, id, rec, err, errlen);
    r->be->commit(r->db);
    if (rc)
        repo_run_free(rec);
    return rc;
}

/* -------------------------------------------------------------- list */

/* The WHERE clause of the conditions: run fields compared as text, labels
 * through run_label. */
static int where_sql(const repo_where *where, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *k = where[i].key;
        const char *colname = !strcmp(k, "git") ? "git_revision" : k;
        int w;
        if (repo_is_field(k))
            w = snprintf(buf + used, len - used, " %s CAST(r.%s AS TEXT) = ?",
                         i ? "AND" : "WHERE", colname);
        else
            w = snprintf(buf + used, len - used,
                         " %s EXISTS (SELECT 1 FROM run_label l WHERE l.run_id = r.id AND "
                         "l.key = ? AND l.value = ?)",
                         i ? "AND" : "WHERE");
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

static void bind_where(const repo *r, repo_stmt *s, const repo_where *where, size_t n)
{
    int p = 1;
    for (size_t i = 0; i < n; i++) {
        if (!repo_is_field(where[i].key))
            r->be->bind_text(s, p++, where[i].key);
        r->be->bind_text(s, p++, where[i].value);
    }
}

/* Growing the record arrays of a listing, one row at a time. */
typedef struct list_state {
    repo *r;
    const char *cond;          /* the WHERE clause over run r */
    const repo_where *where;
    size_t n_where;
    repo_run *recs;
    size_t n, cap;
    size_t *row_caps;          /* per record, for the table being read */
} list_state;

static repo_run *record_of(list_state *ls, int64_t id)
{
    size_t lo = 0, hi = ls->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ls->recs[mid].meta.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ls->n && ls->recs[lo].meta.id == id ? &ls->recs[lo] : NULL;
}

/* run rows meeting the conditions, in store order: one record each. */
static int list_meta(list_state *ls, char *err, size_t errlen)
{
    repo *r = ls->r;
    char cols[1024], sql[10240];
    column_list(cols, sizeof cols, "r.", meta_cols, N(meta_cols));
    snprintf(sql, sizeof sql, "SELECT r.id, %s FROM run r%s ORDER BY r.id", cols, ls->cond);
    repo_stmt *s = prepare(r, sql, "listing runs", err, errlen);
    if (!s)
        return -1;
    bind_where(r, s, ls->where, ls->n_where);
    int step;
    while ((step = r->be->step(s)) == REPO_STEP_ROW) {
        if (KIT_GROW(ls->recs, ls->cap, ls->n + 1)) {
            step = REPO_STEP_ERROR;
            break;
        }
        repo_run *rec = &ls->recs[ls->n++];
        repo_run_init(rec);
        rec->meta.id = r->be->col_int(s, 0);
        for (size_t c = 0; c < N(meta_cols); c++)
            if (read_col(r, s, (int)c + 1, &meta_cols[c], &rec->meta, rec))
                step = REPO_STEP_ERROR;
        if (step == REPO_STEP_ERROR)
            break;
    }
    int rc = step == REPO_STEP_DONE ? 0 : -1;
    if (rc)
        db_error(r, "listing runs", err, errlen);
    r->be->finalize(s);
    return rc;
}

/* A new zeroed row at the end of an array of the record, grown by doubling. */
static void *append_row(repo_run *rec, void **rows, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        char *grown = repo_alloc(rec, ncap * size);
        if (!grown)
            return NULL;
        if (*n)
            memcpy(grown, *rows, *n * size);
        *rows = grown, *cap = ncap;
    }
    return (char *)*rows + (*n)++ * size;
}

static int list_labels(list_state *ls, char *err, size_t errlen)
{
    repo *r = ls->r;
    char sql[10240];
    snprintf(sql, sizeof sql, "SELECT run_id, key, value FROM run_label WHERE run_id IN "
                              "(SELECT r.id FROM run r%s) ORDER BY run_id, key", ls->cond);
    repo_stmt *s = prepare(r, sql, "listing labels", err, errlen);
    if (!s)
        return -1;
    bind_where(r, s, ls->where, ls->n_where);
    memset(ls->row_caps, 0, ls->n * sizeof *ls->row_caps);
    int step;
    while ((step = r->be->step(s)) == REPO_STEP_ROW) {
        repo_run *rec = record_of(ls, r->be->col_int(s, 0));
        if (!rec)
            continue;
        repo_label *l = append_row(rec, (void **)&rec->meta.labels, &rec->meta.n_labels,
                                 &ls->row_caps[rec - ls->recs], sizeof *l);
        if (!l) {
            step = REPO_STEP_ERROR;
            break;
        }
        l->key = repo_strdup(rec, r->be->col_text(s, 1));
        l->value = repo_strdup(rec, r->be->col_text(s, 2));
    }
    int rc = step == REPO_STEP_DONE ? 0 : -1;
    if (rc)
        db_error(r, "listing labels", err, errlen);
    r->be->finalize(s);
    return rc;
}

/* The rows of t of every listed run (only_instance: "AND instance = 0"). */
static int list_table(list_state *ls, const table_spec *t, bool only_whole, char *err,
                      size_t errlen)
{
    repo *r = ls->r;
    char cols[2048], sql[12288];
    column_list(cols, sizeof cols, "", t->cols, t->n_cols);
    snprintf(sql, sizeof sql, "SELECT run_id, %s FROM %s WHERE run_id IN (SELECT r.id FROM run r%s)"
                              "%s ORDER BY run_id, %s",
             cols, t->table, ls->cond, only_whole ? " AND instance = 0" : "",
             t->seq ? "seq" : "instance");
    repo_stmt *s = prepare(r, sql, t->table, err, errlen);
    if (!s)
        return -1;
    bind_where(r, s, ls->where, ls->n_where);
    memset(ls->row_caps, 0, ls->n * sizeof *ls->row_caps);
    int step;
    while ((step = r->be->step(s)) == REPO_STEP_ROW) {
        repo_run *rec = record_of(ls, r->be->col_int(s, 0));
        if (!rec)
            continue;
        void **rows = (void **)((char *)rec + t->array_offset);
        size_t *count = (size_t *)((char *)rec + t->count_offset);
        void *row = append_row(rec, rows, count, &ls->row_caps[rec - ls->recs], t->row_size);
        if (!row) {
            step = REPO_STEP_ERROR;
            break;
        }
        for (size_t c = 0; c < t->n_cols; c++)
            if (read_col(r, s, (int)c + 1, &t->cols[c], row, rec))
                step = REPO_STEP_ERROR;
        if (step == REPO_STEP_ERROR)
            break;
    }
    int rc = step == REPO_STEP_DONE ? 0 : -1;
    if (rc)
        db_error(r, t->table, err, errlen);
    r->be->finalize(s);
    return rc;
}

int repo_list(repo *r, const repo_where *where, size_t n_where, repo_run **out, size_t *n,
              char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    char cond[8192];
    if (where_sql(where, n_where, cond, sizeof cond)) {
        snprintf(err, errlen, "too many --where conditions");
        return -1;
    }
    if (r->be->begin_read(r->db)) {
        db_error(r, "reading", err, errlen);
        return -1;
    }
    list_state ls = {.r = r, .cond = cond, .where = where, .n_where = n_where};
    int rc = list_meta(&ls, err, errlen);
    if (rc == 0 && !(ls.row_caps = calloc(ls.n ? ls.n : 1, sizeof *ls.row_caps))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = list_labels(&ls, err, errlen);
    if (rc == 0)
        rc = list_table(&ls, &figures_table, true, err, errlen);
    if (rc == 0)
        rc = list_table(&ls, &worker_table, false, err, errlen);
    r->be->commit(r->db);
    free(ls.row_caps);
    if (rc) {
        repo_list_free(ls.recs, ls.n);
        return -1;
    }
    *out = ls.recs;
    *n = ls.n;
    return 0;
}

void repo_list_free(repo_run *recs, size_t n)
{
    if (!recs)
        return;
    for (size_t i = 0; i < n; i++)
        repo_run_free(&recs[i]);
    free(recs);
}
