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
    char **strings; /* 3 per log: file, state, message; then run, files_first */
} wfb_loss_copy;

void wfb_loss_free(wfb_loss_copy *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < 3 * c->loss.n_logs + 2; i++)
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
        c->strings = calloc(3 * n + 2, sizeof *c->strings);
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
    if (loss->run)
        c->loss.run = c->strings[3 * n] = dup_or_empty(loss->run, &oom);
    if (loss->files_first)
        c->loss.files_first = c->strings[3 * n + 1] = dup_or_empty(loss->files_first, &oom);
    g->loss = c;
    return oom ? -1 : 0;
}

const wfb_input_loss *wfb_graph_input_loss(const wfb_graph *g)
{
    return g->loss ? &g->loss->loss : NULL;
}

int wfb_text_cut_short(wfb_graph *g, const wfb_text_pos *at, size_t len, bool partial,
                       wfb_error *err)
{
    char what[160];
    snprintf(what, sizeof what,
             "the last line is cut short (%zu bytes without a newline at the end of the file)",
             len);
    if (!partial) {
        wfb_set_error(err, at->file, at->line, "%s; --partial reads the lines before it", what);
        return -1;
    }
    char msg[sizeof err->file + 256];
    snprintf(msg, sizeof msg, "%s:%ld: %s: left out", at->file ? at->file : "", at->line, what);
    wfb_log_loss l = {.file = at->file,
                      .worker = WFB_LOSS_NO_WORKER,
                      .state = "truncated",
                      .offset = at->offset,
                      .events_read = at->lines_read,
                      .events_lost = 1,
                      .bytes_read = at->offset,
                      .bytes_lost = len,
                      .message = msg};
    wfb_input_loss loss = {.n_logs = 1,
                           .logs = &l,
                           .events_read = at->lines_read,
                           .events_lost = 1,
                           .events_lost_known = 1,
                           .bytes_lost = len};
    if (wfb_graph_set_input_loss(g, &loss) != 0) {
        wfb_set_error(err, at->file, at->line, "out of memory");
        return -1;
    }
    return 0;
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
        wfb_json_set(d, lj, "worker", l->worker == WFB_LOSS_NO_WORKER
                                   ? json_null()
                                   : json_integer(l->worker));
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
    wfb_json_set(d, o, "run", loss->run ? json_string(loss->run) : json_null());
    wfb_json_set(d, o, "files_passed", json_integer((json_int_t)loss->files_passed));
    wfb_json_set(d, o, "files_first",
                 loss->files_first ? json_string(loss->files_first) : json_null());
    return o;
}

void wfb_input_loss_summary(const wfb_input_loss *loss, char *buf, size_t len)
{
    int n;
    if (loss->events_lost_known || loss->events_lost)
        n = snprintf(buf, len, "%s%" PRIu64 " events and %" PRIu64 " bytes lost",
                     loss->events_lost_known ? "" : "at least ", loss->events_lost,
                     loss->bytes_lost);
    else
        n = snprintf(buf, len, "an unknown number of events and %" PRIu64 " bytes lost",
                     loss->bytes_lost);
    size_t used = n > 0 && (size_t)n < len ? (size_t)n : len;
    if (loss->run && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; the run is not known to have finished");
    if (loss->files_passed && used < len)
        snprintf(buf + used, len - used, "; %zu file%s passed over", loss->files_passed,
                 loss->files_passed == 1 ? "" : "s");
}

static void loss_text(const wfb_input_loss *loss, FILE *out)
{
    char summary[160];
    wfb_input_loss_summary(loss, summary, sizeof summary);
    fprintf(out, "Partial input: %s, %" PRIu64 " events read; the figures cover what was read\n",
            summary, loss->events_read);
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        if (l->worker == WFB_LOSS_NO_WORKER)
            fprintf(out, "  %s at byte %" PRIu64 ": ", l->state, l->offset);
        else
            fprintf(out, "  worker %" PRIu32 " %s at byte %" PRIu64 ": ", l->worker, l->state,
                    l->offset);
        if (l->events_lost >= 0)
            fprintf(out, "%" PRId64 " events", l->events_lost + (int64_t)l->events_discarded);
        else if (l->events_discarded)
            fprintf(out, "at least %" PRIu64 " events", l->events_discarded);
        else
            fputs("an unknown number of events", out);
        fprintf(out, " and %" PRIu64 " bytes lost, %" PRIu64 " events read (%s)\n", l->bytes_lost,
                l->events_read, l->file);
    }
    if (loss->run)
        fprintf(out, "  run: %s\n", loss->run);
    if (loss->files_passed)
        fprintf(out, "  files passed over: %zu (first: %s)\n", loss->files_passed,
                loss->files_first ? loss->files_first : "?");
}

static void loss_csv(const wfb_input_loss *loss, FILE *out)
{
    fputs("log,worker,state,offset,events_read,events_lost,events_discarded,bytes_read,bytes_lost\n",
          out);
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        wfb_csv_field(out, l->file);
        if (l->worker == WFB_LOSS_NO_WORKER)
            fputc(',', out);
        else
            fprintf(out, ",%" PRIu32, l->worker);
        fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",", l->state, l->offset, l->events_read);
        if (l->events_lost >= 0)
            fprintf(out, "%" PRId64, l->events_lost);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", l->events_discarded, l->bytes_read,
                l->bytes_lost);
    }
    /* What is not one log's: a row whose state says what it is about, the
     * line in the first column. */
    const char *rows[2][2] = {{loss->run, "run"}, {loss->files_first, "files"}};
    for (int i = 0; i < 2; i++)
        if (rows[i][0]) {
            wfb_csv_field(out, rows[i][0]);
            fprintf(out, ",,%s,,,,,,\n", rows[i][1]);
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
