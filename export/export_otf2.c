/*
 * export_otf2.c - a trace as an OTF2 archive, the format of Score-P, which
 * Vampir and the other Score-P tools open (export.h); written with the OTF2
 * library itself so that every OTF2 reader accepts it.
 *
 * The mapping (docs/LOGFORMAT.md, section 7.3):
 *   - one location (a CPU thread of one process "LPEL") per worker log;
 *   - one region per task kind (mon_task_kind, as in the utilisation
 *     image), entered when an execution period begins and left when it
 *     ends (the trace reader's periods, mon_periods: dispatch to block,
 *     yield or destroy); the task's id, name and run ride on the Enter as
 *     attributes;
 *   - one region "waiting" for the worker's waits (worker_wait to
 *     worker_resume);
 *   - each message written on one task and read on another as a send on
 *     the writer's location and a receive on the reader's, in one
 *     communicator over all locations, the tag being the message's pair
 *     number (export_pairs.c): OTF2's only point-to-point events are MPI's,
 *     so that is the paradigm these are declared in;
 *   - times in ns of the trace clock (timer resolution 10^9), the clock
 *     properties' offset the first event, their realtime the same moment
 *     in ns since the epoch (the trace's clock offset), and the trace
 *     clock's own frequency as the archive property SNETMON::CLOCK_FREQ_HZ.
 *
 * A period still open when the trace ends (a crash, a truncated log read
 * with --partial) is left at the last event's time, so every Enter has its
 * Leave; and since the period layer ends whatever a worker was in before
 * the next period or wait on it begins (also when the trace lacks that
 * end), the regions of a location nest as OTF2 requires.
 */
#include "export_internal.h"

#include <inttypes.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define ARCHIVE_NAME "traces"
#define EVENT_CHUNK (1024 * 1024)
#define DEF_CHUNK (4 * 1024 * 1024)

enum { ATTR_TASK, ATTR_TASK_NAME, ATTR_RUN, ATTR_COUNT };

/* A worker's location and what runs there now. */
typedef struct location {
    unsigned worker;
    OTF2_EvtWriter *writer;
    uint64_t events;
    bool open;             /* a region entered (a period, a wait) */
    OTF2_RegionRef open_region;
} location;

/* A task (a value in the mon_key_table, by task_key): its name string and its
 * kind's region; known is false in a value mon_key_table_get has just made. */
typedef struct task_node {
    bool known;
    OTF2_StringRef name;
    OTF2_RegionRef region;
} task_node;

/* A task kind (tsearch node: kinds are found by name, which mon_key_table's
 * 64-bit keys cannot hold). */
typedef struct kind_node {
    const char *name; /* in the string table */
    OTF2_RegionRef region;
} kind_node;

typedef struct otf2_export {
    const char *dir;
    char *err;               /* the one-line message of a failure */
    size_t errlen;
    mon_periods *periods;    /* the execution periods and waits */
    OTF2_Archive *archive;
    OTF2_AttributeList *attrs;
    location *locs;
    unsigned nlocs;
    unsigned *loc_of_worker; /* worker id -> location index + 1 (0: none) */
    unsigned worker_limit;
    char **strings;          /* string ref = index */
    size_t nstrings, strings_cap;
    OTF2_StringRef *region_names; /* region ref = index */
    size_t nregions, regions_cap;
    OTF2_RegionRef wait_region;
    mon_key_table tasks;         /* task_node by task_key */
    void *kinds;             /* tsearch tree of kind_node */
    uint64_t first, last;
    bool any_event;
    bool failed;             /* err says why (or the source has) */
    char otf2_error[256];    /* the OTF2 library's last complaint */
    export_summary *sum;
} otf2_export;

static otf2_export *current; /* for the OTF2 error callback */

static OTF2_ErrorCode keep_otf2_error(void *user, const char *file, uint64_t line,
                                      const char *function, OTF2_ErrorCode code, const char *fmt,
                                      va_list ap)
{
    (void)user, (void)file, (void)line, (void)function;
    if (current && fmt)
        vsnprintf(current->otf2_error, sizeof current->otf2_error, fmt, ap);
    return code;
}

