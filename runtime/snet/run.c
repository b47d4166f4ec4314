/*
 * run.c - one execution of a network: the LPEL runtime underneath, the
 * instantiated network between an input task and an output task, and the
 * run's results (output records, counts, the first error).
 *
 * The network is instantiated when the run is created (from the main
 * thread, before lpel_run), so a network that cannot be built is refused
 * before anything runs; only star and split replicas are created later, on
 * demand, from inside the running tasks.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* The codes S-Net shares with LPEL have LPEL's values (snet.h). */
_Static_assert((int)SNET_OK == (int)LPEL_OK && (int)SNET_EINVAL == (int)LPEL_EINVAL &&
                   (int)SNET_ENOMEM == (int)LPEL_ENOMEM && (int)SNET_ESYSTEM == (int)LPEL_ESYSTEM &&
                   (int)SNET_EDEADLOCK == (int)LPEL_EDEADLOCK && (int)SNET_ESTATE == (int)LPEL_ESTATE,
               "S-Net's return codes agree with LPEL's where they overlap");

const char *snet_strerror(int code)
{
    switch (code) {
    case SNET_OK: return "success";
    case SNET_EINVAL: return "invalid argument or network";
    case SNET_ENOMEM: return "out of memory";
    case SNET_ERUNTIME: return "runtime error in the network";
    case SNET_EDEADLOCK: return "deadlock: every task blocked";
    case SNET_ESTATE: return "not allowed in this state";
    case SNET_ESYSTEM: return "system or runtime failure";
    default: return "unknown error";
    }
}

snet_config snet_config_default(void)
{
    snet_config c;
    c.lpel = lpel_config_default();
    c.errors = NULL;
    c.distrib = NULL;
    c.mapping = NULL;
    return c;
}

static void input_output_start(snet_run *run, lpel_stream *in, lpel_stream *out);

/* After a deadlock the run unwinds (lpel_config.unwind_on_deadlock): every
 * entity sees end-of-stream and frees what it holds, and LPEL hands back
 * the records that were dropped or left in streams. An ADD record carries
 * a new stream whose reader end nobody will now take over: closing it lets
 * the stream be freed with its writer's end. */
static void discard_record(void *item)
{
    snet_record *r = item;
    if (r->kind == SNET_REC_ADD && r->add_stream)
        lpel_stream_close(r->add_stream, LPEL_STREAM_READ);
    snet_record_free(r);
}

