/*
 * mon_msg_id.h - the layout of a message id (MIG), on its own: the S-Net
 * runtime makes ids with it and the trace reader takes them apart, and
 * neither should need the other's header for it (snet_internal.h includes
 * this, not mon.h). Installed beside mon_reader.h, which includes it; all
 * of it is inline, so no library exports anything for it.
 */
#ifndef MON_MSG_ID_H
#define MON_MSG_ID_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A message id (MIG): the producing process (MPI rank, 0 for a run in one
 * process) in the high 12 bits, the producing worker in the next 12, a
 * sequence number of that worker in the low 40, so ids are unique across
 * the ranks of a distributed run (docs/LOGFORMAT.md section 5). The id's
 * node is its high 24 bits, rank << 12 | worker: the place that made it,
 * which the trace stores as msg_node beside the sequence number msg_seq
 * (section 4.4). "Node" means that and nothing else here; the worker bits
 * alone are the worker. */
#define MON_MSG_SEQ_BITS 40
#define MON_MSG_WORKER_BITS 12
#define MON_MSG_RANK_BITS 12
#define MON_MSG_SEQ_MASK ((UINT64_C(1) << MON_MSG_SEQ_BITS) - 1)
#define MON_MSG_WORKER_MASK ((1u << MON_MSG_WORKER_BITS) - 1)
#define MON_MSG_RANK_MASK ((1u << MON_MSG_RANK_BITS) - 1)

static inline uint64_t mon_msg_id_make_at(unsigned rank, unsigned worker, uint64_t seq)
{
    return ((uint64_t)(rank & MON_MSG_RANK_MASK) << (MON_MSG_SEQ_BITS + MON_MSG_WORKER_BITS)) |
           ((uint64_t)(worker & MON_MSG_WORKER_MASK) << MON_MSG_SEQ_BITS) | (seq & MON_MSG_SEQ_MASK);
}
static inline uint64_t mon_msg_id_make(unsigned worker, uint64_t seq)
{
    return mon_msg_id_make_at(0, worker, seq);
}
static inline unsigned mon_msg_id_rank(uint64_t id)
{
    return (unsigned)(id >> (MON_MSG_SEQ_BITS + MON_MSG_WORKER_BITS)) & MON_MSG_RANK_MASK;
}
static inline unsigned mon_msg_id_worker(uint64_t id)
{
    return (unsigned)(id >> MON_MSG_SEQ_BITS) & MON_MSG_WORKER_MASK;
}
/* The node: rank << 12 | worker (the trace's msg_node). */
static inline unsigned mon_msg_id_node(uint64_t id)
{
    return (unsigned)(id >> MON_MSG_SEQ_BITS) & ((1u << (MON_MSG_RANK_BITS + MON_MSG_WORKER_BITS)) - 1);
}
static inline uint64_t mon_msg_id_seq(uint64_t id) { return id & MON_MSG_SEQ_MASK; }

#ifdef __cplusplus
}
#endif

#endif /* MON_MSG_ID_H */