static void fail(otf2_export *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(otf2_export *x, const char *fmt, ...)
{
    if (x->failed)
        return;
    x->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(x->err, x->errlen, "%s: %s", x->dir, what);
}

/* true when an OTF2 call succeeded; else the message names it. */
static bool ok(otf2_export *x, OTF2_ErrorCode rc, const char *what)
{
    if (rc == OTF2_SUCCESS)
        return true;
    fail(x, "OTF2 %s: %s%s%s", what, OTF2_Error_GetDescription(rc), x->otf2_error[0] ? ": " : "",
         x->otf2_error);
    return false;
}

/* ------------------------------------------------------------------ */
/* strings, regions, tasks                                             */
/* ------------------------------------------------------------------ */

static OTF2_StringRef add_string(otf2_export *x, const char *s)
{
    if (KIT_GROW(x->strings, x->strings_cap, x->nstrings + 1))
        return OTF2_UNDEFINED_STRING;
    if (!(x->strings[x->nstrings] = strdup(s)))
        return OTF2_UNDEFINED_STRING;
    return (OTF2_StringRef)x->nstrings++;
}

static OTF2_RegionRef add_region(otf2_export *x, OTF2_StringRef name)
{
    if (KIT_GROW(x->region_names, x->regions_cap, x->nregions + 1))
        return OTF2_UNDEFINED_REGION;
    x->region_names[x->nregions] = name;
    return (OTF2_RegionRef)x->nregions++;
}

static int compare_kinds(const void *a, const void *b)
{
    return strcmp(((const kind_node *)a)->name, ((const kind_node *)b)->name);
}

/* The region of a task kind, made on first use. */
static OTF2_RegionRef kind_region(otf2_export *x, const char *kind)
{
    kind_node key = {.name = kind};
    void *node = tfind(&key, &x->kinds, compare_kinds);
    if (node)
        return (*(kind_node **)node)->region;
    OTF2_StringRef s = add_string(x, kind);
    kind_node *k = s == OTF2_UNDEFINED_STRING ? NULL : malloc(sizeof *k);
    if (!k)
        return OTF2_UNDEFINED_REGION;
    *k = (kind_node){x->strings[s], add_region(x, s)};
    if (k->region == OTF2_UNDEFINED_REGION || !tsearch(k, &x->kinds, compare_kinds)) {
        free(k);
        return OTF2_UNDEFINED_REGION;
    }
    return k->region;
}

/* Task (run, id)'s node, named name when new (NULL: "task N", until its
 * task_map comes); NULL when out of memory. The pointer is valid until the
 * next task_of (mon_key_table). */
static task_node *task_of(otf2_export *x, uint32_t run, uint64_t id, const char *name)
{
    task_node *t = mon_key_table_get(&x->tasks, mon_run_id_key(run, id));
    if (!t || t->known)
        return t;
    char fallback[40];
    snprintf(fallback, sizeof fallback, "task %" PRIu64, id);
    t->name = add_string(x, name ? name : fallback);
    t->region = kind_region(x, mon_task_kind(name));
    t->known = t->name != OTF2_UNDEFINED_STRING && t->region != OTF2_UNDEFINED_REGION;
    return t->known ? t : NULL;
}

/* task_map: the task's name and kind (a task mapped again is renamed). */
static bool name_task(otf2_export *x, const mon_event *e)
{
    const char *name = e->name && *e->name ? e->name : "?";
    task_node *t = mon_key_table_get(&x->tasks, mon_run_key(e, e->task));
    if (!t)
        return false;
    if (!t->known)
        return task_of(x, e->run, e->task, name) != NULL;
    t->name = add_string(x, name);
    t->region = kind_region(x, mon_task_kind(name));
    return t->name != OTF2_UNDEFINED_STRING && t->region != OTF2_UNDEFINED_REGION;
}

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

static location *location_of(otf2_export *x, unsigned worker)
{
    return worker < x->worker_limit && x->loc_of_worker[worker]
               ? &x->locs[x->loc_of_worker[worker] - 1]
               : NULL;
}

static void enter(otf2_export *x, location *l, uint64_t time, OTF2_AttributeList *attrs,
                  OTF2_RegionRef region, uint64_t *count)
{
    if (ok(x, OTF2_EvtWriter_Enter(l->writer, attrs, time, region), "Enter")) {
        l->open = true;
        l->open_region = region;
        (*count)++;
    }
}

/* An execution period begins: its task kind's region is entered. */
static void enter_task(otf2_export *x, location *l, const mon_interval *iv)
{
    task_node *t = task_of(x, iv->run, iv->task, NULL);
    if (!t) {
        fail(x, "out of memory");
        return;
    }
    OTF2_AttributeValue v;
    v.uint64 = iv->task;
    OTF2_AttributeList_AddAttribute(x->attrs, ATTR_TASK, OTF2_TYPE_UINT64, v);
    v.stringRef = t->name;
    OTF2_AttributeList_AddAttribute(x->attrs, ATTR_TASK_NAME, OTF2_TYPE_STRING, v);
    v.uint32 = iv->run;
    OTF2_AttributeList_AddAttribute(x->attrs, ATTR_RUN, OTF2_TYPE_UINT32, v);
    enter(x, l, iv->start, x->attrs, t->region, &x->sum->periods);
}

/* A period or wait of the trace reader (mon_periods) begins. */
static int on_open(void *ctx, const mon_interval *iv)
{
    otf2_export *x = ctx;
    location *l = location_of(x, iv->worker);
    if (!l || x->failed)
        return 0;
    if (iv->kind == MON_INTERVAL_EXEC)
        enter_task(x, l, iv);
    else if (iv->kind == MON_INTERVAL_IDLE)
        enter(x, l, iv->start, NULL, x->wait_region, &x->sum->waits);
    return 0;
}

/* ... and ends: the region entered for it is left. */
static int on_close(void *ctx, const mon_interval *iv)
{
    otf2_export *x = ctx;
    location *l = location_of(x, iv->worker);
    if (!l || x->failed || !l->open || iv->kind == MON_INTERVAL_BLOCKED)
        return 0;
    ok(x, OTF2_EvtWriter_Leave(l->writer, NULL, iv->end, l->open_region), "Leave");
    l->open = false;
    return 0;
}

/* A message's send (at its first write) or receive (at its first read). */
static void message(otf2_export *x, export_pairs *pairs, const mon_event *e)
{
    location *l = location_of(x, e->worker);
    const export_pair *m = l ? export_pairs_first(pairs, e) : NULL;
    if (!m)
        return;
    bool send = e->kind == MON_EV_MESSAGE_WRITTEN;
    location *peer = location_of(x, send ? m->reader : m->writer);
    if (!peer)
        return;
    uint32_t rank = (uint32_t)(peer - x->locs), tag = (uint32_t)m->flow;
    if (send)
        ok(x, OTF2_EvtWriter_MpiSend(l->writer, NULL, e->time, rank, 0, tag, 0), "MpiSend");
    else
        ok(x, OTF2_EvtWriter_MpiRecv(l->writer, NULL, e->time, rank, 0, tag, 0), "MpiRecv");
}

static void export_event(otf2_export *x, export_pairs *pairs, const mon_event *e)
{
    if (e->kind == MON_EV_TASK_MAP) {
        if (!name_task(x, e))
            fail(x, "out of memory");
        return;
    }
    if (e->kind == MON_EV_MESSAGE_WRITTEN || e->kind == MON_EV_MESSAGE_READ)
        message(x, pairs, e);
    else if (mon_periods_feed(x->periods, e) != 0)
        fail(x, "out of memory");
}

/* ------------------------------------------------------------------ */
/* archive                                                             */
/* ------------------------------------------------------------------ */

static OTF2_FlushType flush_always(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                   void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

/* No post-flush callback: no BufferFlush records in the trace. */
static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = flush_always};

/* The locations (one per worker log, in worker order) and their writers. */
static bool open_archive(otf2_export *x, const mon_trace *t)
{
    x->nlocs = mon_trace_num_workers(t);
    for (unsigned i = 0; i < x->nlocs; i++)
        if (mon_trace_worker_id(t, i) + 1 > x->worker_limit)
            x->worker_limit = mon_trace_worker_id(t, i) + 1;
    x->locs = calloc(x->nlocs ? x->nlocs : 1, sizeof *x->locs);
    x->loc_of_worker = calloc(x->worker_limit ? x->worker_limit : 1, sizeof *x->loc_of_worker);
    x->attrs = OTF2_AttributeList_New();
    if (!x->locs || !x->loc_of_worker || !x->attrs) {
        fail(x, "out of memory");
        return false;
    }
    x->archive = OTF2_Archive_Open(x->dir, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVENT_CHUNK,
                                   DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!x->archive) {
        fail(x, "OTF2 cannot create the archive%s%s", x->otf2_error[0] ? ": " : "",
             x->otf2_error);
        return false;
    }
    if (!ok(x, OTF2_Archive_SetFlushCallbacks(x->archive, &flush_callbacks, NULL), "flush") ||
        !ok(x, OTF2_Archive_SetSerialCollectiveCallbacks(x->archive), "collectives") ||
        !ok(x, OTF2_Archive_SetCreator(x->archive, "snetmon export --otf2"), "creator") ||
        !ok(x, OTF2_Archive_SetDescription(x->archive, "LPEL/S-Net monitor trace"), "description") ||
        !ok(x, OTF2_Archive_OpenEvtFiles(x->archive), "event files"))
        return false;
    for (unsigned i = 0; i < x->nlocs; i++) {
        location *l = &x->locs[i];
        l->worker = mon_trace_worker_id(t, i);
        x->loc_of_worker[l->worker] = i + 1;
        if (!(l->writer = OTF2_Archive_GetEvtWriter(x->archive, i))) {
            fail(x, "OTF2 cannot make the event writer of worker %u", l->worker);
            return false;
        }
    }
    return true;
}

static void write_clock(otf2_export *x, OTF2_GlobalDefWriter *g, const mon_trace *t)
{
    uint64_t offset = x->any_event ? x->first : 0, length = x->any_event ? x->last - x->first : 0;
    ok(x, OTF2_GlobalDefWriter_WriteClockProperties(g, UINT64_C(1000000000), offset, length,
                                                    offset + mon_trace_clock_offset_ns(t)),
       "ClockProperties");
    char freq[32];
    snprintf(freq, sizeof freq, "%" PRIu64, mon_trace_clock_freq(t));
    ok(x, OTF2_Archive_SetProperty(x->archive, "SNETMON::CLOCK_FREQ_HZ", freq, true), "property");
}

/* Strings the definitions below name, after those of the events. */
typedef struct def_strings {
    OTF2_StringRef empty, host, machine, process, lpel, comm_name, workers;
    OTF2_StringRef attr[ATTR_COUNT], attr_doc[ATTR_COUNT];
    OTF2_StringRef task_doc, wait_doc;
    OTF2_StringRef *location;
} def_strings;

static bool add_def_strings(otf2_export *x, def_strings *s, const mon_trace *t)
{
    static const char *const attr_names[] = {"task", "task name", "run"};
    static const char *const attr_docs[] = {"the task's id in its run", "the task's net path",
                                            "the runtime instance, from 1"};
    s->empty = add_string(x, "");
    s->host = add_string(x, "host");
    s->machine = add_string(x, "machine");
    s->process = add_string(x, "LPEL");
    s->lpel = add_string(x, "LPEL runtime");
    s->comm_name = add_string(x, "messages between tasks");
    s->workers = add_string(x, "workers");
    s->task_doc = add_string(x, "task execution periods of this kind (dispatch to block)");
    s->wait_doc = add_string(x, "the worker waits for work (worker_wait to worker_resume)");
    bool good = s->task_doc != OTF2_UNDEFINED_STRING && s->wait_doc != OTF2_UNDEFINED_STRING;
    for (int a = 0; a < ATTR_COUNT; a++) {
        s->attr[a] = add_string(x, attr_names[a]);
        s->attr_doc[a] = add_string(x, attr_docs[a]);
        good &= s->attr_doc[a] != OTF2_UNDEFINED_STRING;
    }
    s->location = malloc((x->nlocs ? x->nlocs : 1) * sizeof *s->location);
    for (unsigned i = 0; good && s->location && i < x->nlocs; i++) {
        char name[64], label[32];
        if (mon_trace_num_ranks(t) > 1) /* a multi-rank trace: which rank's worker */
            snprintf(name, sizeof name, "worker %u (%s)", x->locs[i].worker,
                     mon_trace_worker_label(t, x->locs[i].worker, label, sizeof label));
        else
            snprintf(name, sizeof name, "worker %u", x->locs[i].worker);
        good = (s->location[i] = add_string(x, name)) != OTF2_UNDEFINED_STRING;
    }
    return good && s->location;
}

static void write_regions(otf2_export *x, OTF2_GlobalDefWriter *g, const def_strings *s)
{
    for (size_t r = 0; r < x->nregions && !x->failed; r++) {
        bool wait = r == x->wait_region;
        ok(x, OTF2_GlobalDefWriter_WriteRegion(
                  g, (OTF2_RegionRef)r, x->region_names[r], x->region_names[r],
                  wait ? s->wait_doc : s->task_doc,
                  wait ? OTF2_REGION_ROLE_ARTIFICIAL : OTF2_REGION_ROLE_FUNCTION,
                  OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, s->empty, 0, 0),
           "Region");
    }
}

/* One communicator over all locations: rank i is location i. */
static void write_comm(otf2_export *x, OTF2_GlobalDefWriter *g, const def_strings *s)
{
    uint64_t *members = malloc((x->nlocs ? x->nlocs : 1) * sizeof *members);
    if (!members) {
        fail(x, "out of memory");
        return;
    }
    for (unsigned i = 0; i < x->nlocs; i++)
        members[i] = i;
    if (ok(x, OTF2_GlobalDefWriter_WriteGroup(g, 0, s->workers, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, x->nlocs,
                                              members),
           "Group") &&
        ok(x, OTF2_GlobalDefWriter_WriteGroup(g, 1, s->workers, OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, x->nlocs,
                                              members),
           "Group"))
        ok(x, OTF2_GlobalDefWriter_WriteComm(g, 0, s->comm_name, 1, OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE),
           "Comm");
    free(members);
}

static void write_definitions(otf2_export *x, const mon_trace *t)
{
    def_strings s = {0};
    if (!add_def_strings(x, &s, t)) {
        free(s.location);
        fail(x, "out of memory");
        return;
    }
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->archive);
    if (!g) {
        free(s.location);
        fail(x, "OTF2 cannot make the definition writer");
        return;
    }
    write_clock(x, g, t);
    for (size_t i = 0; i < x->nstrings && !x->failed; i++)
        ok(x, OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, x->strings[i]), "String");
    static const OTF2_Type attr_types[] = {OTF2_TYPE_UINT64, OTF2_TYPE_STRING, OTF2_TYPE_UINT32};
    for (int a = 0; a < ATTR_COUNT && !x->failed; a++)
        ok(x, OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)a, s.attr[a], s.attr_doc[a],
                                                  attr_types[a]),
           "Attribute");
    if (!x->failed && ok(x, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                                    g, 0, s.host, s.machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
                                "SystemTreeNode"))
        ok(x, OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, s.process,
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
           "LocationGroup");
    for (unsigned i = 0; i < x->nlocs && !x->failed; i++)
        ok(x, OTF2_GlobalDefWriter_WriteLocation(g, i, s.location[i], OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 x->locs[i].events, 0),
           "Location");
    if (!x->failed)
        write_regions(x, g, &s);
    if (!x->failed)
        write_comm(x, g, &s);
    free(s.location);
    x->sum->regions = x->nregions;
}