static int run_alloc(snet_run **out, const snet_net *net, const snet_config *cfg, char *err,
                     size_t errlen)
{
    snet_run *run = calloc(1, sizeof *run);
    if (!run) {
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    run->net = net;
    run->errors = cfg->errors;
    pthread_mutex_init(&run->error_lock, NULL);
    snet_record_depot_init(&run->records);
    atomic_init(&run->failed, 0);
    char lerr[256];
    lpel_config lcfg = cfg->lpel;
    /* (A distributed run's deadlock is judged across ranks, distrib/detect.c,
     * and its tasks wait for events from other ranks: it stops instead.) */
    lcfg.unwind_on_deadlock = cfg->distrib == NULL;
    lcfg.discard_item = discard_record;
    int rc = lpel_runtime_create(&run->lpel, &lcfg, lerr, sizeof lerr);
    if (rc != LPEL_OK) {
        snet_set_error(err, errlen, "cannot create the LPEL runtime: %s", lerr);
        snet_run_destroy(run);
        return rc == LPEL_ENOMEM ? SNET_ENOMEM : SNET_ESYSTEM;
    }
    run->workers = lpel_runtime_num_workers(run->lpel);
    run->traced = cfg->lpel.hooks != NULL;
    run->mapping = cfg->mapping;
    rc = snet_mapping_check(cfg->mapping, net, run->workers, err, errlen);
    if (rc != SNET_OK) {
        snet_run_destroy(run);
        return rc;
    }
    run->stream_capacity = cfg->lpel.default_stream_capacity;
    run->mig = aligned_alloc(_Alignof(snet_mig_slot), run->workers * sizeof *run->mig);
    if (!run->mig) {
        snet_set_error(err, errlen, "out of memory");
        snet_run_destroy(run);
        return SNET_ENOMEM;
    }
    memset(run->mig, 0, run->workers * sizeof *run->mig);
    *out = run;
    return SNET_OK;
}

/* The network between the input and the output task (on rank 0 of a
 * distributed run; the other ranks start with only their spawner). */
static int instantiate_root(snet_run *run, char *errbuf, size_t errlen)
{
    if (run->rank != 0)
        return SNET_OK;
    lpel_stream *in = snet_new_stream(run);
    snet_place root = {run, "", LPEL_ANY_WORKER};
    lpel_stream *result = in ? snet_instantiate(run->net, in, &root) : NULL;
    if (!result) {
        snet_set_error(errbuf, errlen, "cannot instantiate the network: %s",
                       run->error[0] ? run->error : "out of memory");
        return SNET_ESYSTEM;
    }
    input_output_start(run, in, result);
    if (atomic_load(&run->failed)) {
        snet_set_error(errbuf, errlen, "%s", run->error);
        return SNET_ESYSTEM;
    }
    return SNET_OK;
}

int snet_run_create(snet_run **out, const snet_net *net, const snet_config *cfg, char *errbuf,
                    size_t errlen)
{
    if (!out) {
        snet_set_error(errbuf, errlen, "snet_run_create: out is NULL");
        return SNET_EINVAL;
    }
    *out = NULL;
    snet_config defaults = snet_config_default();
    if (!cfg)
        cfg = &defaults;
    const char *problem = snet_net_check(net);
    struct snet_dist *dist = NULL;
    if (cfg->distrib) { /* collective: every rank agrees on the network first */
        unsigned workers = cfg->lpel.num_workers ? cfg->lpel.num_workers : lpel_core_count();
        int rc = snet_dist_begin(&dist, cfg->distrib, net, problem, workers, errbuf, errlen);
        if (rc != SNET_OK)
            return rc;
    } else if (problem) {
        snet_set_error(errbuf, errlen, "bad network: %s", problem);
        return SNET_EINVAL;
    }
    snet_run *run = NULL;
    int rc = snet_net_canonicalise((snet_net *)net);
    if (rc != SNET_OK)
        snet_set_error(errbuf, errlen, "out of memory");
    else
        rc = run_alloc(&run, net, cfg, errbuf, errlen);
    if (rc == SNET_OK && dist)
        rc = snet_dist_attach(run, dist, errbuf, errlen); /* the run owns dist now */
    if (rc == SNET_OK)
        rc = instantiate_root(run, errbuf, errlen);
    if (dist) { /* collective: every rank learns whether all others got here */
        int agreed = snet_dist_agree(dist, rc == SNET_OK, errbuf, errlen);
        if (rc == SNET_OK)
            rc = agreed;
    }
    if (rc != SNET_OK) {
        if (dist && (!run || run->dist != dist))
            snet_dist_free(dist);
        snet_run_destroy(run);
        return rc;
    }
    *out = run;
    return SNET_OK;
}


static void input_output_start(snet_run *run, lpel_stream *in, lpel_stream *out)
{
    snet_io_task *it = malloc(sizeof *it), *ot = malloc(sizeof *ot);
    snet_place root = {run, "", LPEL_ANY_WORKER};
    if (!it || !ot) {
        free(it);
        free(ot);
        snet_run_fail(run, "out of memory");
        return;
    }
    *it = (snet_io_task){run, in};
    *ot = (snet_io_task){run, out};
    if (!snet_spawn(&root, "snet.in", snet_input_task, it))
        free(it);
    if (!snet_spawn(&root, "snet.out", snet_output_task, ot))
        free(ot);
}

/* ---- input and output settings -------------------------------------------------- */

int snet_run_put(snet_run *run, snet_record *rec)
{
    if (!run || !rec || rec->kind != SNET_REC_DATA)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    if (run->rank != 0) { /* input is read on rank 0 only (snet.h) */
        snet_record_free(rec);
        return SNET_OK;
    }
    if (KIT_GROW(run->puts, run->capputs, run->nputs + 1) != 0)
        return SNET_ENOMEM;
    run->puts[run->nputs++] = rec;
    return SNET_OK;
}

int snet_run_set_input_fn(snet_run *run, snet_input_fn next, void *user)
{
    if (!run)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    run->input_fn = next;
    run->input_user = user;
    return SNET_OK;
}

int snet_run_set_input_file(snet_run *run, FILE *in)
{
    if (!run)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    run->input_file = in;
    return SNET_OK;
}

int snet_run_register_field_type(snet_run *run, const snet_field_type *type)
{
    if (!run || !type || !type->name)
        return SNET_EINVAL;
    const snet_field_type **grown = realloc(run->types, (run->ntypes + 1) * sizeof *grown);
    if (!grown)
        return SNET_ENOMEM;
    run->types = grown;
    run->types[run->ntypes++] = type;
    return SNET_OK;
}

int snet_run_set_output_fn(snet_run *run, snet_output_fn fn, void *user)
{
    if (!run)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    run->output_fn = fn;
    run->output_user = user;
    return SNET_OK;
}

int snet_run_set_output_file(snet_run *run, FILE *out)
{
    if (!run)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    run->output_file = out;
    return SNET_OK;
}

/* ---- running ------------------------------------------------------------------------ */

int snet_run_execute(snet_run *run)
{
    if (!run)
        return SNET_EINVAL;
    if (run->executed)
        return SNET_ESTATE;
    run->executed = true;
    if (run->dist)
        return snet_dist_execute(run);
    int rc = lpel_run(run->lpel);
    if (rc == LPEL_EDEADLOCK) {
        snet_run_fail(run, "%s", lpel_runtime_error(run->lpel)); /* "deadlock: ..." */
        return SNET_EDEADLOCK;
    }
    if (rc != LPEL_OK) {
        snet_run_fail(run, "the LPEL run failed: %s", lpel_runtime_error(run->lpel));
        return SNET_ESYSTEM;
    }
    return atomic_load(&run->failed) ? SNET_ERUNTIME : SNET_OK;
}

snet_record *snet_run_take_output(snet_run *run)
{
    if (!run || run->taken >= run->noutputs)
        return NULL;
    snet_record *r = run->outputs[run->taken];
    run->outputs[run->taken++] = NULL;
    return r;
}

uint64_t snet_run_records_in(const snet_run *run) { return run ? run->records_in : 0; }
uint64_t snet_run_records_out(const snet_run *run) { return run ? run->records_out : 0; }
const char *snet_run_error(const snet_run *run) { return run ? run->error : "no run"; }
int snet_run_rank(const snet_run *run) { return run ? run->rank : 0; }
lpel_runtime *snet_run_lpel(const snet_run *run) { return run ? run->lpel : NULL; }

void snet_run_destroy(snet_run *run)
{
    if (!run)
        return;
    if (run->lpel)
        lpel_runtime_destroy(run->lpel);
    if (run->dist) /* after the tasks: they used its channel ends */
        snet_dist_destroy(run);
    free(run->codecs);
    for (size_t i = 0; i < run->nputs; i++)
        snet_record_free(run->puts[i]);
    free(run->puts);
    for (size_t i = run->taken; i < run->noutputs; i++)
        snet_record_free(run->outputs[i]);
    free(run->outputs);
    free(run->types);
    free(run->mig);
    pthread_mutex_destroy(&run->error_lock);
    snet_record_depot_free(&run->records);
    free(run);
}
