/*
 * fuzz_trace_dir.c - fuzz target: the trace reader (monitor/mon_reader.c)
 * on trace directories, not bytes: which files there are, their names,
 * kinds and sizes, and whether run.json and the metadata agree with the
 * logs (issue 24). fuzz_trace mutates the bytes of the logs; this one the
 * directory around them.
 *
 * The input is a program that builds the directory in a private temporary
 * directory (fuzz_files.h), starting from an empty ctf/ with the writer's
 * metadata (CLOCK_MONOTONIC, format 3.2). Each step is an operation byte,
 * a name byte (NAMES below, modulo its length), then the operation's
 * arguments; the input ends the program:
 *
 *   0 log       R K: a real log written by the monitor's writer for the
 *               name's worker number (its table index when the name is no
 *               log), of K * 4 events, naming run R % 3 (A, B or none);
 *               its counts are kept for run.json
 *   1 bytes     L, then L bytes: a file of those bytes
 *   2 fifo      a FIFO
 *   3 dir       a directory
 *   4 symlink   T: a symbolic link to name T
 *   5 hardlink  T: a second name of name T
 *   6 truncate  H L: the file cut to H * 256 + L bytes
 *   7 run.json  F: flags: bit 0 complete (else the crash handler's text
 *               naming a signal), bit 1 lists the logs written, bit 2 one
 *               count off by one, bit 3 a clock frequency not the
 *               metadata's, bits 4-5 run id A, B or none
 *   8 metadata  F: bit 0 without its clock block, bit 1 format 3.1
 *   9 remove    the name, whatever it is
 *
 * Read with and without keep_going (snetmon --partial), the properties:
 * nothing hangs (a FIFO blocks an open without O_NONBLOCK; the fuzzer's
 * timeout catches it); a trace that opens without keep_going holds only
 * regular files with names the writer makes, each file once, and no other
 * file in ctf/; events come in time order from logs of the trace; a run
 * is complete only when run.json says so, and else says why; every log
 * read to its end has a state, and a message unless complete.
 */
#include "fuzz.h"

#include "fuzz_files.h"
#include "mon.h"
#include "mon_files_internal.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const NAMES[] = {
    "ctf/worker-0",   "ctf/worker-1",       "ctf/worker-2", "ctf/worker-00",
    "ctf/worker-01",  "ctf/metadata",       "ctf/metadata.tmp", "ctf/notes",
    "run.json",       "run.json.tmp",       "ctf/.hidden",  "ctf/worker-1000000",
    "rank-0",         "ctf/worker-3",       "ctf",          "ctf/worker-2.bak"};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

static const uint64_t RUN_IDS[3] = {UINT64_C(0xa11ce), UINT64_C(0xb0b), 0};

#define MAX_LOGS 16
static mon_log_count logs[MAX_LOGS];
static unsigned nlogs;

/* The input, consumed a byte at a time; 0 past its end. */
typedef struct program {
    const uint8_t *p, *end;
} program;

static unsigned next_byte(program *pr) { return pr->p < pr->end ? *pr->p++ : 0; }

/* A file of these bytes at name; nothing when the program has made that
 * impossible (ctf a file, the name a directory). */
