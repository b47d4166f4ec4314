/*
 * wfb_mon_adapter.c - the bridge's own reading of a trace directory: the
 * monitor's reader (monitor/mon_reader.h) feeding the LPEL lifter
 * (wfb_lpel.c), strictly (snetmon reads traces through its trace_input,
 * which offers --partial and progress on a terminal).
 */
#include "wfb_internal.h"

#include "mon_reader.h"

/* The library's own reading of a trace directory: strict, any loss is an
 * error (snetmon reads traces through its loader, which offers --partial). */
int wfb_import_lpel_trace_opt(wfb_graph *g, const char *dir, const wfb_import_options *opt,
                              wfb_error *err)
{
    char msg[512];
    mon_trace *t;
    wfb_graph_set_source(g, dir);
    if (mon_trace_open(&t, dir, msg, sizeof msg)) {
        wfb_set_error(err, dir, 0, "%s", msg);
        return -1;
    }
    wfb_lifter *l = wfb_lifter_new(g);
    if (!l) {
        mon_trace_close(t);
        wfb_set_error(err, dir, 0, "out of memory");
        return -1;
    }
    mon_event ev;
    int rc;
    uint64_t events = 0;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        if (opt && opt->progress && (++events & 0xfffff) == 0)
            opt->progress(opt->progress_ctx, events, 0);
        if (wfb_lifter_feed_mon(l, &ev, err)) {
            rc = -100;
            break;
        }
    }
    if (rc == MON_TRACE_ERROR || rc == MON_TRACE_TRUNCATED)
        wfb_set_error(err, NULL, 0, "%s", mon_trace_error(t));
    mon_trace_close(t);
    if (rc != MON_TRACE_END) {
        wfb_lifter_free(l);
        return -1;
    }
    return wfb_lifter_finish(l, err);
}
