/*
 * distrib_internal.h - a run across MPI ranks: the job, the per-run state,
 * channels (the two ends of a stream between ranks), MPI during the run
 * (comm.c: the communication thread, tasks and idle workers) and its
 * messages, and the detection of the end of a run (normal or deadlocked). docs/WIRE.md describes the messages byte by byte.
 *
 * Who does what on each rank:
 *   - tasks (workers) encode and decode records: a sender task per
 *     outgoing channel reads its local stream and sends frames of records
 *     (itself when no other thread is in MPI, else through the queue); a
 *     receiver task per incoming channel writes the records of arrived
 *     frames into its local stream;
 *   - an idle worker polls MPI (comm.c): it takes in frames, credits and
 *     spawn requests and wakes the tasks they are for;
 *   - the communication thread does the same when woken, and the
 *     detection of the end of the run; it sleeps on the rank's doorbell;
 *   - the spawner task ("snet.spawn") instantiates the sub-networks other
 *     ranks ask this rank to run (only tasks may create tasks during a run).
 * Every MPI call is made under d->mpi_lock, which no worker waits for.
 * Tasks wait for what arrives with lpel_event (runtime/lpel).
 *
 * Flow control: a sender starts with `window` credits (records) and
 * SNET_WINDOW_BYTES of byte budget, spends one credit and the record's
 * bytes per record sent, and sends only while it has a credit and budget
 * left; the receiver returns both once the records are in its local
 * stream and the sender has asked (SNET_FRAME_ASK, at half its window). So per channel at most `window` records, and at most
 * SNET_WINDOW_BYTES plus one record, are in flight or waiting on the
 * receiving side, on top of the two local streams: bounded like a local
 * stream, never unbounded buffering. The window is large (small records
 * stream without waiting for credits to come back); the byte budget keeps
 * large records from filling memory.
 */
#ifndef SNET_DISTRIB_INTERNAL_H
#define SNET_DISTRIB_INTERNAL_H

#include "wire_internal.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

/* MPI tags: the message kinds (docs/WIRE.md). */
enum {
    SNET_TAG_DATA = 1,   /* a frame of records of one channel (counted) */
    SNET_TAG_CREDIT = 2, /* room returned to a channel's sender (counted) */
    SNET_TAG_SPAWN = 3,  /* run a sub-network here (counted) */
    SNET_TAG_PROBE = 4,  /* detection: rank 0 asks for a snapshot */
    SNET_TAG_REPLY = 5,  /* detection: the snapshot */
    SNET_TAG_FINISH = 6, /* detection: the run is over */
    SNET_TAG_DEADLOCK = 7, /* detection: the run is deadlocked */
    SNET_TAG_SYNC = 8      /* clock measurement against rank 0, before and after a run */
};

/* Round trips per rank and phase of the clock measurement; the one with the
 * smallest round trip is what the trace reader uses. */
#define SNET_SYNC_ROUNDS 32

/* DATA frame flags. */
#define SNET_FRAME_EOS 1u /* end-of-stream after the records of this frame */
/* The sender is down to half its window or byte budget: return the credits
 * held back so far once this frame is delivered. Without it the receiver
 * holds them back, so a slow stream costs no CREDIT message a record (the
 * sender asks in time: it blocks only at no credit or budget left, and the
 * frame that took it below half asked, as every later one does). */
#define SNET_FRAME_ASK 2u

/* Records per channel in flight by default (snet_distrib_set_window), and
 * the bytes of records per channel in flight. Why 1024: with 64 a channel
 * of small records waited for every 64th record's credits to come back
 * through both communication threads and two task wake-ups, which capped
 * it at ~2e5 records/s (docs/BENCHMARKS.md, across MPI ranks). */
#define SNET_DEFAULT_WINDOW 1024
#define SNET_WINDOW_BYTES ((long)1 << 20)
/* A sender puts at most this many bytes of records in one frame (one
 * record is always sent, however large). */
#define SNET_FRAME_BYTES ((size_t)64 * 1024)

