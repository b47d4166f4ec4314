/*
 * whatif_internal.h - what the whatif library's files share: the replay
 * model's storage and the calls its builders use (whatif_model.c), the
 * builders themselves (whatif_lpel.c from a trace's events, whatif_graph.c
 * from an analysis graph), and the replay (whatif_replay.c).
 *
 * The model is a recorded run reduced to what a replay needs. A unit is one
 * thread of control that runs one step after another on one worker (an
 * LPEL task; one component execution; one activity of a DAG). A step is a
 * piece of work followed by an event (a stream item read or written, a
 * stream closed, a task created, a yield, the end); the event may depend on
 * events of other units (the item it reads was written; the slot it writes
 * into was freed by a read; the task it is was created), and it happens
 * only once they have. Every unit belongs to a task, the thing a placement
 * puts on a worker and a question makes faster; a task's factor scales the
 * scalable part of its units' work.
 */
#ifndef WHATIF_INTERNAL_H
#define WHATIF_INTERNAL_H

#include "whatif.h"

#include "kit.h"

#include <stdbool.h>

typedef enum wi_step_kind {
    WI_START = 0, /* the unit exists (work 0): waits for its creation, a DAG's parents */
    WI_READ,      /* took an item off a stream: waits for its write */
    WI_WRITE,     /* put an item on a stream: waits for a free slot */
    WI_CLOSE,     /* closed its write end of a stream */
    WI_EOS,       /* closed its read end: waits for the writer's close it saw */
    WI_SPAWN,     /* created another task (whose START waits for it) */
    WI_YIELD,     /* gave its worker up, back of the ready queue */
    WI_END        /* ended */
} wi_step_kind;

typedef struct wi_step {
    double fixed_s;  /* work before the event that no factor scales */
    double scaled_s; /* work before the event that its task's factor scales */
    double t_rec;    /* the event's time in the recorded run (s) */
    uint32_t unit;
    uint32_t stream; /* READ, WRITE, CLOSE, EOS: the model's stream index */
    uint8_t kind;
} wi_step;

typedef struct wi_unit {
    uint32_t task;       /* the task it belongs to */
    uint32_t first, end; /* its steps: [first, end) */
} wi_unit;

typedef struct wi_task {
    char *name;          /* NULL: unnamed */
    uint64_t id;         /* the trace's task id (LPEL), or the vertex (DAG) */
    uint32_t worker;     /* where it ran in the recorded run */
    double work_s;       /* the scalable work of its units */
    double exec_s;       /* all of its units' work */
    bool pinned;         /* the last task, of executions of no known task: stays
                            on its worker, unscaled, in every scenario */
} wi_task;

typedef struct wi_stream {
    uint32_t capacity;   /* slots; 0: unbounded */
} wi_stream;

struct whatif_model {
    wi_task *tasks;
    size_t n_tasks, cap_tasks;
    wi_unit *units;
    size_t n_units, cap_units;
    wi_step *steps;
    size_t n_steps, cap_steps;
    wi_stream *streams;
    size_t n_streams, cap_streams;
    /* Dependencies between events, first as pairs, then (whatif_model_finish)
     * as lists both ways: step s waits for dep[dep_off[s] .. dep_off[s+1]);
     * the steps waiting for s are succ[succ_off[s] .. succ_off[s+1]). */
    uint32_t *pair_from, *pair_to;
    size_t n_pairs, cap_pairs;
    uint32_t *dep_off, *dep, *succ_off, *succ;
    unsigned workers;      /* workers (a DAG: hosts) */
    uint32_t *slots;       /* per worker: units it runs at once (NULL: 1 each) */
    double *switch_s;      /* per worker: the cost of a dispatch (NULL: none) */
    whatif_order order;    /* how a worker picks among ready units */
    whatif_source source;
    double measured_span_s;/* the recorded run's span: eq. 1's, or a DAG's makespan */
    const char *span_unknown_why;
    uint32_t run;
    bool finished;
    struct wi_replay_state *replay; /* the replay's scratch space (whatif_replay.c) */
};

/* Building (whatif_model.c). Each returns the new index, or UINT32_MAX when
 * out of memory. The steps of different units may be added in any
 * interleaving, each unit's in its order; a dependency names steps by the
 * index wi_add_step returned (finishing renames them). Every unit's first
 * step is its START. */
whatif_model *wi_model_new(whatif_source source);
uint32_t wi_add_task(whatif_model *m, const char *name, uint64_t id, uint32_t worker);
uint32_t wi_add_unit(whatif_model *m, uint32_t task);
uint32_t wi_add_step(whatif_model *m, uint32_t unit, wi_step_kind kind, uint32_t stream,
                     double fixed_s, double scaled_s, double t_rec);
uint32_t wi_add_stream(whatif_model *m, uint32_t capacity);
/* Event `to` happens only after event `from` (two different units). */
int wi_add_dep(whatif_model *m, uint32_t from, uint32_t to);
/* After the last step: the dependency lists, the tasks' work; workers is
 * at least one more than every task's worker. 0 or -1 (out of memory). */
int wi_model_finish(whatif_model *m, unsigned workers);

/* One line into err (no file, no line): what is wrong. */
void wi_error(wfb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frees the replay's scratch space (whatif_replay.c). */
void wi_replay_free(whatif_model *m);

#endif
