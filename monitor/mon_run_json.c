/*
 * mon_run_json.c - the one reader of run.json (mon_reader.h, "run.json"):
 * what the monitor wrote about a run beside its trace (mon_metadata.c
 * writes it; docs/LOGFORMAT.md describes it). The trace reader takes the
 * per-log counts, the completion and the flush period from it, the
 * multi-rank merge the ranks and the clock samples, snetmon's run records
 * and report the run's facts.
 *
 * Why jansson and not the file's layout: the writer puts one log entry per
 * line, and the readers used to pick fields out of lines with strstr and
 * sscanf, which held only as long as nobody changed the writer (or wrote
 * the file by hand). A JSON parser reads any layout, and a damaged file is
 * one message naming it, its line and what is wrong.
 */
#include "mon_reader.h"

#include "mon_files_internal.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* run.json lists at most this many logs (a damaged count of 10^9 must not
 * make the reader allocate for them). */
#define MON_RUN_JSON_MAX_LOGS 4096
#define MON_RUN_JSON_MAX_WORKER 1000000u

void mon_run_json_free(mon_run_json *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    free(r->format);
    free(r->format_version);
    free(r->flags);
    free(r->task_filter);
    free(r->host);
    free(r->git_revision);
    free(r->clock_source);
    free(r->ended_by);
    for (size_t i = 0; r->logs && i < r->n_logs; i++)
        free(r->logs[i].error);
    free(r->logs);
    free(r->samples);
    free(r->window_why);
    free(r->window);
    free(r);
}

/* A copy of member key's string value; NULL when absent, null or not a
 * string. *oom set when the copy failed. */
static char *copy_string(json_t *o, const char *key, bool *oom)
{
    const char *v = json_string_value(json_object_get(o, key));
    char *c = v ? strdup(v) : NULL;
    *oom |= v && !c;
    return c;
}

/* Member key as a non-negative integer, or `absent`. */
static int64_t get_count(json_t *o, const char *key, int64_t absent)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v) : absent;
}

/* --mon-flush MS (or --mon-flush=MS) on the command line, -1 if absent. */
static int flush_of(const mon_run_json *r)
{
    for (int i = 0; i < r->argc; i++) {
        const char *a = r->argv[i], *v = NULL;
        if (!strcmp(a, "--mon-flush") && i + 1 < r->argc)
            v = r->argv[i + 1];
        else if (!strncmp(a, "--mon-flush=", 12))
            v = a + 12;
        char *end;
        errno = 0;
        unsigned long ms = v ? strtoul(v, &end, 10) : 0;
        if (v && end != v && !*end && !errno && ms <= UINT_MAX)
            return (int)ms;
    }
    return -1;
}

static bool read_command_line(mon_run_json *r, json_t *cl)
{
    r->flush_ms = -1;
    if (!json_is_array(cl))
        return true; /* argv stays NULL: no command line recorded */
    size_t n = json_array_size(cl);
    if (n > INT_MAX || !(r->argv = calloc(n ? n : 1, sizeof *r->argv)))
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(cl, i));
        if (a && !(r->argv[r->argc++] = strdup(a)))
            return false;
    }
    r->flush_ms = flush_of(r);
    return true;
}

/* "logs": [{"worker": W, "events": E, "bytes": B[, "discarded": D,
 * "error": S]}, ...]; entries without the three counts (or with an absurd
 * worker number) are left out. */
