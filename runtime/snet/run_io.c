/*
 * run_io.c - the two tasks at the edges of a run. The input task feeds
 * the network (records put from C, then a generator, then a text file),
 * giving each record its message id and interning its label names; the
 * output task takes what leaves the network (collecting it, handing it to a
 * callback, or printing it as text).
 *
 * External records have no parents: the input task traces each as written
 * in a component execution that read nothing.
 */
#include "snet_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/* ---- input ------------------------------------------------------------------------- */

/* What the input task keeps between records: the names it interned last
 * and its message ids. */
typedef struct feeder {
    snet_run *run;
    lpel_stream *stream;
    snet_intern_cache names;
    snet_mig_source ids;
} feeder;

static void feed(feeder *f, snet_record *r)
{
    snet_run *run = f->run;
    if (!r || r->kind != SNET_REC_DATA) {
        snet_run_fail(run, "input: not a data record; ignored");
        snet_record_free(r);
        return;
    }
    if (snet_run_intern_record(run, &f->names, r) != SNET_OK) {
        snet_run_fail(run, "input: out of memory; record dropped");
        snet_record_free(r);
        return;
    }
    r->id = snet_mig_take(&f->ids);
    snet_trace_begin(run);
    snet_trace_written(run, r->id);
    snet_trace_end(run);
    run->records_in++;
    lpel_stream_write(f->stream, r);
}

/* Read the whole file (records may span lines), then parse record by record. */
static void feed_file(feeder *f, FILE *in)
{
    snet_run *run = f->run;
    size_t len;
    char *text;
    if (kit_read_all(in, &text, &len) != 0) {
        if (ferror(in))
            snet_run_fail(run, "input: cannot read records: %s", strerror(errno));
        else
            snet_run_fail(run, "input: out of memory reading records");
        return;
    }
    const char *p = text;
    char err[256];
    while (!lpel_unwinding()) { /* after a deadlock, stop feeding */
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '#') {
            if (*p == '#')
                while (*p && *p != '\n')
                    p++;
            else
                p++;
        }
        if (!*p)
            break;
        snet_record *r;
        const char *end;
        if (snet_record_parse(p, &end, &r, run->types, run->ntypes, err, sizeof err) != SNET_OK) {
            snet_run_fail(run, "input record %llu: %s",
                          (unsigned long long)run->records_in + 1, err);
            break;
        }
        feed(f, r);
        p = end;
    }
    free(text);
}

void snet_input_task(void *arg)
{
    snet_io_task *io = arg;
    snet_run *run = io->run;
    feeder f = {.run = run, .stream = io->stream};
    free(io);
    snet_mig_source_init(&f.ids, run, lpel_task_worker(lpel_task_self()));
    lpel_stream_open(f.stream, LPEL_STREAM_WRITE);
    for (size_t i = 0; i < run->nputs; i++) {
        snet_record *r = run->puts[i];
        run->puts[i] = NULL;
        feed(&f, r);
    }
    if (run->input_fn)
        for (snet_record *r; !lpel_unwinding() && (r = run->input_fn(run->input_user)) != NULL;)
            feed(&f, r);
    if (run->input_file)
        feed_file(&f, run->input_file);
    lpel_stream_close(f.stream, LPEL_STREAM_WRITE);
}

/* ---- output ------------------------------------------------------------------------- */

static void collect(snet_run *run, snet_record *r)
{
    if (KIT_GROW(run->outputs, run->capoutputs, run->noutputs + 1) != 0) {
        snet_run_fail(run, "output: out of memory; record dropped");
        snet_record_free(r);
        return;
    }
    run->outputs[run->noutputs++] = r;
}

static void deliver(snet_run *run, snet_record *r)
{
    run->records_out++;
    if (run->output_fn) {
        run->output_fn(run->output_user, r);
    } else if (run->output_file) {
        if (snet_record_format(r, run->output_file) != SNET_OK ||
            fputc('\n', run->output_file) == EOF)
            snet_run_fail(run, "output: cannot write a record");
        snet_record_free(r);
    } else {
        collect(run, r);
    }
}

void snet_output_task(void *arg)
{
    snet_io_task *io = arg;
    snet_run *run = io->run;
    lpel_stream *s = io->stream;
    free(io);
    for (snet_record *r; (r = lpel_stream_read(s)) != NULL;) {
        if (r->kind == SNET_REC_DATA)
            deliver(run, r);
        else
            snet_record_free(r); /* a stray control record: nothing outside uses it */
    }
    lpel_stream_close(s, LPEL_STREAM_READ);
    if (run->output_file)
        fflush(run->output_file);
    if (run->sync_discarded)
        fprintf(run->errors ? run->errors : stderr,
                "snet: note: %llu record(s) left in synchro-cells that never fired\n",
                (unsigned long long)run->sync_discarded);
}
