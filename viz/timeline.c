/*
 * timeline.c - the worker-utilisation model, fed one event at a time.
 *
 * Why bins: a trace can hold 10^8 events, far more than pixels. Each worker
 * accumulates busy time per task kind, waiting time and message counts into
 * a fixed number of time bins (about four per pixel row of the image). The
 * time range is not known in advance, so the bins start 1 ns wide at the
 * first event and, whenever an event falls outside, pairs of bins are merged
 * (the width doubles) - memory never grows with the trace. Periods at least
 * one bin long are also kept individually so that they can be drawn as
 * labelled boxes; per worker they cannot overlap, so there are at most about
 * as many as bins. With a window (--start/--end) the bins are fixed to it and
 * everything outside is clipped away.
 */
#include "viz_internal.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIDTH 1200
#define DEFAULT_HEIGHT 900
#define BINS_PER_PIXEL 4

/* ------------------------------------------------------------------ */
/* creation                                                            */
/* ------------------------------------------------------------------ */

static int compile_task_regex(viz_timeline *tl, const char *pattern, char *err, size_t errlen)
{
    wfb_error e;
    if (wfb_pattern_compile(pattern, "task regex", &tl->task_pattern, &e) == 0)
        return VIZ_OK;
    viz_set_error(err, errlen, "%s", e.msg);
    return strcmp(e.msg, "out of memory") == 0 ? VIZ_ENOMEM : VIZ_EINVAL;
}

int viz_timeline_create(viz_timeline **out, const viz_timeline_config *config, char *err,
                        size_t errlen)
{
    viz_timeline_config defaults = {0};
    if (!out) {
        viz_set_error(err, errlen, "no output pointer");
        return VIZ_EINVAL;
    }
    *out = NULL;
    if (!config)
        config = &defaults;
    if (config->width < 0 || config->height < 0 || config->width > 20000 ||
        config->height > 20000) {
        viz_set_error(err, errlen, "image size %dx%d out of range (1..20000)", config->width,
                      config->height);
        return VIZ_EINVAL;
    }
    if (config->has_window && config->to <= config->from) {
        viz_set_error(err, errlen, "empty time window (to <= from)");
        return VIZ_EINVAL;
    }
    viz_timeline *tl = calloc(1, sizeof *tl);
    if (!tl) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    tl->width = config->width ? config->width : DEFAULT_WIDTH;
    tl->height = config->height ? config->height : DEFAULT_HEIGHT;
    tl->has_window = config->has_window;
    tl->from = config->from;
    tl->to = config->to;
    tl->kind_filtered = tl->kind_other = -1;
    tl->bins.count = 2 * ((tl->height * BINS_PER_PIXEL + 1) / 2);
    tl->title = viz_strdup(config->title ? config->title : "Worker utilisation");
    int rc = tl->title ? VIZ_OK : VIZ_ENOMEM;
    if (rc == VIZ_OK && config->task_regex) {
        tl->task_regex = viz_strdup(config->task_regex);
        rc = tl->task_regex ? compile_task_regex(tl, config->task_regex, err, errlen)
                            : VIZ_ENOMEM;
    }
    if (rc != VIZ_OK) {
        if (rc == VIZ_ENOMEM)
            viz_set_error(err, errlen, "out of memory");
        viz_timeline_destroy(tl);
        return rc;
    }
    *out = tl;
    return VIZ_OK;
}

int viz_timeline_set_title(viz_timeline *tl, const char *title)
{
    char *copy = viz_strdup(title ? title : "Worker utilisation");
    if (!copy) {
        viz_set_error(tl->error, sizeof tl->error, "out of memory");
        return VIZ_ENOMEM;
    }
    free(tl->title);
    tl->title = copy;
    return VIZ_OK;
}

static void free_worker(viz_worker *w)
{
    free(w->name);
    for (size_t k = 0; k < w->busy_cap; k++)
        free(w->busy[k]);
    free(w->busy);
    free(w->wait);
    free(w->reads);
    free(w->writes);
    free(w->kept);
}