struct snet_distrib {
    int rank, size;
    bool started_mpi; /* snet_distrib_init called MPI_Init_thread */
    unsigned window;
    /* Doorbells (comm.c), one per rank of this host, in memory the host's
     * ranks share (an MPI shared-memory window). bells[r] is rank r's,
     * NULL for ranks on other hosts (their messages are found by
     * polling). */
    MPI_Comm host;
    MPI_Win bell_win;
    struct snet_bell **bells;
};

/* A rank's doorbell, a cache line of the host's shared window. Its
 * communication thread sleeps on `sleeping` (a futex); whoever gives it
 * work rings it: a local task queueing a message, or another rank of the
 * host that has just sent it one, unless a worker of the rank is polling
 * MPI (`watchers`) and so will see the message itself. */
typedef struct snet_bell {
    atomic_int sleeping; /* 1 while the thread sleeps or is about to */
    atomic_int watchers; /* workers in their idle poll */
} snet_bell;

/* Set up and tear down the doorbells (collective; job.c). */
void snet_bells_create(snet_distrib *job);
void snet_bells_free(snet_distrib *job);

/* One message to send, queued for the communication thread. */
typedef struct snet_msg {
    struct snet_msg *next;
    int dest, tag;
    snet_bytes body;
    struct snet_endpoint *reg; /* tag 0: add this channel end to the table */
} snet_msg;

/* A DATA frame received, waiting for its channel's receiver task. */
typedef struct snet_frame {
    struct snet_frame *next;
    unsigned char *data; /* the whole message */
    size_t len;
} snet_frame;

/* One end of a channel: (creator rank, index) names the channel on both
 * ranks; this rank's end either sends (a sender task reads `stream`) or
 * receives (a receiver task writes `stream`). */
typedef struct snet_endpoint {
    struct snet_dist *dist;
    uint32_t creator, index;
    int peer;
    bool sends;
    lpel_stream *stream;
    lpel_event *event; /* credits arrived (sender) / a frame arrived (receiver) */
    char *task;        /* the local task's name, for messages */
    pthread_mutex_t lock;
    long credits;              /* sender: records it may still send */
    long budget;               /* sender: bytes it may still send (may go below 0
                                  by the last record's size) */
    uint32_t held, held_bytes; /* receiver task: credits delivered, not yet returned */
    snet_frame *head, *tail;   /* receiver: frames not yet taken */
} snet_endpoint;

/* A sub-network another rank asked this rank to run. */
typedef struct snet_spawn_req {
    struct snet_spawn_req *next;
    const snet_net *net;
    int worker;
    char *prefix;
    snet_endpoint *in, *out; /* receives the input, sends the output */
} snet_spawn_req;

/* Rank 0's view of one rank in a detection wave. */
typedef struct snet_snapshot {
    bool passive;
    uint64_t sent, received;
    long live;
} snet_snapshot;

typedef struct snet_dist {
    snet_run *run;
    snet_distrib *job;
    MPI_Comm comm;
    int rank, size;
    unsigned window;
    unsigned *workers; /* worker count of each rank */
    const snet_net **nodes; /* the network in preorder: a node's index names it */
    size_t nnodes;
    atomic_uint next_index; /* channels this rank creates */

    /* The communication thread and its queue (lock). */
    pthread_t thread;
    bool thread_started;
    /* Held around every MPI call of the run and everything below marked
     * "MPI lock" (MPI_THREAD_SERIALIZED: one thread in MPI at a time). The
     * communication thread holds it for each pass of its loop; a task
     * sending a message takes it only if it is free (comm.c). */
    pthread_mutex_t mpi_lock;
    pthread_mutex_t lock;
    snet_bell *bell;   /* this rank's doorbell (job->bells[rank]) */
    snet_bell own_bell; /* the doorbell when the job has none */
    snet_msg *head, *tail;
    /* The spawner's requests (lock). */
    lpel_event *spawn_event;
    snet_spawn_req *spawns, *spawns_tail;
    bool finished; /* FINISH seen: the spawner ends */

    /* Every channel end made on this rank (ends_lock), freed with the run. */
    pthread_mutex_t ends_lock;
    snet_endpoint **ends;
    size_t nends, capends;

    /* MPI lock. */
    snet_endpoint ***table; /* [creator][index] */
    size_t *table_len;
    uint64_t sent, received; /* counted messages */
    MPI_Request *reqs;       /* sends in flight, and their buffers */
    snet_msg **req_msgs;
    int *req_done;           /* MPI_Testsome's answer (capreqs long) */
    size_t nreqs, capreqs;
    bool done;               /* FINISH or DEADLOCK handled */
    /* detection, rank 0 only */
    uint32_t wave;
    bool wave_open, prev_valid, active_since_wave;
    int replies_missing;
    snet_snapshot *cur, *prev;
    double next_wave_at, wave_backoff;

    /* Outcome (written by the communication thread before it ends). */
    bool deadlocked;
    char *report; /* this rank's waiting relation after a deadlock */
    size_t report_len;
    atomic_int local_over; /* lpel_run has returned */
} snet_dist;

