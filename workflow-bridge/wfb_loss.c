/*
 * wfb_loss.c - what an analysed LPEL trace lacked, carried by the graph so
 * that every report of it says so: in text, in JSON and in CSV.
 *
 * A damaged or truncated trace is refused by snetmon unless the user asks
 * for --partial; then the figures cover what could be read, and a figure
 * without the loss beside it would pass for the whole truth.
 */
#include "wfb_internal.h"

#include <jansson.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The graph's own copy: the loss and the strings it points to. */
typedef struct wfb_loss_copy {
    wfb_input_loss loss;
    wfb_log_loss *logs;
    char **strings; /* 3 per log: file, state, message */
} wfb_loss_copy;

void wfb_loss_free(wfb_loss_copy *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < 3 * c->loss.n_logs; i++)
        free(c->strings[i]);
    free(c->strings);
    free(c->logs);
    free(c);
}

static char *dup_or_empty(const char *s, bool *oom)
{
    char *d = strdup(s ? s : "");
    if (!d)
        *oom = true;
    return d;
}

int wfb_graph_set_input_loss(wfb_graph *g, const wfb_input_loss *loss)
{
    wfb_loss_free(g->loss);
    g->loss = NULL;
    if (!loss)
        return 0;
    wfb_loss_copy *c = calloc(1, sizeof *c);
    size_t n = loss->n_logs;
    if (c) {
        c->logs = calloc(n ? n : 1, sizeof *c->logs);
        c->strings = calloc(3 * n + 1, sizeof *c->strings);
    }
    if (!c || !c->logs || !c->strings) {
        if (c) {
            free(c->logs);
            free(c->strings);
        }
        free(c);
        return -1;
    }
    c->loss = *loss;
    bool oom = false;
    for (size_t i = 0; i < n; i++) {
        c->logs[i] = loss->logs[i];
        c->logs[i].file = c->strings[3 * i] = dup_or_empty(loss->logs[i].file, &oom);
        c->logs[i].state = c->strings[3 * i + 1] = dup_or_empty(loss->logs[i].state, &oom);
        c->logs[i].message = c->strings[3 * i + 2] = dup_or_empty(loss->logs[i].message, &oom);
    }
    c->loss.logs = c->logs;
    g->loss = c;
    return oom ? -1 : 0;
}

const wfb_input_loss *wfb_graph_input_loss(const wfb_graph *g)
{
    return g->loss ? &g->loss->loss : NULL;
}

/* ---- reports ---- */

json_t *wfb_input_loss_json(wfb_json_doc *d, const wfb_input_loss *loss)
{
    if (!loss)
        return json_null();
    json_t *o = json_object(), *logs = json_array();
    wfb_json_set(d, o, "events_read", json_integer((json_int_t)loss->events_read));
    wfb_json_set(d, o, "events_lost", json_integer((json_int_t)loss->events_lost));
    wfb_json_set(d, o, "events_lost_known", json_boolean(loss->events_lost_known));
    wfb_json_set(d, o, "bytes_lost", json_integer((json_int_t)loss->bytes_lost));
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        json_t *lj = json_object();
        wfb_json_set(d, lj, "file", json_string(l->file));
        wfb_json_set(d, lj, "worker", json_integer(l->worker));
        wfb_json_set(d, lj, "state", json_string(l->state));
        wfb_json_set(d, lj, "offset", json_integer((json_int_t)l->offset));
        wfb_json_set(d, lj, "events_read", json_integer((json_int_t)l->events_read));
        wfb_json_set(d, lj, "events_lost",
                        l->events_lost < 0 ? json_null() : json_integer(l->events_lost));
        wfb_json_set(d, lj, "events_discarded", json_integer((json_int_t)l->events_discarded));
        wfb_json_set(d, lj, "bytes_read", json_integer((json_int_t)l->bytes_read));
        wfb_json_set(d, lj, "bytes_lost", json_integer((json_int_t)l->bytes_lost));
        wfb_json_set(d, lj, "message", json_string(l->message));
        wfb_json_append(d, logs, lj);
    }
    wfb_json_set(d, o, "logs", logs);
    return o;
}

void wfb_input_loss_summary(const wfb_input_loss *loss, char *buf, size_t len)
{
    if (loss->events_lost_known || loss->events_lost)
        snprintf(buf, len, "%s%" PRIu64 " events and %" PRIu64 " bytes lost",
                 loss->events_lost_known ? "" : "at least ", loss->events_lost, loss->bytes_lost);
    else
        snprintf(buf, len, "an unknown number of events and %" PRIu64 " bytes lost",
                 loss->bytes_lost);
}

static void loss_text(const wfb_input_loss *loss, FILE *out)
{
    char summary[160];
    wfb_input_loss_summary(loss, summary, sizeof summary);
    fprintf(out, "Partial input: %s, %" PRIu64 " events read; the figures cover what was read\n",
            summary, loss->events_read);
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        fprintf(out, "  worker %" PRIu32 " %s at byte %" PRIu64 ": ", l->worker, l->state, l->offset);
        if (l->events_lost >= 0)
            fprintf(out, "%" PRId64 " events", l->events_lost + (int64_t)l->events_discarded);
        else if (l->events_discarded)
            fprintf(out, "at least %" PRIu64 " events", l->events_discarded);
        else
            fputs("an unknown number of events", out);
        fprintf(out, " and %" PRIu64 " bytes lost, %" PRIu64 " events read (%s)\n", l->bytes_lost,
                l->events_read, l->file);
    }
}

static void loss_csv(const wfb_input_loss *loss, FILE *out)
{
    fputs("log,worker,state,offset,events_read,events_lost,events_discarded,bytes_read,bytes_lost\n",
          out);
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        wfb_csv_field(out, l->file);
        fprintf(out, ",%" PRIu32 ",%s,%" PRIu64 ",%" PRIu64 ",", l->worker, l->state, l->offset,
                l->events_read);
        if (l->events_lost >= 0)
            fprintf(out, "%" PRId64, l->events_lost);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", l->events_discarded, l->bytes_read,
                l->bytes_lost);
    }
}

int wfb_report_input_loss(const wfb_input_loss *loss, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        wfb_json_doc d = {0};
        json_t *o = wfb_input_loss_json(&d, loss);
        int rc = d.failed ? -1 : json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
        return rc || ferror(out) ? -1 : 0;
    }
    if (loss && fmt == WFB_OUT_CSV)
        loss_csv(loss, out);
    else if (loss)
        loss_text(loss, out);
    return ferror(out) ? -1 : 0;
}
