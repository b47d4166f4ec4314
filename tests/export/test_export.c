/*
 * test_export.c - the export library (export/export.h) on its own, without
 * snetmon, on a trace written by hand whose every period is known: worker 0
 * runs task 1 from 100 ns, task 2 is dispatched at 200 (task 1's block was
 * lost: its period ends there), blocks on input at 300; the worker waits
 * from 400 to 500; task 3 runs from 600 until the worker ends at 700 (its
 * block lost too). Every exporter must show the periods of the trace
 * reader's period layer, lost ends included: Chrome slices, OTF2
 * Enter/Leave pairs, and the LOGFORMAT 2.2 entries.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"
#include "mon.h"
#include "mon_emit_internal.h"
#include "mon_fixture.h"
#include "mon_writer_internal.h"

static char dir[4096], out[4200];

/* The trace above, in dir; the exporters' output goes under out. */
static void setup(void)
{
    fixture_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out", dir);
    char trace[4200], ctf[4300], err[512];
    snprintf(trace, sizeof trace, "%s/trace", dir);
    ck_assert_int_eq(fixture_trace_dir(trace, 1, MON_FLAG_ALL, ctf, sizeof ctf), 0);
    mon_writer *w = mon_writer_open(ctf, 0, 4096, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    mon_emit_task(w, MON_ID_RUN_START, 10, 1);
    mon_emit_bare(w, MON_ID_WORKER_START, 10);
    mon_emit_task_map(w, 20, 1, "S1:one");
    mon_emit_task_map(w, 30, 2, "S2:P0"); /* a combinator part: kind P */
    mon_emit_task_map(w, 40, 3, "S3:three");
    mon_emit_task(w, MON_ID_TASK_DISPATCH, 100, 1);
    mon_emit_task(w, MON_ID_TASK_DISPATCH, 200, 2);
    mon_emit_task_block(w, 300, 2, 0);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 400);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 500);
    mon_emit_task(w, MON_ID_TASK_DISPATCH, 600, 3);
    mon_emit_bare(w, MON_ID_WORKER_END, 700);
    ck_assert_int_eq(mon_writer_close(w), 0);
}

static void teardown(void) { fixture_rmdir(dir); }

/* The source: the reader itself, reopened to rewind. */
typedef struct reading {
    mon_trace *t;
    char path[4200];
} reading;

static int next(void *ctx, mon_event *ev)
{
    int rc = mon_trace_next(((reading *)ctx)->t, ev);
    return rc == MON_TRACE_EVENT ? 1 : rc == MON_TRACE_END ? 0 : -1;
}

static int rewind_trace(void *ctx)
{
    reading *r = ctx;
    char err[512];
    mon_trace_close(r->t);
    return mon_trace_open(&r->t, r->path, err, sizeof err);
}

static const mon_trace *trace_of(void *ctx) { return ((reading *)ctx)->t; }

static export_source open_source(reading *r)
{
    char err[512];
    snprintf(r->path, sizeof r->path, "%s/trace", dir);
    ck_assert_msg(mon_trace_open(&r->t, r->path, err, sizeof err) == 0, "%s", err);
    return (export_source){.ctx = r, .next = next, .rewind = rewind_trace, .trace = trace_of};
}

START_TEST(chrome_slices_are_the_periods)
{
    reading r;
    export_source src = open_source(&r);
    char *text = NULL, err[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    export_summary sum;
    ck_assert_int_eq(export_chrome(&src, f, &sum, err, sizeof err), 0);
    fclose(f);
    mon_trace_close(r.t);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    ck_assert_msg(root != NULL, "not JSON: %s at %d", je.text, je.line);
    /* name (kind), start, duration in µs, how it ended */
    static const struct {
        const char *kind;
        double ts, dur;
        const char *ended;
    } want[] = {{"one", 0.09, 0.1, "lost"}, {"P", 0.19, 0.1, "block input"},
                {"three", 0.59, 0.1, "lost"}};
    size_t slices = 0, waits = 0, i;
    json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X"))
            continue;
        if (!strcmp(json_string_value(json_object_get(e, "cat")), "worker")) {
            waits++;
            ck_assert_double_eq_tol(json_real_value(json_object_get(e, "dur")), 0.1, 1e-9);
            continue;
        }
        ck_assert_uint_lt(slices, 3);
        json_t *args = json_object_get(e, "args");
        ck_assert_str_eq(json_string_value(json_object_get(e, "name")), want[slices].kind);
        ck_assert_double_eq_tol(json_real_value(json_object_get(e, "ts")), want[slices].ts, 1e-9);
        ck_assert_double_eq_tol(json_real_value(json_object_get(e, "dur")), want[slices].dur, 1e-9);
        ck_assert_str_eq(json_string_value(json_object_get(args, "ended_by")), want[slices].ended);
        slices++;
    }
    ck_assert_uint_eq(slices, 3);
    ck_assert_uint_eq(waits, 1);
    /* the summary snetmon prints counts what the JSON holds */
    ck_assert_uint_eq(sum.locations, 1);
    ck_assert_uint_eq(sum.periods, slices);
    ck_assert_uint_eq(sum.waits, waits);
    ck_assert_uint_eq(sum.regions, 0);
    ck_assert_ptr_nonnull(json_object_get(json_object_get(root, "otherData"), "messages"));
    json_decref(root);
    free(text);
}
END_TEST

START_TEST(otf2_regions_are_the_periods)
{
    reading r;
    export_source src = open_source(&r);
    char err[512];
    ck_assert_int_eq(mkdir(out, 0777), 0);
    export_summary sum;
    ck_assert_msg(export_otf2(&src, out, &sum, err, sizeof err) == 0, "%s", err);
    mon_trace_close(r.t);
    ck_assert_uint_eq(sum.locations, 1);
    ck_assert_uint_eq(sum.periods, 3);
    ck_assert_uint_eq(sum.waits, 1);
    ck_assert_uint_eq(sum.regions, 4); /* one, P, three, waiting */
    char path[4300];
    snprintf(path, sizeof path, "%s/traces.otf2", out);
    ck_assert_int_ne(fixture_file_size(path), -1);
}
END_TEST

/* LOGFORMAT 2.2 has a letter for each measured end only: task 2's entry
 * with its 100 ns, the wait's entry, and none for the lost ends. */
START_TEST(logformat_entries_are_the_periods)
{
    reading r;
    export_source src = open_source(&r);
    char err[512];
    ck_assert_int_eq(mkdir(out, 0777), 0);
    ck_assert_msg(export_logformat(&src, out, err, sizeof err) == 0, "%s", err);
    mon_trace_close(r.t);
    char path[4300], text[4096] = "";
    snprintf(path, sizeof path, "%s/mon_n00_worker00.log", out);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    ck_assert_msg(strstr(text, "290I2 100 |#") != NULL, "task 2's entry: %s", text);
    ck_assert_msg(strstr(text, "490W100#") != NULL, "the wait's entry: %s", text);
    size_t entries = 0;
    for (const char *c = text; *c; c++)
        entries += *c == '|';
    ck_assert_msg(entries == 1, "entries for lost ends: %s", text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("export");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, chrome_slices_are_the_periods);
    tcase_add_test(tc, otf2_regions_are_the_periods);
    tcase_add_test(tc, logformat_entries_are_the_periods);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
