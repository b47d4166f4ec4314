/*
 * mon_ranks_internal.h - reading a multi-rank trace (one trace directory per
 * MPI rank, docs/LOGFORMAT.md section 8) as one: what mon_reader.c hands to
 * mon_ranks.c when mon_trace_open finds such a directory. Every public
 * mon_trace_* call of a multi-rank trace goes to the function of the same
 * name here.
 */
#ifndef MON_RANKS_INTERNAL_H
#define MON_RANKS_INTERNAL_H

#include "mon_reader.h"

typedef struct mon_ranks mon_ranks;

/* The number of ranks if dir is a multi-rank trace (its run.json says so,
 * or it has no trace of its own but rank-N subdirectories), else 0. */
unsigned mon_ranks_detect(const char *dir);

/* opt->follow: a run still going on is merged as it is written, on the
 * offsets of the start samples only (mon_clock_alignment.provisional),
 * each rank once its trace and those samples are there; a run every rank
 * of which has finished reads as without follow (the full alignment). */
int mon_ranks_open(mon_ranks **out, const char *dir, unsigned ranks,
                   const mon_trace_options *opt, char *err, size_t errlen);
int mon_ranks_next(mon_ranks *m, mon_event *ev);
const char *mon_ranks_error(const mon_ranks *m);
unsigned mon_ranks_num_workers(const mon_ranks *m);
unsigned mon_ranks_worker_id(const mon_ranks *m, unsigned i);
void mon_ranks_log_status(const mon_ranks *m, unsigned i, mon_log_status *out);
uint64_t mon_ranks_events_discarded(const mon_ranks *m);
/* The first rank (in rank order) whose run did not finish or says nothing
 * decides: COMPLETE only when every rank's is. */
mon_run_state mon_ranks_run_state(const mon_ranks *m, const char **why);
/* The ranks' directory problems added up; the first rank's first. */
unsigned mon_ranks_dir_problems(const mon_ranks *m, const char **first);
uint64_t mon_ranks_clock_offset_ns(const mon_ranks *m);
uint64_t mon_ranks_clock_freq(const mon_ranks *m);
/* The present on rank 0's trace clock (mon_trace_now_ns of its trace). */
uint64_t mon_ranks_now_ns(const mon_ranks *m);
unsigned mon_ranks_num_ranks(const mon_ranks *m);
void mon_ranks_worker_place(const mon_ranks *m, unsigned i, unsigned *rank, unsigned *rank_worker);
/* The rank and worker in it of global worker number w; false if none. */
bool mon_ranks_worker_of(const mon_ranks *m, unsigned w, unsigned *rank, unsigned *rank_worker);
const mon_clock_alignment *mon_ranks_clock_alignment(const mon_ranks *m);
/* Following: some rank's run goes on, or some rank has not joined yet. */
bool mon_ranks_live(const mon_ranks *m);
void mon_ranks_close(mon_ranks *m);

/* What mon_reader.c offers mon_ranks.c in return. After mon_trace_next
 * said MON_TRACE_AGAIN (follow mode): the earliest time (ns on t's clock)
 * an event t delivers later can have, as far as t can tell (the settle
 * time of mon_trace_options.follow included). */
uint64_t mon_trace_follow_floor_ns(const mon_trace *t);

#endif /* MON_RANKS_INTERNAL_H */