static void put_bytes(const char *name, const void *data, size_t len)
{
    int fd = open(fuzz_path(name), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (write(fd, data, len) < 0) {
        /* a FIFO without a reader: nothing written, nothing lost */
    }
    close(fd);
}

static void base_info(mon_run_info *info)
{
    static char *const argv[] = {"fuzz", NULL};
    *info = (mon_run_info){.argc = 1, .argv = argv, .flags = MON_FLAG_ALL, .host = "fuzz",
                           .workers = 4};
    mon_run_info_clock(info);
}

static void make_metadata(unsigned flags)
{
    mon_run_info info;
    base_info(&info);
    char err[512], ctf[600];
    snprintf(ctf, sizeof ctf, "%s", fuzz_path("ctf"));
    mkdir(ctf, 0700);
    if (mon_metadata_write(ctf, &info, err, sizeof err) != 0 || !(flags & 3))
        return;
    /* The variants by editing the text. */
    char path[700];
    snprintf(path, sizeof path, "%s/metadata", ctf);
    FILE *f = fopen(path, "r");
    char *text = NULL, line[512];
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    bool in_clock = false;
    while (f && out && fgets(line, sizeof line, f)) {
        if ((flags & 1) && !strncmp(line, "clock {", 7))
            in_clock = true;
        char *v = (flags & 2) ? strstr(line, "format_version = \"" MON_FORMAT_VERSION "\"") : NULL;
        if (v)
            memcpy(v + strlen("format_version = \""), MON_FORMAT_VERSION_3_1, 3);
        if (!in_clock)
            fputs(line, out);
        else if (!strncmp(line, "};", 2))
            in_clock = false;
    }
    if (f)
        fclose(f);
    if (out) {
        fclose(out);
        put_bytes("ctf/metadata", text, len);
    }
    free(text);
}

/* The worker number a name stands for: its own for a log, else its index. */
static unsigned worker_of(unsigned name)
{
    const char *slash = strrchr(NAMES[name], '/');
    long w = mon_worker_file_number(slash ? slash + 1 : NAMES[name]);
    return w >= 0 ? (unsigned)w : name;
}

static void make_log(unsigned name, unsigned run, unsigned k)
{
    char ctf[600], err[512];
    snprintf(ctf, sizeof ctf, "%s", fuzz_path("ctf"));
    mkdir(ctf, 0700);
    unsigned w = worker_of(name);
    mon_writer *wr = mon_writer_open_run(ctf, w, RUN_IDS[run % 3], 4096, err, sizeof err);
    if (!wr)
        return;
    mon_emit_task(wr, MON_ID_RUN_START, 1000, 1);
    for (unsigned i = 0; i < k * 4; i++)
        mon_emit_task(wr, i % 2 ? MON_ID_TASK_BLOCK : MON_ID_TASK_DISPATCH, 1000 + 10 * i, i / 2 + 1);
    mon_writer_flush(wr);
    if (nlogs < MAX_LOGS)
        logs[nlogs++] = (mon_log_count){.worker = w,
                                        .events = mon_writer_events(wr),
                                        .bytes = mon_writer_bytes(wr)};
    mon_writer_close(wr);
    char own[64], from[700];
    snprintf(own, sizeof own, "ctf/%s%u", MON_WORKER_FILE_PREFIX, w);
    if (strcmp(own, NAMES[name]) != 0) {
        snprintf(from, sizeof from, "%s", fuzz_path(own));
        rename(from, fuzz_path(NAMES[name]));
    }
}

static void make_run_json(unsigned flags)
{
    mon_run_info info;
    base_info(&info);
    info.run_id = RUN_IDS[(flags >> 4) % 3];
    info.complete = flags & 1;
    mon_log_count copy[MAX_LOGS];
    memcpy(copy, logs, sizeof copy);
    if (flags & 4 && nlogs)
        copy[0].events++;
    if (flags & 2) {
        info.logs = copy;
        info.nlogs = nlogs;
    }
    if (flags & 8)
        info.clock.freq *= 2;
    char err[512];
    if (info.complete)
        (void)mon_run_json_write(fuzz_temp_dir(), &info, err, sizeof err);
    else
        (void)fixture_run_json_ended(fuzz_temp_dir(), &info, SIGTERM);
}

static void step(program *pr)
{
    unsigned op = next_byte(pr) % 10, name = next_byte(pr) % NNAMES;
    char target[700];
    switch (op) {
    case 0: {
        unsigned run = next_byte(pr);
        make_log(name, run, next_byte(pr));
        break;
    }
    case 1: {
        size_t len = next_byte(pr), have = (size_t)(pr->end - pr->p);
        len = len < have ? len : have;
        unlink(fuzz_path(NAMES[name]));
        put_bytes(NAMES[name], pr->p, len);
        pr->p += len;
        break;
    }
    case 2:
        mkfifo(fuzz_path(NAMES[name]), 0600);
        break;
    case 3:
        mkdir(fuzz_path(NAMES[name]), 0700);
        break;
    case 4:
    case 5:
        snprintf(target, sizeof target, "%s", fuzz_path(NAMES[next_byte(pr) % NNAMES]));
        if (op == 4)
            (void)symlink(target, fuzz_path(NAMES[name]));
        else
            (void)link(target, fuzz_path(NAMES[name]));
        break;
    case 6: {
        unsigned hi = next_byte(pr);
        (void)truncate(fuzz_path(NAMES[name]), (off_t)(hi * 256 + next_byte(pr)));
        break;
    }
    case 7:
        make_run_json(next_byte(pr));
        break;
    case 8:
        make_metadata(next_byte(pr));
        break;
    default:
        if (unlink(fuzz_path(NAMES[name])) != 0)
            rmdir(fuzz_path(NAMES[name]));
        break;
    }
}

/* A trace that opened without keep_going holds only what a trace may. (A
 * multi-rank trace, made of rank-0/, reads neither the top's ctf/ nor
 * numbers its workers by file name: only its files are checked.) */
static void check_strict(mon_trace *t)
{
    FUZZ_CHECK(mon_trace_dir_problems(t, NULL) == 0);
    bool ranked = mon_trace_clock_alignment(t) != NULL;
    unsigned n = mon_trace_num_workers(t);
    struct stat seen[64];
    unsigned nseen = 0;
    for (unsigned i = 0; i < n; i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        FUZZ_CHECK(st.state != MON_LOG_FOREIGN);
        if (st.state == MON_LOG_MISSING)
            continue;
        struct stat s;
        FUZZ_CHECK(stat(st.path, &s) == 0 && S_ISREG(s.st_mode));
        const char *base = strrchr(st.path, '/');
        long w = mon_worker_file_number(base ? base + 1 : st.path);
        FUZZ_CHECK(ranked ? w >= 0 : w == (long)st.worker);
        for (unsigned j = 0; j < nseen; j++)
            FUZZ_CHECK(seen[j].st_ino != s.st_ino || seen[j].st_dev != s.st_dev);
        if (nseen < 64)
            seen[nseen++] = s;
    }
    DIR *d = ranked ? NULL : opendir(fuzz_path("ctf"));
    for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
        long w;
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            FUZZ_CHECK(mon_ctf_name_kind(de->d_name, &w) != MON_CTF_OTHER);
    }
    if (d)
        closedir(d);
}

