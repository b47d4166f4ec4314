/*
 * no_mpi.c - the across-ranks interface in a build without MPI (CMake
 * found none): snet_distrib_init says so, so no run can be distributed and
 * the runtime never reaches the snet_dist_* entry points below.
 */
#include "snet_internal.h"

bool snet_distrib_available(void) { return false; }

int snet_distrib_init(snet_distrib **out, int *argc, char ***argv, char *err, size_t errlen)
{
    (void)argc, (void)argv;
    *out = NULL;
    snet_set_error(err, errlen, "this build has no MPI (CMake found none when it was "
                                "configured; scripts/deps.sh installs Open MPI)");
    return SNET_ESYSTEM;
}

int snet_distrib_rank(const snet_distrib *d) { return (void)d, 0; }
int snet_distrib_size(const snet_distrib *d) { return (void)d, 1; }
int snet_distrib_set_window(snet_distrib *d, unsigned records)
{
    (void)d, (void)records;
    return SNET_EINVAL;
}
void snet_distrib_finalize(snet_distrib *d) { (void)d; }

/* Unreachable without a snet_distrib. */
int snet_dist_begin(struct snet_dist **out, snet_distrib *job, const snet_net *net,
                    const char *problem, unsigned workers, char *err, size_t errlen)
{
    (void)job, (void)net, (void)problem, (void)workers;
    *out = NULL;
    snet_set_error(err, errlen, "this build has no MPI");
    return SNET_ESYSTEM;
}
int snet_dist_attach(snet_run *run, struct snet_dist *d, char *err, size_t errlen)
{
    (void)run, (void)d, (void)err, (void)errlen;
    return SNET_ESYSTEM;
}
int snet_dist_agree(struct snet_dist *d, bool ok, char *err, size_t errlen)
{
    (void)d, (void)ok, (void)err, (void)errlen;
    return SNET_ESYSTEM;
}
void snet_dist_free(struct snet_dist *d) { (void)d; }
lpel_stream *snet_dist_at_rank(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    return snet_instantiate(n->children[0], in, at);
}
bool snet_dist_split_place(snet_run *run, long value, int *rank, int *worker)
{
    (void)run, (void)value, (void)rank, (void)worker;
    return false;
}
lpel_stream *snet_dist_remote(const snet_net *n, lpel_stream *in, const snet_place *at, int rank)
{
    (void)rank;
    return snet_instantiate(n, in, at);
}
int snet_dist_execute(snet_run *run)
{
    (void)run;
    return SNET_ESYSTEM;
}
void snet_dist_destroy(snet_run *run) { (void)run; }
