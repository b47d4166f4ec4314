/*
 * errors.c - runtime errors of a run: a record that matches nothing, a box
 * that fails, bad input text. Each is printed at once (so a long run shows
 * it), the first is kept for snet_run_error, and the run is marked failed;
 * the network keeps draining so that it still terminates cleanly.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

void snet_run_fail(snet_run *run, const char *fmt, ...)
{
    char msg[sizeof run->error];
    int at = run->dist ? snprintf(msg, sizeof msg, "rank %d: ", run->rank) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + at, sizeof msg - (size_t)at, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&run->error_lock);
    if (!atomic_load(&run->failed))
        memcpy(run->error, msg, sizeof msg);
    atomic_store(&run->failed, 1);
    fprintf(run->errors ? run->errors : stderr, "snet: error: %s\n", msg);
    fflush(run->errors ? run->errors : stderr);
    pthread_mutex_unlock(&run->error_lock);
}

void snet_run_note_discard(snet_run *run, uint64_t n)
{
    pthread_mutex_lock(&run->error_lock);
    run->sync_discarded += n;
    pthread_mutex_unlock(&run->error_lock);
}

void snet_report_no_match(snet_run *run, const char *path, const char *what,
                          const snet_record *r, const snet_type *expected)
{
    char labels[256], types[512];
    snet_record_labels_text(r, labels, sizeof labels);
    snet_type_text(expected, types, sizeof types);
    if (expected->count == 0) /* an initialiser box, a parallel of them */
        snprintf(types, sizeof types, "none: %s", !strcmp(what, "box")
                 ? "an initialiser box takes no records" : "no branch takes records");
    const char *kind = !strcmp(what, "box")      ? "input type"
                       : !strcmp(what, "filter") ? "pattern"
                                                 : "branch";
    snet_run_fail(run, "%s '%s': record %s matches no %s (expected %s); record dropped", what,
                  path, labels, kind, types);
}

void snet_fatal_oom(const char *where)
{
    /* Losing a control record would stall a collector for ever, and there
     * is no caller to return an error to: end the process, saying why. */
    fprintf(stderr, "snet: fatal: out of memory in %s\n", where);
    abort();
}
