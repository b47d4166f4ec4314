/*
 * mon_metadata.c - the trace-level files: the CTF `metadata` (TSDL text
 * describing the binary layout of mon_format_internal.h) and `run.json`
 * (how the trace was made: command line, flags, workers, host, clocks,
 * event counts).
 *
 * Why TSDL is generated from a table here and not kept as a static file:
 * the clock offset (wall clock at start) and the environment belong in it,
 * and one table of events keeps writer, reader and metadata in step.
 */
#include "mon_writer_internal.h"

#include "mon.h"
#include "mon_files_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The payload of each event as TSDL fields, indexed by mon_event_id. The
 * struct types are the small integers of mon_format_internal.h. */
static const char *const event_fields[MON_ID_COUNT][2] = {
    [MON_ID_TASK_MAP] = {"task_map", "struct uint task; string name;"},
    [MON_ID_TASK_CREATE] = {"task_create", "struct uint task;"},
    [MON_ID_TASK_DISPATCH] = {"task_dispatch", "struct uint task;"},
    [MON_ID_TASK_BLOCK] = {"task_block", "struct uint_cause task;"},
    [MON_ID_TASK_YIELD] = {"task_yield", "struct uint task;"},
    [MON_ID_TASK_DESTROY] = {"task_destroy", "struct uint task;"},
    [MON_ID_WORKER_START] = {"worker_start", NULL},
    [MON_ID_WORKER_WAIT] = {"worker_wait", NULL},
    [MON_ID_WORKER_RESUME] = {"worker_resume", NULL},
    [MON_ID_WORKER_END] = {"worker_end", NULL},
    [MON_ID_STREAM_OPEN] = {"stream_open", "struct uint task; struct uint_mode stream_id;"},
    [MON_ID_STREAM_CLOSE] = {"stream_close", "struct uint task; struct uint_mode stream_id;"},
    [MON_ID_STREAM_READ] = {"stream_read", "struct uint task; struct uint stream_id;"},
    [MON_ID_STREAM_WRITE] = {"stream_write", "struct uint task; struct uint stream_id;"},
    [MON_ID_STREAM_BLOCK] = {"stream_block", "struct uint task; struct uint_state stream_id;"},
    [MON_ID_STREAM_WAKE] = {"stream_wake",
                            "struct uint waker; struct uint stream_id; struct uint woken;"},
    [MON_ID_COMPONENT_BEGIN] = {"component_begin", "struct uint task;"},
    [MON_ID_COMPONENT_END] = {"component_end", "struct uint task;"},
    [MON_ID_MESSAGE_READ] = {"message_read",
                             "struct uint task; struct uint msg_node; struct uint msg_seq;"},
    [MON_ID_MESSAGE_WRITTEN] = {"message_written",
                                "struct uint task; struct uint msg_node; struct uint msg_seq;"},
    [MON_ID_TASK_LOAD] = {"task_load",
                          "struct uint task; struct uint dispatches; struct uint exec_ns;"},
    [MON_ID_WORKER_LOAD] = {"worker_load",
                            "struct uint waits; struct uint wait_ns; struct uint busy_ns;"},
    [MON_ID_RUN_START] = {"run_start", "struct uint run;"},
    [MON_ID_MESSAGE_SENT] = {"message_sent", "struct uint task; struct uint msg_node; "
                                             "struct uint msg_seq; struct uint rank;"},
    [MON_ID_MESSAGE_RECEIVED] = {"message_received", "struct uint task; struct uint msg_node; "
                                                     "struct uint msg_seq; struct uint rank;"},
    [MON_ID_CHANNEL_OPEN] = {"channel_open", "struct uint task; struct uint channel_rank; "
                                             "struct uint_end channel_index; struct uint rank;"},
    [MON_ID_CHANNEL_BLOCK] = {"channel_block", "struct uint task; struct uint channel_rank; "
                                               "struct uint_state channel_index;"},
    [MON_ID_CPU_TIME] = {"cpu_time", "struct uint cpu_ns; struct uint preemptions;"},
    [MON_ID_MONITOR_CONTROL] = {"monitor_control", "struct uint_filter flags; string tasks;"},
};