static bool is_worker(const mon_trace *t, unsigned w)
{
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++)
        if (mon_trace_worker_id(t, i) == w)
            return true;
    return false;
}

static void read_trace(bool keep_going)
{
    mon_trace_options opt = {.keep_going = keep_going};
    mon_trace *t;
    char err[8192];
    if (mon_trace_open_with(&t, fuzz_temp_dir(), &opt, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0');
        return;
    }
    if (!keep_going)
        check_strict(t);
    const char *why;
    mon_run_state state = mon_trace_run_state(t, &why);
    FUZZ_CHECK((state == MON_RUN_COMPLETE) == (why == NULL));
    mon_event ev;
    uint64_t last = 0;
    int rc;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        FUZZ_CHECK(ev.time >= last);
        FUZZ_CHECK(is_worker(t, ev.worker));
        last = ev.time;
    }
    if (rc != MON_TRACE_ERROR) {
        for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
            mon_log_status st;
            mon_trace_log_status(t, i, &st);
            FUZZ_CHECK(st.state != MON_LOG_READING);
            FUZZ_CHECK(st.state == MON_LOG_COMPLETE || st.message != NULL);
        }
    } else {
        FUZZ_CHECK(mon_trace_error(t)[0] != '\0');
    }
    mon_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_clear_dir();
    nlogs = 0;
    make_metadata(0);
    program pr = {data, data + size};
    for (unsigned steps = 0; pr.p < pr.end && steps < 64; steps++)
        step(&pr);
    read_trace(false);
    read_trace(true);
    return 0;
}
