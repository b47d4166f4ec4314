/*
 * snet_test_util.c - helpers for the S-Net tests (see snet_test_util.h):
 * one place that creates a run, feeds it and collects its output, so each
 * test states only its network and its expectations.
 */
#include "snet_test_util.h"

#include <kit.h>
#include <lpel.h>
#include <stdio.h>
#include <string.h>

snet_record *gen_next(void *user)
{
    gen_input *g = user;
    if (g->next >= g->n)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_int(r, g->field ? g->field : "x", g->next);
    if (g->tag)
        snet_record_set_tag(r, g->tag, g->mod ? g->next % g->mod : g->next);
    g->next++;
    return r;
}

static void collect(void *user, snet_record *rec)
{
    run_result *r = user;
    if (KIT_PUSH(r->out, r->nout, r->cap_out, rec) != 0)
        abort();
}

run_result run_net(const snet_net *net, unsigned workers, snet_input_fn next, void *user)
{
    run_result res;
    memset(&res, 0, sizeof res);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = workers;
    cfg.lpel.pin_workers = false;
    FILE *quiet = fopen("/dev/null", "w");
    cfg.errors = quiet;
    snet_run *run;
    res.rc = snet_run_create(&run, net, &cfg, res.error, sizeof res.error);
    if (res.rc != SNET_OK) {
        fclose(quiet);
        return res;
    }
    if (next)
        snet_run_set_input_fn(run, next, user);
    snet_run_set_output_fn(run, collect, &res);
    res.rc = snet_run_execute(run);
    snprintf(res.error, sizeof res.error, "%s", snet_run_error(run));
    res.in_count = snet_run_records_in(run);
    res.out_count = snet_run_records_out(run);
    snet_run_destroy(run);
    fclose(quiet);
    return res;
}

void run_result_free(run_result *r)
{
    for (size_t i = 0; i < r->nout; i++)
        snet_record_free(r->out[i]);
    free(r->out);
    r->out = NULL;
    r->nout = 0;
}

unsigned test_workers(void)
{
    unsigned n = lpel_core_count();
    return n < 2 ? 2 : n;
}

long test_records(long dflt)
{
    const char *v = getenv("SNET_TEST_RECORDS");
    long n = v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? n : dflt;
}

int box_identity(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    const snet_field_type *t = snet_record_field_type(in, "x");
    snet_record_set_field(out, "x", t, snet_record_take_field(in, "x"));
    return snet_out(h, out);
}

int box_inc(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x") + 1);
    return snet_out(h, out);
}

int box_slow(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x");
    for (long i = 0; i < (x * 7) % 5; i++)
        lpel_task_yield();
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", x);
    return snet_out(h, out);
}
