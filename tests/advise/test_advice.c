/*
 * test_advice.c - the mapping advice on traces whose mapping quality is
 * known on paper (advise_fixture.c): an obviously bad mapping is changed
 * into a balanced one predicted about twice as fast; a balanced one and
 * one whose largest load is a single task are left alone; the stream table
 * the advice weighs communication with counts every item; the mapping
 * file names every task; a trace of two runs and an event file are refused.
 */
#include "advise_fixture.h"
#include "advice.h"
#include "wfb.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static wfb_graph *fixture_graph(const char *name)
{
    char dir[] = "/tmp/advice.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(advise_fixture_write(name, dir), 0);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    ck_assert_msg(wfb_import_lpel_trace(g, dir, &err) == 0, "%s", err.msg);
    remove_tree(dir);
    return g;
}

static const advice_group *group(const advice_result *a, const char *name)
{
    for (size_t i = 0; i < a->n_groups; i++)
        if (!strcmp(a->groups[i].name, name))
            return &a->groups[i];
    ck_abort_msg("no task name %s in the advice", name);
    return NULL;
}

static const char *const WORK[] = {"S2:I0:work", "S2:I1:work", "S2:I2:work", "S2:I3:work"};

START_TEST(stream_table_counts_every_item)
{
    wfb_graph *g = fixture_graph("bad");
    ck_assert_uint_eq(wfb_stream_stats_count(g), 8);
    uint64_t items = 0;
    for (size_t i = 0; i < wfb_stream_stats_count(g); i++) {
        const wfb_stream_stats *s = wfb_stream_stats_at(g, i);
        ck_assert_uint_eq(s->writes, 1);
        ck_assert_uint_ne(s->writer, 0);
        ck_assert_uint_ne(s->reader, 0);
        if (s->stream <= 14) /* src (task 1) -> work task */
            ck_assert_uint_eq(s->writer, 1);
        else /* work task -> sink (task 6) */
            ck_assert_uint_eq(s->reader, 6);
        items += s->writes;
    }
    ck_assert_uint_eq(items, 8);
    wfb_graph_free(g);
}
END_TEST

START_TEST(bad_mapping_is_changed)
{
    wfb_graph *g = fixture_graph("bad");
    advice_result a;
    wfb_error err;
    ck_assert_msg(advice_compute(g, NULL, &a, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.workers, 2);
    ck_assert_uint_eq(a.n_groups, 6);
    ck_assert_uint_eq(a.n_tasks, 6);
    ck_assert_uint_eq(a.items, 8);
    ck_assert_uint_eq(a.cross_now, 4); /* the four results go to the sink on worker 1 */
    /* on paper: 400 us of work on worker 0, none on worker 1 */
    ck_assert(fabs(a.per_worker[0].load_now_s - 400.04e-6) < 1e-9);
    ck_assert(a.per_worker[1].load_now_s < 1e-7);
    ck_assert(fabs(a.measured_span_s - 400.3e-6) < 1e-9);
    ck_assert(a.predicted_now_s <= a.measured_span_s + 1e-12);
    ck_assert(a.change);
    /* two work tasks on each worker: about half the time */
    unsigned on[2] = {0, 0};
    for (size_t k = 0; k < 4; k++)
        on[group(&a, WORK[k])->worker_advised]++;
    ck_assert_uint_eq(on[0], 2);
    ck_assert_uint_eq(on[1], 2);
    ck_assert(a.predicted_advised_s < 0.55 * a.predicted_now_s);
    ck_assert(advice_span_advised(&a) < 0.55 * advice_span_now(&a));
    ck_assert(a.moved_groups >= 2);
    /* the evidence: worker 1 waits nearly all of its span */
    ck_assert(a.per_worker[1].wait_s > 0.9 * a.per_worker[1].span_s);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

START_TEST(report_names_the_problem)
{
    wfb_graph *g = fixture_graph("bad");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(advice_report(&a, "bad", f), 0);
    fclose(f);
    ck_assert_msg(strstr(text, "load imbalance: worker 0 executes 100.0 %"), "%s", text);
    ck_assert_msg(strstr(text, "change the mapping"), "%s", text);
    free(text);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

/* The file says the workers it is for ("workers 2", once); every other line
 * is PATTERN WORKER; every task name of the trace is matched by a line
 * (exactly or under a "**" pattern). The runtime's matcher checks the
 * workers in the CLI test (map_lookup). */
START_TEST(mapping_file_covers_every_task)
{
    wfb_graph *g = fixture_graph("bad");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), 0);
    char *text = NULL;
    size_t len = 0, lines = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(advice_write_mapping(&a, "bad", f, &lines), 0);
    fclose(f);
    ck_assert(lines >= 2 && lines <= 6);
    size_t seen = 0, workers_lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char pat[256];
        unsigned w;
        ck_assert_msg(sscanf(line, "%255s %u", pat, &w) == 2, "bad line '%s'", line);
        if (!strcmp(pat, "workers")) {
            ck_assert_uint_eq(w, 2);
            workers_lines++;
            continue;
        }
        ck_assert_uint_lt(w, 2);
        seen++;
    }
    ck_assert_uint_eq(workers_lines, 1);
    ck_assert_uint_eq(seen, lines);
    free(text);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

START_TEST(good_mapping_is_kept)
{
    wfb_graph *g = fixture_graph("good");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), 0);
    ck_assert(!a.change);
    ck_assert(fabs(a.per_worker[0].load_now_s - a.per_worker[1].load_now_s) < 1e-6);
    for (size_t i = 0; i < a.n_groups; i++)
        ck_assert_uint_eq(a.groups[i].worker_advised, a.groups[i].worker_now);
    ck_assert_uint_eq(a.moved_groups, 0);
    /* never a mapping predicted slower, and nothing predicted 5 % faster */
    ck_assert(advice_span_advised(&a) >= advice_span_now(&a) * 0.95);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