void viz_timeline_destroy(viz_timeline *tl)
{
    if (!tl)
        return;
    for (size_t i = 0; i < tl->workers_cap; i++)
        free_worker(&tl->workers[i]);
    free(tl->workers);
    for (size_t i = 0; i < tl->tasks_len; i++)
        free(tl->tasks[i].name);
    free(tl->tasks);
    kit_index_map_free(&tl->task_index);
    for (size_t i = 0; i < tl->kinds_len; i++)
        free(tl->kinds[i].name);
    free(tl->kinds);
    wfb_pattern_free(tl->task_pattern);
    free(tl->title);
    free(tl->task_regex);
    free(tl);
}

const char *viz_timeline_error(const viz_timeline *tl)
{
    return tl ? tl->error : "no timeline";
}

static int fail(viz_timeline *tl, int code, const char *message)
{
    viz_set_error(tl->error, sizeof tl->error, "%s", message);
    return code;
}

int viz_timeline_set_origin(viz_timeline *tl, viz_time origin)
{
    if (tl->any_time)
        return fail(tl, VIZ_EINVAL, "time origin set after the first event");
    tl->origin_set = true;
    tl->origin = origin;
    return VIZ_OK;
}

viz_time viz_timeline_window_start(const viz_timeline *tl) { return tl->origin + tl->from; }
viz_time viz_timeline_window_end(const viz_timeline *tl) { return tl->origin + tl->to; }

/* ------------------------------------------------------------------ */
/* workers, kinds, tasks                                               */
/* ------------------------------------------------------------------ */

static viz_worker *get_worker(viz_timeline *tl, int worker)
{
    if (worker < 0 || worker >= VIZ_MAX_WORKERS) {
        viz_set_error(tl->error, sizeof tl->error, "worker %d out of range (0..%d)", worker,
                      VIZ_MAX_WORKERS - 1);
        return NULL;
    }
    if (KIT_GROW_ZEROED(tl->workers, tl->workers_cap, (size_t)worker + 1) != 0) {
        fail(tl, VIZ_ENOMEM, "out of memory");
        return NULL;
    }
    viz_worker *w = &tl->workers[worker];
    if (!w->wait) {
        size_t n = (size_t)tl->bins.count;
        w->wait = calloc(n, sizeof *w->wait);
        w->reads = calloc(n, sizeof *w->reads);
        w->writes = calloc(n, sizeof *w->writes);
        if (!w->wait || !w->reads || !w->writes) {
            fail(tl, VIZ_ENOMEM, "out of memory");
            return NULL;
        }
    }
    w->present = true;
    return w;
}

int viz_timeline_add_worker(viz_timeline *tl, int worker, const char *name)
{
    viz_worker *w = get_worker(tl, worker);
    if (!w)
        return worker < 0 || worker >= VIZ_MAX_WORKERS ? VIZ_EINVAL : VIZ_ENOMEM;
    if (name) {
        char *copy = viz_strdup(name);
        if (!copy)
            return fail(tl, VIZ_ENOMEM, "out of memory");
        free(w->name);
        w->name = copy;
    }
    return VIZ_OK;
}

/* Index of the kind called name, added if new; kinds beyond the cap share
 * "(other kinds)". -1 on allocation failure. */
static int find_or_add_kind(viz_timeline *tl, const char *name, bool pseudo)
{
    for (size_t i = 0; i < tl->kinds_len; i++)
        if (tl->kinds[i].pseudo == pseudo && !strcmp(tl->kinds[i].name, name))
            return (int)i;
    size_t real = 0;
    for (size_t i = 0; i < tl->kinds_len; i++)
        real += !tl->kinds[i].pseudo;
    if (!pseudo && real >= VIZ_MAX_REAL_KINDS) {
        if (tl->kind_other < 0)
            tl->kind_other = find_or_add_kind(tl, "(other kinds)", true);
        return tl->kind_other;
    }
    if (KIT_GROW_ZEROED(tl->kinds, tl->kinds_cap, tl->kinds_len + 1) != 0)
        return -1;
    char *copy = viz_strdup(name);
    if (!copy)
        return -1;
    tl->kinds[tl->kinds_len] = (viz_kind){copy, pseudo};
    return (int)tl->kinds_len++;
}

static bool task_matches(viz_timeline *tl, const char *name)
{
    return wfb_pattern_match(tl->task_pattern, name);
}

/* What a lookup of a task id compares against. */
typedef struct task_probe {
    const viz_task *tasks;
    uint64_t id;
} task_probe;

static bool same_task_id(const void *ctx, uint32_t i)
{
    const task_probe *p = ctx;
    return p->tasks[i].id == p->id;
}