/* The small integers: LEN picks the variant (1, 2, 4 or 8 bytes in all,
 * flag bits and the 2-bit code included). */
#define TSDL_LEN "enum : uint2_t { b1 = 0, b2 = 1, b4 = 2, b8 = 3 } len; "
#define TSDL_UINT(b1, b2, b4, b8)                                                                   \
    "\t" TSDL_LEN "variant <len> { uint" #b1 "_t b1; uint" #b2 "_t b2; uint" #b4            \
    "_t b4; uint" #b8 "_t b8; } value;\n"

static const char tsdl_head[] =
    "/* CTF 1.8 */\n"
    "\n"
    "/* LPEL/S-Net monitor trace, format " MON_FORMAT_VERSION " (docs/LOGFORMAT.md). */\n"
    "\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 1; align = 1; signed = false; } := uint1_t;\n"
    "typealias integer { size = 2; align = 1; signed = false; } := uint2_t;\n"
    "typealias integer { size = 7; align = 1; signed = false; } := uint7_t;\n"
    "typealias integer { size = 4; align = 1; signed = false; } := uint4_t;\n"
    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
    "typealias integer { size = 6; align = 1; signed = false; } := uint6_t;\n"
    "typealias integer { size = 12; align = 1; signed = false; } := uint12_t;\n"
    "typealias integer { size = 13; align = 1; signed = false; } := uint13_t;\n"
    "typealias integer { size = 14; align = 1; signed = false; } := uint14_t;\n"
    "typealias integer { size = 28; align = 1; signed = false; } := uint28_t;\n"
    "typealias integer { size = 29; align = 1; signed = false; } := uint29_t;\n"
    "typealias integer { size = 30; align = 1; signed = false; } := uint30_t;\n"
    "typealias integer { size = 60; align = 1; signed = false; } := uint60_t;\n"
    "typealias integer { size = 61; align = 1; signed = false; } := uint61_t;\n"
    "typealias integer { size = 62; align = 1; signed = false; } := uint62_t;\n"
    "\n"
    "/* Small integers: a 2-bit length code, then the value, in 1, 2, 4 or 8\n"
    " * bytes; some have flag bits in front (docs/LOGFORMAT.md section 4.4). */\n"
    "struct uint {\n" TSDL_UINT(6, 14, 30, 62) "};\n"
    "struct uint_mode {\n"
    "\tenum : uint1_t { read = 0, write = 1 } mode;\n" TSDL_UINT(5, 13, 29, 61) "};\n"
    "struct uint_state {\n"
    "\tenum : uint1_t { full = 0, empty = 1 } state;\n" TSDL_UINT(5, 13, 29, 61) "};\n"
    "struct uint_end {\n"
    "\tenum : uint1_t { receiving = 0, sending = 1 } end;\n" TSDL_UINT(5, 13, 29, 61) "};\n"
    "struct uint_filter {\n"
    "\tenum : uint1_t { all = 0, filtered = 1 } filter;\n" TSDL_UINT(5, 13, 29, 61) "};\n"
    "struct uint_cause {\n"
    "\tenum : uint2_t { input = 0, output = 1, any = 2 } cause;\n" TSDL_UINT(4, 12, 28, 60)
    "};\n"
    "\n"
    "trace {\n"
    "\tmajor = 1;\n"
    "\tminor = 8;\n"
    "\tbyte_order = le;\n"
    "\tpacket.header := struct {\n"
    "\t\tuint32_t magic;\n"
    "\t\tuint32_t stream_id;\n"
    "\t};\n"
    "};\n"
    "\n";

