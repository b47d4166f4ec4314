/*
 * test_snet_mig.c - message ids (MIG): unique across workers, and the
 * parent relations in the trace right for 1->1 (a box), 1->n (a fanning
 * box) and n->1 (a synchro-cell) executions, with external records having
 * none; the same when the boxes make their input record their first
 * output (snet_record_reuse, snet_out(h, in)). The trace is written by the monitor (-m mM) and read back with the
 * monitor's reader library, as the analysis tools do.
 */
#include "snet_test_util.h"

#include <check.h>
#include <lpel.h>
#include <mon.h>
#include <mon_reader.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* {n} -> {v}: n outputs (a 1->n execution) */
static int box_fan(snet_handle *h, snet_record *in)
{
    for (long i = 0; i < snet_record_int(in, "n"); i++) {
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "v", i);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

static int box_v(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "v", snet_record_int(in, "v"));
    return snet_out(h, out);
}

/* The same two boxes updating their input into their first output. */
static int box_fan_reuse(snet_handle *h, snet_record *in)
{
    long n = snet_record_int(in, "n");
    for (long i = 0; i < n; i++) {
        snet_record *out = snet_record_reuse(h);
        if (out)
            snet_record_remove(out, SNET_FIELD, "n");
        else
            out = snet_record_new();
        snet_record_set_int(out, "v", i);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

static int box_v_reuse(snet_handle *h, snet_record *in) { return snet_out(h, in); }

/* ---- what the trace says -------------------------------------------------------------- */

#define MAX_MSGS 4096
#define MAX_TASKS 256

typedef struct msg_info {
    uint64_t id;
    char writer[64];
    uint64_t parents[8];
    size_t nparents;
} msg_info;

typedef struct trace_view {
    msg_info msgs[MAX_MSGS];
    size_t nmsgs;
    uint64_t task_ids[MAX_TASKS];
    char task_names[MAX_TASKS][64];
    size_t ntasks;
} trace_view;

typedef struct task_reads {
    uint64_t task;
    uint64_t reads[8];
    size_t nreads;
} task_reads;

static const char *task_name(const trace_view *v, uint64_t task)
{
    for (size_t i = 0; i < v->ntasks; i++)
        if (v->task_ids[i] == task)
            return v->task_names[i];
    return "?";
}

static task_reads *reads_of(task_reads *tr, size_t *n, uint64_t task)
{
    for (size_t i = 0; i < *n; i++)
        if (tr[i].task == task)
            return &tr[i];
    ck_assert_uint_lt(*n, MAX_TASKS);
    tr[*n] = (task_reads){.task = task};
    return &tr[(*n)++];
}

static void read_trace(const char *dir, trace_view *v)
{
    mon_trace *t;
    char err[256];
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    static task_reads tr[MAX_TASKS];
    size_t ntr = 0;
    mon_event ev;
    int rc;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        if (ev.kind == MON_EV_TASK_MAP && v->ntasks < MAX_TASKS) {
            v->task_ids[v->ntasks] = ev.task;
            snprintf(v->task_names[v->ntasks++], 64, "%s", ev.name);
        } else if (ev.kind == MON_EV_COMPONENT_BEGIN) {
            reads_of(tr, &ntr, ev.task)->nreads = 0;
        } else if (ev.kind == MON_EV_MESSAGE_READ) {
            task_reads *r = reads_of(tr, &ntr, ev.task);
            ck_assert_uint_lt(r->nreads, 8);
            r->reads[r->nreads++] = ev.msg;
        } else if (ev.kind == MON_EV_MESSAGE_WRITTEN) {
            task_reads *r = reads_of(tr, &ntr, ev.task);
            ck_assert_uint_lt(v->nmsgs, MAX_MSGS);
            msg_info *m = &v->msgs[v->nmsgs++];
            m->id = ev.msg;
            snprintf(m->writer, sizeof m->writer, "%s", task_name(v, ev.task));
            memcpy(m->parents, r->reads, r->nreads * sizeof r->reads[0]);
            m->nparents = r->nreads;
        }
    }
    ck_assert_int_eq(rc, MON_TRACE_END);
    mon_trace_close(t);
}

static const msg_info *find_msg(const trace_view *v, uint64_t id)
{
    for (size_t i = 0; i < v->nmsgs; i++)
        if (v->msgs[i].id == id)
            return &v->msgs[i];
    return NULL;
}

/* ---- the run ---------------------------------------------------------------------------- */

static void put_int(snet_run *run, const char *label, long value)
{
    snet_record *r = snet_record_new();
    snet_record_set_int(r, label, value);
    snet_run_put(run, r);
}

static void remove_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static void check_parents_in_trace(snet_box_fn fan_fn, snet_box_fn v_fn)
{
    char dir[] = "/tmp/snet-mig-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    mon_options mo = mon_options_default();
    char err[256];
    ck_assert_int_eq(mon_flags_parse("mM", &mo.flags, err, sizeof err), 0);
    mo.dir = dir;
    mon *m;
    lpel_hooks hooks;
    char *argv[] = {"test_snet_mig", NULL};
    ck_assert_msg(mon_open(&m, &mo, 1, argv, &hooks, err, sizeof err) == 0, "%s", err);

    snet_net *net = snet_parallel(
        snet_serial(snet_box("fan", "{n} -> {v}", fan_fn, NULL),
                    snet_box("id", "{v} -> {v}", v_fn, NULL)),
        snet_sync("[| {a}, {b} |]"));
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = test_workers();
    cfg.lpel.hooks = mon_lpel_hooks(m);
    snet_run *run;
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, err, sizeof err), SNET_OK);
    put_int(run, "n", 3);
    put_int(run, "a", 1);
    put_int(run, "n", 2);
    put_int(run, "b", 2);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    uint64_t out_ids[8];
    size_t nout = 0;
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o))
        out_ids[nout++] = snet_record_id(o);
    ck_assert_uint_eq(nout, 6);
    snet_run_destroy(run);
    ck_assert_int_eq(mon_close(m), 0);

    static trace_view v;
    memset(&v, 0, sizeof v);
    read_trace(dir, &v);
    /* 4 external + 5 fan + 5 id + 1 merge, each written exactly once */
    ck_assert_uint_eq(v.nmsgs, 15);
    for (size_t i = 0; i < v.nmsgs; i++)
        for (size_t j = i + 1; j < v.nmsgs; j++)
            ck_assert_msg(v.msgs[i].id != v.msgs[j].id, "id %llx written twice",
                          (unsigned long long)v.msgs[i].id);
    size_t ext = 0, fan = 0, id = 0, merge = 0;
    for (size_t i = 0; i < v.nmsgs; i++) {
        const msg_info *mi = &v.msgs[i];
        ck_assert_uint_lt(mon_msg_id_worker(mi->id), test_workers());
        if (!strcmp(mi->writer, "snet.in")) {
            ext++;
            ck_assert_uint_eq(mi->nparents, 0);
        } else if (!strcmp(mi->writer, "P0:S1:fan")) {
            fan++; /* 1->n: one parent, an external record */
            ck_assert_uint_eq(mi->nparents, 1);
            ck_assert_str_eq(find_msg(&v, mi->parents[0])->writer, "snet.in");
        } else if (!strcmp(mi->writer, "P0:S2:id")) {
            id++; /* 1->1: one parent, a fan output */
            ck_assert_uint_eq(mi->nparents, 1);
            ck_assert_str_eq(find_msg(&v, mi->parents[0])->writer, "P0:S1:fan");
        } else if (!strcmp(mi->writer, "P1:sync")) {
            merge++; /* n->1: both stored records */
            ck_assert_uint_eq(mi->nparents, 2);
            ck_assert_str_eq(find_msg(&v, mi->parents[0])->writer, "snet.in");
            ck_assert_str_eq(find_msg(&v, mi->parents[1])->writer, "snet.in");
            ck_assert_uint_ne(mi->parents[0], mi->parents[1]);
        } else {
            ck_abort_msg("message written by unexpected task '%s'", mi->writer);
        }
    }
    ck_assert_uint_eq(ext, 4);
    ck_assert_uint_eq(fan, 5);
    ck_assert_uint_eq(id, 5);
    ck_assert_uint_eq(merge, 1);
    /* fan: 3 outputs share one parent, 2 another */
    uint64_t p3 = 0, p2 = 0;
    size_t c3 = 0, c2 = 0;
    for (size_t i = 0; i < v.nmsgs; i++) {
        if (strcmp(v.msgs[i].writer, "P0:S1:fan"))
            continue;
        uint64_t p = v.msgs[i].parents[0];
        if (!p3 || p == p3)
            p3 = p, c3++;
        else if (!p2 || p == p2)
            p2 = p, c2++;
    }
    ck_assert_msg((c3 == 3 && c2 == 2) || (c3 == 2 && c2 == 3), "fan groups %zu/%zu", c3, c2);
    /* what left the network is what the trace says was written last */
    for (size_t i = 0; i < nout; i++) {
        const msg_info *mi = find_msg(&v, out_ids[i]);
        ck_assert_ptr_nonnull(mi);
        ck_assert(!strcmp(mi->writer, "P0:S2:id") || !strcmp(mi->writer, "P1:sync"));
    }
    snet_net_free(net);
    remove_tree(dir);
}