START_TEST(one_heavy_task_is_kept)
{
    wfb_graph *g = fixture_graph("heavy");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), 0);
    ck_assert(!a.change);
    ck_assert_uint_ge(a.n_top_groups, 1);
    ck_assert_str_eq(a.groups[a.top_groups[0]].name, "S2:I0:work");
    /* the best found cannot beat the one task's 400 us */
    ck_assert(a.predicted_advised_s >= 400e-6);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(advice_report(&a, "heavy", f), 0);
    fclose(f);
    ck_assert_msg(strstr(text, "one task name is too heavy to balance: S2:I0:work"), "%s", text);
    ck_assert_msg(strstr(text, "already good"), "%s", text);
    free(text);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

/* A minimum gain above the predicted one keeps the mapping; a message cost
 * that the measured span cannot hold is lowered to what it can. */
START_TEST(min_gain_keeps_the_mapping)
{
    wfb_graph *g = fixture_graph("bad");
    advice_result a;
    wfb_error err;
    advice_options opt = {-1, 0.6, 0}; /* the gain is about 50 % */
    ck_assert_int_eq(advice_compute(g, &opt, &a, &err), 0);
    ck_assert(!a.change);
    ck_assert_uint_eq(a.moved_groups, 0);
    advice_free(&a);
    opt = (advice_options){1.0, -1, 0}; /* 1 s per item: capped by the measured span */
    ck_assert_int_eq(advice_compute(g, &opt, &a, &err), 0);
    ck_assert(a.message_cost_s < 1e-6);
    ck_assert(a.predicted_now_s <= a.measured_span_s + 1e-12);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

/* Equal loads, but the steps of both chains reach each worker together:
 * only the replay of the dependencies sees the 100 us lost. */
START_TEST(workers_taking_turns_are_seen)
{
    wfb_graph *g = fixture_graph("turns");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), 0);
    ck_assert(fabs(a.per_worker[0].load_now_s - a.per_worker[1].load_now_s) < 1e-6);
    ck_assert_msg(a.replay_now_s >= 500e-6 && a.replay_now_s < 510e-6, "replay %g", a.replay_now_s);
    ck_assert(a.change);
    ck_assert_msg(a.replay_advised_s >= 400e-6 && a.replay_advised_s < 410e-6, "replay %g", a.replay_advised_s);
    for (unsigned c = 0; c < 2; c++) {
        char first[32];
        snprintf(first, sizeof first, "S2:I%u:S1:step", c);
        uint32_t w = group(&a, first)->worker_advised;
        for (unsigned k = 2; k <= 4; k++) {
            char name[32];
            snprintf(name, sizeof name, "S2:I%u:S%u:step", c, k);
            ck_assert_msg(group(&a, name)->worker_advised == w, "%s apart from its chain", name);
        }
    }
    ck_assert_uint_ne(group(&a, "S2:I0:S1:step")->worker_advised,
                      group(&a, "S2:I1:S1:step")->worker_advised);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(advice_report(&a, "turns", f), 0);
    fclose(f);
    ck_assert_msg(strstr(text, "workers take turns"), "%s", text);
    free(text);
    advice_free(&a);
    wfb_graph_free(g);
}
END_TEST

START_TEST(two_runs_are_refused)
{
    wfb_graph *g = fixture_graph("tworuns");
    advice_result a;
    wfb_error err;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), -1);
    ck_assert_msg(strstr(err.msg, "2 runs"), "%s", err.msg);
    wfb_graph_free(g);
}
END_TEST

START_TEST(event_files_are_refused)
{
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    const char *text = "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"active\",\"time\":1}\n"
                       "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"completed\",\"time\":2}\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_int_eq(wfb_import_jsonl(g, f, "inline", NULL, &err), 0);
    fclose(f);
    advice_result a;
    ck_assert_int_eq(advice_compute(g, NULL, &a, &err), -1);
    ck_assert_msg(strstr(err.msg, "not an LPEL trace"), "%s", err.msg);
    wfb_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("advise");
    TCase *tc = tcase_create("advise");
    tcase_add_test(tc, stream_table_counts_every_item);
    tcase_add_test(tc, bad_mapping_is_changed);
    tcase_add_test(tc, report_names_the_problem);
    tcase_add_test(tc, mapping_file_covers_every_task);
    tcase_add_test(tc, good_mapping_is_kept);
    tcase_add_test(tc, one_heavy_task_is_kept);
    tcase_add_test(tc, min_gain_keeps_the_mapping);
    tcase_add_test(tc, workers_taking_turns_are_seen);
    tcase_add_test(tc, two_runs_are_refused);
    tcase_add_test(tc, event_files_are_refused);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
