/*
 * mig.c - the message-id generator (MIG) and the message-trace calls.
 *
 * An id is (rank, worker, sequence) packed as mon_msg_id_make_at does: 12
 * bits of MPI rank (0 for a run in one process), 12 of worker, 40 of
 * sequence, so the ids of a run across ranks are unique in the whole job
 * (a record keeps its id when it crosses ranks); snet_mig_next_on, inline
 * in snet_internal.h, makes them. Each worker has its own counter in the
 * run (snet_mig_slot, one cache line each); a task never leaves its worker, so
 * only one thread ever touches a counter and no atomics are needed.
 *
 * The trace calls are the monitor's TMO interface for the running task:
 * the only use the S-Net library makes of the monitor.
 */
#include "snet_internal.h"

#include <mon.h>

/* snet_mig_next_on (snet_internal.h) packs ids with mon_msg_id_make_at;
 * the S-Net side's idea of the layout must be the monitor's. */
_Static_assert(SNET_MSG_SEQ_BITS == MON_MSG_SEQ_BITS, "message ids packed as the monitor reads them");

uint64_t snet_mig_next(snet_run *run)
{
    /* Only tasks make ids, and a task's worker is < run->workers. */
    return snet_mig_next_on(run, lpel_task_worker(lpel_task_self()));
}

void snet_mon_begin(void) { mon_component_begin(lpel_task_self()); }
void snet_mon_read(uint64_t id) { mon_message_read(lpel_task_self(), id); }
void snet_mon_written(uint64_t id) { mon_message_written(lpel_task_self(), id); }
void snet_mon_end(void) { mon_component_end(lpel_task_self()); }
void snet_mon_sent(uint64_t id, int rank) { mon_message_sent(lpel_task_self(), id, (unsigned)rank); }
void snet_mon_received(uint64_t id, int rank)
{
    mon_message_received(lpel_task_self(), id, (unsigned)rank);
}
void snet_mon_channel_open(uint64_t channel, int rank, bool sends)
{
    mon_channel_open(lpel_task_self(), channel, (unsigned)rank, sends);
}
void snet_mon_channel_block(uint64_t channel, bool empty)
{
    mon_channel_block(lpel_task_self(), channel, empty);
}
bool snet_mon_clock(uint64_t *ticks) { return mon_sync_now(ticks); }
void snet_mon_clock_samples(const char *phase, const uint64_t (*s)[3], size_t n)
{
    /* mon_sync_sample is three u64 in this order. */
    mon_sync_sample buf[64];
    while (n) {
        size_t k = n < 64 ? n : 64;
        for (size_t i = 0; i < k; i++)
            buf[i] = (mon_sync_sample){s[i][0], s[i][1], s[i][2]};
        mon_sync_record(phase, buf, k);
        s += k;
        n -= k;
    }
}