static bool read_logs(mon_run_json *r, json_t *logs)
{
    size_t n = json_is_array(logs) ? json_array_size(logs) : 0;
    if (n > MON_RUN_JSON_MAX_LOGS)
        n = MON_RUN_JSON_MAX_LOGS;
    if (!(r->logs = calloc(n ? n : 1, sizeof *r->logs)))
        return false;
    bool oom = false;
    for (size_t i = 0; i < n && !oom; i++) {
        json_t *e = json_array_get(logs, i);
        int64_t w = get_count(e, "worker", -1), ev = get_count(e, "events", -1),
                by = get_count(e, "bytes", -1);
        if (w >= 0 && (uint64_t)w <= MON_RUN_JSON_MAX_WORKER && ev >= 0 && by >= 0)
            r->logs[r->n_logs++] = (mon_run_log){(unsigned)w, (uint64_t)ev, (uint64_t)by,
                                                 (uint64_t)get_count(e, "discarded", 0),
                                                 copy_string(e, "error", &oom)};
    }
    return !oom;
}

/* "run_id": 16 hexadecimal digits (a string: JSON numbers lose such
 * integers in many parsers). 0 when absent; -1 when malformed. */
static int read_run_id(json_t *root, uint64_t *id)
{
    *id = 0;
    json_t *v = json_object_get(root, "run_id");
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    char *end;
    if (!s || strlen(s) != 16 || strspn(s, "0123456789abcdefABCDEF") != 16)
        return -1;
    *id = strtoull(s, &end, 16);
    return 0;
}

/* "window": {"logs": [{"worker", "first_packet", "events_before",
 * "start_ticks"}, ...]}: a flight recorder's window. */
static bool read_window(mon_run_json *r, json_t *logs)
{
    size_t n = json_is_array(logs) ? json_array_size(logs) : 0;
    if (n > MON_RUN_JSON_MAX_LOGS)
        n = MON_RUN_JSON_MAX_LOGS;
    if (!(r->window = calloc(n ? n : 1, sizeof *r->window)))
        return false;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(logs, i);
        int64_t w = get_count(e, "worker", -1), p = get_count(e, "first_packet", -1),
                b = get_count(e, "events_before", -1), s = get_count(e, "start_ticks", -1);
        if (w >= 0 && (uint64_t)w <= MON_RUN_JSON_MAX_WORKER && p >= 0 && b >= 0 && s >= 0)
            r->window[r->n_window++] =
                (mon_run_window){(unsigned)w, (uint64_t)p, (uint64_t)b, (uint64_t)s};
    }
    return true;
}

/* "clock_sync": {"samples": [{"phase", "local_send", "reference",
 * "local_receive"}, ...]}: a rank's clock against rank 0's. */
static bool read_samples(mon_run_json *r, json_t *sync)
{
    json_t *samples = json_object_get(sync, "samples");
    size_t n = json_is_array(samples) ? json_array_size(samples) : 0;
    if (!(r->samples = calloc(n ? n : 1, sizeof *r->samples)))
        return false;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(samples, i);
        const char *phase = json_string_value(json_object_get(e, "phase"));
        int64_t s = get_count(e, "local_send", -1), ref = get_count(e, "reference", -1),
                recv = get_count(e, "local_receive", -1);
        if (phase && s >= 0 && ref >= 0 && recv >= 0)
            r->samples[r->n_samples++] = (mon_clock_sample){
                !strcmp(phase, "end"), (uint64_t)s, (uint64_t)ref, (uint64_t)recv};
    }
    return true;
}