/* The stream class; the %s are the clock's name. The header's 7-bit id is
 * the event's id plus 32 times the header form, which selects how many
 * bits of the time follow: so each event has four classes (below). Form 3
 * has one more bit: 0, the full time follows (byte-aligned); 1, nothing
 * follows and the event has the previous event's time (a one-byte header,
 * format 3.2). Named "timestamp", that bit is taken by CTF readers for the
 * time's lowest bit: our writer makes every time odd, so reading it so
 * keeps the time, and the full time that may follow replaces it. */
static const char tsdl_stream_fmt[] =
    "typealias integer { size = 9; align = 1; signed = false; map = clock.%s.value; }"
    " := uint9_clock_t;\n"
    "typealias integer { size = 17; align = 1; signed = false; map = clock.%s.value; }"
    " := uint17_clock_t;\n"
    "typealias integer { size = 25; align = 1; signed = false; map = clock.%s.value; }"
    " := uint25_clock_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; }"
    " := uint64_clock_t;\n"
    "\n"
    "stream {\n"
    "\tid = 0;\n"
    "\tevent.header := struct {\n"
    "\t\tenum : uint7_t { t9 = 0 ... 31, t17 = 32 ... 63, t25 = 64 ... 95, t64 = 96 ... 127 } id;\n"
    "\t\tvariant <id> {\n"
    "\t\t\tuint9_clock_t t9;\n"
    "\t\t\tuint17_clock_t t17;\n"
    "\t\t\tuint25_clock_t t25;\n"
    "\t\t\tstruct {\n"
    "\t\t\t\tenum : uint1_t { full = 0, same = 1 } timestamp;\n"
    "\t\t\t\tvariant <timestamp> { uint64_clock_t full; struct { } same; } value;\n"
    "\t\t\t} t64;\n"
    "\t\t} timestamp;\n"
    "\t} align(8);\n"
    "\tpacket.context := struct {\n"
    "\t\tuint64_clock_t timestamp_begin;\n"
    "\t\tuint64_clock_t timestamp_end;\n"
    "\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n"
    "\t\tuint64_t events_discarded;\n"
    "\t\tuint32_t cpu_id;\n"
    "\t\tuint64_t packet_seq_num;\n"
    "\t\tuint64_t run_id;\n"
    "\t};\n"
    "};\n"
    "\n";

/* Write s into f as the inside of a double-quoted string (TSDL or JSON:
 * both take backslash escapes for '"' and '\\'; control bytes are dropped
 * to '?' since neither a host name nor an argument should carry them). */
/* A JSON (and TSDL) string: quotes and backslashes escaped, control
 * characters and bytes that are not UTF-8 (a command line may hold any)
 * written as '?', so that the file is JSON every parser reads. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    size_t n = s ? strlen(s) : 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = mon_utf8_char_len((const uint8_t *)s + i, n - i);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || len == 0)
            fputc('?', f);
        else
            fwrite(s + i, 1, len, f);
        i += len ? len : 1;
    }
    fputc('"', f);
}

static void write_tsdl(FILE *f, const mon_run_info *info)
{
    char letters[16];
    mon_flags_format(info->flags, letters, sizeof letters);
    fputs(tsdl_head, f);
    fputs("env {\n\thostname = ", f);
    put_quoted(f, info->host);
    fprintf(f, ";\n\ttracer_name = \"snet-lpel-mon\";\n"
               "\tformat_version = \"%s\";\n\tmonitor_flags = \"%s\";\n};\n\n",
            MON_FORMAT_VERSION, letters);
    /* CTF: time = offset_s + (offset + value) / freq seconds, so the raw
     * ticks in the events need no conversion by the writer. */
    const mon_clock *c = &info->clock;
    const char *cname = c->tsc ? "tsc" : "monotonic";
    fprintf(f,
            "clock {\n"
            "\tname = \"%s\";\n"
            "\tdescription = \"%s; offset = CLOCK_REALTIME at start - start ticks / freq\";\n"
            "\tfreq = %llu;\n"
            "\tprecision = %llu;\n"
            "\toffset_s = %llu;\n"
            "\toffset = %llu;\n"
            "};\n\n",
            cname,
            c->tsc ? "TSC ticks, frequency calibrated against CLOCK_MONOTONIC"
                   : "CLOCK_MONOTONIC in ns",
            (unsigned long long)c->freq, (unsigned long long)c->precision_ticks,
            (unsigned long long)c->offset_s, (unsigned long long)c->offset_ticks);
    fprintf(f, tsdl_stream_fmt, cname, cname, cname, cname);
    /* One class per event and header form: ids id, id + 32, id + 64, id + 96. */
    for (unsigned form = 0; form <= MON_HDR_FORM_FULL; form++)
        for (unsigned id = 0; id < MON_ID_COUNT; id++) {
            fprintf(f, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n",
                    event_fields[id][0], id | form << MON_HDR_FORM_SHIFT);
            if (event_fields[id][1])
                fprintf(f, "\tfields := struct { %s };\n", event_fields[id][1]);
            fputs("};\n\n", f);
        }
}

