/*
 * mig.c - the message-id generator (MIG) and the message-trace calls.
 *
 * An id is (worker, sequence) packed as mon_msg_id_make does: 16 bits of
 * worker, 48 of sequence. Each worker has its own counter in the run
 * (snet_mig_slot, one cache line each); a task never leaves its worker, so
 * only one thread ever touches a counter and no atomics are needed.
 *
 * The trace calls are the monitor's TMO interface for the running task:
 * the only use the S-Net library makes of the monitor.
 */
#include "snet_internal.h"

#include <mon.h>

/* snet_mig_next_on (snet_internal.h) packs ids as mon_msg_id_make does. */
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
