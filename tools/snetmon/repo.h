/*
 * repo.h - the experiment repository: runs remembered after their trace
 * directories are gone, for `snetmon store`, `runs` and `compare`.
 *
 * A repository is an SQLite file (the default, no server) or a PostgreSQL
 * database (a team's), with one schema, documented in docs/REPOSITORY.md
 * and versioned: opening an older repository migrates it, a newer one is
 * refused. Which database it is is decided here, from the URL; the
 * commands see only this interface (the backends are behind
 * repo_backend.h).
 *
 * Every store is one transaction under the repository's writer lock: two
 * stores at once queue, and a store interrupted half-way leaves nothing.
 * Runs get the ids 1, 2, ... in the order they were stored.
 */
#ifndef SNETMON_REPO_H
#define SNETMON_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run_record.h"

/* The schema version this snetmon writes and reads (docs/REPOSITORY.md). */
#define REPO_SCHEMA_VERSION 1

typedef struct repo repo;

/* The repository used without --db: $SNETMON_DB, else
 * $XDG_DATA_HOME/snetmon/runs.sqlite, else ~/.local/share/snetmon/runs.sqlite.
 * Into buf; NULL when none can be named (no HOME). */
const char *repo_default_url(char *buf, size_t len);

/* The text for --help describing --db and the default. */
#define REPO_DB_HELP                                                                           \
    "  --db URL         the repository: a file path or sqlite:PATH (SQLite), or\n"             \
    "                   postgresql://[user[:password]@][host][:port]/dbname[?param=value]\n"  \
    "                   (default: $SNETMON_DB, else $XDG_DATA_HOME/snetmon/runs.sqlite,\n"   \
    "                   else ~/.local/share/snetmon/runs.sqlite; docs/REPOSITORY.md)\n"

/* Opens the repository at url (NULL: the default). create: make it (and
 * its directory, for SQLite) when missing (store); otherwise a missing
 * SQLite file is an error. The schema is created or migrated here.
 * 0, or -1 with one line in err (a malformed URL, a server that cannot
 * be reached, a file that is not a repository, a newer schema). */
int repo_open(repo **out, const char *url, bool create, char *err, size_t errlen);
void repo_close(repo *r);
/* "sqlite:/path" or the PostgreSQL URL without its password. */
const char *repo_name(const repo *r);

/* Stores rec as one new run; *id receives its id. 0, or -1 with one line
 * in err (nothing of the run is then in the repository). */
int repo_store(repo *r, const run_record *rec, int64_t *id, char *err, size_t errlen);

/* A condition of `runs --where KEY=VALUE`: a user label or a run field
 * (rr_is_field: workers, git, program, host, format, flags). */
typedef struct repo_where {
    const char *key, *value;
} repo_where;

/* The runs meeting every condition, in store order: each record holds
 * its metadata, labels, whole-input figures (figures[0]) and workers.
 * *out is an array of *n records; free with repo_list_free. */
int repo_list(repo *r, const repo_where *where, size_t n_where, run_record **out, size_t *n,
              char *err, size_t errlen);
void repo_list_free(run_record *recs, size_t n);

/* The whole record of run id (per-input latencies only when with_inputs).
 * 0; 1 when there is no such run; -1 with one line in err. */
int repo_load(repo *r, int64_t id, bool with_inputs, run_record *rec, char *err, size_t errlen);

/* The schema version found when opening (before migrating). */
int repo_found_version(const repo *r);

#endif
