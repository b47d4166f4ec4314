/*
 * fuzz_wfb.c - see fuzz_wfb.h.
 */
#include "fuzz_wfb.h"

#include "fuzz.h"

static void report_paths(const wfb_graph *g, FILE *sink)
{
    wfb_error err;
    wfb_path longest = {0}, as_executed = {0};
    if (wfb_longest_path(g, &longest, &err) == 0 &&
        wfb_as_executed_path(g, &as_executed, &err) == 0) {
        wfb_report_wcp(g, &longest, &as_executed, WFB_OUT_TEXT, sink);
        wfb_report_wcp(g, &longest, &as_executed, WFB_OUT_JSON, sink);
        wfb_write_dot(g, &longest, &as_executed, sink);
    }
    wfb_path_free(&longest);
    wfb_path_free(&as_executed);
}

static void report_metrics(const wfb_graph *g, FILE *sink)
{
    wfb_error err;
    wfb_activity_report act;
    wfb_message_report msg;
    if (wfb_activity_metrics_compute(g, &act, &err) != 0)
        return;
    if (wfb_message_metrics_compute(g, 0, &msg, &err) != 0) {
        wfb_activity_report_free(&act);
        return;
    }
    wfb_metrics_input in = {.activities = &act, .messages = &msg};
    uint32_t *anomalies = NULL;
    in.n_anomalies = wfb_activity_anomalies(g, &anomalies);
    in.anomalies = anomalies;
    wfb_report_metrics(g, &in, WFB_OUT_TEXT, sink);
    wfb_report_metrics(g, &in, WFB_OUT_JSON, sink);
    wfb_report_metrics(g, &in, WFB_OUT_CSV, sink);
    free(anomalies);
    wfb_activity_report_free(&act);
    wfb_message_report_free(&msg);
}

/* What we write as JSON Lines we must be able to read back. */
static void check_round_trip(const wfb_graph *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    int written = wfb_write_jsonl(g, out);
    fclose(out);
    if (written == 0) {
        FILE *in = fuzz_input_file((const uint8_t *)text, len);
        wfb_graph *back = wfb_graph_new();
        wfb_error err;
        if (in && back) {
            int rc = wfb_import_jsonl(back, in, "round-trip", NULL, &err);
            if (rc != 0)
                wfb_error_print(&err, stderr);
            FUZZ_CHECK(rc == 0);
            FUZZ_CHECK(wfb_vertex_count(back) == wfb_vertex_count(g));
            FUZZ_CHECK(wfb_edge_count(back) == wfb_edge_count(g));
        }
        wfb_graph_free(back);
        if (in)
            fclose(in);
    }
    free(text);
}

void fuzz_wfb_analyse(const wfb_graph *g)
{
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return;
    report_paths(g, sink);
    report_metrics(g, sink);
    fclose(sink);
    check_round_trip(g);
}
