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

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
 * reader never sees half a file. */
static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                      size_t errlen)
{
    snprintf(tmp, tmplen, "%s/%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f && err)
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
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
    FILE *f = open_tmp(dir, "metadata", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    write_tsdl(f, info);
    return close_and_rename(f, tmp, dir, "metadata", err, errlen);
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

static void write_run_json(FILE *f, const mon_run_info *info)
{
    char letters[16];
    mon_flags_format(info->flags, letters, sizeof letters);
    fprintf(f, "{\n  \"format\": \"snet-lpel-ctf\",\n  \"format_version\": \"%s\",\n",
            MON_FORMAT_VERSION);
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
            fprintf(f, "    {\"worker\": %u, \"events\": %llu, \"bytes\": %llu}%s\n",
                    info->logs[i].worker, (unsigned long long)info->logs[i].events,
                    (unsigned long long)info->logs[i].bytes, i + 1 < info->nlogs ? "," : "");
        fputs("  ],\n", f);
    }
    if (info->ranks > 0)
        write_rank_part(f, info);
    if (info->ring_bytes)
        write_ring_part(f, info);
    fprintf(f, "  \"complete\": %s\n}\n", info->complete ? "true" : "false");
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
    FILE *f = open_tmp(dir, "run.json", tmp, sizeof tmp, err, errlen);
    if (f) {
        write_run_json(f, info);
        if (close_and_rename(f, tmp, dir, "run.json", err, errlen) == 0)
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
    FILE *f = open_tmp(dir, "run.json", tmp, sizeof tmp, err, errlen);
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
    return close_and_rename(f, tmp, dir, "run.json", err, errlen);
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

int mon_trace_dir_create(const char *dir, const mon_run_info *info, char *ctf_dir, size_t len,
                         char *err, size_t errlen)
{
    if (snprintf(ctf_dir, len, "%s/%s", dir, MON_CTF_SUBDIR) >= (int)len) {
        snprintf(err, errlen, "%s: trace directory name too long", dir);
        return -1;
    }
    /* run.json ("complete": false) before the metadata: a reader that finds
     * the metadata (snetmon top following the run) then also finds that the
     * run is going on. */
    if (mon_mkdirs(ctf_dir, err, errlen) != 0 || mon_run_json_write(dir, info, err, errlen) != 0)
        return -1;
    return mon_metadata_write(ctf_dir, info, err, errlen);
}