/* ---- comm.c: the communication thread ---------------------------------------- */

snet_msg *snet_msg_new(int dest, int tag);
void snet_msg_free(snet_msg *m);
/* Send m, or queue it for the communication thread (any thread;
 * ownership passes). A task sends at once when nothing is queued before it
 * and no other thread is in MPI; it never waits for MPI. */
void snet_comm_post(snet_dist *d, snet_msg *m);
/* Add the end e to the table before anything queued after this call. */
void snet_comm_register(snet_dist *d, snet_endpoint *e);
int snet_comm_start(snet_dist *d, char *err, size_t errlen);
/* The idle poll of this rank's workers (lpel_runtime_set_idle_poll; arg
 * is the snet_dist): what the communication thread does for the channels,
 * if no other thread is in MPI. So a frame that arrives while a worker is
 * idle wakes its receiver task without a second thread. */
bool snet_comm_idle_poll(void *arg, bool last);
/* How long the communication thread, and an idle worker, poll after they
 * last did something. Longer than the 100 us between records of the
 * latency benchmark, so a steady trickle finds them awake; a rank that
 * receives nothing sleeps after this. */
#define SNET_COMM_SPIN_NS 300000L
/* Wake a sleeping communication thread (e.g. lpel_run has returned). */
void snet_comm_wake(snet_dist *d);
void snet_comm_join(snet_dist *d);
bool snet_comm_queue_empty(snet_dist *d);
/* On the communication thread: send now (detection messages). */
void snet_comm_send_now(snet_dist *d, int dest, int tag, const void *data, size_t len);

/* ---- channel.c: channel ends and their tasks --------------------------------------- */

/* A channel end of the sub-network at net path prefix; its task will be
 * prefix + "to.r<peer>" (sends) or prefix + "from.r<peer>" (receives).
 * Kept in d->ends until the run is freed. NULL if out of memory. */
snet_endpoint *snet_endpoint_new(snet_dist *d, uint32_t creator, uint32_t index, int peer,
                                 bool sends, const char *prefix);
void snet_endpoint_free(snet_endpoint *e);
/* Start the task of end e (its stream set) on worker (LPEL_ANY_WORKER:
 * the mapper's choice). */
int snet_endpoint_start(snet_endpoint *e, int worker);
/* Bytes before the records of a DATA frame. */
size_t snet_frame_header_bytes(void);
/* The communication thread hands over what arrived for e. */
void snet_endpoint_frame(snet_endpoint *e, snet_frame *f);
void snet_endpoint_credit(snet_endpoint *e, long credits, long bytes);

/* ---- detect.c: the end of a run ----------------------------------------------------- */

/* Rank 0: start a wave when due. Every rank: handle detection messages. */
void snet_detect_step(snet_dist *d);
void snet_detect_message(snet_dist *d, int src, int tag, const unsigned char *data, size_t len);

/* ---- dist_run.c ----------------------------------------------------------------------- */

/* Queue a spawn request for the spawner task (communication thread). */
void snet_dist_spawn_request(snet_dist *d, snet_spawn_req *req);
/* The run is over (FINISH): the spawner ends. */
void snet_dist_finish(snet_dist *d);
/* The spawner task of this rank (when the run is created). */
int snet_dist_start_spawner(snet_dist *d, char *err, size_t errlen);
/* SNET_OK if MPI's thread level `provided` is enough (job.c). */
int snet_distrib_check_thread_level(int provided, char *err, size_t errlen);
double snet_dist_now(void);

#endif /* SNET_DISTRIB_INTERNAL_H */