static uint64_t stored_task_id(const void *ctx, uint32_t i)
{
    return ((const viz_task *)ctx)[i].id;
}

static viz_task *lookup_task(const viz_timeline *tl, uint64_t id)
{
    task_probe probe = {tl->tasks, id};
    uint32_t i = kit_index_map_find(&tl->task_index, id, same_task_id, &probe);
    return i == KIT_INDEX_NONE ? NULL : &tl->tasks[i];
}

/* Sets the task's name and kind (and thereby its colour slot). */
static int name_task(viz_timeline *tl, viz_task *task, const char *name, const char *kind)
{
    char *copy = viz_strdup(name);
    if (!copy)
        return fail(tl, VIZ_ENOMEM, "out of memory");
    int k;
    if (!task_matches(tl, name)) {
        if (tl->kind_filtered < 0)
            tl->kind_filtered = find_or_add_kind(tl, "(filtered out)", true);
        k = tl->kind_filtered;
    } else {
        k = find_or_add_kind(tl, kind ? kind : mon_task_kind(name), false);
    }
    if (k < 0) {
        free(copy);
        return fail(tl, VIZ_ENOMEM, "out of memory");
    }
    free(task->name);
    task->name = copy;
    task->kind = k;
    return VIZ_OK;
}

static viz_task *new_task(viz_timeline *tl, uint64_t id)
{
    if (tl->tasks_len >= UINT32_MAX - 1) {
        fail(tl, VIZ_EINVAL, "too many tasks");
        return NULL;
    }
    if (KIT_GROW_ZEROED(tl->tasks, tl->tasks_cap, tl->tasks_len + 1) != 0 ||
        kit_index_map_insert(&tl->task_index, id, (uint32_t)tl->tasks_len, stored_task_id,
                             tl->tasks) != 0) {
        fail(tl, VIZ_ENOMEM, "out of memory");
        return NULL;
    }
    viz_task *task = &tl->tasks[tl->tasks_len++];
    *task = (viz_task){.id = id, .kind = -1};
    return task;
}

int viz_timeline_add_task(viz_timeline *tl, uint64_t id, const char *name, const char *kind)
{
    if (!name || !*name)
        return fail(tl, VIZ_EINVAL, "task without a name");
    viz_task *task = lookup_task(tl, id);
    if (task && task->used)
        return VIZ_OK; /* its periods are already binned under the old kind */
    if (!task && !(task = new_task(tl, id)))
        return VIZ_ENOMEM;
    return name_task(tl, task, name, kind);
}

/* The task for a period, declared on the fly if it never was. */
static viz_task *use_task(viz_timeline *tl, uint64_t id)
{
    viz_task *task = lookup_task(tl, id);
    if (!task) {
        char name[32];
        snprintf(name, sizeof name, "task %llu", (unsigned long long)id);
        if (!(task = new_task(tl, id)) || name_task(tl, task, name, NULL) != VIZ_OK)
            return NULL;
    }
    task->used = true;
    return task;
}

/* ------------------------------------------------------------------ */
/* bins                                                                */
/* ------------------------------------------------------------------ */

/* Halves the resolution of one array: pairs are summed into the lower half
 * (the range grows to the right) or the upper half (it grows to the left). */
static void fold_doubles(double *a, int n, bool into_upper_half)
{
    if (!a)
        return;
    int half = n / 2;
    if (into_upper_half) {
        for (int i = half - 1; i >= 0; i--)
            a[half + i] = a[2 * i] + a[2 * i + 1];
        memset(a, 0, (size_t)half * sizeof *a);
    } else {
        for (int i = 0; i < half; i++)
            a[i] = a[2 * i] + a[2 * i + 1];
        memset(a + half, 0, (size_t)half * sizeof *a);
    }
}

static void fold_counts(uint32_t *a, int n, bool into_upper_half)
{
    int half = n / 2;
    if (into_upper_half) {
        for (int i = half - 1; i >= 0; i--)
            a[half + i] = a[2 * i] + a[2 * i + 1];
        memset(a, 0, (size_t)half * sizeof *a);
    } else {
        for (int i = 0; i < half; i++)
            a[i] = a[2 * i] + a[2 * i + 1];
        memset(a + half, 0, (size_t)half * sizeof *a);
    }
}