/* Open DIR/name.tmp for writing; the caller renames it into place, so a
 * reader never sees half a file. Made anew (whatever had the name is
 * removed first, and O_EXCL): opening a FIFO or a link left there would
 * block or write elsewhere. */
static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                      size_t errlen)
{
    snprintf(tmp, tmplen, "%s/%s.tmp", dir, name);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && err)
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    if (!f && fd >= 0)
        close(fd);
    return f;
}

static int close_and_rename(FILE *f, const char *tmp, const char *dir, const char *name,
                            char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0)
        failed = true;
    if (failed || rename(tmp, path) != 0) {
        if (err)
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int mon_metadata_write(const char *dir, const mon_run_info *info, char *err, size_t errlen)
{
    char tmp[4096];
    FILE *f = open_tmp(dir, MON_METADATA_FILE, tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    write_tsdl(f, info);
    return close_and_rename(f, tmp, dir, MON_METADATA_FILE, err, errlen);
}

/* The rank of a process of a multi-rank trace and its clock samples, one
 * per line (the reader takes them line by line, like "logs"). */
static void write_rank_part(FILE *f, const mon_run_info *info)
{
    fprintf(f, "  \"rank\": %d,\n  \"ranks\": %d,\n", info->rank, info->ranks);
    if (info->skew_on)
        fprintf(f, "  \"clock_skew_test_hook\": {\"offset_ns\": %lld, \"drift_ppm\": %.6f},\n",
                info->skew_offset_ns, info->skew_ppm);
    fputs("  \"clock_sync\": {\"reference_rank\": 0, \"samples\": [\n", f);
    for (unsigned i = 0; i < info->nsync; i++) {
        const mon_sync_entry *e = &info->sync[i];
        fprintf(f,
                "    {\"phase\": \"%s\", \"local_send\": %llu, \"reference\": %llu, "
                "\"local_receive\": %llu}%s\n",
                e->end ? "end" : "start", (unsigned long long)e->local_send,
                (unsigned long long)e->reference, (unsigned long long)e->local_receive,
                i + 1 < info->nsync ? "," : "");
    }
    fputs("  ]},\n", f);
}

/* A flight recorder's run: the ring's size, and in a window's run.json
 * (a snapshot, or the trace at exit) where each log's window starts. */
static void write_ring_part(FILE *f, const mon_run_info *info)
{
    fprintf(f, "  \"ring_bytes\": %zu,\n", info->ring_bytes);
    if (!info->window_why)
        return;
    fprintf(f, "  \"window\": {\"why\": \"%s\", \"snapshot\": %u, \"logs\": [\n",
            info->window_why, info->snapshot);
    for (unsigned i = 0; i < info->nwindow; i++) {
        const mon_window_entry *e = &info->window[i];
        fprintf(f,
                "    {\"worker\": %u, \"first_packet\": %llu, \"events_before\": %llu, "
                "\"start_ticks\": %llu}%s\n",
                e->worker, (unsigned long long)e->first_packet,
                (unsigned long long)e->events_before, (unsigned long long)e->start_ticks,
                i + 1 < info->nwindow ? "," : "");
    }
    fputs("  ]},\n", f);
}

/* "run_id": the 16 hex digits that every packet's run_id holds too. */
static void write_run_id(FILE *f, const mon_run_info *info)
{
    if (info->run_id)
        fprintf(f, "  \"run_id\": \"%016llx\",\n", (unsigned long long)info->run_id);
}

/* One "logs" entry: what the writer put into the file, and what it lost
 * and why. */
static void write_log_entry(FILE *f, const mon_log_count *l, bool last)
{
    fprintf(f, "    {\"worker\": %u, \"events\": %llu, \"bytes\": %llu", l->worker,
            (unsigned long long)l->events, (unsigned long long)l->bytes);
    if (l->discarded) {
        fprintf(f, ", \"discarded\": %llu, \"error\": ", (unsigned long long)l->discarded);
        put_quoted(f, l->error ? l->error : "write failed");
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

/* run.json up to its last member, "complete" (written by the caller: the
 * crash handler writes its own end). */
static void write_run_json_head(FILE *f, const mon_run_info *info)
{
    char letters[16];
    mon_flags_format(info->flags, letters, sizeof letters);
    fprintf(f, "{\n  \"format\": \"snet-lpel-ctf\",\n  \"format_version\": \"%s\",\n",
            MON_FORMAT_VERSION);
    write_run_id(f, info);
    fputs("  \"command_line\": [", f);
    for (int i = 0; i < info->argc; i++) {
        if (i)
            fputs(", ", f);
        put_quoted(f, info->argv[i]);
    }
    fputs("],\n  \"flags\": ", f);
    put_quoted(f, letters);
    fputs(",\n  \"task_filter\": ", f);
    if (info->task_regex)
        put_quoted(f, info->task_regex);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"workers\": %u,\n  \"host\": ", info->workers);
    put_quoted(f, info->host);
    const mon_clock *c = &info->clock;
    fprintf(f, ",\n  \"wall_clock_start_ns\": %llu,\n  \"monotonic_start_ns\": %llu,\n",
            (unsigned long long)c->wall_start_ns, (unsigned long long)c->mono_start_ns);
    fprintf(f,
            "  \"clock\": {\"source\": \"%s\", \"frequency_hz\": %llu, \"resolution_ns\": %llu, "
            "\"offset_ns\": %llu, \"start_ticks\": %llu,\n            \"why\": ",
            c->tsc ? "tsc" : "CLOCK_MONOTONIC", (unsigned long long)c->freq,
            (unsigned long long)c->resolution_ns, (unsigned long long)c->offset_ns,
            (unsigned long long)c->start_ticks);
    put_quoted(f, c->why);
    if (c->tsc)
        fprintf(f,
                ",\n            \"calibration\": {\"reference\": \"CLOCK_MONOTONIC\", "
                "\"interval_ns\": %llu, \"ticks\": %llu, \"uncertainty_ns\": %llu, "
                "\"uncertainty_ppm\": %.3f, \"over_whole_run\": %s}",
                (unsigned long long)c->cal_interval_ns, (unsigned long long)c->cal_ticks,
                (unsigned long long)c->cal_uncertainty_ns,
                c->cal_interval_ns ? 1e6 * (double)c->cal_uncertainty_ns / (double)c->cal_interval_ns
                                   : 0.0,
                c->refined ? "true" : "false");
    fprintf(f,
            "},\n"
            "  \"events_recorded\": %llu,\n  \"events_discarded\": %llu,\n"
            "  \"events_discarded_per_worker\": [",
            (unsigned long long)info->events_recorded,
            (unsigned long long)info->events_discarded);
    for (unsigned i = 0; i < info->discarded_workers; i++)
        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)info->discarded_per_worker[i]);
    fputs("],\n", f);
    /* One line per log, for people and grep; the readers parse the file as
     * JSON (mon_run_json.c), whatever its layout. */
    if (info->complete && info->nlogs) {
        fputs("  \"logs\": [\n", f);
        for (unsigned i = 0; i < info->nlogs; i++)
            write_log_entry(f, &info->logs[i], i + 1 == info->nlogs);
        fputs("  ],\n", f);
    }
    if (info->ranks > 0)
        write_rank_part(f, info);
    if (info->ring_bytes)
        write_ring_part(f, info);
}

static void write_run_json(FILE *f, const mon_run_info *info)
{
    write_run_json_head(f, info);
    fprintf(f, "  \"complete\": %s\n}\n", info->complete ? "true" : "false");
}

int mon_run_json_crash_text(const mon_run_info *info, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(text, len);
    if (!mem)
        return -1;
    write_run_json_head(mem, info);
    if (fclose(mem) != 0) {
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

/* The signals the crash handler sees (mon_crash.c), by name. */
static const struct {
    int sig;
    const char *name;
} signal_names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
                    {SIGABRT, "SIGABRT"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}};

/* Appends s at p; only what a signal handler may do. */
static char *put_text(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

size_t mon_run_json_crash_end(char *buf, int sig)
{
    char *p = put_text(buf, "  \"ended_by\": \"");
    const char *name = NULL;
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].sig == sig)
            name = signal_names[i].name;
    if (name) {
        p = put_text(p, name);
    } else {
        char digits[12];
        size_t n = 0;
        unsigned v = sig > 0 ? (unsigned)sig : 0;
        do
            digits[n++] = (char)('0' + v % 10);
        while ((v /= 10) && n < sizeof digits);
        p = put_text(p, "signal ");
        while (n)
            *p++ = digits[--n];
    }
    p = put_text(p, "\",\n  \"complete\": false\n}\n");
    return (size_t)(p - buf);
}

uint64_t mon_run_id_new(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
        /* No entropy yet (early boot): the clock and the process make a
         * run id unique enough to tell two runs in one directory apart. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        id = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^
             ((uint64_t)getpid() << 40);
    }
    return id ? id : 1;
}

/* Rewrite DIR/run.json where it is, for a disk too full to hold a second
 * copy: the file's blocks exist already, and the final version is about
 * as long as the first. Not atomic, which is why it is only the fallback. */
static int rewrite_in_place(const char *dir, const mon_run_info *info)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", dir);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return -1;
    write_run_json(mem, info);
    int rc = -1;
    if (fclose(mem) == 0) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (pwrite(fd, text, len, 0) == (ssize_t)len && ftruncate(fd, (off_t)len) == 0)
                rc = 0;
            if (close(fd) != 0)
                rc = -1;
        }
    }
    free(text);
    return rc;
}