START_TEST(test_parents_in_trace) { check_parents_in_trace(box_fan, box_v); }
END_TEST

START_TEST(test_parents_in_trace_reused_records)
{
    check_parents_in_trace(box_fan_reuse, box_v_reuse);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(test_ids_unique_across_workers)
{
    unsigned workers = test_workers();
    long n = test_records(1000000) / 10;
    /* replicas on every worker produce the outputs: ids from all workers */
    snet_net *net = snet_split_at(snet_box("id", "{x} -> {x}", box_identity, NULL), "<t>");
    gen_input g = {0, n, 64, "x", "t"};
    run_result r = run_net(net, workers, gen_next, &g);
    ck_assert_int_eq(r.rc, SNET_OK);
    ck_assert_uint_eq(r.nout, (size_t)n);
    uint64_t *ids = malloc(r.nout * sizeof *ids);
    unsigned seen_workers = 0;
    for (size_t i = 0; i < r.nout; i++) {
        ids[i] = snet_record_id(r.out[i]);
        ck_assert_uint_lt(mon_msg_id_worker(ids[i]), workers);
        ck_assert_uint_ne(mon_msg_id_seq(ids[i]), 0);
        seen_workers |= 1u << (mon_msg_id_worker(ids[i]) % 32);
    }
    qsort(ids, r.nout, sizeof *ids, cmp_u64);
    for (size_t i = 1; i < r.nout; i++)
        ck_assert_msg(ids[i] != ids[i - 1], "duplicate id %llx", (unsigned long long)ids[i]);
    ck_assert_msg(__builtin_popcount(seen_workers) >= 2, "ids from one worker only");
    free(ids);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_mig");
    TCase *tc = tcase_create("mig");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_parents_in_trace);
    tcase_add_test(tc, test_parents_in_trace_reused_records);
    tcase_add_test(tc, test_ids_unique_across_workers);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
