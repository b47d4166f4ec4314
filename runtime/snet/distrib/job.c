/*
 * job.c - joining the MPI job: MPI_Init_thread with the thread level the
 * transport needs, checked, and MPI_Finalize at the end.
 *
 * Why MPI_THREAD_SERIALIZED: during a run only the communication thread
 * calls MPI, but it is not the thread that initialised MPI (the main
 * thread waits in lpel_run meanwhile, and makes the calls before and after
 * a run). FUNNELED would forbid that; MULTIPLE is more than we need and
 * slower in some libraries.
 */
#include "distrib_internal.h"

#include <stdlib.h>

#define SNET_MPI_THREAD_LEVEL MPI_THREAD_SERIALIZED

bool snet_distrib_available(void) { return true; }

static const char *level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : level == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
                                            : "an unknown thread level";
}

/* SNET_OK if the level provided is enough for the transport. */
int snet_distrib_check_thread_level(int provided, char *err, size_t errlen)
{
    if (provided >= SNET_MPI_THREAD_LEVEL)
        return SNET_OK;
    snet_set_error(err, errlen,
                   "the MPI library provides %s, but S-Net across ranks needs %s (a "
                   "communication thread makes the MPI calls while the program waits for the "
                   "run); use an MPI built with thread support, e.g. Debian's Open MPI",
                   level_name(provided), level_name(SNET_MPI_THREAD_LEVEL));
    return SNET_ESYSTEM;
}

int snet_distrib_init(snet_distrib **out, int *argc, char ***argv, char *err, size_t errlen)
{
    *out = NULL;
    snet_distrib *d = calloc(1, sizeof *d);
    if (!d) {
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    int running = 0, provided = MPI_THREAD_SINGLE;
    MPI_Initialized(&running);
    if (running) {
        MPI_Query_thread(&provided);
    } else {
        if (MPI_Init_thread(argc, argv, SNET_MPI_THREAD_LEVEL, &provided) != MPI_SUCCESS) {
            snet_set_error(err, errlen, "MPI_Init_thread failed");
            free(d);
            return SNET_ESYSTEM;
        }
        d->started_mpi = true;
    }
    int rc = snet_distrib_check_thread_level(provided, err, errlen);
    if (rc != SNET_OK) {
        snet_distrib_finalize(d);
        return rc;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    d->window = SNET_DEFAULT_WINDOW;
    snet_bells_create(d);
    *out = d;
    return SNET_OK;
}

int snet_distrib_rank(const snet_distrib *d) { return d ? d->rank : 0; }
int snet_distrib_size(const snet_distrib *d) { return d ? d->size : 1; }

int snet_distrib_set_window(snet_distrib *d, unsigned records)
{
    if (!d || records == 0)
        return SNET_EINVAL;
    d->window = records;
    return SNET_OK;
}

void snet_distrib_finalize(snet_distrib *d)
{
    if (!d)
        return;
    snet_bells_free(d);
    if (d->started_mpi)
        MPI_Finalize();
    free(d);
}