int mon_run_json_write(const char *dir, const mon_run_info *info, char *err, size_t errlen)
{
    char tmp[4096];
    FILE *f = open_tmp(dir, MON_RUN_JSON_FILE, tmp, sizeof tmp, err, errlen);
    if (f) {
        write_run_json(f, info);
        if (close_and_rename(f, tmp, dir, MON_RUN_JSON_FILE, err, errlen) == 0)
            return 0;
    }
    int saved = errno;
    if ((saved == ENOSPC || saved == EDQUOT || saved == EFBIG) && info->complete &&
        rewrite_in_place(dir, info) == 0)
        return 0;
    return -1;
}

int mon_ranks_json_write(const char *dir, const mon_run_info *info, char *err, size_t errlen)
{
    char tmp[4096];
    FILE *f = open_tmp(dir, MON_RUN_JSON_FILE, tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"format_version\": \"%s\",\n", MON_RANKS_FORMAT,
            MON_FORMAT_VERSION);
    fputs("  \"command_line\": [", f);
    for (int i = 0; i < info->argc; i++) {
        if (i)
            fputs(", ", f);
        put_quoted(f, info->argv[i]);
    }
    fprintf(f, "],\n  \"ranks\": %d,\n  \"rank_dirs\": \"%sN\"\n}\n", info->ranks,
            MON_RANK_DIR_PREFIX);
    return close_and_rename(f, tmp, dir, MON_RUN_JSON_FILE, err, errlen);
}

