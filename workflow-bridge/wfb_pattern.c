/*
 * wfb_pattern.c - a pcre2 pattern over ids and names (wfb.h): what
 * `--subgraph RE` selects of a DAG's activities (wfb_metrics.c) and
 * `whatif --tasks RE` of a trace's tasks, compiled and matched in one place
 * with one wording of a bad pattern.
 */
#include "wfb_internal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdlib.h>
#include <string.h>

struct wfb_pattern {
    pcre2_code *re;
    pcre2_match_data *md;
};

int wfb_pattern_compile(const char *pattern, const char *what, wfb_pattern **out, wfb_error *err)
{
    *out = NULL;
    if (!pattern)
        return 0;
    wfb_pattern *p = calloc(1, sizeof *p);
    if (!p) {
        wfb_set_error(err, NULL, 0, "out of memory");
        return -1;
    }
    int code;
    PCRE2_SIZE offset;
    p->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (!p->re) {
        PCRE2_UCHAR msg[200];
        pcre2_get_error_message(code, msg, sizeof msg);
        wfb_set_error(err, NULL, 0, "bad %s pattern '%s' at %zu: %s", what, pattern,
                      (size_t)offset, (const char *)msg);
        free(p);
        return -1;
    }
    p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
    if (!p->md) {
        wfb_pattern_free(p);
        wfb_set_error(err, NULL, 0, "out of memory");
        return -1;
    }
    *out = p;
    return 0;
}

bool wfb_pattern_match(const wfb_pattern *p, const char *text)
{
    return !p || (text && pcre2_match(p->re, (PCRE2_SPTR)text, strlen(text), 0, 0, p->md, NULL) >= 0);
}

void wfb_pattern_free(wfb_pattern *p)
{
    if (!p)
        return;
    pcre2_match_data_free(p->md);
    pcre2_code_free(p->re);
    free(p);
}