/* Leaves what is open, closes the event writers and files, writes the
 * (empty) local and the global definitions. */
static void close_archive(otf2_export *x, const mon_trace *t)
{
    if (!x->failed && mon_periods_finish(x->periods, x->last) != 0)
        fail(x, "out of memory");
    for (unsigned i = 0; i < x->nlocs; i++) {
        location *l = &x->locs[i];
        if (!l->writer)
            continue;
        OTF2_EvtWriter_GetNumberOfEvents(l->writer, &l->events);
        ok(x, OTF2_Archive_CloseEvtWriter(x->archive, l->writer), "closing events");
        l->writer = NULL;
    }
    if (!ok(x, OTF2_Archive_CloseEvtFiles(x->archive), "closing event files") ||
        !ok(x, OTF2_Archive_OpenDefFiles(x->archive), "definition files"))
        return;
    for (unsigned i = 0; i < x->nlocs && !x->failed; i++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->archive, i);
        if (!d)
            fail(x, "OTF2 cannot make the definition writer of worker %u", x->locs[i].worker);
        else
            ok(x, OTF2_Archive_CloseDefWriter(x->archive, d), "closing definitions");
    }
    if (!x->failed)
        ok(x, OTF2_Archive_CloseDefFiles(x->archive), "closing definition files");
    if (!x->failed)
        write_definitions(x, t);
}