/* The fields of a parsed run.json; NULL when out of memory. */
static mon_run_json *from_json(json_t *root)
{
    mon_run_json *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    bool oom = false;
    r->format = copy_string(root, "format", &oom);
    r->format_version = copy_string(root, "format_version", &oom);
    r->flags = copy_string(root, "flags", &oom);
    r->task_filter = copy_string(root, "task_filter", &oom);
    r->host = copy_string(root, "host", &oom);
    r->git_revision = copy_string(root, "git_revision", &oom);
    r->workers = get_count(root, "workers", -1);
    r->wall_clock_start_ns = get_count(root, "wall_clock_start_ns", 0);
    json_t *clock = json_object_get(root, "clock");
    r->clock_source = copy_string(clock, "source", &oom);
    r->clock_frequency_hz = get_count(clock, "frequency_hz", 0);
    json_t *complete = json_object_get(root, "complete");
    r->has_complete = json_is_boolean(complete);
    r->complete = json_is_true(complete);
    r->ended_by = copy_string(root, "ended_by", &oom);
    r->rank = get_count(root, "rank", -1);
    r->ranks = get_count(root, "ranks", 0);
    int64_t ring = get_count(root, "ring_bytes", 0);
    r->ring_bytes = ring > 0 ? (uint64_t)ring : 0;
    json_t *window = json_object_get(root, "window");
    r->window_why = copy_string(window, "why", &oom);
    r->snapshot = get_count(window, "snapshot", -1);
    if (oom || !read_command_line(r, json_object_get(root, "command_line")) ||
        !read_logs(r, json_object_get(root, "logs")) ||
        !read_samples(r, json_object_get(root, "clock_sync")) ||
        !read_window(r, json_object_get(window, "logs"))) {
        mon_run_json_free(r);
        return NULL;
    }
    return r;
}

static int read_path(const char *path, mon_run_json **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return 1;
    int fd = mon_open_regular(path, &st, err, errlen);
    if (fd < 0)
        return errno == ENOENT ? 1 : -1; /* a dangling symbolic link: none */
    json_error_t je;
    json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
    close(fd);
    if (!root) {
        snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    uint64_t run_id;
    if (!json_is_object(root) || read_run_id(root, &run_id) != 0) {
        snprintf(err, errlen, json_is_object(root) ? "%s: \"run_id\" is not 16 hexadecimal digits"
                                                   : "%s:1: expected a JSON object",
                 path);
        json_decref(root);
        return -1;
    }
    *out = from_json(root);
    json_decref(root);
    if (*out)
        (*out)->run_id = run_id;
    if (!*out) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

int mon_run_json_read(const char *dir, mon_run_json **out, char *err, size_t errlen)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/run.json", dir);
    return read_path(path, out, err, errlen);
}

/* The top of a multi-rank trace stands for its ranks: rank 0's facts, the
 * workers of all ranks, complete when every rank is (a rank without a
 * readable run.json is not). */
static int merge_ranks(const char *dir, mon_run_json **top, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/rank-0", dir);
    mon_run_json *run;
    if (mon_run_json_read(path, &run, err, errlen) != 0)
        return 0; /* no rank 0 run.json: the top one's facts are all there is */
    int64_t workers = 0;
    bool complete = true;
    for (int64_t k = 0; k < (*top)->ranks; k++) {
        snprintf(path, sizeof path, "%s/rank-%lld", dir, (long long)k);
        mon_run_json *one = NULL;
        if (k == 0 || mon_run_json_read(path, &one, err, errlen) == 0) {
            const mon_run_json *r = k == 0 ? run : one;
            workers += r->workers > 0 ? r->workers : 0;
            if (complete && !r->complete && r->ended_by && k > 0 && !run->ended_by)
                run->ended_by = strdup(r->ended_by); /* the first cause known */
            complete = complete && r->complete;
        } else {
            complete = false;
        }
        mon_run_json_free(one);
    }
    run->ranks = (*top)->ranks;
    run->workers = workers;
    run->has_complete = true;
    run->complete = complete;
    mon_run_json_free(*top);
    *top = run;
    err[0] = '\0';
    return 0;
}

int mon_run_json_read_trace(const char *dir, mon_run_json **out, char *err, size_t errlen)
{
    char up[PATH_MAX + 16];
    err[0] = '\0';
    int rc = mon_run_json_read(dir, out, err, errlen);
    if (rc == 1) { /* given a trace's ctf directory */
        snprintf(up, sizeof up, "%s/..", dir);
        rc = mon_run_json_read(up, out, err, errlen);
    }
    if (rc == 0 && (*out)->ranks > 0 && (*out)->rank < 0)
        rc = merge_ranks(dir, out, err, errlen);
    return rc;
}