int mon_mkdirs(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path || !*path) {
        if (err)
            snprintf(err, errlen, "trace directory name is empty or too long");
        return -1;
    }
    for (char *p = path + 1;; p++) {
        bool last = *p == '\0';
        if (*p == '/' || last) {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                if (err)
                    snprintf(err, errlen, "%s: cannot create directory: %s", path, strerror(errno));
                return -1;
            }
            if (last)
                break;
            *p = '/';
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (err)
            snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    return 0;
}

void mon_run_info_clock(mon_run_info *info)
{
    mon_clock_init_monotonic(&info->clock, "chosen by the caller");
}

/* ---------------------------------------------------------------------------
 * Clearing what an earlier run left (docs/LOGFORMAT.md section 1): a trace
 * directory holds one run's files, never a mix of two runs'.
 * ------------------------------------------------------------------------- */

/* What one pass over a directory does: check that everything there is
 * ours (refusing what is not), or remove it. */
typedef enum clear_pass { CLEAR_CHECK, CLEAR_REMOVE } clear_pass;

static bool path_join(char *buf, size_t len, const char *dir, const char *name)
{
    return snprintf(buf, len, "%s/%s", dir, name) < (int)len;
}

/* Is the run.json at path one the monitor wrote? Read only if it is a
 * regular file (a FIFO of that name must not hang the program). */