/* Drops kept periods shorter than a bin: the bins show them well enough. */
static void prune_kept(viz_worker *w, viz_time min_length)
{
    size_t out = 0;
    for (size_t i = 0; i < w->kept_len; i++)
        if (w->kept[i].end - w->kept[i].start >= min_length)
            w->kept[out++] = w->kept[i];
    w->kept_len = out;
}

static void fold_all(viz_timeline *tl, bool into_upper_half)
{
    int n = tl->bins.count;
    for (size_t i = 0; i < tl->workers_cap; i++) {
        viz_worker *w = &tl->workers[i];
        if (!w->wait)
            continue;
        for (size_t k = 0; k < w->busy_cap; k++)
            fold_doubles(w->busy[k], n, into_upper_half);
        fold_doubles(w->wait, n, into_upper_half);
        fold_counts(w->reads, n, into_upper_half);
        fold_counts(w->writes, n, into_upper_half);
    }
    tl->bins.width *= 2;
    if (into_upper_half)
        tl->bins.origin -= (viz_time)(n / 2) * tl->bins.width;
    for (size_t i = 0; i < tl->workers_cap; i++)
        prune_kept(&tl->workers[i], tl->bins.width);
}

static viz_time bins_end(const viz_bins *b)
{
    return b->origin + (viz_time)b->count * b->width;
}

/* Makes the bins cover [start, end), or (with a window) clips the interval
 * to the window. Returns false if nothing of it is left to draw. */
static bool cover(viz_timeline *tl, viz_time *start, viz_time *end)
{
    viz_bins *b = &tl->bins;
    if (!b->started) {
        if (tl->has_window) {
            if (!tl->origin_set) {
                tl->origin = *start;
                tl->origin_set = true;
            }
            viz_time span = tl->to - tl->from;
            b->origin = viz_timeline_window_start(tl);
            b->width = (span + b->count - 1) / b->count;
            b->fixed = true;
        } else {
            b->origin = *start;
            b->width = 1;
        }
        b->started = true;
    }
    if (b->fixed) {
        viz_time lo = viz_timeline_window_start(tl), hi = viz_timeline_window_end(tl);
        if (*start < lo)
            *start = lo;
        if (*end > hi)
            *end = hi;
        return *start < *end || (*start == *end && *start >= lo && *start < hi);
    }
    while (*start < b->origin)
        fold_all(tl, true);
    while (*end > bins_end(b) || (*end == *start && *end >= bins_end(b)))
        fold_all(tl, false);
    return true;
}

static void add_to_bins(const viz_bins *b, double *bins, viz_time start, viz_time end)
{
    if (end <= start)
        return;
    viz_time first = (start - b->origin) / b->width, last = (end - 1 - b->origin) / b->width;
    for (viz_time i = first; i <= last && i < b->count; i++) {
        viz_time lo = b->origin + i * b->width, hi = lo + b->width;
        if (lo < start)
            lo = start;
        if (hi > end)
            hi = end;
        bins[i] += (double)(hi - lo);
    }
}

static void note_time(viz_timeline *tl, viz_time start, viz_time end)
{
    if (!tl->any_time) {
        tl->first = start;
        tl->last = end;
        tl->any_time = true;
        return;
    }
    if (start < tl->first)
        tl->first = start;
    if (end > tl->last)
        tl->last = end;
}

/* ------------------------------------------------------------------ */
/* interval-style events                                               */
/* ------------------------------------------------------------------ */

static double *busy_bins(viz_timeline *tl, viz_worker *w, int kind)
{
    if (KIT_GROW_ZEROED(w->busy, w->busy_cap, (size_t)kind + 1) != 0)
        return NULL;
    if (!w->busy[kind])
        w->busy[kind] = calloc((size_t)tl->bins.count, sizeof *w->busy[kind]);
    return w->busy[kind];
}

static int keep_period(viz_timeline *tl, viz_worker *w, const viz_kept_period *p)
{
    /* Without overlaps there are at most about count periods of a bin or
     * more per worker; the cap only guards against overlapping input. */
    if (w->kept_len >= 4 * (size_t)tl->bins.count)
        return VIZ_OK;
    if (KIT_GROW_ZEROED(w->kept, w->kept_cap, w->kept_len + 1) != 0)
        return fail(tl, VIZ_ENOMEM, "out of memory");
    w->kept[w->kept_len++] = *p;
    return VIZ_OK;
}

