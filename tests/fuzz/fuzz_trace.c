/*
 * fuzz_trace.c - fuzz target: the CTF trace reader (monitor/mon_reader.c)
 * and, on whatever it delivers, the LPEL lifter and analyses (`snetmon metrics TRACE`).
 *
 * The reader opens a directory, so each input becomes one: the input is
 * cut at every FUZZ_TRACE_SEPARATOR into worker logs worker-0, worker-1,
 * ... (up to FUZZ_TRACE_MAX_LOGS), written next to a fixed metadata file
 * (trace_metadata, from a real run) in a private temporary directory
 * (fuzz_files.h). An
 * input whose first part starts like CTF metadata ("/ * CTF 1.8") brings
 * its own metadata instead. Seeds are real worker logs joined this way.
 *
 * The trace is read as without and with keep_going (snetmon --partial:
 * most damaged inputs stop the first reading at their first damage, the
 * second reads on past it). Properties checked: events come in time order,
 * from a log that exists; once the reader reported an error it keeps
 * reporting it; with keep_going, every log ends in a state, with a message
 * unless complete.
 */
#include "fuzz.h"
#include "fuzz_wfb.h"

#include "fuzz_files.h"
#include "mon_reader.h"

#define FUZZ_TRACE_SEPARATOR "WORKERLOG"
#define FUZZ_TRACE_MAX_LOGS 8

static void write_fixed_metadata(void)
{
    FILE *f = fopen(FUZZ_TRACE_METADATA, "rb");
    FUZZ_CHECK(f != NULL);
    static char buf[65536]; /* the metadata has four classes per event */
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    fuzz_write_file("metadata", buf, n);
}

/* Writes the input as the trace directory; returns the number of logs. */
static unsigned write_trace(const uint8_t *data, size_t size)
{
    static const char sep[] = FUZZ_TRACE_SEPARATOR;
    const size_t seplen = sizeof sep - 1;
    const uint8_t *end = data + size;
    const uint8_t *cut = memmem(data, size, sep, seplen);
    bool own_metadata = size >= 10 && memcmp(data, "/* CTF 1.8", 10) == 0;
    if (own_metadata) {
        fuzz_write_file("metadata", data, (size_t)((cut ? cut : end) - data));
        data = cut ? cut + seplen : end;
    } else {
        write_fixed_metadata();
    }
    unsigned n = 0;
    while (n < FUZZ_TRACE_MAX_LOGS && (data < end || n == 0)) {
        cut = memmem(data, (size_t)(end - data), sep, seplen);
        const uint8_t *stop = cut && n + 1 < FUZZ_TRACE_MAX_LOGS ? cut : end;
        char name[32];
        snprintf(name, sizeof name, "worker-%u", n++);
        fuzz_write_file(name, data, (size_t)(stop - data));
        data = stop == end ? end : stop + seplen;
    }
    for (unsigned i = n; i < FUZZ_TRACE_MAX_LOGS; i++) {
        char name[32];
        snprintf(name, sizeof name, "worker-%u", i);
        fuzz_remove_file(name);
    }
    return n;
}

static void read_events(unsigned nlogs, bool keep_going)
{
    char err[512];
    mon_trace *t;
    mon_trace_options opt = {.keep_going = keep_going};
    if (mon_trace_open_with(&t, fuzz_temp_dir(), &opt, err, sizeof err) != 0)
        return;
    FUZZ_CHECK(mon_trace_num_workers(t) == nlogs);
    mon_event ev;
    uint64_t last = 0;
    int rc;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        char line[512];
        mon_event_format(&ev, line, sizeof line);
        FUZZ_CHECK(ev.time >= last);
        FUZZ_CHECK(ev.worker < nlogs);
        FUZZ_CHECK((unsigned)ev.kind < MON_EV_KIND_COUNT);
        last = ev.time;
    }
    if (rc == MON_TRACE_ERROR) {
        FUZZ_CHECK(mon_trace_error(t)[0] != '\0');
        FUZZ_CHECK(mon_trace_next(t, &ev) == MON_TRACE_ERROR);
    } else if (keep_going) {
        for (unsigned i = 0; i < nlogs; i++) {
            mon_log_status st;
            mon_trace_log_status(t, i, &st);
            FUZZ_CHECK(st.state != MON_LOG_READING);
            FUZZ_CHECK(st.state == MON_LOG_COMPLETE || st.message != NULL);
        }
    }
    mon_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned nlogs = write_trace(data, size);
    read_events(nlogs, false);
    read_events(nlogs, true);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    if (g && wfb_import_lpel_trace(g, fuzz_temp_dir(), &err) == 0)
        fuzz_wfb_analyse(g);
    wfb_graph_free(g);
    return 0;
}