static bool run_json_ours(const char *path)
{
    struct stat st;
    char head[4096], why[4400];
    int fd = mon_open_regular(path, &st, why, sizeof why);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0)
        return false;
    head[n] = '\0';
    return strstr(head, "\"format\": \"snet-lpel-ctf") != NULL;
}

/* DIR/run.json and its temporary. */
static int clear_run_json(const char *dir, clear_pass pass, char *err, size_t errlen)
{
    char path[4200];
    if (!path_join(path, sizeof path, dir, MON_RUN_JSON_FILE))
        return 0;
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (pass == CLEAR_CHECK && (S_ISDIR(st.st_mode) || !run_json_ours(path))) {
        snprintf(err, errlen,
                 "%s: not the run.json of a trace; the trace directory would mix this run with "
                 "something else (choose another --mon-dir, or remove it)",
                 path);
        return -1;
    }
    if (pass == CLEAR_REMOVE) {
        unlink(path);
        if (path_join(path, sizeof path, dir, MON_RUN_JSON_TMP_FILE))
            unlink(path);
    }
    return 0;
}

/* A name in a CTF directory that the monitor writes. */
static bool ctf_name_ours(const char *name)
{
    long worker;
    return mon_ctf_name_kind(name, &worker) != MON_CTF_OTHER;
}

/* DIR/ctf: its metadata and worker logs; anything else is refused. */
static int clear_ctf(const char *dir, clear_pass pass, char *err, size_t errlen)
{
    char ctf[4200], path[4500];
    if (!path_join(ctf, sizeof ctf, dir, MON_CTF_SUBDIR))
        return 0;
    DIR *d = opendir(ctf);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (!path_join(path, sizeof path, ctf, de->d_name) || lstat(path, &st) != 0)
            continue;
        bool ours = ctf_name_ours(de->d_name) && !S_ISDIR(st.st_mode);
        if (pass == CLEAR_CHECK && !ours) {
            snprintf(err, errlen,
                     "%s: not a file of a trace (a trace's %s/ holds only %s and %sN); a reader "
                     "would take it for part of this run (choose another --mon-dir, or remove it)",
                     path, MON_CTF_SUBDIR, MON_METADATA_FILE, MON_WORKER_FILE_PREFIX);
            rc = -1;
        } else if (pass == CLEAR_REMOVE && ours) {
            unlink(path);
        }
    }
    closedir(d);
    return rc;
}