static void free_export(otf2_export *x)
{
    mon_key_table_free(&x->tasks, NULL);
    mon_periods_free(x->periods);
    tdestroy(x->kinds, free); /* the names belong to the string table */
    for (size_t i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->region_names);
    free(x->locs);
    free(x->loc_of_worker);
    if (x->attrs)
        OTF2_AttributeList_Delete(x->attrs);
}

/* The second pass: every event into the archive. */
static void write_events(otf2_export *x, const export_source *src, export_pairs *pairs)
{
    mon_event ev;
    int more = 0;
    while (!x->failed && (more = src->next(src->ctx, &ev)) == 1) {
        if (!x->any_event)
            x->first = ev.time;
        x->any_event = true;
        x->last = ev.time;
        export_event(x, pairs, &ev);
    }
    if (more != 0)
        x->failed = true; /* the source has said why */
}

int export_otf2(const export_source *src, const char *dir, export_summary *summary, char *err,
                size_t errlen)
{
    otf2_export x = {.dir = dir, .err = err, .errlen = errlen, .sum = summary};
    mon_key_table_init(&x.tasks, sizeof(task_node));
    memset(summary, 0, sizeof *summary);
    err[0] = '\0';
    export_pairs *pairs = export_pairs_scan(src, err, errlen);
    if (!pairs)
        return -1;
    summary->messages = *export_pairs_counts(pairs);
    mon_period_sink sink = {.ctx = &x, .open = on_open, .close = on_close};
    if (!(x.periods = mon_periods_new(&sink))) {
        export_pairs_free(pairs);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    current = &x;
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(keep_otf2_error, NULL);
    const mon_trace *t = src->trace(src->ctx);
    int rc = -1;
    if (open_archive(&x, t)) {
        OTF2_StringRef wait_name = add_string(&x, "waiting");
        x.wait_region = wait_name == OTF2_UNDEFINED_STRING ? OTF2_UNDEFINED_REGION
                                                           : add_region(&x, wait_name);
        if (x.wait_region == OTF2_UNDEFINED_REGION)
            fail(&x, "out of memory");
        write_events(&x, src, pairs);
        close_archive(&x, t);
        rc = x.failed ? -1 : 0;
    }
    summary->locations = x.nlocs;
    if (x.archive && !ok(&x, OTF2_Archive_Close(x.archive), "closing the archive"))
        rc = -1;
    OTF2_Error_RegisterCallback(previous, NULL);
    current = NULL;
    free_export(&x);
    export_pairs_free(pairs);
    return rc;
}