int viz_timeline_add_period(viz_timeline *tl, int worker, uint64_t task_id, viz_time start,
                            viz_time end, viz_period_end how)
{
    if (end < start)
        return fail(tl, VIZ_EINVAL, "period ends before it starts");
    if ((unsigned)how >= VIZ_END_COUNT)
        return fail(tl, VIZ_EINVAL, "unknown period end");
    viz_worker *w = get_worker(tl, worker);
    viz_task *task = w ? use_task(tl, task_id) : NULL;
    if (!task)
        return worker < 0 || worker >= VIZ_MAX_WORKERS ? VIZ_EINVAL : VIZ_ENOMEM;
    note_time(tl, start, end);
    viz_time lo = start, hi = end;
    if (!cover(tl, &lo, &hi))
        return VIZ_OK;
    tl->periods++;
    double *bins = busy_bins(tl, w, task->kind);
    if (!bins)
        return fail(tl, VIZ_ENOMEM, "out of memory");
    add_to_bins(&tl->bins, bins, lo, hi);
    if (end - start >= tl->bins.width) {
        viz_kept_period kept = {start, end, (uint32_t)(task - tl->tasks), (uint8_t)how};
        return keep_period(tl, w, &kept);
    }
    return VIZ_OK;
}

int viz_timeline_add_wait(viz_timeline *tl, int worker, viz_time start, viz_time end)
{
    if (end < start)
        return fail(tl, VIZ_EINVAL, "wait ends before it starts");
    viz_worker *w = get_worker(tl, worker);
    if (!w)
        return worker < 0 || worker >= VIZ_MAX_WORKERS ? VIZ_EINVAL : VIZ_ENOMEM;
    note_time(tl, start, end);
    if (!cover(tl, &start, &end))
        return VIZ_OK;
    tl->waits++;
    add_to_bins(&tl->bins, w->wait, start, end);
    return VIZ_OK;
}

int viz_timeline_add_message(viz_timeline *tl, int worker, viz_time when, viz_message_dir dir)
{
    viz_worker *w = get_worker(tl, worker);
    if (!w)
        return worker < 0 || worker >= VIZ_MAX_WORKERS ? VIZ_EINVAL : VIZ_ENOMEM;
    note_time(tl, when, when);
    viz_time end = when;
    if (!cover(tl, &when, &end))
        return VIZ_OK;
    tl->messages++;
    viz_time bin = (when - tl->bins.origin) / tl->bins.width;
    if (bin >= 0 && bin < tl->bins.count)
        (dir == VIZ_MSG_READ ? w->reads : w->writes)[bin]++;
    return VIZ_OK;
}

/* ------------------------------------------------------------------ */
/* queries                                                             */
/* ------------------------------------------------------------------ */

bool viz_timeline_range(const viz_timeline *tl, viz_time *start, viz_time *end,
                        viz_time *axis_origin)
{
    if (tl->has_window) {
        if (!tl->origin_set)
            return false;
        *start = viz_timeline_window_start(tl);
        *end = viz_timeline_window_end(tl);
        *axis_origin = tl->origin;
        return true;
    }
    if (!tl->any_time)
        return false;
    *start = tl->first;
    *end = tl->last > tl->first ? tl->last : tl->first + 1;
    *axis_origin = tl->origin_set ? tl->origin : tl->first;
    return true;
}

void viz_timeline_get_stats(const viz_timeline *tl, viz_timeline_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    stats->periods = tl->periods;
    stats->waits = tl->waits;
    stats->messages = tl->messages;
    for (size_t i = 0; i < tl->workers_cap; i++) {
        stats->workers += tl->workers[i].present;
        stats->periods_kept += tl->workers[i].kept_len;
    }
    stats->kinds = (int)tl->kinds_len;
    stats->bin_width = tl->bins.width;
    stats->first = tl->first;
    stats->last = tl->last;
}

int viz_timeline_render(viz_timeline *tl, const char *path)
{
    viz_format format = viz_format_from_path(path);
    if (format != VIZ_FMT_PNG && format != VIZ_FMT_SVG) {
        viz_set_error(tl->error, sizeof tl->error,
                      "%s: the utilisation image is written as .png or .svg", path ? path : "");
        return VIZ_EINVAL;
    }
    return viz_timeline_draw(tl, path, format);
}