static int clear_pass_over(const char *dir, unsigned keep_ranks, clear_pass pass, char *err,
                           size_t errlen);

/* The number K of a trace directory the monitor makes inside DIR: rank K's
 * "rank-K" (snapshots false), or a flight recorder's "snapshot-K" and
 * its temporary "snapshot-K.tmp" (snapshots true); -1 for any other name. */
static long subtrace_number(const char *name, bool snapshots)
{
    if (!snapshots)
        return mon_numbered_name(name, MON_RANK_DIR_PREFIX);
    char base[256];
    size_t len = strlen(name), slen = strlen(MON_SNAPSHOT_TMP_SUFFIX);
    if (len >= sizeof base)
        return -1;
    memcpy(base, name, len + 1);
    if (len > slen && !strcmp(base + len - slen, MON_SNAPSHOT_TMP_SUFFIX))
        base[len - slen] = '\0';
    return mon_numbered_name(base, MON_SNAPSHOT_DIR_PREFIX);
}

/* The traces inside DIR an earlier run left: DIR/rank-K for K >=
 * keep_ranks (its ranks), or every DIR/snapshot-K (its flight recorder's
 * snapshots: this run numbers its own from 1 again). */
static int clear_subtraces(const char *dir, bool snapshots, unsigned keep_ranks, clear_pass pass,
                           char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    char path[4200], ctf[4300];
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        long k = subtrace_number(de->d_name, snapshots);
        struct stat st;
        if (k < 0 || (!snapshots && (unsigned long)k < keep_ranks) ||
            !path_join(path, sizeof path, dir, de->d_name) || lstat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        rc = clear_pass_over(path, 0, pass, err, errlen);
        if (rc == 0 && pass == CLEAR_REMOVE && path_join(ctf, sizeof ctf, path, MON_CTF_SUBDIR)) {
            rmdir(ctf);
            rmdir(path); /* kept when it holds other files: they are not a trace */
        }
    }
    closedir(d);
    return rc;
}

static int clear_pass_over(const char *dir, unsigned keep_ranks, clear_pass pass, char *err,
                           size_t errlen)
{
    if (clear_run_json(dir, pass, err, errlen) != 0 || clear_ctf(dir, pass, err, errlen) != 0 ||
        clear_subtraces(dir, true, 0, pass, err, errlen) != 0)
        return -1;
    return clear_subtraces(dir, false, keep_ranks, pass, err, errlen);
}

int mon_trace_dir_clear(const char *dir, unsigned keep_ranks, char *err, size_t errlen)
{
    if (clear_pass_over(dir, keep_ranks, CLEAR_CHECK, err, errlen) != 0)
        return -1;
    return clear_pass_over(dir, keep_ranks, CLEAR_REMOVE, err, errlen);
}

int mon_trace_dir_create(const char *dir, const mon_run_info *info, char *ctf_dir, size_t len,
                         char *err, size_t errlen)
{
    if (snprintf(ctf_dir, len, "%s/%s", dir, MON_CTF_SUBDIR) >= (int)len) {
        snprintf(err, errlen, "%s: trace directory name too long", dir);
        return -1;
    }
    if (mon_trace_dir_clear(dir, 0, err, errlen) != 0)
        return -1;
    /* run.json ("complete": false) before the metadata: a reader that finds
     * the metadata (snetmon top following the run) then also finds that the
     * run is going on. */
    if (mon_mkdirs(ctf_dir, err, errlen) != 0 || mon_run_json_write(dir, info, err, errlen) != 0)
        return -1;
    return mon_metadata_write(ctf_dir, info, err, errlen);
}
